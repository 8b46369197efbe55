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

Matrix softmax_like(const Trace& t, const Matrix& logits) {
    return t.config.arith == Arith::hand ? softmax_rows_base(logits, 3.0).weights
                                         : softmax_rows(logits).weights;
}

// The mistakes students make most, recognised by recomputing with the mistake.
std::string diagnose(const Trace& t, const Head& head, std::string_view base, const Cells& cells,
                     double tolerance) {
    const bool hand = t.config.arith == Arith::hand;
    if (base == "scores") {
        if (all_match(cells, transpose(head.scores), tolerance)) {
            return "rows and columns are swapped: in S = Q · Kᵀ the rows are queries and the "
                   "columns keys (you computed K · Qᵀ)";
        }
    }
    if (base == "masked_scores") {
        for (std::size_t r = 0; r < cells.size() && r < head.masked_scores.rows(); ++r) {
            for (std::size_t c = 0; c < cells[r].size() && c < head.masked_scores.cols(); ++c) {
                if (std::isinf(head.masked_scores(r, c)) &&
                    cells[r][c].kind == Answer::Kind::number) {
                    return "masked cells must be −∞, not a number such as 0: −∞ is what makes "
                           "their weight exactly 0 after softmax";
                }
            }
        }
    }
    if (base == "scaled_scores" || base == "masked_scores") {
        if (all_match(cells, head.scores, tolerance)) {
            return "you forgot to scale: S′ = S / √d_k" +
                   std::string(hand ? " (by hand, ⌊S / r⌋)" : "");
        }
    }
    if (base == "weights") {
        Matrix unscaled = head.scores;
        if (t.mask) {
            unscaled = apply_mask(unscaled, *t.mask);
        }
        if (all_match(cells, softmax_like(t, unscaled), tolerance)) {
            return "you forgot to scale before softmax: softmax(S′) with S′ = S / √d_k, not "
                   "softmax(S)";
        }
        const Matrix& logits = t.mask ? head.masked_scores : head.scaled_scores;
        if (all_match(cells, transpose(softmax_like(t, transpose(logits))), tolerance)) {
            return "softmax over the wrong axis: each row (one query, over all keys) must sum to "
                   "1, not each column";
        }
        if (t.mask && all_match(cells, softmax_like(t, head.scaled_scores), tolerance)) {
            return "the mask was not applied: masked cells must be −∞ before softmax, so that "
                   "their weight is 0";
        }
        if (hand && all_match(cells, softmax_rows(logits).weights, tolerance)) {
            return "you used e^x: by hand the rule is 3^x";
        }
    }
    if (base == "output" &&
        all_match(cells, matmul(transpose(head.attention), head.v), tolerance)) {
        return "you used the columns of A as weights: Z = A · V takes each row of A";
    }
    return "";
}

}  // namespace

std::vector<StepVerdict> check_answers(const Trace& t, const AnswerSheet& sheet, double tolerance) {
    const auto steps = teaching_steps(t);
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
        v.title = step.number + " · " + std::string(step.title) + " " + step.symbol;
        v.n_cells = step.shape.rows * step.shape.cols;
        if (step.kind == StepKind::tokens || step.kind == StepKind::mask) {
            throw Error(ErrorKind::input, sheet.path + ": answers." + step.id +
                                              ": this step has no numbers to work out, expected "
                                              "a step such as scores or weights");
        }
        const Head& head = head_of(t, step);
        if (!same_shape(cells, step.shape.rows, step.shape.cols)) {
            const std::size_t cols = cells.empty() ? 0 : cells.front().size();
            v.shape_problem = "the answer is " + std::to_string(cells.size()) + "×" +
                              std::to_string(cols) + ", expected " +
                              std::to_string(step.shape.rows) + "×" +
                              std::to_string(step.shape.cols);
            if (base_id(step.id) == "scores") {
                v.diagnosis = "S = Q · Kᵀ is tokens × tokens: did you forget to transpose K?";
            }
            out.push_back(std::move(v));
            continue;
        }
        for (std::size_t r = 0; r < step.shape.rows; ++r) {
            for (std::size_t c = 0; c < step.shape.cols; ++c) {
                const double expected = (*step.matrix)(r, c);
                if (!matches(cells[r][c], expected, tolerance)) {
                    v.wrong.push_back({r, c, cells[r][c], expected});
                }
            }
        }
        if (!v.wrong.empty()) {
            v.diagnosis = diagnose(t, head, base_id(step.id), cells, tolerance);
        }
        out.push_back(std::move(v));
    }
    return out;
}

}  // namespace attn
