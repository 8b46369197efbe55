// The one list of steps in teaching order. Every renderer (text, JSON, ...) walks this list,
// so the order, ids, names, formulas and labels never diverge between outputs.
#include "attn/core/trace.hpp"

namespace attn {
namespace {

Shape shape_of(const Matrix& m) {
    return {m.rows(), m.cols()};
}

std::string range(std::size_t begin, std::size_t n) {
    return std::to_string(begin) + ":" + std::to_string(begin + n);
}

// Builds the list; steps added after set_head(h) belong to head h (1-based; 0 = shared).
class StepList {
  public:
    Step& matrix(std::string id, std::string number, std::string_view title, std::string symbol,
                 std::string formula, std::string_view explanation, std::vector<Shape> operands,
                 const Matrix& m, std::span<const std::string> rows,
                 std::span<const std::string> cols) {
        Step s;
        s.id = std::move(id);
        s.number = std::move(number);
        s.title = title;
        s.symbol = std::move(symbol);
        s.formula = std::move(formula);
        s.explanation = explanation;
        s.operands = std::move(operands);
        s.shape = shape_of(m);
        s.matrix = &m;
        s.row_labels = rows;
        s.col_labels = cols;
        return add(std::move(s));
    }
    Step& add(Step s) {
        s.head = head_;
        steps_.push_back(std::move(s));
        return steps_.back();
    }
    void set_head(std::size_t head) { head_ = head; }
    std::vector<Step> take() { return std::move(steps_); }

  private:
    std::vector<Step> steps_;
    std::size_t head_ = 0;
};

constexpr std::string_view tokens_why =
    "The sentence is cut into tokens, the units attention works on. A token's index is its "
    "position in the sequence; attention itself never sees it, only the vectors below.";
constexpr std::string_view embeddings_why =
    "Each token becomes a vector of d_model numbers, looked up by its text. Row i of X stands "
    "for token i: from here on, attention only sees these numbers.";
constexpr std::string_view w_q_why =
    "A learned matrix that turns an embedding into a query: what this token is looking for in "
    "the others.";
constexpr std::string_view w_k_why =
    "A learned matrix that turns an embedding into a key: what this token offers, to be "
    "matched against the queries.";
constexpr std::string_view w_v_why =
    "A learned matrix that turns an embedding into a value: the information this token passes "
    "on to the tokens that attend to it.";
constexpr std::string_view bias_why =
    "A learned bias, added to every token's row after the product. Not every model has one "
    "(PyTorch's nn.MultiheadAttention does, by default).";
constexpr std::string_view q_why =
    "Row i is token i's query, row i of X times W_Q. One matrix product projects every token "
    "at once, with the same weights for every position.";
constexpr std::string_view k_why = "Row i is token i's key, row i of X times W_K.";
constexpr std::string_view v_why =
    "Row i is token i's value, row i of X times W_V: what token i will contribute to the output "
    "of any token that attends to it.";
constexpr std::string_view scores_why =
    "Cell (i, j) is the dot product of token i's query with token j's key: large when the two "
    "vectors point the same way. Row i is how well every token matches what token i is "
    "looking for. Rows are queries, columns are keys.";
constexpr std::string_view scaled_why =
    "A dot product of two d_k-wide vectors with unit-variance entries has a variance of about "
    "d_k, so scores grow with the width. Dividing by √d_k brings the variance back to about 1 "
    "and keeps softmax out of saturation, where one weight is nearly 1, the others nearly 0, "
    "and learning stalls.";
constexpr std::string_view hand_scaled_why =
    "By hand (--arith hand): ⌊S / r⌋ with r = √d_k rounded to a whole number, in place of "
    "S / √d_k, so that every number stays a whole number. Together with 3^x in place of e^x "
    "below it lands close to the exact weights: for d_k = 3, "
    "3^(x/2)\u00A0=\u00A0e^(0.549x), while e^(x/√3)\u00A0=\u00A0e^(0.577x).";
constexpr std::string_view hand_weights_why =
    "Softmax by hand: 3^(s − max) / Σ 3^(s − max) in place of e^(s − max) / Σ e^(s − max), "
    "so that every term is a power of 3 you can write down as a fraction (3^−1 = 1/3). Each "
    "row still sums to 1.";
constexpr std::string_view unscaled_why =
    "Skipped on purpose (--no-scale), to show what the scaling is for: the scores go to "
    "softmax as they are. Their variance grows with d_k, and large scores push softmax into "
    "saturation: one weight near 1, the rest near 0. Compare the rows' largest weights below "
    "with what scaling would have given.";
constexpr std::string_view mask_why =
    "A token may look only at itself and the tokens before it, as in a model that writes text "
    "one token at a time and cannot see the future. 1\u00A0=\u00A0may attend, "
    "0\u00A0=\u00A0blocked: attn's convention, as in PyTorch's scaled_dot_product_attention "
    "(nn.MultiheadAttention's attn_mask and key_padding_mask use the opposite, "
    "True\u00A0=\u00A0blocked).";
constexpr std::string_view padding_why =
    "The <pad> tokens only fill the sentence up to a fixed length, as when sentences of "
    "different lengths are batched together: no token may attend to them (their columns are "
    "0). 1\u00A0=\u00A0may attend, 0\u00A0=\u00A0blocked: attn's convention, as in "
    "PyTorch's scaled_dot_product_attention (nn.MultiheadAttention's key_padding_mask uses "
    "True\u00A0=\u00A0blocked).";
constexpr std::string_view causal_padding_why =
    "A token may look only at itself and the tokens before it, as in a model that writes text "
    "one token at a time, and no token may look at the <pad> tokens, which only fill the "
    "sentence up to a fixed length. 1\u00A0=\u00A0may attend, 0\u00A0=\u00A0blocked: "
    "attn's convention, as in PyTorch's scaled_dot_product_attention (nn.MultiheadAttention's "
    "attn_mask and key_padding_mask use the opposite, True\u00A0=\u00A0blocked).";
constexpr std::string_view file_mask_why =
    "A mask given in a file: row i says which tokens token i may attend to. "
    "1\u00A0=\u00A0may attend, 0\u00A0=\u00A0blocked: attn's convention, as in PyTorch's "
    "scaled_dot_product_attention (nn.MultiheadAttention's attn_mask uses the opposite, "
    "True\u00A0=\u00A0blocked, so pass it the negation of this matrix).";
constexpr std::string_view positions_why =
    "Attention itself ignores order: shuffle the tokens and each one gets the same output. "
    "Adding a different vector for each position to the embeddings lets it tell \"the\" at "
    "position 0 from \"the\" at position 4. The sinusoidal table of the original Transformer "
    "uses a sine and a cosine of a different frequency in each pair of columns.";
constexpr std::string_view positions_file_why =
    "Attention itself ignores order: shuffle the tokens and each one gets the same output. "
    "Adding a different vector for each position to the embeddings (here from a file, as a "
    "model with learned positions would have them) lets it tell the positions apart.";
constexpr std::string_view with_positions_why =
    "The embeddings plus their positions: what every head below projects. The same token at "
    "two positions now has two different rows.";
constexpr std::string_view masked_why =
    "Blocked cells become −∞, so that softmax gives them a weight of exactly 0 "
    "(e^−∞\u00A0=\u00A00). A finite stand-in such as −1e4 or −1e9 works only while the real "
    "scores are far smaller than it (and −1e9 does not even fit in half precision); −∞ gives "
    "exactly 0 whatever the scores are.";
constexpr std::string_view weights_why =
    "Softmax turns each row of scores into weights that are positive and sum to 1: how token "
    "i shares its attention among the tokens. It is computed stably: attn subtracts each row's "
    "maximum before exponentiating, e^(s − max) / Σ e^(s − max), which gives the same weights "
    "and never overflows.";
constexpr std::string_view output_why =
    "Each token's new vector is the weighted average of all value vectors, with its row of A as "
    "the weights: every token now carries information from the tokens it attends to. This is "
    "the output of self-attention.";
constexpr std::string_view head_output_why =
    "Each token's new vector from this head: the weighted average of the head's value vectors, "
    "with its row of A as the weights.";
constexpr std::string_view slice_why =
    "This head's own columns of the weights. Each head projects X into a smaller space of its "
    "own, so different heads can look for different things.";
constexpr std::string_view concat_why =
    "The heads' outputs side by side, one block of columns per head (the │ marks the "
    "boundaries): every token now has one row with what each head found.";
constexpr std::string_view w_o_why =
    "A learned matrix that mixes the heads: each output dimension is a weighted sum over every "
    "head's columns. Without it the heads would stay side by side, unmixed, and the width "
    "would depend on the number of heads.";
constexpr std::string_view final_why =
    "The output of multi-head attention: for every token, what all heads found, mixed by W_O "
    "into a vector as wide as the embedding, ready for the next layer.";

std::vector<std::size_t> breaks(std::size_t n_heads, std::size_t width) {
    std::vector<std::size_t> out;
    for (std::size_t h = 1; h < n_heads; ++h) {
        out.push_back(h * width);
    }
    return out;
}

}  // namespace

std::string_view base_id(std::string_view id) noexcept {
    if (id.starts_with("head")) {
        const auto dot = id.find('.');
        if (dot != std::string_view::npos) {
            return id.substr(dot + 1);
        }
    }
    return id;
}

std::size_t trace_bytes(const Trace& t) noexcept {
    const auto bytes = [](const Matrix& m) { return m.size() * sizeof(double); };
    std::size_t total = bytes(t.x) + bytes(t.positions) + bytes(t.x_in) + bytes(t.w_q) +
                        bytes(t.w_k) + bytes(t.w_v) + bytes(t.b_q) + bytes(t.b_k) + bytes(t.b_v) +
                        bytes(t.concat) + bytes(t.w_o) + bytes(t.b_o) + bytes(t.output);
    if (t.mask) {
        total += t.mask->rows() * t.mask->cols();
    }
    for (const auto& h : t.heads) {
        total += bytes(h.w_q) + bytes(h.w_k) + bytes(h.w_v) + bytes(h.q) + bytes(h.k) + bytes(h.v) +
                 bytes(h.scores) + bytes(h.scaled_scores) + bytes(h.masked_scores) +
                 bytes(h.attention) + bytes(h.output) + bytes(h.exact_attention);
    }
    return total;
}

const Head& head_of(const Trace& trace, const Step& step) {
    return trace.heads.at(step.head == 0 ? 0 : step.head - 1);
}

std::vector<Step> teaching_steps(const Trace& t) {
    StepList list;
    const std::span<const std::string> tokens = t.tokens;
    const bool masked = t.mask.has_value();
    const bool multi = t.projected;
    const std::size_t n_heads = t.heads.size();
    const auto& c = t.config;

    Step tok;
    tok.number = "1";
    tok.title = "Tokens";
    tok.formula = c.tokenizer.mode == TokenMode::chars ? "tokens = characters(sentence)"
                                                       : "tokens = words(sentence)";
    tok.explanation = tokens_why;
    tok.shape = {t.tokens.size(), 1};
    tok.kind = StepKind::tokens;
    tok.row_labels = tokens;
    tok.id = "tokens";
    tok.symbol = "tokens";
    list.add(std::move(tok));

    const bool positions = !t.positions.empty();
    list.matrix("embeddings", positions ? "2a" : "2", "Embeddings", "X", "X = embed(tokens)",
                embeddings_why, {}, t.x, tokens, t.dim_labels);
    if (positions) {
        const bool sinusoidal = c.positions == PositionKind::sinusoidal;
        list.matrix("positions", "2b", "Positional encodings", "P",
                    sinusoidal ? "P[pos, 2i] = sin(pos / 10000^(2i/d_model)), P[pos, 2i+1] = "
                                 "cos(pos / 10000^(2i/d_model))"
                               : "P = positions from " + t.positions_source.path,
                    sinusoidal ? positions_why : positions_file_why, {}, t.positions, tokens,
                    t.dim_labels);
        list.matrix("with_positions", "2c", "Embeddings with positions", "X′", "X′ = X + P",
                    with_positions_why, {shape_of(t.x), shape_of(t.positions)}, t.x_in, tokens,
                    t.dim_labels)
            .joiner = "+";
    }
    const std::string x_name = positions ? "X′" : "X";

    const auto weight = [&](const std::string& id, std::string number, std::string_view title,
                            std::string_view why, const Matrix& m,
                            std::span<const std::string> cols, std::size_t head_width) {
        Step& s = list.matrix(id, std::move(number), title, id, id, why, {}, m, t.dim_labels, cols);
        if (multi && n_heads > 1) {
            s.col_breaks = breaks(n_heads, head_width);
        }
    };
    weight("W_Q", "3a", "Query weights", w_q_why, t.w_q, t.q_labels, c.d_k);
    weight("W_K", "3b", "Key weights", w_k_why, t.w_k, t.k_labels, c.d_k);
    weight("W_V", "3c", "Value weights", w_v_why, t.w_v, t.v_labels, c.d_v);
    char bias_letter = 'd';
    const auto bias = [&](const std::string& id, const Matrix& b, std::span<const std::string> cols,
                          std::size_t head_width) {
        if (b.empty()) {
            return;
        }
        Step& s = list.matrix(id, std::string("3") + bias_letter++, "Bias", id, id, bias_why, {}, b,
                              t.bias_label, cols);
        if (multi && n_heads > 1) {
            s.col_breaks = breaks(n_heads, head_width);
        }
    };
    bias("b_Q", t.b_q, t.q_labels, c.d_k);
    bias("b_K", t.b_k, t.k_labels, c.d_k);
    bias("b_V", t.b_v, t.v_labels, c.d_v);

    const auto mask_step = [&](std::string number) {
        Step m;
        m.number = std::move(number);
        const bool padded = c.n_pad > 0;
        if (c.mask == MaskKind::file) {
            m.title = padded ? "Mask from a file, with padding" : "Mask from a file";
            m.formula = "M = mask from " + t.mask_source.path +
                        (padded ? ", and M[i, j] = 0 for the <pad> keys j" : "");
            m.explanation = file_mask_why;
        } else if (c.mask == MaskKind::causal) {
            m.title = padded ? "Causal and padding mask" : "Causal mask";
            m.formula = padded ? "M[i, j] = 1 if j ≤ i and j is not <pad>, else 0"
                               : "M[i, j] = 1 if j ≤ i, else 0";
            m.explanation = padded ? causal_padding_why : mask_why;
        } else {
            m.title = "Padding mask";
            m.formula = "M[i, j] = 0 if j is <pad>, else 1";
            m.explanation = padding_why;
        }
        m.shape = {t.mask->rows(), t.mask->cols()};
        m.kind = StepKind::mask;
        m.mask = &*t.mask;
        m.row_labels = tokens;
        m.col_labels = tokens;
        m.id = "mask";
        m.symbol = "M";
        list.add(std::move(m));
    };

    // numbering: one plain head keeps the classic 4a..9; several heads number their steps
    // after the shared ones, the same numbers in every head
    int next = multi ? (masked ? 5 : 4) : 4;
    if (multi && masked) {
        mask_step("4");
    }
    for (const auto& head : t.heads) {
        const std::size_t h = head.index + 1;
        const std::string p = multi ? "head" + std::to_string(h) + "." : "";
        const std::string sub = multi ? "_" + std::to_string(h) : "";  // Q_1, S_1, ...
        list.set_head(multi ? h : 0);
        int n = next;
        const auto num = [&](int group, const char* letter = "") {
            return std::to_string(group) + letter;
        };
        if (multi) {
            list.matrix(p + "W_Q", num(n, "a"), "Query weights", "W_Q" + sub,
                        "W_Q" + sub + " = W_Q[:, " + range(head.k_begin, c.d_k) + "]", slice_why,
                        {}, head.w_q, t.dim_labels, head.q_labels);
            list.matrix(p + "W_K", num(n, "b"), "Key weights", "W_K" + sub,
                        "W_K" + sub + " = W_K[:, " + range(head.k_begin, c.d_k) + "]", slice_why,
                        {}, head.w_k, t.dim_labels, head.k_labels);
            list.matrix(p + "W_V", num(n, "c"), "Value weights", "W_V" + sub,
                        "W_V" + sub + " = W_V[:, " + range(head.v_begin, c.d_v) + "]", slice_why,
                        {}, head.w_v, t.dim_labels, head.v_labels);
            ++n;
        }
        const auto proj = [&](const char* letter, std::string_view name, std::string_view title,
                              std::string_view why, const Matrix& m, const Matrix& w,
                              const Matrix& b, std::span<const std::string> cols) {
            std::string formula =
                std::string(name) + sub + " = " + x_name + " · W_" + std::string(name) + sub;
            if (!b.empty()) {
                formula += " + b_" + std::string(name) + sub;
            }
            list.matrix(p + std::string(name), num(n, letter), title, std::string(name) + sub,
                        formula, why, {shape_of(t.x_in), shape_of(w)}, m, tokens, cols);
        };
        proj("a", "Q", "Queries", q_why, head.q, head.w_q, t.b_q, head.q_labels);
        proj("b", "K", "Keys", k_why, head.k, head.w_k, t.b_k, head.k_labels);
        proj("c", "V", "Values", v_why, head.v, head.w_v, t.b_v, head.v_labels);
        ++n;
        list.matrix(p + "scores", num(n++), "Scores", "S" + sub,
                    "S" + sub + " = Q" + sub + " · K" + sub + "ᵀ", scores_why,
                    {shape_of(head.q), {head.k.cols(), head.k.rows()}}, head.scores, tokens,
                    tokens);
        const bool hand = c.arith == Arith::hand;
        const std::string hand_scale = "S′" + sub + " = ⌊S" + sub + " / " +
                                       std::to_string(static_cast<int>(hand_divisor(c.d_k))) +
                                       "⌋ (by hand, for S" + sub + " / √d_k)";
        list.matrix(p + "scaled_scores", num(n++), c.scale ? "Scaled scores" : "Scores, not scaled",
                    "S′" + sub,
                    !c.scale ? "S′" + sub + " = S" + sub + " (not divided by √d_k: --no-scale)"
                    : hand   ? hand_scale
                             : "S′" + sub + " = S" + sub + " / √d_k",
                    !c.scale ? unscaled_why
                    : hand   ? hand_scaled_why
                             : scaled_why,
                    {shape_of(head.scores)}, head.scaled_scores, tokens, tokens);
        if (masked) {
            if (!multi) {
                mask_step(num(n, "a"));
            }
            list.matrix(p + "masked_scores", num(n, multi ? "" : "b"), "Masked scores", "S′ₘ" + sub,
                        "S′ₘ" + sub + " = S′" + sub + " where M = 1, −∞ where M = 0", masked_why,
                        {shape_of(head.scaled_scores)}, head.masked_scores, tokens, tokens);
            ++n;
        }
        const std::string logits = std::string(masked ? "S′ₘ" : "S′") + sub;
        Step& a = list.matrix(p + "weights", num(n++), "Attention weights", "A" + sub,
                              hand ? "A" + sub + " = 3^(" + logits + " − max) / Σ 3^(" + logits +
                                         " − max), row by row (by hand)"
                                   : "A" + sub + " = softmax(" + logits + "), row by row",
                              hand ? hand_weights_why : weights_why,
                              {shape_of(masked ? head.masked_scores : head.scaled_scores)},
                              head.attention, tokens, tokens);
        a.kind = StepKind::attention;
        list.matrix(p + "output", num(n), "Output", "Z" + sub,
                    "Z" + sub + " = A" + sub + " · V" + sub, multi ? head_output_why : output_why,
                    {shape_of(head.attention), shape_of(head.v)}, head.output, tokens,
                    head.z_labels);
        if (head.index + 1 == n_heads) {
            next = n + 1;
        }
    }
    list.set_head(0);

    if (multi) {
        std::string parts;
        for (std::size_t h = 1; h <= n_heads; ++h) {
            // Beyond four heads the middle is elided: Z = [Z_1 | Z_2 | … | Z_8].
            if (n_heads > 4 && h > 2 && h < n_heads) {
                if (h == 3) {
                    parts += " | …";
                }
                continue;
            }
            parts += (h > 1 ? " | Z_" : "Z_") + std::to_string(h);
        }
        std::vector<Shape> outs;
        for (const auto& head : t.heads) {
            outs.push_back(shape_of(head.output));
        }
        Step& cat =
            list.matrix("concat", std::to_string(next++), "Concatenation", "Z",
                        "Z = [" + parts + "]", concat_why, outs, t.concat, tokens, t.concat_labels);
        cat.col_breaks = breaks(n_heads, c.d_v);
        cat.joiner = "|";
        Step& wo =
            list.matrix("W_O", std::to_string(next) + (t.b_o.empty() ? "" : "a"), "Output weights",
                        "W_O", "W_O", w_o_why, {}, t.w_o, t.concat_labels, t.out_labels);
        wo.col_breaks = {};
        if (!t.b_o.empty()) {
            list.matrix("b_O", std::to_string(next) + "b", "Bias", "b_O", "b_O", bias_why, {},
                        t.b_o, t.bias_label, t.out_labels);
        }
        ++next;
        list.matrix("output", std::to_string(next), "Output", "O",
                    t.b_o.empty() ? "O = Z · W_O" : "O = Z · W_O + b_O", final_why,
                    {shape_of(t.concat), shape_of(t.w_o)}, t.output, tokens, t.out_labels);
    }
    return list.take();
}

}  // namespace attn
