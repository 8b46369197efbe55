// How scores become attention weights: the one function every part of attn uses.
// Shapes: scores, scaled, masked and weights are (T, T): a row per query, a column per key.
#include "attn/core/weights_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "attn/core/ops.hpp"
#include "attn/core/portable.hpp"

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
    return arith == Arith::hand ? 3.0 : portable_exp(1.0);
}

double WeightsRule::power(double x) const noexcept {
    // portable_exp, not std::exp: the same bits on every machine, so a training run is too
    return arith == Arith::hand ? std::pow(3.0, x) : portable_exp(x);
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

// The cells a softmax normalises together, as positions in a matrix's row-major data: group g
// (0 ≤ g < count) is the `size` cells g·group_step + i·cell_step, 0 ≤ i < size.
struct Groups {
    std::size_t count = 0;
    std::size_t size = 0;
    std::size_t group_step = 0;
    std::size_t cell_step = 0;
};

// Each row, each column, or the whole matrix as one group.
Groups groups_of(SoftmaxOver over, std::size_t rows, std::size_t cols) {
    switch (over) {
        case SoftmaxOver::rows:
            return {rows, cols, cols, 1};
        case SoftmaxOver::columns:
            return {cols, rows, 1, cols};
        case SoftmaxOver::all:
            break;
    }
    return {1, rows * cols, 0, 1};
}

// The softmax of one group of `in`, written into the same cells of `out`. Returns false when
// every cell is -inf: no defined softmax, and the cells are left at zero.
bool softmax_group(std::span<const double> in, std::span<double> out, const Groups& groups,
                   std::size_t group, const WeightsRule& rule) {
    const auto at = [&](std::size_t i) { return group * groups.group_step + i * groups.cell_step; };
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < groups.size; ++i) {
        max = std::max(max, in[at(i)]);
    }
    if (max == -std::numeric_limits<double>::infinity()) {
        return false;
    }
    double sum = 0.0;
    for (std::size_t i = 0; i < groups.size; ++i) {
        out[at(i)] = rule.power(in[at(i)] - max);
        sum += out[at(i)];
    }
    for (std::size_t i = 0; i < groups.size; ++i) {
        out[at(i)] /= sum;
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
    out.weights = Matrix(logits.rows(), logits.cols());
    const Groups groups = groups_of(rule.over, logits.rows(), logits.cols());
    for (std::size_t g = 0; g < groups.count; ++g) {
        if (!softmax_group(logits.data(), out.weights.data(), groups, g, rule)) {
            out.empty.push_back(g);
        }
    }
    return out;
}

}  // namespace attn
