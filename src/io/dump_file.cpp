// JSON dumps read back with --from: the run a dump records (its configuration, sentence,
// tokens, sources and the input matrices of its steps), so that explaining it again
// reproduces the same walk-through.
#include "attn/io/model_file.hpp"

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "attn/core/trace.hpp"
#include "reader.hpp"

namespace attn {

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
        // 0 (no padding) or a size: how many <pad> tokens end the sentence
        if (!(pad->is(Type::number) && pad->text == "0")) {
            c.n_pad = r.size_value(*pad, "config.n_pad", Field::pad_to);
        }
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
    }
    if (const Value* sources = root.find("sources")) {
        const auto source = [&](std::string_view key) {
            Source s;
            const Value* v = sources->find(key);
            if (v == nullptr || !v->is(Type::object)) {
                return s;
            }
            const std::string where = child(child("sources", key), "kind");
            if (const Value* kind = v->find("kind");
                kind != nullptr && r.string_value(*kind, where) == "file") {
                s.kind = Source::Kind::file;
            }
            if (const Value* p = v->find("path")) {
                s.path = r.string_value(*p, child(child("sources", key), "path"));
            }
            if (const Value* l = v->find("layout")) {
                s.layout = r.string_value(*l, child(child("sources", key), "layout"));
            }
            if (const Value* seeded = v->find("seeded_tokens");
                seeded != nullptr && seeded->is(Type::array)) {
                for (const auto& t : seeded->items) {
                    s.seeded_tokens.push_back(t.text);
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
        if (in.qkv->q.rows() != in.tokens.size()) {
            r.fail(tokens, "tokens",
                   fmt::format("there are {} tokens but {} rows of Q, expected one row per token",
                               in.tokens.size(), in.qkv->q.rows()));
        }
        return out;
    }
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
        Mask m(rows.items.size(), rows.items.size(), true);
        for (std::size_t i = 0; i < rows.items.size(); ++i) {
            for (std::size_t j = 0; j < rows.items[i].items.size() && j < m.cols(); ++j) {
                m.set(i, j, rows.items[i].items[j].boolean);
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
    return out;
}

}  // namespace attn
