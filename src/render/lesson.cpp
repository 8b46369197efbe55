// The words of the lesson: titles and explanations by step op, the summary, the warnings.
#include "lesson.hpp"

#include <fmt/format.h>

#include "attn/core/utf8.hpp"
#include "notation.hpp"

namespace attn::lesson {
namespace {

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
    "Skipped on purpose, to show what the scaling is for: the scores go to "
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

constexpr std::string_view column_scores_why =
    "In the column layout the scores are Kᵀ · Q: a row per key and a column per query, so "
    "cell (j, i) is the dot product of key j with query i.";

}  // namespace

std::string quoted(const std::string& token) {
    return "'" + token + "'";
}

std::string title(const Trace& t, const Step& step) {
    const auto& c = t.config;
    switch (step.op) {
        case StepOp::tokens:
            return "Tokens";
        case StepOp::embeddings:
            return "Embeddings";
        case StepOp::positions:
            return "Positional encodings";
        case StepOp::with_positions:
            return "Embeddings with positions";
        case StepOp::w_q:
        case StepOp::head_w_q:
            return "Query weights";
        case StepOp::w_k:
        case StepOp::head_w_k:
            return "Key weights";
        case StepOp::w_v:
        case StepOp::head_w_v:
            return "Value weights";
        case StepOp::b_q:
        case StepOp::b_k:
        case StepOp::b_v:
        case StepOp::b_o:
            return "Bias";
        case StepOp::q:
            return "Queries";
        case StepOp::k:
            return "Keys";
        case StepOp::v:
            return "Values";
        case StepOp::scores:
            return "Scores";
        case StepOp::scaled_scores:
            return t.rule.scales() ? "Scaled scores" : "Scores, not scaled";
        case StepOp::mask: {
            const bool padded = c.n_pad > 0;
            if (c.mask == MaskKind::file) {
                return padded ? "Mask from a file, with padding" : "Mask from a file";
            }
            if (c.mask == MaskKind::causal) {
                return padded ? "Causal and padding mask" : "Causal mask";
            }
            return "Padding mask";
        }
        case StepOp::masked_scores:
            return "Masked scores";
        case StepOp::weights:
            return "Attention weights";
        case StepOp::output:
        case StepOp::projected_output:
            return "Output";
        case StepOp::concat:
            return "Concatenation";
        case StepOp::w_o:
            return "Output weights";
    }
    return "";
}

std::string explanation(const Trace& t, const Step& step) {
    const auto& c = t.config;
    const bool hand = t.rule.arith == Arith::hand;
    switch (step.op) {
        case StepOp::tokens:
            return std::string(tokens_why);
        case StepOp::embeddings:
            return std::string(embeddings_why);
        case StepOp::positions:
            return std::string(c.positions == PositionKind::sinusoidal ? positions_why
                                                                       : positions_file_why);
        case StepOp::with_positions:
            return std::string(with_positions_why);
        case StepOp::w_q:
            return std::string(w_q_why);
        case StepOp::w_k:
            return std::string(w_k_why);
        case StepOp::w_v:
            return std::string(w_v_why);
        case StepOp::b_q:
        case StepOp::b_k:
        case StepOp::b_v:
        case StepOp::b_o:
            return std::string(bias_why);
        case StepOp::head_w_q:
        case StepOp::head_w_k:
        case StepOp::head_w_v:
            return std::string(slice_why);
        case StepOp::q:
            return std::string(q_why);
        case StepOp::k:
            return std::string(k_why);
        case StepOp::v:
            return std::string(v_why);
        case StepOp::scores:
            return std::string(step.transposed ? column_scores_why : scores_why);
        case StepOp::scaled_scores:
            return std::string(!t.rule.scales() ? unscaled_why
                               : hand           ? hand_scaled_why
                                                : scaled_why);
        case StepOp::mask: {
            const bool padded = c.n_pad > 0;
            if (c.mask == MaskKind::file) {
                return std::string(file_mask_why);
            }
            if (c.mask == MaskKind::causal) {
                return std::string(padded ? causal_padding_why : mask_why);
            }
            return std::string(padding_why);
        }
        case StepOp::masked_scores:
            return std::string(masked_why);
        case StepOp::weights:
            return std::string(hand ? hand_weights_why : weights_why);
        case StepOp::output:
            return std::string(t.projected ? head_output_why : output_why);
        case StepOp::concat:
            return std::string(concat_why);
        case StepOp::w_o:
            return std::string(w_o_why);
        case StepOp::projected_output:
            return std::string(final_why);
    }
    return "";
}

std::string heading(const Trace& t, const Step& step) {
    const std::string head = step.head > 0 ? fmt::format("Head {} · ", step.head) : "";
    if (step.kind == StepKind::tokens) {
        return fmt::format("{} · {}", step.number, title(t, step));
    }
    return fmt::format("{} · {}{} {}", step.number, head, title(t, step),
                       notation::symbol(step.symbol, notation::Style::unicode));
}

}  // namespace attn::lesson
