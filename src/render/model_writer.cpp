// attn init's starter model file: JSON with // comments, one matrix row per line. The values
// are nlohmann/json's; json_layout lays them out.
#include <algorithm>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "json_layout.hpp"

namespace attn {
using json_layout::Json;
using json_layout::matrix;

std::string render_model_file(const Input& in, const Config& c, std::string_view command) {
    Json vectors = json_layout::vectors(in.tokens, in.x);
    Json weights = json_layout::weights(in.weights, c.n_heads);
    Json model = {{"schema", "attn.model"},
                  {"description", in.description.empty() ? "A starter lesson with seeded numbers"
                                                         : in.description}};
    if (in.training) {  // how attn train made it: read back to say which matrices it learned
        const Training& how = *in.training;
        model["training"] = {
            {"command", how.command},
            {"task", how.task},
            {"seed", how.seed},
            {"steps", how.steps},
            {"learning_rate", how.learning_rate},
            {"trained", how.trained},
            {"held_out", {{"right", how.held_out_right}, {"of", how.held_out_total}}}};
    }
    model["sentence"] = in.sentence;
    model["mask"] = to_string(c.mask);
    model["tokenizer"] = {{"mode", to_string(c.tokenizer.mode)},
                          {"lowercase", c.tokenizer.lowercase}};
    // a table of positions (learned by attn train) goes in the file; sinusoidal is a word
    if (c.positions == PositionKind::file && !in.positions.empty()) {
        model["positions"] = matrix(in.positions);
    } else if (c.positions == PositionKind::sinusoidal) {
        model["positions"] = "sinusoidal";
    }
    model["embeddings"] = {{"case_insensitive", false}, {"vectors", std::move(vectors)}};
    model["weights"] = std::move(weights);

    const std::string_view k_width = c.n_heads > 1 ? "(heads·d_k)" : "d_k";
    const std::string_view v_width = c.n_heads > 1 ? "(heads·d_v)" : "d_v";
    std::vector<json_layout::Comment> comments{
        {"/training", "how attn train made this file; its command makes it again, byte for byte"},
        {"/sentence", "used when attn explain is given no sentence"},
        {"/embeddings/case_insensitive",
         "true: look tokens up ignoring case, so \"The\" finds \"the\""},
        {"/embeddings/vectors",
         fmt::format("one vector of d_model = {} numbers per token; add a line for every new word",
                     c.d_model)},
        {"/weights/heads",
         fmt::format("{} heads: head h uses columns h·d_k to (h+1)·d_k - 1 of W_Q and W_K, and "
                     "likewise of W_V",
                     c.n_heads)},
        {"/weights/W_Q",
         fmt::format("W_Q and W_K: d_model × {} = {} × {}; one row per embedding dimension",
                     k_width, c.d_model, c.n_heads * c.d_k)},
        {"/weights/W_V",
         fmt::format("W_V: d_model × {} = {} × {}", v_width, c.d_model, c.n_heads * c.d_v)},
        {"/weights/W_O", fmt::format("W_O: (heads·d_v) × d_model = {} × {}; mixes the heads",
                                     in.weights.w_o.rows(), in.weights.w_o.cols())},
        {"/positions",
         fmt::format("one row of d_model = {} numbers per position, added to the embeddings "
                     "(X′ = X + P); a sentence may have up to {} tokens",
                     c.d_model, in.positions.rows())}};

    std::string out;
    out += "// An attn model file: the numbers of one lesson, ready to edit.\n";
    out += fmt::format("// Made by: {}\n", command);
    out += "// Run it with:  attn explain --model THIS-FILE\n";
    out +=
        "// Lines starting with // are comments; the rest is JSON. Format: docs/json-format.md\n";
    out += json_layout::write(model, comments);
    out += '\n';
    return out;
}

}  // namespace attn
