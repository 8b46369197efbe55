// JSON dumps read back with --from: the run a dump records (its configuration, sentence,
// tokens, sources and the input matrices of its steps), so that explaining it again
// reproduces the same walk-through.
//
// A dump is checked, not trusted (docs/hardening.md): its tokens must be the sentence's, seeded
// numbers must be the seed's, and verify_dump() compares every value of the dump with the
// same run recomputed from the dump's inputs.
#include "attn/io/model_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "attn/core/model.hpp"
#include "attn/core/tokenizer.hpp"
#include "attn/core/trace.hpp"
#include "attn/core/utf8.hpp"
#include "reader.hpp"

namespace attn {
namespace {

// Two numbers that a dump and its recomputation may both hold: equal up to the last bits of a
// double (the dump writes the shortest text that reads back as the same double, so a dump that
// attn wrote reads back exactly; the slack is for another build's rounding), far finer than
// any precision attn prints (at most 15 decimals: --precision).
bool same_number(double stored, double fresh) noexcept {
    if (stored == fresh) {
        return true;
    }
    if (!std::isfinite(stored) || !std::isfinite(fresh)) {
        return false;
    }
    return std::abs(stored - fresh) <= 1e-9 * std::max(std::abs(stored), std::abs(fresh)) + 1e-12;
}

std::string number_text(double v) {
    return fmt::format("{}", v);
}

// The numbers of a recorded matrix (`values` of `where`), each compared with `fresh`, which
// `claim` made ("seed 42 gives"): the first that differs is an error at its place.
void expect_numbers(const Reader& r, const Value& values, const std::string& where,
                    const Matrix& fresh, std::string_view claim, std::string_view why) {
    if (values.items.size() != fresh.rows()) {
        r.fail(values, where,
               fmt::format("there are {} rows, but {} {}, expected them ({})", values.items.size(),
                           claim, fresh.rows(), why));
    }
    for (std::size_t i = 0; i < fresh.rows(); ++i) {
        const Value& row = values.items[i];
        const auto* numbers = row.items.numbers();
        if (numbers == nullptr || numbers->size() != fresh.cols()) {
            r.fail(row, index(where, i),
                   fmt::format("row {} is not {} numbers, but {} that many, expected them ({})", i,
                               fresh.cols(), claim, why));
        }
        for (std::size_t j = 0; j < fresh.cols(); ++j) {
            if (!same_number((*numbers)[j], fresh(i, j))) {
                r.fail(
                    row.items[j], index(index(where, i), j),
                    fmt::format("the dump says {}, but {} {}, expected the same number ({})",
                                number_text((*numbers)[j]), claim, number_text(fresh(i, j)), why));
            }
        }
    }
}

}  // namespace

Loaded read_dump(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    const Value root = r.document("attn.trace", "a JSON dump written by attn explain --json");
    const Value& version = r.require(root, "", "schema_version", "the dump's schema_version");
    if (!version.is(Type::number) || version.text != std::to_string(json_schema_version)) {
        r.fail(version, "schema_version",
               fmt::format("the dump has schema version {}, expected {} (the version this attn "
                           "reads and writes)",
                           version.text.empty() ? "that is not a whole number" : version.text,
                           json_schema_version));
    }
    if (const Value* checkpoint = root.find("checkpoint")) {
        // a GPT-2 checkpoint's walk is more than the steps a dump replays: it would be
        // recomputed as another lesson, with other numbers
        r.fail(*checkpoint, "checkpoint",
               "the dump is of a GPT-2 checkpoint (attn explain --checkpoint), which --from "
               "cannot replay, expected a dump of a lesson; run the --checkpoint command again "
               "(the dump and --npz hold every number)");
    }
    Loaded out;
    Config& c = out.config;
    const Value& config = r.require(root, "", "config", "the run's configuration");
    r.expect_type(config, "config", Type::object, "an object");
    const Value& seed = r.require(config, "config", "seed", "the seed");
    c.seed = seed_of(r, seed, "config.seed");
    c.d_model = r.size_value(r.require(config, "config", "d_model", "a size"), "config.d_model",
                             Field::d_model);
    if (const Value* heads = config.find("n_heads")) {
        c.n_heads = r.size_value(*heads, "config.n_heads", Field::n_heads);
    }
    c.d_k = r.size_value(r.require(config, "config", "d_k", "a size"), "config.d_k", Field::d_k);
    c.d_v = r.size_value(r.require(config, "config", "d_v", "a size"), "config.d_v", Field::d_v);
    c.mask = mask_value(r, r.require(config, "config", "mask", "\"none\" or \"causal\""),
                        "config.mask", true);
    if (const Value* p = config.find("positions")) {
        c.positions = reader::enum_value(
            r, *p, "config.positions",
            {PositionKind::none, PositionKind::sinusoidal, PositionKind::file}, "positions");
    }
    if (const Value* arith = config.find("arith")) {
        c.arith = reader::enum_value(r, *arith, "config.arith", {Arith::exact, Arith::hand},
                                     "arithmetic");
    }
    if (const Value* scale = config.find("scale")) {
        c.scale_by = r.bool_value(*scale, "config.scale") ? ScaleBy::d_k : ScaleBy::none;
    }
    if (const Value* by = config.find("scale_by")) {
        c.scale_by = reader::enum_value(r, *by, "config.scale_by",
                                        {ScaleBy::d_k, ScaleBy::d_model, ScaleBy::none}, "scaling");
    }
    if (const Value* over = config.find("softmax_over")) {
        c.softmax_over = reader::enum_value(
            r, *over, "config.softmax_over",
            {SoftmaxOver::rows, SoftmaxOver::columns, SoftmaxOver::all}, "softmax axis");
    }
    if (const Value* pad = config.find("n_pad")) {
        // how many <pad> tokens end the sentence: 0 (no padding) or more, fewer than the
        // tokens (checked with the tokens)
        std::size_t n = 0;
        const auto [ptr, ec] =
            std::from_chars(pad->text.data(), pad->text.data() + pad->text.size(), n);
        if (!pad->is(Type::number)) {
            r.fail(*pad, "config.n_pad",
                   fmt::format("n_pad is {}, expected a whole number from 0 to {} (how many "
                               "<pad> tokens end the sentence)",
                               json::describe(pad->type), limit(Field::tokens).max));
        }
        if (pad->text.empty() || ec != std::errc() || ptr != pad->text.data() + pad->text.size() ||
            n > static_cast<std::size_t>(limit(Field::tokens).max)) {
            r.fail(*pad, "config.n_pad",
                   fmt::format("n_pad is {}, expected a whole number from 0 to {} (how many "
                               "<pad> tokens end the sentence)",
                               pad->text.empty() ? "not a whole number" : pad->text,
                               limit(Field::tokens).max));
        }
        c.n_pad = n;
    }
    c.tokenizer = tokenizer_value(r, r.require(config, "config", "tokenizer", "the tokenizer"),
                                  "config.tokenizer");

    Input& in = out.input;
    in.sentence = r.string_value(r.require(root, "", "sentence", "the sentence"), "sentence");
    if (const Value* d = root.find("description")) {
        in.description = r.string_value(*d, "description");
    }
    const Value& tokens = r.require(root, "", "tokens", "the tokens");
    r.expect_type(tokens, "tokens", Type::array, "an array of strings");
    for (std::size_t i = 0; i < tokens.items.size(); ++i) {
        in.tokens.push_back(r.string_value(tokens.items[i], index("tokens", i)));
        // a token is a label of rows and columns: something to see, on one line
        if (in.tokens.back().empty()) {
            r.fail(tokens.items[i], index("tokens", i),
                   "the token is empty, expected at least one character");
        }
        if (const auto at = utf8::first_space_or_control(in.tokens.back())) {
            r.fail(tokens.items[i], index("tokens", i),
                   fmt::format("the token \"{}\" has white space or a control character at byte "
                               "{}, expected none (the tokenizer never makes such a token)",
                               shown(in.tokens.back()), *at));
        }
    }
    if (tokens.items.empty()) {
        r.fail(tokens, "tokens", "there are no tokens, expected at least one");
    }
    const Value& sentence = *root.find("sentence");
    // the tokens must be the sentence's, as the recorded tokenizer cuts it, then n_pad <pad>
    const auto check_tokenization = [&] {
        std::vector<std::string> expected;
        try {
            expected = tokenize(in.sentence, c.tokenizer);
        } catch (const Error& e) {
            r.fail(sentence, "sentence", e.what());
        }
        expected.insert(expected.end(), c.n_pad, std::string(pad_token));
        for (std::size_t i = 0; i < std::max(expected.size(), in.tokens.size()); ++i) {
            if (i >= in.tokens.size() || i >= expected.size() || in.tokens[i] != expected[i]) {
                const std::string found =
                    i < in.tokens.size() ? "\"" + shown(in.tokens[i]) + "\"" : "no token";
                const std::string wanted =
                    i < expected.size() ? "\"" + shown(expected[i]) + "\"" : "no token";
                r.fail(i < in.tokens.size() ? tokens.items[i] : tokens, index("tokens", i),
                       fmt::format("the dump has {} here, but the sentence cut by the recorded "
                                   "tokenizer{} gives {}, expected the sentence's own tokens",
                                   found, c.n_pad > 0 ? " and n_pad" : "", wanted));
            }
        }
    };
    if (const Value* sources = root.find("sources")) {
        const auto source = [&](std::string_view key) {
            Source s;
            const Value* v = sources->find(key);
            if (v == nullptr || !v->is(Type::object)) {
                return s;
            }
            const std::string where = child(child("sources", key), "kind");
            if (const Value* kind = v->find("kind")) {
                const std::string text = r.string_value(*kind, where);
                if (text == "file") {
                    s.kind = Source::Kind::file;
                } else if (text != "seeded") {
                    r.fail(*kind, where,
                           fmt::format("the source is \"{}\", expected \"seeded\" or \"file\"",
                                       shown(text)));
                }
            }
            if (const Value* p = v->find("path")) {
                s.path = r.string_value(*p, child(child("sources", key), "path"));
            }
            if (const Value* l = v->find("layout")) {
                s.layout = r.string_value(*l, child(child("sources", key), "layout"));
            }
            if (const Value* seeded = v->find("seeded_tokens")) {
                const std::string at = child(child("sources", key), "seeded_tokens");
                r.expect_type(*seeded, at, Type::array, "an array of tokens");
                for (std::size_t i = 0; i < seeded->items.size(); ++i) {
                    s.seeded_tokens.push_back(r.string_value(seeded->items[i], index(at, i)));
                }
            }
            return s;
        };
        in.embeddings_source = source("embeddings");
        in.weights_source = source("weights");
        in.positions_source = source("positions");
        in.mask_source = source("mask");
    }
    const Value& steps = r.require(root, "", "steps", "the steps");
    r.expect_type(steps, "steps", Type::array, "an array of steps");
    const auto find_step = [&](std::string_view id) -> std::pair<const Value*, std::size_t> {
        for (std::size_t i = 0; i < steps.items.size(); ++i) {
            const Value& s = steps.items[i];
            const Value* sid = s.find("id");
            if (s.is(Type::object) && sid != nullptr && sid->is(Type::string) && sid->text == id) {
                return {&s, i};
            }
        }
        return {nullptr, 0};
    };
    const auto optional_values = [&](std::string_view id) -> Matrix {
        const auto [s, i] = find_step(id);
        if (s == nullptr) {
            return {};
        }
        const std::string where = index("steps", i);
        return r.matrix(r.require(*s, where, "values", "the step's values"),
                        child(where, "values"));
    };
    const auto step_values = [&](std::string_view id) -> Matrix {
        if (find_step(id).first == nullptr) {
            r.fail(steps, "steps",
                   fmt::format("there is no step \"{}\", expected one (the dump holds every step)",
                               id));
        }
        return optional_values(id);
    };
    if (const Value* sources = root.find("sources");
        sources != nullptr && sources->find("qkv") != nullptr) {
        // Q, K and V were given: the walk-through starts from them
        const Value& qkv = *sources->find("qkv");
        r.expect_type(qkv, "sources.qkv", Type::object,
                      "an object: {\"kind\": \"file\", \"path\": ...}");
        r.check_keys(qkv, "sources.qkv", {"kind", "path", "tokens_named"});
        GivenQkv given;
        given.path = r.string_value(r.require(qkv, "sources.qkv", "path", "the Q, K, V file"),
                                    "sources.qkv.path");
        given.q = step_values("Q");
        given.k = step_values("K");
        given.v = step_values("V");
        if (const Value* named = qkv.find("tokens_named")) {
            in.tokens_named = r.bool_value(*named, "sources.qkv.tokens_named");
        }
        in.qkv = std::move(given);
        if (in.tokens_named) {
            // the tokens name the rows; the sentence is made of them
            std::string joined;
            for (const auto& t : in.tokens) {
                joined += (joined.empty() ? "" : " ") + t;
            }
            if (in.sentence != joined) {
                r.fail(sentence, "sentence",
                       fmt::format("the sentence is \"{}\", expected the tokens joined by spaces, "
                                   "\"{}\" (the tokens name the rows of Q, K and V)",
                                   shown(in.sentence), shown(joined)));
            }
        } else {
            check_tokenization();
        }
        // Q, K and V given: one head of d_k = Q's columns (d_model is d_k), no padding, no
        // positions, and every matrix one row per token
        const auto [q_step, q_at] = find_step("Q");
        const auto [k_step, k_at] = find_step("K");
        const auto [v_step, v_at] = find_step("V");
        const auto rows_of = [&](const Matrix& m, const Value* step, std::size_t at,
                                 std::string_view id) {
            if (m.rows() != in.tokens.size()) {
                r.fail(*step->find("values"), child(index("steps", at), "values"),
                       fmt::format("{} has {} rows but there are {} tokens, expected one row "
                                   "per token",
                                   id, m.rows(), in.tokens.size()));
            }
        };
        rows_of(in.qkv->q, q_step, q_at, "Q");
        rows_of(in.qkv->k, k_step, k_at, "K");
        rows_of(in.qkv->v, v_step, v_at, "V");
        if (in.qkv->k.cols() != in.qkv->q.cols()) {
            r.fail(*k_step->find("values"), child(index("steps", k_at), "values"),
                   fmt::format("K has {} columns, expected {} like Q (d_k)", in.qkv->k.cols(),
                               in.qkv->q.cols()));
        }
        const auto config_is = [&](std::string_view key, std::size_t found, std::size_t wanted,
                                   std::string_view why) {
            if (found != wanted) {
                r.fail(*config.find(key), child("config", key),
                       fmt::format("{} is {}, expected {} ({})", key, found, wanted, why));
            }
        };
        config_is("d_k", c.d_k, in.qkv->q.cols(), "the columns of Q and K");
        config_is("d_v", c.d_v, in.qkv->v.cols(), "the columns of V");
        config_is("d_model", c.d_model, in.qkv->q.cols(),
                  "d_k: with Q, K and V given there are no embeddings");
        if (config.find("n_heads") != nullptr) {
            config_is("n_heads", c.n_heads, 1, "Q, K and V are given for one head");
        }
        if (config.find("n_pad") != nullptr) {
            config_is("n_pad", c.n_pad, 0, "Q, K and V are given without padding");
        }
        if (c.positions != PositionKind::none) {
            r.fail(*config.find("positions"), "config.positions",
                   "the positions are not \"none\", expected \"none\" (Q, K and V are given, so "
                   "no positions are added)");
        }
        return out;
    }
    check_tokenization();
    in.x = step_values("embeddings");
    in.weights.w_q = step_values("W_Q");
    in.weights.w_k = step_values("W_K");
    in.weights.w_v = step_values("W_V");
    in.weights.w_o = optional_values("W_O");
    in.weights.b_q = optional_values("b_Q");
    in.weights.b_k = optional_values("b_K");
    in.weights.b_v = optional_values("b_V");
    in.weights.b_o = optional_values("b_O");
    in.positions = optional_values("positions");
    if (c.mask == MaskKind::file || c.n_pad > 0) {
        // the recorded mask, padding included; explaining it again gives the same mask
        const auto [mask_step, at] = find_step("mask");
        if (mask_step == nullptr) {
            r.fail(steps, "steps", "there is no step \"mask\", expected one with this mask");
        }
        const Value& rows = r.require(*mask_step, index("steps", at), "values", "the mask");
        const std::string where = child(index("steps", at), "values");
        const std::size_t n = in.tokens.size();
        r.expect_type(rows, where, Type::array, "an array of rows of true and false");
        if (rows.items.size() != n) {
            r.fail(rows, where,
                   fmt::format("the mask has {} rows, expected {} (one per token)",
                               rows.items.size(), n));
        }
        Mask m(n, n, true);
        for (std::size_t i = 0; i < n; ++i) {
            const Value& row = rows.items[i];
            r.expect_type(row, index(where, i), Type::array, "a row of true and false");
            if (row.items.size() != n) {
                r.fail(row, index(where, i),
                       fmt::format("row {} of the mask has {} values, expected {} (one per "
                                   "token)",
                                   i, row.items.size(), n));
            }
            for (std::size_t j = 0; j < n; ++j) {
                m.set(i, j, r.bool_value(row.items[j], index(index(where, i), j)));
            }
        }
        in.mask = m;
    }
    if (in.x.rows() != in.tokens.size()) {
        r.fail(tokens, "tokens",
               fmt::format("there are {} tokens but {} rows of embeddings, expected one row per "
                           "token",
                           in.tokens.size(), in.x.rows()));
    }

    // Provenance: numbers the dump says were seeded must be what its seed gives, so that the
    // walk-through never claims a seed beside another seed's numbers.
    const auto values_of = [&](std::string_view id) -> std::pair<const Value*, std::string> {
        const auto [s, i] = find_step(id);
        const std::string where = child(index("steps", i), "values");
        return {s == nullptr ? nullptr : s->find("values"), where};
    };
    if (in.x.cols() != c.d_model) {
        r.fail(*config.find("d_model"), "config.d_model",
               fmt::format("d_model is {}, but the embeddings have {} columns, expected the same",
                           c.d_model, in.x.cols()));
    }
    const auto& seeded_tokens = in.embeddings_source.seeded_tokens;
    for (std::size_t i = 0; i < seeded_tokens.size(); ++i) {
        const std::string at = index("sources.embeddings.seeded_tokens", i);
        const Value& item =
            root.find("sources")->find("embeddings")->find("seeded_tokens")->items[i];
        if (std::find(in.tokens.begin(), in.tokens.end(), seeded_tokens[i]) == in.tokens.end()) {
            r.fail(item, at,
                   fmt::format("\"{}\" is not one of the tokens, expected a token whose vector "
                               "was seeded",
                               shown(seeded_tokens[i])));
        }
        if (std::find(seeded_tokens.begin(), seeded_tokens.begin() + static_cast<std::ptrdiff_t>(i),
                      seeded_tokens[i]) != seeded_tokens.begin() + static_cast<std::ptrdiff_t>(i)) {
            r.fail(item, at,
                   fmt::format("\"{}\" a second time, expected each token once",
                               shown(seeded_tokens[i])));
        }
    }
    const std::string seed_gives = fmt::format("seed {} gives", c.seed);
    const bool hand = c.arith == Arith::hand;
    if (in.embeddings_source.kind == Source::Kind::seeded) {
        Matrix fresh = seeded_embeddings(in.tokens, c.d_model, c.seed, hand);
        for (std::size_t i = in.tokens.size() - std::min(c.n_pad, in.tokens.size());
             i < in.tokens.size(); ++i) {
            for (double& value : fresh.row(i)) {
                value = 0.0;  // padding: a zero vector
            }
        }
        const auto [values, where] = values_of("embeddings");
        expect_numbers(r, *values, where, fresh, seed_gives,
                       "sources.embeddings says the embeddings were seeded");
    } else if (!in.embeddings_source.seeded_tokens.empty()) {
        Matrix fresh = in.x;  // the file's rows as recorded, the seeded ones from the seed
        const auto& seeded = in.embeddings_source.seeded_tokens;
        for (std::size_t i = 0; i < in.tokens.size(); ++i) {
            if (std::find(seeded.begin(), seeded.end(), in.tokens[i]) != seeded.end()) {
                const Matrix row = seeded_embeddings({in.tokens[i]}, c.d_model, c.seed);
                std::copy(row.row(0).begin(), row.row(0).end(), fresh.row(i).begin());
            }
        }
        const auto [values, where] = values_of("embeddings");
        expect_numbers(r, *values, where, fresh, seed_gives,
                       "sources.embeddings.seeded_tokens says these tokens' vectors were seeded");
    }
    if (in.weights_source.kind == Source::Kind::seeded) {
        const Weights fresh = seeded_weights(c);
        for (const auto& [id, matrix] :
             {std::pair{"W_Q", &fresh.w_q}, std::pair{"W_K", &fresh.w_k},
              std::pair{"W_V", &fresh.w_v}, std::pair{"W_O", &fresh.w_o}}) {
            const auto [values, where] = values_of(id);
            if (values == nullptr && matrix->empty()) {
                continue;
            }
            if (values == nullptr) {
                r.fail(steps, "steps",
                       fmt::format("there is no step \"{}\", but {} one, expected it", id,
                                   seed_gives));
            }
            expect_numbers(r, *values, where, *matrix, seed_gives,
                           "sources.weights says the weights were seeded");
        }
    }
    if (c.positions == PositionKind::sinusoidal) {
        const auto [values, where] = values_of("positions");
        if (values == nullptr) {
            r.fail(steps, "steps",
                   "there is no step \"positions\", expected one (config.positions is "
                   "\"sinusoidal\")");
        }
        expect_numbers(r, *values, where, sinusoidal_positions(in.tokens.size(), c.d_model),
                       "the sinusoidal positions are", "config.positions says \"sinusoidal\"");
    }
    return out;
}

namespace {

// Walks a dump (`stored`) and its recomputation (`fresh`) together, in the dump's order.
class Comparison {
  public:
    explicit Comparison(const Reader& r) : r_(r) {}

    void compare(const Value& stored, const Value& fresh, const std::string& where) {
        if (stored.type != fresh.type) {
            differ(stored, where, fmt::format("{}{}", json::describe(fresh.type), quote(fresh)));
        }
        switch (stored.type) {
            case Type::null:
                return;
            case Type::boolean:
                if (stored.boolean != fresh.boolean) {
                    differ(stored, where, fresh.boolean ? "true" : "false");
                }
                return;
            case Type::number:
                if (!stored.text.empty() && !fresh.text.empty()
                        ? stored.text != fresh.text  // integers, exactly (a seed up to 2^64 - 1)
                        : !same_number(stored.number, fresh.number)) {
                    differ(stored, where, number_of(fresh));
                }
                return;
            case Type::string:
                if (stored.text != fresh.text) {
                    differ(stored, where, quote(fresh).substr(1));
                }
                return;
            case Type::array:
                compare_items(stored, fresh, where);
                return;
            case Type::object:
                compare_members(stored, fresh, where);
                return;
        }
    }

  private:
    void compare_items(const Value& stored, const Value& fresh, const std::string& where) {
        if (stored.items.size() != fresh.items.size()) {
            r_.fail(stored, where,
                    fmt::format("the dump has {} items here{}, but recomputing the run from the "
                                "dump's inputs gives {}, expected the same (was the dump changed "
                                "after attn wrote it?)",
                                stored.items.size(), in_step(), fresh.items.size()));
        }
        const auto* a = stored.items.numbers();
        const auto* b = fresh.items.numbers();
        if (a != nullptr && b != nullptr) {  // a row of numbers: no Value made for each
            for (std::size_t i = 0; i < a->size(); ++i) {
                if (!same_number((*a)[i], (*b)[i])) {
                    differ(stored.items[i], index(where, i), number_text((*b)[i]));
                }
            }
            return;
        }
        for (std::size_t i = 0; i < stored.items.size(); ++i) {
            const bool step = where == "steps";
            if (step) {
                const Value* id = stored.items[i].find("id");
                step_ = id != nullptr && id->is(Type::string) ? id->text : "";
            }
            compare(stored.items[i], fresh.items[i], index(where, i));
            if (step) {
                step_.clear();
            }
        }
    }

    void compare_members(const Value& stored, const Value& fresh, const std::string& where) {
        for (const auto& [key, value] : stored.members) {
            if (where.empty() && key == "attn_version") {
                continue;  // which attn wrote it: not a claim about the numbers
            }
            const Value* other = fresh.find(key);
            if (other == nullptr) {
                r_.fail(value, child(where, key),
                        fmt::format("the dump has \"{}\"{}, but recomputing the run from the "
                                    "dump's inputs gives no such member, expected only what attn "
                                    "writes",
                                    shown(key), in_step()));
            }
            compare(value, *other, child(where, key));
        }
        for (const auto& [key, value] : fresh.members) {
            if (stored.find(key) == nullptr) {
                r_.fail(stored, where,
                        fmt::format("the dump has no \"{}\"{}, but recomputing the run from the "
                                    "dump's inputs gives one, expected every member attn writes",
                                    key, in_step()));
            }
        }
    }

    [[noreturn]] void differ(const Value& stored, const std::string& where,
                             const std::string& fresh) const {
        r_.fail(stored, where,
                fmt::format("the dump says {}{}, but recomputing the run from the dump's inputs "
                            "gives {}, expected the same (was the dump changed after attn wrote "
                            "it?)",
                            describe(stored), in_step(), fresh));
    }

    [[nodiscard]] std::string in_step() const {
        return step_.empty() ? "" : fmt::format(" in step \"{}\"", shown(step_));
    }

    static std::string quote(const Value& v) {
        if (v.is(Type::string)) {
            const std::string cut = v.text.size() > 40 ? v.text.substr(0, 40) + "..." : v.text;
            return " \"" + shown(cut) + "\"";
        }
        return "";
    }
    static std::string number_of(const Value& v) {
        return v.text.empty() ? number_text(v.number) : v.text;
    }
    static std::string describe(const Value& v) {
        switch (v.type) {
            case Type::number:
                return number_of(v);
            case Type::boolean:
                return v.boolean ? "true" : "false";
            case Type::string:
                return quote(v).substr(1);
            default:
                return std::string(json::describe(v.type));
        }
    }

    const Reader& r_;
    std::string step_;  // the id of the step being compared
};

}  // namespace

void verify_dump(const std::string& path, std::string_view recomputed) {
    Reader r(path);
    const Value stored = r.document("attn.trace", "a JSON dump written by attn explain --json");
    const Value fresh = json::parse(recomputed, "the recomputed dump");
    Comparison(r).compare(stored, fresh, "");
}

}  // namespace attn
