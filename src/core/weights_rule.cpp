// How scores become attention weights: the one function every part of attn uses.
// Shapes: scores, scaled, masked and weights are (T, T): a row per query, a column per key.
#include "attn/core/weights_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/core/ops.hpp"

namespace attn {

double WeightsRule::sqrt_width() const noexcept {
    return scales() ? std::sqrt(static_cast<double>(scale_width)) : 1.0;
}

double WeightsRule::divisor() const noexcept {
    if (!scales()) {
        return 1.0;
    }
    return arith == Arith::hand ? hand_divisor(scale_width) : sqrt_width();
}

double WeightsRule::scale(double s) const noexcept {
    if (!scales()) {
        return s;
    }
    return arith == Arith::hand ? std::floor(s / divisor()) : s / divisor();
}

double WeightsRule::base() const noexcept {
    return arith == Arith::hand ? 3.0 : std::exp(1.0);
}

double WeightsRule::power(double x) const noexcept {
    return arith == Arith::hand ? std::pow(3.0, x) : std::exp(x);
}

WeightsRule WeightsRule::exact() const noexcept {
    WeightsRule r = *this;
    r.arith = Arith::exact;
    return r;
}

WeightsRule WeightsRule::right(std::size_t d_k) const noexcept {
    WeightsRule r = *this;
    r.scale_by = ScaleBy::d_k;
    r.scale_width = d_k;
    r.over = SoftmaxOver::rows;
    return r;
}

WeightsRule weights_rule(const Config& config) noexcept {
    WeightsRule r;
    r.scale_by = config.scale_by;
    r.scale_width = config.scale_by == ScaleBy::d_model ? config.d_model : config.d_k;
    r.arith = config.arith;
    r.over = config.softmax_over;
    return r;
}

namespace {

// The softmax of the cells `at(0..n)` of one group (a row, a column, or the whole matrix),
// written into the cells `out(0..n)`. Returns false when every cell is -inf: no defined
// softmax, and the cells are left at zero.
template <typename Get, typename Out>
bool softmax_group(std::size_t n, const WeightsRule& rule, Get at, Out out) {
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
        max = std::max(max, at(i));
    }
    if (max == -std::numeric_limits<double>::infinity()) {
        return false;
    }
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        out(i) = rule.power(at(i) - max);
        sum += out(i);
    }
    for (std::size_t i = 0; i < n; ++i) {
        out(i) /= sum;
    }
    return true;
}

}  // namespace

WeightsSteps attention_weights(const Matrix& scores, const Mask* mask, const WeightsRule& rule) {
    WeightsSteps out;
    out.scaled = scores;
    for (double& s : out.scaled.data()) {
        s = rule.scale(s);
    }
    if (mask != nullptr) {
        out.masked = apply_mask(out.scaled, *mask);
    }
    const Matrix& logits = mask != nullptr ? out.masked : out.scaled;
    const std::size_t rows = logits.rows();
    const std::size_t cols = logits.cols();
    out.weights = Matrix(rows, cols);
    Matrix& w = out.weights;
    switch (rule.over) {
        case SoftmaxOver::rows:
            for (std::size_t r = 0; r < rows; ++r) {
                if (!softmax_group(
                        cols, rule, [&](std::size_t c) { return logits(r, c); },
                        [&](std::size_t c) -> double& { return w(r, c); })) {
                    out.empty.push_back(r);
                }
            }
            break;
        case SoftmaxOver::columns:
            for (std::size_t c = 0; c < cols; ++c) {
                if (!softmax_group(
                        rows, rule, [&](std::size_t r) { return logits(r, c); },
                        [&](std::size_t r) -> double& { return w(r, c); })) {
                    out.empty.push_back(c);
                }
            }
            break;
        case SoftmaxOver::all:
            if (!softmax_group(
                    rows * cols, rule, [&](std::size_t i) { return logits.data()[i]; },
                    [&](std::size_t i) -> double& { return w.data()[i]; })) {
                out.empty.push_back(0);
            }
            break;
    }
    return out;
}

}  // namespace attn
