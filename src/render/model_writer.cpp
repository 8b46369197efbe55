// attn init's starter model file: JSON with // comments, one matrix row per line.
#include <algorithm>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "json_text.hpp"

namespace attn {
namespace {

void row(std::string& out, std::span<const double> values) {
    out += '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
        out += i > 0 ? ", " : "";
        json_text::append_number(out, values[i]);
    }
    out += ']';
}

void matrix(std::string& out, std::string_view indent, const Matrix& m) {
    out += "[\n";
    for (std::size_t r = 0; r < m.rows(); ++r) {
        out += indent;
        out += "  ";
        row(out, m.row(r));
        out += r + 1 < m.rows() ? ",\n" : "\n";
    }
    out += indent;
    out += ']';
}

}  // namespace

std::string render_model_file(const Input& in, const Config& c, std::string_view command) {
    std::string out;
    out += "// An attn model file: the numbers of one lesson, ready to edit.\n";
    out += fmt::format("// Made by: {}\n", command);
    out += "// Run it with:  attn explain --model THIS-FILE\n";
    out +=
        "// Lines starting with // are comments; the rest is JSON. Format: docs/json-format.md\n";
    out += "{\n";
    out += "  \"schema\": \"attn.model\",\n";
    out += "  \"description\": ";
    json_text::append_string(
        out, in.description.empty() ? "A starter lesson with seeded numbers" : in.description);
    out += ",\n  // used when attn explain is given no sentence\n  \"sentence\": ";
    json_text::append_string(out, in.sentence);
    out += fmt::format(",\n  \"mask\": \"{}\",\n", to_string(c.mask));
    out += fmt::format("  \"tokenizer\": {{\"mode\": \"{}\", \"lowercase\": {}}},\n",
                       to_string(c.tokenizer.mode), c.tokenizer.lowercase ? "true" : "false");
    out += "  \"embeddings\": {\n";
    out += "    // true: look tokens up ignoring case, so \"The\" finds \"the\"\n";
    out += "    \"case_insensitive\": false,\n";
    out += fmt::format(
        "    // one vector of d_model = {} numbers per token; add a line for every "
        "new word\n",
        c.d_model);
    out += "    \"vectors\": {\n";
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < in.tokens.size(); ++i) {
        if (std::find(seen.begin(), seen.end(), in.tokens[i]) != seen.end()) {
            continue;  // a repeated token has one vector
        }
        seen.push_back(in.tokens[i]);
        out += seen.size() > 1 ? ",\n      " : "      ";
        json_text::append_string(out, in.tokens[i]);
        out += ": ";
        row(out, in.x.row(i));
    }
    out += "\n    }\n  },\n";
    out += "  \"weights\": {\n";
    if (c.n_heads > 1) {
        out += fmt::format(
            "    // {} heads: head h uses columns h·d_k to (h+1)·d_k - 1 of W_Q and "
            "W_K, and likewise of W_V\n",
            c.n_heads);
        out += fmt::format("    \"heads\": {},\n", c.n_heads);
    }
    const std::string_view k_width = c.n_heads > 1 ? "(heads·d_k)" : "d_k";
    const std::string_view v_width = c.n_heads > 1 ? "(heads·d_v)" : "d_v";
    out += fmt::format(
        "    // W_Q and W_K: d_model × {} = {} × {}; one row per embedding "
        "dimension\n",
        k_width, c.d_model, c.n_heads * c.d_k);
    out += "    \"W_Q\": ";
    matrix(out, "    ", in.weights.w_q);
    out += ",\n    \"W_K\": ";
    matrix(out, "    ", in.weights.w_k);
    out += fmt::format(",\n    // W_V: d_model × {} = {} × {}\n", v_width, c.d_model,
                       c.n_heads * c.d_v);
    out += "    \"W_V\": ";
    matrix(out, "    ", in.weights.w_v);
    if (!in.weights.w_o.empty()) {
        out += fmt::format(",\n    // W_O: (heads·d_v) × d_model = {} × {}; mixes the heads\n",
                           in.weights.w_o.rows(), in.weights.w_o.cols());
        out += "    \"W_O\": ";
        matrix(out, "    ", in.weights.w_o);
    }
    out += "\n  }\n}\n";
    return out;
}

}  // namespace attn
