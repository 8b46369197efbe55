// Why each step exists: one explanation per step op, worded for the run it explains. A
// sentence that depends on the run (the layout, the mask, positions, the rule, where the
// numbers came from, the sizes) is chosen or written from the Trace, so that it is true for
// the numbers it stands beside; the sentences that quote numbers are in narrative.cpp.
#include <cmath>

#include <fmt/format.h>

#include "attn/core/whatif.hpp"
#include "attn/render/render.hpp"
#include "lesson.hpp"

namespace attn::lesson {
namespace {

constexpr std::string_view convention =
    "1\u00A0=\u00A0may attend, 0\u00A0=\u00A0blocked: attn's convention, as in PyTorch's "
    "scaled_dot_product_attention";

// W_Q, W_K, W_V: what the matrix turns an embedding into, and where it came from.
std::string weights_of(const Trace& t, std::string_view part, std::string_view into) {
    if (t.gpt2) {
        return fmt::format(
            "A matrix that turns each token's vector X (ln_1's output) into {}. It is read "
            "from the checkpoint (what training learned, in a trained model): one block of "
            "n_embd = {} columns of c_attn's weight, which holds W_Q, W_K and W_V side by side "
            "(GPT-2's "
            "Conv1D layout, [in, out], so X · W with no transpose).",
            into, t.config.d_model);
    }
    return fmt::format("A matrix that turns an embedding into {}. {}", into,
                       matrix_origin(t, part));
}

// What the tokens' order reaches in this run: the positions, the mask, or nothing.
std::string tokens_text(const Trace& t) {
    std::string out = t.tokens_named
                          ? fmt::format(
                                "The tokens name the rows of Q, K and V ({}), one token per row. A "
                                "token's index is its position in the sequence. ",
                                toolkit::terminal(t.qkv_path))
                          : std::string(
                                "The sentence is cut into tokens, the units attention works on. A "
                                "token's index is its position in the sequence. ");
    const bool positions = !t.positions.empty();
    const bool masked = t.mask.has_value();
    if (!positions && !masked) {
        return out +
               "Here nothing passes it on: attention sees only the vectors below, so the order "
               "of the tokens makes no difference to what each one gets.";
    }
    if (positions) {
        out += "The positional encodings add it to each token's vector. ";
    }
    if (t.config.mask == MaskKind::causal) {
        out +=
            "The causal mask uses it: a token may attend only to the tokens at or before its "
            "index.";
    } else if (t.mask_source.kind == Source::Kind::set) {
        out += "The mask uses it: it says by index which tokens each may attend to.";
    } else if (t.config.mask == MaskKind::file) {
        out +=
            "The mask from the file uses it: it says by index which tokens each may attend "
            "to.";
    } else if (masked) {
        const std::size_t real = t.tokens.size() - std::min(t.tokens.size(), t.config.n_pad);
        out += fmt::format(
            "The padding mask uses it: --pad-to puts the <pad> tokens last, at index {} and "
            "after, and no token may attend to them.",
            real);
    }
    return out;
}

std::string projection(const Trace& t, const Step& step, std::string_view what,
                       std::string_view letter, std::string_view rest) {
    const Axis axis{step.transposed};
    if (t.qkv_given) {
        return fmt::format(
            "{} i is token i's {}, given as it is (read from {}), as lessons that start from Q, "
            "K and V give it. In a model it would be {} i of X times W_{}.",
            axis.One(), what, toolkit::terminal(t.qkv_path), axis.one(), letter);
    }
    const std::string x = t.positions.empty() ? "X" : "X′";
    const Matrix& bias = letter == "Q" ? t.b_q : letter == "K" ? t.b_k : t.b_v;
    // a head's own slice of the weights is W_Q_1 (and its bias b_Q_1), as in its formula
    const std::string of_head = step.head > 0 ? fmt::format("_{}", step.head) : "";
    const std::string plus =
        bias.empty() ? "" : fmt::format(", plus the bias b_{}{}", letter, of_head);
    const std::string w = fmt::format("W_{}{}", letter, of_head);
    const std::string product = axis.columns ? fmt::format("{} times column i of {}", w, x)
                                             : fmt::format("row i of {} times {}", x, w);
    return fmt::format("{} i is token i's {}: {}{}.{}", axis.One(), what, product, plus, rest);
}

std::string scores_text(const Step& step) {
    const std::string length =
        "the product of their lengths and of the cosine of the angle between them, so it is "
        "large when both are long and point the same way (it is the cosine only for vectors of "
        "length 1)";
    if (step.transposed) {
        return "In the column layout the scores are Kᵀ · Q: a row per key and a column per "
               "query. Cell (j,\u00A0i) is the dot product of key j with query i: " +
               length + ". Column i is how well every key matches what token i is looking for.";
    }
    return "Cell (i,\u00A0j) is the dot product of token i's query with token j's key: " + length +
           ". Row i is how well every key matches what token i is looking for: rows are "
           "queries, columns are keys.";
}

std::string scaled_text(const Trace& t) {
    const WeightsRule& rule = t.rule;
    if (!rule.scales()) {
        return "Skipped on purpose, to show what the scaling is for: the scores go to softmax "
               "as they are. Their variance grows with d_k, and large scores push softmax into "
               "saturation: one weight near 1, the rest near 0, where learning stalls.";
    }
    if (rule.arith == Arith::hand) {
        return fmt::format(
            "By hand: ⌊S / {0}⌋ in place of S / √{1} ({0} is √{1} rounded to a whole number, "
            "and ⌊ ⌋ rounds down), so that {4}. With 3^x in place of e^x below, the hand rule "
            "weighs "
            "a score s by 3^(s/{0}) = e^({2}·s) where the exact rule uses e^(s/√{1}) = "
            "e^({3}·s), before ⌊ ⌋ rounds s/{0} down.",
            static_cast<long long>(rule.divisor()),
            rule.scale_by == ScaleBy::d_model ? "d_model" : "d_k",
            format_number(std::log(3.0) / rule.divisor(), 3, true),
            format_number(1.0 / rule.sqrt_width(), 3, true),
            scores_whole(t) ? "every number stays whole"
                            : "whole scores stay whole; these scores are not whole numbers, "
                              "so ⌊ ⌋ also drops their fractions, and the hand weights can be "
                              "far from the exact ones (the seeded numbers of --arith hand are "
                              "whole)");
    }
    std::string why =
        "For queries and keys whose entries are independent, with mean 0 and variance 1, a "
        "score has variance d_k, so scores grow with the width. Dividing by √d_k divides the "
        "variance by d_k exactly, which for such queries and keys brings it back to 1 and keeps "
        "softmax out of saturation (one weight near 1, the rest near 0, where learning stalls).";
    if (rule.scale_by == ScaleBy::d_model) {
        return why + fmt::format(
                         " Here the scores are divided by √d_model = √{} instead, a mistake a "
                         "tutorial makes: d_model is the width of the embeddings, not of the "
                         "queries and keys (d_k = {}){}.",
                         t.config.d_model, t.config.d_k,
                         t.config.d_model == t.config.d_k
                             ? "; here the two widths are equal, so the mistake changes nothing: "
                               "try a d_model other than d_k to see it"
                             : "");
    }
    return why;
}

std::string weights_text(const Trace& t, const Step& step) {
    const WeightsRule& rule = t.rule;
    const Axis axis{step.transposed};
    const bool masked = t.mask.has_value();
    const std::string zero = masked ? " A masked cell (−∞) gets exactly 0." : "";
    if (rule.over != SoftmaxOver::rows) {
        return (rule.over == SoftmaxOver::all
                    ? "Softmax here runs over the whole matrix at once, a mistake two tutorials "
                      "make: all the weights together sum to 1, so one query's weights need not, "
                      "and they depend on every other query's scores."
                    : "Softmax here runs over each key instead of each query, a mistake shown on "
                      "purpose: each key's scores are shared out among the queries, so a query's "
                      "weights need not sum to 1.") +
               zero;
    }
    const std::string how =
        rule.arith == Arith::hand
            ? "By hand, 3^(s − max) / Σ 3^(s − max) in place of e^(s − max) / Σ e^(s − max), so "
              "that every term is a power of 3 you can write down as a fraction (3^−1 = 1/3)."
            : fmt::format(
                  "It is computed stably: attn subtracts each {}'s maximum before "
                  "exponentiating, e^(s − max) / Σ e^(s − max), which gives the same weights "
                  "and never overflows.",
                  axis.one());
    return fmt::format(
        "Softmax turns each {0} of scores (one query's) into weights between 0 and 1 that sum "
        "to 1: how token i shares its attention among the tokens.{1} {2}",
        axis.one(), zero, how);
}

std::string output_text(const Trace& t, const Step& step) {
    const Axis axis{step.transposed};
    const Head& head = head_of(t, step);
    // an average only where each query's weights sum to 1, which softmax over the wrong axis
    // does not make so (and equal scores may make so all the same)
    const std::string mix =
        t.rule.over == SoftmaxOver::rows ? "the weighted average of the value vectors"
        : all_one(head.row_sums, {})
            ? "a weighted average of the value vectors (here each query's weights happen to "
              "sum to 1, although this softmax does not make them)"
            : "a weighted sum of the value vectors (not an average: these weights do not sum "
              "to 1)";
    if (t.projected) {
        return fmt::format(
            "Each token's new vector from this head: {}, with its {} of A as the weights.", mix,
            axis.one());
    }
    return fmt::format(
        "Each token's new vector is {}, with its {} of A as the weights: every token now carries "
        "information from the tokens it attends to. This is the output of self-attention.",
        mix, axis.one());
}

std::string w_o_text(const Trace& t) {
    const auto& c = t.config;
    const std::size_t width = c.n_heads * c.d_v;
    const std::string what =
        width == c.d_model
            ? fmt::format(
                  " Here the heads together are already d_model = {} wide ({} × {}), so W_O is "
                  "what mixes them, not what sets the width.",
                  c.d_model, c.n_heads, c.d_v)
            : fmt::format(" It also {} each row from heads × d_v = {} to d_model = {} numbers.",
                          width > c.d_model ? "narrows" : "widens", width, c.d_model);
    return "A matrix that mixes the heads: each output dimension is a weighted sum over every "
           "head's columns, so what one head found can reach every dimension." +
           what + " " + matrix_origin(t, "W_O");
}

std::string positions_text(const Trace& t, const Step& step) {
    const Axis axis{step.transposed};
    std::string out;
    if (!t.mask.has_value()) {
        out = fmt::format(
            "Without positions, self-attention ignores order: shuffle the tokens and each "
            "output {} moves with its token, unchanged. ",
            axis.one());
    } else if (t.config.mask == MaskKind::causal) {
        out =
            "The causal mask already makes order matter, by deciding what each token may see; "
            "the vectors themselves still say nothing about where a token stands. ";
    } else {
        out =
            "The mask decides what each token may see; the vectors themselves still say "
            "nothing about where a token stands. ";
    }
    out +=
        "Adding a different vector for each position to the embeddings gives the same word at "
        "two places two different queries, keys and values.";
    if (t.config.positions == PositionKind::sinusoidal) {
        out += fmt::format(
            " The sinusoidal table of the original Transformer uses a sine and a cosine of a "
            "different frequency in each pair of {}.",
            axis.others());
    } else if (const std::string learned = training_origin(t, "positions"); !learned.empty()) {
        out += " They are a table of numbers, not computed by a formula. " + learned;
    } else {
        out +=
            " Here they are read from a file, a table of numbers (as learned positions are "
            "stored), not computed by a formula.";
    }
    return out;
}

// What the mask says, attn's convention, and how PyTorch's masks write the same thing.
std::string mask_text(const Trace& t, const Step& step) {
    const auto& c = t.config;
    std::string what;
    std::string_view pytorch;
    if (t.mask_source.kind == Source::Kind::set) {
        const bool kind = t.comparison && t.comparison->mask_before != MaskKind::none;
        what = fmt::format(
            "The mask of the run as given{}, with the cells that --set changed: {} i says "
            "which tokens token i may attend to.",
            kind ? fmt::format(" ({})", to_string(t.comparison->mask_before)) : "",
            step.transposed ? "column" : "row");
        pytorch =
            "nn.MultiheadAttention's attn_mask uses the opposite, True\u00A0=\u00A0blocked, so "
            "pass it the negation of this matrix";
    } else if (c.mask == MaskKind::file) {
        what = fmt::format("A mask given in a file: {} i says which tokens token i may attend to.",
                           step.transposed ? "column" : "row");
        pytorch =
            "nn.MultiheadAttention's attn_mask uses the opposite, True\u00A0=\u00A0blocked, so "
            "pass it the negation of this matrix";
    } else if (c.mask == MaskKind::causal) {
        what = fmt::format(
            "A token may look only at itself and the tokens before it, as in a model that writes "
            "text one token at a time{}.",
            c.n_pad > 0 ? ", and no token may look at the <pad> tokens, which only fill the "
                          "sentence up to a fixed length"
                        : " and cannot see the future");
        pytorch =
            "nn.MultiheadAttention's attn_mask and key_padding_mask use the opposite, "
            "True\u00A0=\u00A0blocked";
    } else {
        what =
            "The <pad> tokens only fill the sentence up to a fixed length, as when sentences of "
            "different lengths are batched together: no token may attend to them (their " +
            std::string(Axis{step.transposed}.others()) + " are 0).";
        pytorch = "nn.MultiheadAttention's key_padding_mask uses True\u00A0=\u00A0blocked";
    }
    return fmt::format("{} {} ({}).", what, convention, pytorch);
}

// A GPT-2 checkpoint's tokens: its own tokenizer, the leading space, the ids.
std::string gpt2_tokens_text(const Trace& t) {
    const auto& g = *t.gpt2;
    std::string out = fmt::format(
        "GPT-2's own tokenizer (byte-level BPE, from the checkpoint's vocabulary and merges) "
        "cut the text into {} tokens; a token is a word, a piece of a word or punctuation. ",
        t.tokens.size());
    std::string example;
    for (std::size_t i = 0; i < t.tokens.size(); ++i) {
        if (g.token_texts[i].starts_with("\u0120")) {
            example = fmt::format(
                " Here token {} is {}: id {}, written {} in the vocabulary, a different token from "
                "the same word without the space.",
                i, t.tokens[i], g.token_ids[i], g.token_texts[i]);
            break;
        }
    }
    out +=
        "␣ marks a space: GPT-2 keeps the space before a word as part of the word's token "
        "(its vocabulary writes it Ġ)." +
        example;
    out +=
        " Each token's id picks its row of the embedding table; the ids are in the JSON dump "
        "(token_ids). The mask is causal: GPT-2 writes text one token at a time, so a token "
        "may attend only to itself and the tokens before it.";
    return out;
}

}  // namespace

std::string explanation(const Trace& t, const Step& step) {
    const Axis axis{step.transposed};
    switch (step.op) {
        case StepOp::tokens:
            return t.gpt2 ? gpt2_tokens_text(t) : tokens_text(t);
        case StepOp::embeddings: {
            const std::string learned = training_origin(t, "embeddings");
            return fmt::format(
                "Each token becomes a vector of d_model = {} numbers, looked up by its text: {} "
                "i of X stands for token i, and a repeated word gets the same vector.{}",
                t.config.d_model, axis.one(), learned.empty() ? "" : " " + learned);
        }
        case StepOp::positions:
            return positions_text(t, step);
        case StepOp::with_positions:
            return "The embeddings plus their positions: what every head below projects.";
        case StepOp::w_q:
            return weights_of(t, "W_Q", "a query: what a token is looking for in the others");
        case StepOp::w_k:
            return weights_of(t, "W_K",
                              "a key: what a token offers, to be matched against the queries");
        case StepOp::w_v:
            return weights_of(
                t, "W_V",
                "a value: the information a token passes on to the tokens that attend to it");
        case StepOp::b_q:
        case StepOp::b_k:
        case StepOp::b_v:
        case StepOp::b_o:
            return "A bias, added to every token's " + std::string(axis.one()) +
                   " after the product. Not every model has one (PyTorch's "
                   "nn.MultiheadAttention does, by default).";
        case StepOp::head_w_q:
        case StepOp::head_w_k:
        case StepOp::head_w_v: {
            // smaller only where its width is: --d-k may make a head as wide as X or wider
            const std::size_t width = step.op == StepOp::head_w_v ? t.config.d_v : t.config.d_k;
            return fmt::format(
                "This head's own columns of the weights. Each head projects {} into a space of "
                "its own, of {} = {} dimensions{}, so different heads can look for different "
                "things.",
                t.positions.empty() ? "X" : "X′", step.op == StepOp::head_w_v ? "d_v" : "d_k",
                width,
                width < t.config.d_model
                    ? fmt::format(" (smaller than d_model = {})", t.config.d_model)
                    : fmt::format(" (here no smaller than d_model = {})", t.config.d_model));
        }
        case StepOp::q:
            return projection(t, step, "query", "Q",
                              " One matrix product projects every token at once, with the same "
                              "weights for every position.");
        case StepOp::k:
            return projection(t, step, "key", "K", "");
        case StepOp::v:
            return projection(t, step, "value", "V",
                              " It is what token i will contribute to the output of any token "
                              "that attends to it.");
        case StepOp::scores:
            return scores_text(step);
        case StepOp::scaled_scores:
            return scaled_text(t);
        case StepOp::mask:
            return mask_text(t, step);
        case StepOp::masked_scores:
            return "Blocked cells become −∞, so that softmax gives them a weight of exactly 0 "
                   "(e^−∞\u00A0=\u00A00). A finite stand-in such as −1e9 works only while every "
                   "real score is far above it, and −1e9 does not even fit in half precision "
                   "(whose largest number is 65504); −∞ gives exactly 0 whatever the scores are.";
        case StepOp::weights:
            return weights_text(t, step);
        case StepOp::correct_weights:
            if (t.rule.arith == Arith::hand) {
                return fmt::format(
                    "For comparison, the weights the right rule gives, worked by hand like the "
                    "rest: the scores divided by √d_k (⌊S / {}⌋ by hand), then softmax with 3^x "
                    "over each {} (one query's scores), so that every query's weights sum to 1.",
                    t.rule.right(t.config.d_k).divisor(), axis.one());
            }
            return fmt::format(
                "For comparison, the weights the right rule gives: the scores divided by √d_k, "
                "then softmax over each {} (one query's scores), so that every query's weights "
                "sum to 1.",
                axis.one());
        case StepOp::output:
            return output_text(t, step);
        case StepOp::concat:
            return "The heads' outputs side by side, one block of columns per head (a bar marks "
                   "the boundaries): every token now has one row with what each head found.";
        case StepOp::w_o:
            return w_o_text(t);
        case StepOp::projected_output:
            return "The output of multi-head attention: for every token, what all heads found, "
                   "mixed by W_O into a vector as wide as the embedding, ready for the next "
                   "layer.";
        case StepOp::target:
        case StepOp::loss:
        case StepOp::gradient:
        case StepOp::update:
            return backward_explanation(t, step);
        case StepOp::gpt2_wte:
            return "Each token id picks its row of wte, the model's table of token embeddings "
                   "(one row per token of the vocabulary). The same token gets the same row "
                   "wherever it stands.";
        case StepOp::gpt2_wpe:
            return "Each position picks its row of wpe, the learned table of position "
                   "embeddings: row i belongs to whatever token stands at position i (counted "
                   "from 0). GPT-2 learns this table; it is not the sinusoidal one.";
        case StepOp::gpt2_embeddings:
            return "The token's row plus its position's row: the residual stream as it enters "
                   "the first layer. Every layer reads this stream and adds its own changes to "
                   "it; nothing in it is ever replaced.";
        case StepOp::layer_changes:
            return "Each layer below the one walked through, summarised: a row per part "
                   "(attention, then the MLP) and a column per token, each cell the length "
                   "‖Δ‖ of the vector that part added to that token's residual vector. The "
                   "layers are computed in full; only their steps are not shown.";
        case StepOp::residual:
            return "The residual stream as it enters this layer: what the layers below have "
                   "made of the embeddings, one row per token.";
        case StepOp::ln_mean:
            return "LayerNorm (ln_1) first takes each token's mean μ over its numbers: a "
                   "number per token, so the normalisation works on each token alone.";
        case StepOp::ln_variance:
            return "Then each token's variance σ², the mean of the squared distances from μ "
                   "(divided by the width, not the width − 1, as PyTorch's LayerNorm does).";
        case StepOp::ln_gamma:
            return "LayerNorm's scale γ (learned in training), multiplied into each column after "
                   "the "
                   "normalisation.";
        case StepOp::ln_beta:
            return "LayerNorm's shift β (learned in training), added to each column after the "
                   "scale.";
        case StepOp::ln_output:
            return "Each token's vector with its mean taken away and divided by its standard "
                   "deviation (ε, from config.json's layer_norm_epsilon, keeps the division "
                   "safe), then scaled by γ and shifted by β. This is X, what every head of "
                   "the layer projects; the residual stream itself is left as it was.";
        case StepOp::residual_attn:
            return "Attention's output is added to the residual stream (the residual "
                   "connection): each token's vector keeps what it had and gains what the heads "
                   "found.";
        case StepOp::mlp:
            return "The MLP, summarised: ln_2 normalises each token as ln_1 did, c_fc widens "
                   "it to n_inner numbers, GPT-2's GELU (the tanh form) bends each number, and "
                   "c_proj brings it back to the width of the stream. Each token is processed "
                   "alone: the MLP moves no information between tokens.";
        case StepOp::residual_mlp:
            return "The MLP's change added to the stream: the output of this layer, which "
                   "the next layer reads.";
    }
    return "";
}

}  // namespace attn::lesson
