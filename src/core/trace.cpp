// The one list of steps in teaching order. Every renderer (text, JSON, ...) walks this list,
// so the order, ids, names, formulas and labels never diverge between outputs.
#include <array>

#include "attn/trace.hpp"

namespace attn {
namespace {

constexpr std::array<std::string_view, 14> step_id_list = {
    "tokens", "embeddings", "W_Q",           "W_K",  "W_V",           "Q",       "K",
    "V",      "scores",     "scaled_scores", "mask", "masked_scores", "weights", "output"};

Shape shape_of(const Matrix& m) {
    return {m.rows(), m.cols()};
}

}  // namespace

std::span<const std::string_view> all_step_ids() noexcept {
    return step_id_list;
}

std::vector<Step> teaching_steps(const Trace& t) {
    const std::span<const std::string> tokens = t.tokens;
    const bool masked = t.mask.has_value();
    std::vector<Step> steps;
    steps.reserve(step_id_list.size());

    const auto matrix_step = [&](std::string_view id, std::string number, std::string_view title,
                                 std::string_view symbol, std::string formula,
                                 std::string_view explanation, std::vector<Shape> operands,
                                 const Matrix& m, std::span<const std::string> rows,
                                 std::span<const std::string> cols) {
        Step s;
        s.id = id;
        s.number = std::move(number);
        s.title = title;
        s.symbol = symbol;
        s.formula = std::move(formula);
        s.explanation = explanation;
        s.operands = std::move(operands);
        s.shape = shape_of(m);
        s.matrix = &m;
        s.row_labels = rows;
        s.col_labels = cols;
        steps.push_back(std::move(s));
    };

    Step tok;
    tok.id = "tokens";
    tok.number = "1";
    tok.title = "Tokens";
    tok.symbol = "tokens";
    tok.formula = t.config.tokenizer.mode == TokenMode::chars ? "tokens = characters(sentence)"
                                                              : "tokens = words(sentence)";
    tok.explanation =
        "The sentence is cut into tokens, the units attention works on. A token's index is its "
        "position in the sequence; attention itself never sees it, only the vectors below.";
    tok.shape = {t.tokens.size(), 1};
    tok.kind = StepKind::tokens;
    tok.row_labels = tokens;
    steps.push_back(std::move(tok));

    matrix_step("embeddings", "2", "Embeddings", "X", "X = embed(tokens)",
                "Each token becomes a vector of d_model numbers, looked up by its text. Row i "
                "of X stands for token i: from here on, attention only sees these numbers.",
                {}, t.x, tokens, t.dim_labels);

    matrix_step("W_Q", "3a", "Query weights", "W_Q", "W_Q",
                "A learned matrix that turns an embedding into a query: what this token is "
                "looking for in the others.",
                {}, t.w_q, t.dim_labels, t.q_labels);
    matrix_step("W_K", "3b", "Key weights", "W_K", "W_K",
                "A learned matrix that turns an embedding into a key: what this token offers, "
                "to be matched against the queries.",
                {}, t.w_k, t.dim_labels, t.k_labels);
    matrix_step("W_V", "3c", "Value weights", "W_V", "W_V",
                "A learned matrix that turns an embedding into a value: the information this "
                "token passes on to the tokens that attend to it.",
                {}, t.w_v, t.dim_labels, t.v_labels);

    matrix_step("Q", "4a", "Queries", "Q", "Q = X · W_Q",
                "Row i is token i's query, row i of X times W_Q. One matrix product projects "
                "every token at once, with the same weights for every position.",
                {shape_of(t.x), shape_of(t.w_q)}, t.q, tokens, t.q_labels);
    matrix_step("K", "4b", "Keys", "K", "K = X · W_K",
                "Row i is token i's key, row i of X times W_K.", {shape_of(t.x), shape_of(t.w_k)},
                t.k, tokens, t.k_labels);
    matrix_step("V", "4c", "Values", "V", "V = X · W_V",
                "Row i is token i's value, row i of X times W_V: what token i will contribute "
                "to the output of any token that attends to it.",
                {shape_of(t.x), shape_of(t.w_v)}, t.v, tokens, t.v_labels);

    matrix_step("scores", "5", "Scores", "S", "S = Q · Kᵀ",
                "Cell (i, j) is the dot product of token i's query with token j's key: large "
                "when the two vectors point the same way. Row i is how well every token "
                "matches what token i is looking for. Rows are queries, columns are keys.",
                {shape_of(t.q), {t.k.cols(), t.k.rows()}}, t.scores, tokens, tokens);

    matrix_step("scaled_scores", "6", "Scaled scores", "S′", "S′ = S / √d_k",
                "A dot product of two d_k-wide vectors with unit-variance entries has a "
                "variance of about d_k, so scores grow with the width. Dividing by √d_k brings "
                "the variance back to about 1 and keeps softmax out of saturation, where one "
                "weight is nearly 1, the others nearly 0, and learning stalls.",
                {shape_of(t.scores)}, t.scaled_scores, tokens, tokens);

    int next = 7;
    if (masked) {
        Step m;
        m.id = "mask";
        m.number = "7a";
        m.title = "Causal mask";
        m.symbol = "M";
        m.formula = "M[i, j] = 1 if j ≤ i, else 0";
        m.explanation =
            "A token may look only at itself and the tokens before it, as in a model that "
            "writes text one token at a time and cannot see the future. 1\u00A0=\u00A0may "
            "attend, 0\u00A0=\u00A0blocked.";
        m.shape = {t.mask->rows(), t.mask->cols()};
        m.kind = StepKind::mask;
        m.mask = &*t.mask;
        m.row_labels = tokens;
        m.col_labels = tokens;
        steps.push_back(std::move(m));

        matrix_step("masked_scores", "7b", "Masked scores", "S′ₘ",
                    "S′ₘ = S′ where M = 1, −∞ where M = 0",
                    "Blocked cells become −∞, so that softmax gives them a weight of exactly 0 "
                    "(e^−∞\u00A0=\u00A00). A finite stand-in such as −1e4 or −1e9 works only while "
                    "the real scores are far smaller than it (and −1e9 does not even fit in half "
                    "precision); −∞ gives exactly 0 whatever the scores are.",
                    {shape_of(t.scaled_scores)}, t.masked_scores, tokens, tokens);
        ++next;
    }

    Step a;
    a.id = "weights";
    a.number = std::to_string(next++);
    a.title = "Attention weights";
    a.symbol = "A";
    a.formula = masked ? "A = softmax(S′ₘ), row by row" : "A = softmax(S′), row by row";
    a.explanation =
        "Softmax turns each row of scores into weights that are positive and sum to 1: how "
        "token i shares its attention among the tokens. It is computed stably: attn subtracts "
        "each row's maximum before exponentiating, e^(s − max) / Σ e^(s − max), which gives "
        "the same weights and never overflows.";
    a.operands = {shape_of(masked ? t.masked_scores : t.scaled_scores)};
    a.shape = shape_of(t.attention);
    a.kind = StepKind::attention;
    a.matrix = &t.attention;
    a.row_labels = tokens;
    a.col_labels = tokens;
    steps.push_back(std::move(a));

    matrix_step("output", std::to_string(next), "Output", "Z", "Z = A · V",
                "Each token's new vector is the weighted average of all value vectors, with "
                "its row of A as the weights: every token now carries information from the "
                "tokens it attends to. This is the output of self-attention.",
                {shape_of(t.attention), shape_of(t.v)}, t.output, tokens, t.z_labels);
    return steps;
}

}  // namespace attn
