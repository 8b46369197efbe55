#pragma once
/// How scores become attention weights: the scaling, the mask and the softmax, exactly or by
/// the by-hand rules. One rule and one function, which the computation, attn check, --why and
/// the explanations all use, so that they can never disagree.
///
/// Shapes: scores, scaled, masked and weights are (T, T): a row per query, a column per key.

#include <cstddef>
#include <vector>

#include "attn/core/matrix.hpp"
#include "attn/core/model.hpp"

namespace attn {

/// The rule of one run (weights_rule(config)), or a variant of it (attn check tries the
/// mistakes students make by changing one part).
struct WeightsRule {
    ScaleBy scale_by = ScaleBy::d_k;
    std::size_t scale_width = 1;  ///< d_k or d_model: the width whose square root divides
    Arith arith = Arith::exact;
    SoftmaxOver over = SoftmaxOver::rows;

    /// Whether the scores are divided at all.
    [[nodiscard]] bool scales() const noexcept { return scale_by != ScaleBy::none; }
    /// The exact divisor √scale_width (1 without scaling).
    [[nodiscard]] double sqrt_width() const noexcept;
    /// What a score is divided by: √scale_width exactly, √scale_width rounded to a whole
    /// number by hand, 1 without scaling.
    [[nodiscard]] double divisor() const noexcept;
    /// One scaled score: s / divisor(), or ⌊s / divisor()⌋ by hand; s without scaling.
    /// Dividing (not multiplying by 1/√d_k) keeps a cell equal to the worked arithmetic
    /// "s / √d_k" to the last bit.
    [[nodiscard]] double scale(double s) const noexcept;
    /// The base of the exponential: 3 by hand (3^x), else e.
    [[nodiscard]] double base() const noexcept;
    /// base()^x: std::exp(x), or 3^x by hand (exact for the small whole exponents of the
    /// by-hand rules: 3^-2 = 1/9).
    [[nodiscard]] double power(double x) const noexcept;
    /// The same rule computed exactly (e^x, the divisor not rounded).
    [[nodiscard]] WeightsRule exact() const noexcept;
    /// The right rule of "Attention Is All You Need" with this one's arithmetic: scores
    /// divided by √d_k (`d_k`), softmax over each row.
    [[nodiscard]] WeightsRule right(std::size_t d_k) const noexcept;
    /// Whether this is the right rule (see right()).
    [[nodiscard]] bool is_right() const noexcept {
        return scale_by == ScaleBy::d_k && over == SoftmaxOver::rows;
    }
};

/// The rule of a configuration: its scale_by, arith and softmax_over.
WeightsRule weights_rule(const Config& config) noexcept;

/// Every matrix between the scores and the weights.
struct WeightsSteps {
    Matrix scaled;   ///< (T, T) the rule's scaling of each score
    Matrix masked;   ///< (T, T) -inf where the mask blocks; empty without a mask
    Matrix weights;  ///< (T, T) the softmax of the (masked) scaled scores, as the rule says
    /// The rows (or columns, or the whole matrix, as the rule normalises) with nothing left to
    /// share the weight: every cell masked. Their weights are all zero.
    std::vector<std::size_t> empty;
};

/// scaled = rule.scale(scores); masked = -inf where `mask` blocks (no masking when `mask` is
/// null); weights = rule.base()^(s − max) / Σ rule.base()^(s − max) over each row (or each
/// column, or the whole matrix). Subtracting the max only keeps the exponentials from
/// overflowing: the weights are the same in exact arithmetic, and base^(-inf) == 0 exactly.
WeightsSteps attention_weights(const Matrix& scores, const Mask* mask, const WeightsRule& rule);

}  // namespace attn
