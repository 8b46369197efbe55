// attn check: a student's answers against the right values, and the likely mistakes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/core/check.hpp"
#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"

namespace attn {
namespace {

using Cells = std::vector<std::vector<Answer>>;

bool same_shape(const Cells& cells, std::size_t rows, std::size_t cols) {
    return cells.size() == rows &&
           std::all_of(cells.begin(), cells.end(), [&](const auto& r) { return r.size() == cols; });
}

bool matches(const Answer& a, double expected, double tolerance) {
    if (std::isinf(expected)) {
        return a.kind == Answer::Kind::minus_infinity;
    }
    return a.kind == Answer::Kind::number && std::abs(a.value - expected) <= tolerance;
}

// Whether every answered cell of `cells` matches `m` (which must have the cells' shape).
bool all_match(const Cells& cells, const Matrix& m, double tolerance) {
    if (!same_shape(cells, m.rows(), m.cols())) {
        return false;
    }
    bool any = false;
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            if (cells[r][c].kind == Answer::Kind::blank) {
                continue;
            }
            any = true;
            if (!matches(cells[r][c], m(r, c), tolerance)) {
                return false;
            }
        }
    }
    return any;
}

// The weights the trace's rule gives from `scores`, with one part of the rule changed.
Matrix weights_with(const Trace& t, const Head& head, const WeightsRule& rule) {
    return attention_weights(head.scores, t.mask ? &*t.mask : nullptr, rule).weights;
}

// The mistakes students make most, recognised by recomputing with the mistake.
Mistake diagnose(const Trace& t, const Head& head, std::string_view base, const Cells& cells,
                 double tolerance) {
    const bool hand = t.rule.arith == Arith::hand;
    if (base == "scores") {
        if (all_match(cells, transpose(head.scores), tolerance)) {
            return Mistake::swapped_scores;
        }
    }
    if (base == "masked_scores") {
        for (std::size_t r = 0; r < cells.size() && r < head.masked_scores.rows(); ++r) {
            for (std::size_t c = 0; c < cells[r].size() && c < head.masked_scores.cols(); ++c) {
                if (std::isinf(head.masked_scores(r, c)) &&
                    cells[r][c].kind == Answer::Kind::number) {
                    return Mistake::masked_not_infinite;
                }
            }
        }
    }
    if (base == "scaled_scores" || base == "masked_scores") {
        if (all_match(cells, head.scores, tolerance)) {
            return Mistake::not_scaled;
        }
    }
    if (base == "weights") {
        WeightsRule unscaled = t.rule;
        unscaled.scale_by = ScaleBy::none;
        if (all_match(cells, weights_with(t, head, unscaled), tolerance)) {
            return Mistake::softmax_of_unscaled;
        }
        WeightsRule columns = t.rule;
        columns.over = SoftmaxOver::columns;
        if (all_match(cells, weights_with(t, head, columns), tolerance)) {
            return Mistake::softmax_over_columns;
        }
        if (t.mask &&
            all_match(cells, attention_weights(head.scores, nullptr, t.rule).weights, tolerance)) {
            return Mistake::mask_not_applied;
        }
        if (hand) {
            WeightsRule e_x = t.rule;
            e_x.arith = Arith::exact;  // e^x, of the same hand-scaled scores
            const Matrix& logits = t.mask ? head.masked_scores : head.scaled_scores;
            e_x.scale_by = ScaleBy::none;
            if (all_match(cells, attention_weights(logits, nullptr, e_x).weights, tolerance)) {
                return Mistake::e_instead_of_3;
            }
        }
    }
    if (base == "output" &&
        all_match(cells, matmul(transpose(head.attention), head.v), tolerance)) {
        return Mistake::columns_of_weights;
    }
    return Mistake::none;
}

}  // namespace

std::vector<StepVerdict> check_answers(const Trace& t, const AnswerSheet& sheet, double tolerance) {
    const auto& steps = teaching_steps(t);
    std::vector<StepVerdict> out;
    // in teaching order, whatever the order in the file
    for (const auto& step : steps) {
        const auto it = std::find(sheet.step_ids.begin(), sheet.step_ids.end(), step.id);
        if (it == sheet.step_ids.end()) {
            continue;
        }
        const Cells& cells = sheet.answers[static_cast<std::size_t>(it - sheet.step_ids.begin())];
        StepVerdict v;
        v.step_id = step.id;
        v.n_cells = step.shape.rows * step.shape.cols;
        if (step.kind == StepKind::tokens || step.kind == StepKind::mask) {
            throw Error(ErrorKind::input, sheet.path + ": answers." + step.id +
                                              ": this step has no numbers to work out, expected "
                                              "a step such as scores or weights");
        }
        const Head& head = head_of(t, step);
        if (!same_shape(cells, step.shape.rows, step.shape.cols)) {
            const std::size_t cols = cells.empty() ? 0 : cells.front().size();
            v.wrong_shape = std::pair{cells.size(), cols};
            if (step.op == StepOp::scores) {
                v.mistake = Mistake::k_not_transposed;
            }
            out.push_back(std::move(v));
            continue;
        }
        for (std::size_t r = 0; r < step.shape.rows; ++r) {
            for (std::size_t c = 0; c < step.shape.cols; ++c) {
                const double expected = step.value(r, c);
                if (!matches(cells[r][c], expected, tolerance)) {
                    v.wrong.push_back({r, c, cells[r][c], expected});
                }
            }
        }
        if (!v.wrong.empty()) {
            v.mistake = diagnose(t, head, base_id(step.id), cells, tolerance);
        }
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<std::string> default_blank_steps(const Trace& trace) {
    std::vector<std::string> out;
    for (const auto& s : teaching_steps(trace)) {
        switch (s.op) {
            case StepOp::q:
            case StepOp::k:
            case StepOp::v:
            case StepOp::scores:
            case StepOp::scaled_scores:
            case StepOp::masked_scores:
            case StepOp::weights:
            case StepOp::output:
                out.push_back(s.id);
                break;
            default:
                break;
        }
    }
    return out;
}

}  // namespace attn
