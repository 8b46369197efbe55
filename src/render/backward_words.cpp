// The words of the backward pass (--target FILE --backward): each gradient step's title, why
// it is computed that way, and the notes that quote its numbers (the loss, the largest pull,
// which rows of the softmax are saturated, what the update did to the loss). Chosen by the
// step's id; every sentence that makes a claim about the numbers is computed from them.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "notation.hpp"

namespace attn::lesson {
namespace {

// A row of A is saturated when one weight takes nearly all of it.
constexpr double saturated_weight = 0.99;

// What each gradient is the gradient of, by the id without its head: "grad.W_Q" → "W_Q".
std::string_view of(const Step& step) {
    std::string_view id = base_id(step.id);
    if (id.starts_with("grad.")) {
        id.remove_prefix(5);
    } else if (id.starts_with("update.")) {
        id.remove_prefix(7);
    }
    return id;
}

std::string token_at(const Trace& t, std::size_t i) {
    return fmt::format("{} (row {})", quoted(t.tokens[i]), i);
}

// The cell of the largest magnitude: "dW_Q[d2, q1] = 0.1234".
std::string largest_cell(const Step& step, int precision) {
    std::size_t best_r = 0;
    std::size_t best_c = 0;
    double best = -1.0;
    for (std::size_t r = 0; r < step.shape.rows; ++r) {
        for (std::size_t c = 0; c < step.shape.cols; ++c) {
            if (std::abs(step.value(r, c)) > best) {
                best = std::abs(step.value(r, c));
                best_r = r;
                best_c = c;
            }
        }
    }
    return fmt::format("[{}, {}] = {}", step.row_labels[best_r], step.col_labels[best_c],
                       format_number(step.value(best_r, best_c), std::max(precision, 4), true));
}

}  // namespace

std::string backward_title(const Step& step) {
    const std::string_view what = of(step);
    switch (step.op) {
        case StepOp::target:
            return "Target";
        case StepOp::loss:
            return "Loss";
        case StepOp::update:
            return what.starts_with("b_") ? "Updated bias" : "Updated weights";
        default:
            break;
    }
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 15> names{{
        {"output", "the output"},
        {"concat", "the concatenation"},
        {"weights", "the attention weights"},
        {"V", "the values"},
        {"scaled_scores", "the scaled scores, through the softmax"},
        {"scores", "the scores"},
        {"Q", "the queries"},
        {"K", "the keys"},
        {"W_Q", "the query weights"},
        {"W_K", "the key weights"},
        {"W_V", "the value weights"},
        {"W_O", "the output weights"},
        {"X", "the embeddings"},
        {"b_Q", "the bias"},
        {"b_K", "the bias"},
    }};
    for (const auto& [id, name] : names) {
        if (id == what) {
            return "Gradient of " + std::string(name);
        }
    }
    return "Gradient of the bias";  // b_V, b_O
}

std::string backward_explanation(const Trace& t, const Step& step) {
    const Backward& b = *t.backward;
    const bool masked = t.mask.has_value();
    const std::string out = t.projected ? "O" : "Z";
    if (step.op == StepOp::target) {
        return fmt::format(
            "The output each token should have, read from {}: one row per token, one column "
            "per column of {}. The steps below measure how far {} is from it, then work "
            "backwards through every step above to find, for every number of the model, which "
            "way and how strongly to nudge it to come closer: the backward pass, which is how "
            "weights are learned.",
            toolkit::terminal(b.target_path), out, out);
    }
    if (step.op == StepOp::loss) {
        return fmt::format(
            "The loss: the mean squared error, the average of ({} − Y)² over all {} cells. One "
            "number for how far the output is from the target; it is 0 only when every cell "
            "matches. Training lowers it; every gradient below is the derivative of this one "
            "number.",
            out, b.target.size());
    }
    if (step.op == StepOp::update) {
        return fmt::format(
            "One step of gradient descent with learning rate η = {}: every weight moves "
            "against its gradient, by η times it. The gradient points the way the loss rises "
            "fastest, so a small enough step the other way lowers it.",
            *b.lr);
    }
    const std::string_view what = of(step);
    const bool head_part = step.head > 0;
    if (what == "output" && !head_part) {
        return fmt::format(
            "From here on every matrix d· has the shape of the matrix it belongs to, and each "
            "cell is ∂L/∂(that cell): how fast the loss changes when that one number changes. "
            "Each cell of {} enters L once, as ({} − Y)²/{}, whose derivative is 2·({} − "
            "Y)/{}: a cell above its target gets a positive gradient, and lowering it lowers "
            "the loss.",
            out, out, b.target.size(), out, b.target.size());
    }
    if (what == "output") {
        return "This head's own columns of dZ: its output went into those columns of the "
               "concatenation, so that is the part of the gradient that comes back to it.";
    }
    if (what == "W_O" && step.head == 0 && step.op == StepOp::gradient) {
        return "O = Z · W_O: W_O[a, b] carries column a of Z into column b of O for every "
               "token, so its gradient adds up over the tokens: Zᵀ · dO.";
    }
    if (what == "concat") {
        return "O = Z · W_O: each cell of Z reaches every column of O through a row of W_O, so "
               "its gradient gathers them back: dO · W_Oᵀ.";
    }
    if (what == "weights") {
        return "Z = A · V: the weight A[i, j] brings row j of V into row i of Z, so its "
               "gradient is how well V's row j lines up with the pull on Z's row i: row i of "
               "dZ times row j of V. A positive dA[i, j] says that attending less to token j "
               "would lower the loss.";
    }
    if (what == "V") {
        return "Z = A · V: row j of V reaches every output row i with the weight A[i, j], so "
               "its gradient adds up the pulls dZ on the rows that attend to it, each times "
               "that weight: Aᵀ · dZ. A token that no one attends to gets no gradient.";
    }
    if (what == "scaled_scores") {
        std::string text =
            "Softmax ties a row together: raising one score raises its own weight and lowers "
            "every other weight of the row. So dS′[i, j] is A[i, j] times how much dA[i, j] "
            "differs from the row's average pull Σ_k dA[i, k]·A[i, k], and each row of dS′ sums "
            "to 0. A saturated row (one weight near 1, the others near 0) passes almost no "
            "gradient: where a weight is near 0 the factor A[i, j] is tiny, and where it is "
            "near 1 the average pull is almost dA[i, j] itself, so the difference is tiny. "
            "Unscaled scores grow with d_k and saturate more rows: the slow-down the scaling "
            "step guards against.";
        if (masked) {
            text +=
                " A masked cell has weight exactly 0, so it gets exactly 0: its score was "
                "replaced by −∞, and nothing it could change would change the loss.";
        }
        return text;
    }
    if (what == "scores") {
        if (!t.rule.scales()) {
            return "The scores were not scaled (S′ = S), so their gradient is the one above "
                   "as it is.";
        }
        std::string text = fmt::format(
            "S′ = S / {}, so every gradient is divided by the same number, {}: the scaling "
            "shrinks the gradient exactly as it shrinks the scores.",
            t.rule.scale_by == ScaleBy::d_model ? "√d_model" : "√d_k",
            format_number(t.rule.divisor(), 4, true));
        if (masked) {
            text += " Masked cells stay 0: their −∞ did not depend on S.";
        }
        return text;
    }
    if (what == "Q") {
        return "S = Q · Kᵀ: query i meets every key j in S[i, j], so its gradient adds up the "
               "keys, each times how hard S[i, j] is pulled: row i of dS times K.";
    }
    if (what == "K") {
        return "S = Q · Kᵀ: key j meets every query i in S[i, j], so its gradient adds up the "
               "queries, each times how hard S[i, j] is pulled: column j of dS times Q.";
    }
    if (what == "W_Q" || what == "W_K" || what == "W_V") {
        const char letter = what.back();
        if (step.head == 0 && t.projected) {
            return fmt::format(
                "Every head's gradient of W_{} side by side, in the columns its slice came "
                "from (a bar marks the boundaries).",
                letter);
        }
        return fmt::format(
            "{} = {} · W_{}: W_{}[a, b] carries dimension a of every token into column b of {}, "
            "so its gradient adds up over the tokens: {}ᵀ · d{}. This is the number training "
            "uses to change the weights.",
            letter, t.positions.empty() ? "X" : "X′", letter, letter, letter,
            t.positions.empty() ? "X" : "X′", letter);
    }
    if (what.starts_with("b_")) {
        return "A bias is added to every token's row, so its gradient is the sum of the rows of "
               "the gradient it was added to.";
    }
    if (what == "X") {
        std::string text =
            "Every token's vector feeds Q, K and V (of every head), so its gradient adds the "
            "three paths back. When embeddings are learned, this is what they move by; here "
            "only the weights are updated.";
        if (!t.positions.empty()) {
            text +=
                " X′ = X + P, so dX = dP = dX′: the same gradient reaches the embeddings "
                "and, when they are learned, the positions.";
        }
        return text;
    }
    return "";
}

Notes backward_notes(const Trace& t, const Step& step, int precision) {
    Notes n;
    const Backward& b = *t.backward;
    const int p = std::max(precision, 4);
    const std::string_view what = of(step);
    if (step.op == StepOp::loss) {
        const double loss = b.loss(0, 0);
        n.after.push_back(fmt::format(
            "L = {}: the output is off by {} per cell on average (√L, the root mean square of "
            "the differences).",
            format_number(loss, p, true), format_number(std::sqrt(loss), p, true)));
        return n;
    }
    if (step.op == StepOp::update) {
        const bool last = &step == &teaching_steps(t).back();
        if (last) {
            const double before = b.loss(0, 0);
            const double after = b.loss_after;
            // down, up or (a zero gradient, or η too small for a double) exactly the same
            n.after.push_back(
                !std::isfinite(after)
                    ? fmt::format("With the updated weights the same input gives L = {}: the "
                                  "numbers overflowed a double, so the step was far too large "
                                  "(try a much smaller --lr).",
                                  format_number(after, p, true))
                : after == before
                    ? fmt::format("With the updated weights the same input gives L = {}, exactly "
                                  "as before: the step changed the weights too little to change "
                                  "the loss (every gradient is 0, or η is too small).",
                                  format_number(after, p, true))
                    : fmt::format(
                          "With the updated weights the same input gives L = {}, {} from {}{}",
                          format_number(after, p, true), after < before ? "down" : "up",
                          format_number(before, p, true),
                          after < before
                              ? ": the step went the right way."
                              : ": the step was too large, and overshot (try a smaller --lr)."));
        }
        return n;
    }
    if (step.op != StepOp::gradient) {
        return n;
    }
    const std::string d = notation::symbol(step.symbol, notation::Style::unicode);
    if (what == "scaled_scores") {
        const Head& head = head_of(t, step);
        const HeadGrads& g = b.heads[head.index];
        std::vector<std::string> saturated;
        std::vector<std::string> alone;  // rows the mask leaves one key: weight 1 whatever S
        std::size_t flattest = 0;
        double flattest_max = 2.0;
        for (std::size_t r = 0; r < g.max_weight.size(); ++r) {
            if (g.max_weight[r] == 0.0) {
                continue;  // every key masked
            }
            std::size_t n_open = g.max_weight.size();
            if (t.mask) {
                n_open = 0;
                for (std::size_t c = 0; c < t.mask->cols(); ++c) {
                    n_open += t.mask->allowed(r, c) ? std::size_t{1} : std::size_t{0};
                }
            }
            if (n_open == 1) {
                alone.push_back(token_at(t, r));
                continue;
            }
            if (g.max_weight[r] >= saturated_weight) {
                saturated.push_back(
                    fmt::format("{} has largest weight {}; Σ|dA| = {} reaches it, and only "
                                "Σ|dS′| = {} passes",
                                token_at(t, r), format_number(g.max_weight[r], p, true),
                                format_number(g.d_weights_mass[r], p, true),
                                format_number(g.d_scaled_mass[r], p, true)));
            }
            if (g.max_weight[r] < flattest_max) {
                flattest_max = g.max_weight[r];
                flattest = r;
            }
        }
        if (!alone.empty()) {
            n.after.push_back(fmt::format(
                "The mask leaves {} a single key, so {} weight is 1 whatever the scores are, "
                "and {} gradient is exactly 0: no change of a score could change the weight.",
                join_list(alone), alone.size() == 1 ? "its" : "each one's",
                alone.size() == 1 ? "its" : "their"));
        }
        if (saturated.empty() && flattest_max > 1.0) {
            // every row has a single key: nothing more to say
        } else if (saturated.empty()) {
            n.after.push_back(fmt::format(
                "No {}row is saturated here (none has a weight of {} or more). The flattest row, "
                "{}, has largest weight {} and passes Σ|dS′| = {} of the Σ|dA| = {} that reaches "
                "it.",
                alone.empty() ? "" : "other ", format_number(saturated_weight, 2, true),
                token_at(t, flattest), format_number(flattest_max, p, true),
                format_number(g.d_scaled_mass[flattest], p, true),
                format_number(g.d_weights_mass[flattest], p, true)));
        } else {
            n.after.push_back(
                fmt::format("Saturated rows (a weight of {} or more) pass almost nothing on. {}.",
                            format_number(saturated_weight, 2, true), fmt::join(saturated, ". ")));
        }
        if (!head.empty_rows.empty()) {
            const bool one = head.empty_rows.size() == 1;
            n.after.push_back(fmt::format(
                "{} {} {} every key masked: {} weights are all 0, and so is {} gradient.",
                one ? "Row" : "Rows", join_indices(head.empty_rows), one ? "has" : "have",
                one ? "its" : "their", one ? "its" : "their"));
        }
        return n;
    }
    if (what == "output" && step.head == 0) {
        n.after.push_back(
            fmt::format("The strongest pull is {}{}.", d, largest_cell(step, precision)));
        return n;
    }
    if (what == "b_K") {
        // db_K is 0 in exact arithmetic; what it holds is rounding noise when every cell is
        // far below the gradient of the keys it sums (a billionth of it)
        double largest = 0.0;
        for (std::size_t i = 0; i < b.d_b_k.size(); ++i) {
            largest = std::max(largest, std::abs(b.d_b_k.data()[i]));
        }
        double keys = 0.0;
        for (const HeadGrads& g : b.heads) {
            for (std::size_t i = 0; i < g.d_k.size(); ++i) {
                keys = std::max(keys, std::abs(g.d_k.data()[i]));
            }
        }
        if (largest <= 1e-9 * keys) {
            n.after.push_back(fmt::format(
                "db_K is exactly 0 in exact arithmetic: b_K adds the same vector to every key, "
                "which adds the same number to every score of a row, and softmax ignores a "
                "number added to a whole row.{}",
                largest == 0.0
                    ? std::string(" Here every cell came out 0.")
                    : fmt::format(" The cells above are rounding errors: at most {} in size, "
                                  "against {} for the largest cell of dK.",
                                  format_checkable(largest, prose_digits, true),
                                  format_number(keys, prose_digits, true))));
            return n;
        }
    }
    if (what.starts_with("W_") || what.starts_with("b_") || what == "X") {
        n.after.push_back(
            fmt::format("The largest gradient is {}{}.", d, largest_cell(step, precision)));
    }
    return n;
}

}  // namespace attn::lesson
