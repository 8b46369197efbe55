// JSON dumps read back with --from: the run a dump records (its configuration, sentence,
// tokens, sources and the input matrices of its steps), so that explaining it again
// reproduces the same walk-through.
//
// A dump is checked, not trusted (docs/hardening.md): its tokens must be the sentence's, seeded
// numbers must be the seed's (dump::check_provenance), and verify_dump() compares every value
// of the dump with the same run recomputed from the dump's inputs (both in dump_verify.cpp).
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
#include "dump_checks.hpp"
#include "reader.hpp"

namespace attn {
Loaded read_dump(const std::string& path, std::size_t max_memory, WhatIfRecord* what_if) {
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

    const WhatIfRecord record = dump::read_what_if(r, root);
    if (what_if != nullptr) {
        *what_if = record;
    }
    Input& in = out.input;
    in.sentence = r.string_value(r.require(root, "", "sentence", "the sentence"), "sentence");
    if (const Value* d = root.find("description")) {
        in.description = r.string_value(*d, "description");
    }
    if (const Value* v = root.find("training")) {
        in.training = reader::training(r, *v, "training", true);
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
        dump::swap_tokens(r, root, record, expected);  // a what-if's swapped tokens
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
                } else if (text == "set" && key == "mask") {
                    s.kind = Source::Kind::set;  // a what-if's mask (--set)
                } else if (text != "seeded") {
                    r.fail(*kind, where,
                           fmt::format("the source is \"{}\", expected \"seeded\" or \"file\"{}",
                                       shown(text), key == "mask" ? " (or \"set\")" : ""));
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
    const auto find_step = [&](std::string_view id) { return dump::find_step(steps, id); };
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
        dump::check_what_if(r, root, out, record);
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

    if (in.x.cols() != c.d_model) {
        r.fail(*config.find("d_model"), "config.d_model",
               fmt::format("d_model is {}, but the embeddings have {} columns, expected the same",
                           c.d_model, in.x.cols()));
    }
    dump::check_what_if(r, root, out, record);
    // Provenance: numbers the dump says were seeded must be what its seed gives.
    dump::check_provenance(r, root, out, record);
    return out;
}

std::pair<const Value*, std::size_t> dump::find_step(const Value& steps, std::string_view id) {
    for (std::size_t i = 0; i < steps.items.size(); ++i) {
        const Value& s = steps.items[i];
        const Value* sid = s.find("id");
        if (s.is(Type::object) && sid != nullptr && sid->is(Type::string) && sid->text == id) {
            return {&s, i};
        }
    }
    return {nullptr, 0};
}

}  // namespace attn
