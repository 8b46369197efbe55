// attn check: a student's answers against the right values, and the likely mistakes.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

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

bool matches(const Answer& a, double expected, const Tolerance& tolerance) {
    if (std::isinf(expected)) {
        return a.kind == Answer::Kind::minus_infinity;
    }
    return a.kind == Answer::Kind::number && tolerance.allows(a.value, expected);
}

// Whether every answered cell of `cells` matches `m` (which must have the cells' shape).
bool all_match(const Cells& cells, const Matrix& m, const Tolerance& tolerance) {
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

// What the trace's rule gives from the scores, with one part of the rule changed.
WeightsSteps steps_with(const Trace& t, const Head& head, const WeightsRule& rule) {
    return attention_weights(head.scores, t.mask ? &*t.mask : nullptr, rule);
}

// The trace's rule, dividing by √d_model instead of √d_k.
WeightsRule by_d_model(const Trace& t) {
    WeightsRule r = t.rule;
    r.scale_by = ScaleBy::d_model;
    r.scale_width = t.config.d_model;
    return r;
}

// A rule without scaling.
WeightsRule unscaled(WeightsRule r) {
    r.scale_by = ScaleBy::none;
    return r;
}

// A rule with softmax over `over`.
WeightsRule softmax_over(WeightsRule r, SoftmaxOver over) {
    r.over = over;
    return r;
}

// The largest difference between the answered cells (numbers) and `m`, over the cells where
// `m` is finite; -1 when no such cell is answered.
double largest_difference(const Cells& cells, const Matrix& m) {
    double largest = -1.0;
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            if (cells[r][c].kind == Answer::Kind::number && std::isfinite(m(r, c))) {
                largest = std::max(largest, std::abs(cells[r][c].value - m(r, c)));
            }
        }
    }
    return largest;
}

// Whether the answers fit dividing by √d_model at least as well as dividing by the square
// root of a neighbouring width (d_model ± 1): a student who divided by √5 on a sheet of
// d_model 4 may land within the tolerance of √4's values, but fits √5's better, and is not
// told "you divided by √d_model". `which` picks the step of the variant compared.
template <typename Which>
bool fits_d_model(const Cells& cells, const Trace& t, const Head& head, Which which) {
    const auto values = [&](std::size_t width) {
        WeightsRule r = by_d_model(t);
        r.scale_width = width;
        return which(steps_with(t, head, r));
    };
    const std::size_t d_model = t.config.d_model;
    const double own = largest_difference(cells, values(d_model));
    const std::array neighbours{d_model - 1, d_model + 1};
    return std::ranges::all_of(neighbours, [&](std::size_t width) {
        return width < 1 || largest_difference(cells, values(width)) >= own;
    });
}

// The weights by hand with e^x in place of 3^x: the softmax of the hand-scaled (and masked)
// scores with e^x.
Matrix e_instead_of_3_weights(const Trace& t, const Head& head) {
    const WeightsRule e_x = unscaled(t.rule.exact());  // e^x, of the hand-scaled scores
    const Matrix& logits = t.mask ? head.masked_scores : head.scaled_scores;
    return attention_weights(logits, nullptr, e_x).weights;
}

// The mistakes students make most, recognised by recomputing with the mistake.
Mistake diagnose(const Trace& t, const Head& head, std::string_view base, const Cells& cells,
                 const Tolerance& tolerance) {
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
        const bool masked = base == "masked_scores";
        const auto step_of = [masked](const WeightsSteps& w) {
            return masked ? w.masked : w.scaled;
        };
        if (t.config.d_model != t.config.d_k &&
            all_match(cells, step_of(steps_with(t, head, by_d_model(t))), tolerance) &&
            fits_d_model(cells, t, head, step_of)) {
            return Mistake::scaled_by_d_model;
        }
    }
    if (base == "weights") {
        // the rule with one part changed, in the order they are tried; dividing by √d_model
        // is a mistake only where d_model is not d_k
        struct Variant {
            bool applies = true;
            WeightsRule rule;
            Mistake mistake = Mistake::none;
        };
        const std::array variants{
            Variant{true, unscaled(t.rule), Mistake::softmax_of_unscaled},
            Variant{t.config.d_model != t.config.d_k, by_d_model(t), Mistake::scaled_by_d_model},
            Variant{true, softmax_over(t.rule, SoftmaxOver::all), Mistake::softmax_over_all},
            Variant{true, softmax_over(t.rule, SoftmaxOver::columns),
                    Mistake::softmax_over_columns},
        };
        for (const auto& [applies, rule, mistake] : variants) {
            if (applies && all_match(cells, steps_with(t, head, rule).weights, tolerance) &&
                (mistake != Mistake::scaled_by_d_model ||
                 fits_d_model(cells, t, head, [](const WeightsSteps& w) { return w.weights; }))) {
                return mistake;
            }
        }
        if (t.mask &&
            all_match(cells, attention_weights(head.scores, nullptr, t.rule).weights, tolerance)) {
            return Mistake::mask_not_applied;
        }
        if (hand && all_match(cells, e_instead_of_3_weights(t, head), tolerance)) {
            return Mistake::e_instead_of_3;
        }
    }
    if (base == "output" &&
        all_match(cells, matmul(transpose(head.attention), head.v), tolerance)) {
        return Mistake::columns_of_weights;
    }
    return Mistake::none;
}

}  // namespace

bool Tolerance::allows(double given, double expected) const noexcept {
    // a billionth of the value is a double's rounding, never a student's mistake: with
    // --tolerance 0 the exact -0.0401 of the answer key is not wrong beside attn's
    // -0.04010000000000001
    return std::abs(given - expected) <=
           std::max({absolute, relative * std::abs(expected), rounding * std::abs(expected)});
}

std::vector<std::string> inputs_of(const Trace& t, const std::string& id) {
    const std::string prefix(id.substr(0, id.size() - base_id(id).size()));
    const auto base = base_id(id);
    const bool masked = t.mask.has_value();
    if (base == "scores") {
        return {prefix + "Q", prefix + "K"};
    }
    if (base == "scaled_scores") {
        return {prefix + "scores"};
    }
    if (base == "masked_scores") {
        return {prefix + "scaled_scores", prefix + "scores"};
    }
    if (base == "weights") {
        if (masked) {
            return {prefix + "masked_scores", prefix + "scaled_scores", prefix + "scores"};
        }
        return {prefix + "scaled_scores", prefix + "scores"};
    }
    if (base == "output") {
        return {prefix + "weights", prefix + "V"};
    }
    return {};
}

namespace {

// The student's answers to a step as a matrix, when every cell is answered.
std::optional<Matrix> answered(const AnswerSheet& sheet, const std::string& id, Shape shape) {
    const auto it = std::find(sheet.step_ids.begin(), sheet.step_ids.end(), id);
    if (it == sheet.step_ids.end()) {
        return std::nullopt;
    }
    const Cells& cells = sheet.answers[static_cast<std::size_t>(it - sheet.step_ids.begin())];
    if (!same_shape(cells, shape.rows, shape.cols)) {
        return std::nullopt;
    }
    Matrix m(shape.rows, shape.cols);
    for (std::size_t r = 0; r < shape.rows; ++r) {
        for (std::size_t c = 0; c < shape.cols; ++c) {
            switch (cells[r][c].kind) {
                case Answer::Kind::blank:
                    return std::nullopt;
                case Answer::Kind::minus_infinity:
                    m(r, c) = -std::numeric_limits<double>::infinity();
                    break;
                case Answer::Kind::number:
                    m(r, c) = cells[r][c].value;
                    break;
            }
        }
    }
    return m;
}

// The step recomputed from the student's own answers to the steps it comes from, when the
// student answered at least one of them (fully) and it differs from the right values; with
// the id of the answered input it came from. Nothing otherwise.
std::optional<std::pair<Matrix, std::string>> from_own_answers(const Trace& t, const Head& head,
                                                               const Step& step,
                                                               const AnswerSheet& sheet,
                                                               const Tolerance& tolerance) {
    const std::string prefix(step.id.substr(0, step.id.size() - base_id(step.id).size()));
    const auto base = base_id(step.id);
    const Mask* mask = t.mask ? &*t.mask : nullptr;
    const auto own = [&](const std::string& name, const Matrix& right) {
        return answered(sheet, prefix + name, {right.rows(), right.cols()});
    };
    // any difference at all: answers inside the tolerance but not exact (e^x for 3^x) can
    // still take a later step outside it, and that step then follows from them
    const auto differs = [](const Matrix& mine, const Matrix& right) {
        for (std::size_t i = 0; i < mine.size(); ++i) {
            if (mine.data()[i] != right.data()[i]) {
                return true;
            }
        }
        return false;
    };
    // which of two inputs to name: the one with wrong answers (outside the tolerance), else
    // the first that differs at all
    const auto wrong = [&tolerance](const Matrix& mine, const Matrix& right) {
        for (std::size_t i = 0; i < mine.size(); ++i) {
            if (!tolerance.allows(mine.data()[i], right.data()[i])) {
                return true;
            }
        }
        return false;
    };
    WeightsRule softmax_only = t.rule;  // the softmax of scores already scaled (and masked)
    softmax_only.scale_by = ScaleBy::none;
    if (base == "scores") {
        const auto q = own("Q", head.q);
        const auto k = own("K", head.k);
        if ((q && differs(*q, head.q)) || (k && differs(*k, head.k))) {
            const bool name_k = (k && wrong(*k, head.k) && !(q && wrong(*q, head.q))) ||
                                !(q && differs(*q, head.q));
            return std::pair{matmul_transposed_reference(q ? *q : head.q, k ? *k : head.k),
                             prefix + (name_k ? "K" : "Q")};
        }
    } else if (base == "scaled_scores") {
        if (const auto s = own("scores", head.scores); s && differs(*s, head.scores)) {
            return std::pair{attention_weights(*s, nullptr, t.rule).scaled, prefix + "scores"};
        }
    } else if (base == "masked_scores") {
        if (const auto s = own("scaled_scores", head.scaled_scores);
            s && differs(*s, head.scaled_scores)) {
            return std::pair{apply_mask(*s, *mask), prefix + "scaled_scores"};
        }
    } else if (base == "weights") {
        if (mask != nullptr) {
            if (const auto s = own("masked_scores", head.masked_scores);
                s && differs(*s, head.masked_scores)) {
                return std::pair{attention_weights(*s, nullptr, softmax_only).weights,
                                 prefix + "masked_scores"};
            }
        }
        if (const auto s = own("scaled_scores", head.scaled_scores);
            s && differs(*s, head.scaled_scores)) {
            return std::pair{attention_weights(*s, mask, softmax_only).weights,
                             prefix + "scaled_scores"};
        }
    } else if (base == "output") {
        const auto a = own("weights", head.attention);
        const auto v = own("V", head.v);
        if ((a && differs(*a, head.attention)) || (v && differs(*v, head.v))) {
            const bool name_v = (v && wrong(*v, head.v) && !(a && wrong(*a, head.attention))) ||
                                !(a && differs(*a, head.attention));
            return std::pair{matmul_reference(a ? *a : head.attention, v ? *v : head.v),
                             prefix + (name_v ? "V" : "weights")};
        }
    }
    return std::nullopt;
}

}  // namespace

namespace {

std::vector<StepVerdict> check_rows(const Trace& t, const AnswerSheet& sheet,
                                    const Tolerance& tolerance);

// A column-layout sheet's answers as the row layout holds them: each step's cells
// transposed (a step whose rows differ in length is kept, and found the wrong shape).
AnswerSheet in_rows(const AnswerSheet& sheet) {
    AnswerSheet out = sheet;
    out.worksheet.layout = Layout::row;
    for (Cells& cells : out.answers) {
        const std::size_t cols = cells.empty() ? 0 : cells.front().size();
        if (!same_shape(cells, cells.size(), cols) || cols == 0) {
            continue;
        }
        Cells turned(cols, std::vector<Answer>(cells.size()));
        for (std::size_t r = 0; r < cells.size(); ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                turned[c][r] = cells[r][c];
            }
        }
        cells = std::move(turned);
    }
    return out;
}

}  // namespace

std::vector<StepVerdict> check_answers(const Trace& t, const AnswerSheet& sheet,
                                       const Tolerance& tolerance) {
    if (sheet.worksheet.layout == Layout::row) {
        return check_rows(t, sheet, tolerance);
    }
    // checked in the row layout, and each cell named back as the worksheet shows it
    auto verdicts = check_rows(t, in_rows(sheet), tolerance);
    for (StepVerdict& v : verdicts) {
        for (WrongCell& w : v.wrong) {
            std::swap(w.row, w.col);
        }
        for (auto& [r, c] : v.swapped_cells) {
            std::swap(r, c);
        }
        for (auto& [r, c] : v.maybe_swapped_cells) {
            std::swap(r, c);
        }
        if (v.wrong_shape) {
            const auto it = std::find(sheet.step_ids.begin(), sheet.step_ids.end(), v.step_id);
            const Cells& given =
                sheet.answers[static_cast<std::size_t>(it - sheet.step_ids.begin())];
            v.wrong_shape = std::pair{given.size(), given.empty() ? 0 : given.front().size()};
        }
    }
    return verdicts;
}

namespace {

std::vector<StepVerdict> check_rows(const Trace& t, const AnswerSheet& sheet,
                                    const Tolerance& tolerance) {
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
            throw Error(ErrorKind::input, shown(sheet.path) + ": answers." + shown(step.id) +
                                              ": this step has no numbers to work out, expected "
                                              "a step such as scores or weights");
        }
        const Head& head = head_of(t, step);
        if (!same_shape(cells, step.shape.rows, step.shape.cols)) {
            const std::size_t cols = cells.empty() ? 0 : cells.front().size();
            v.wrong_shape = std::pair{cells.size(), cols};
            // Qᵀ · K is d_k × d_k (with d_k = T it has the right shape and is not caught
            // here); named only when the answer's numbers are Qᵀ · K's, not for its shape alone
            const std::size_t d_k = head.q.cols();
            if (step.op == StepOp::scores && cells.size() == d_k && cols == d_k &&
                d_k != step.shape.rows &&
                all_match(cells, matmul_reference(transpose(head.q), head.k), tolerance)) {
                v.mistake = Mistake::k_not_transposed;
            }
            out.push_back(std::move(v));
            continue;
        }
        for (std::size_t r = 0; r < step.shape.rows; ++r) {
            for (std::size_t c = 0; c < step.shape.cols; ++c) {
                const double expected = step.value(r, c);
                if (matches(cells[r][c], expected, tolerance)) {
                    continue;
                }
                v.wrong.push_back({r, c, cells[r][c], expected});
                // transposed one by one: the right value of the mirror cell, when that value
                // is far enough from this cell's (more than twice the tolerance) for matching
                // it not to be a near-coincidence. A whole number (the by-hand exercises'
                // scores: small integers, many of them alike) is matched by chance too often
                // to say so from one cell: then the mirror cell must hold this one's value.
                if (step.shape.rows != step.shape.cols || r == c) {
                    continue;
                }
                const double mirror = step.value(c, r);
                const Tolerance twice{2.0 * tolerance.absolute, 2.0 * tolerance.relative};
                if (cells[r][c].kind != Answer::Kind::blank &&
                    matches(cells[r][c], mirror, tolerance) &&
                    !matches(Answer{Answer::Kind::number, mirror}, expected, twice)) {
                    if (mirror != std::round(mirror) || matches(cells[c][r], expected, tolerance)) {
                        v.swapped_cells.emplace_back(r, c);
                    } else {
                        v.maybe_swapped_cells.emplace_back(r, c);
                    }
                }
            }
        }
        // by hand, e^x in place of 3^x can stay inside the tolerance: named when the answers
        // are at least twice as near e^x's weights as 3^x's
        if (step.op == StepOp::weights && t.rule.arith == Arith::hand && !v.answered_wrong()) {
            const double to_e = largest_difference(cells, e_instead_of_3_weights(t, head));
            const double to_3 = largest_difference(cells, head.attention);
            if (to_e >= 0.0 && to_3 > 0.0 && 2.0 * to_e <= to_3) {
                v.within_tolerance = Mistake::e_instead_of_3;
                v.mistake_distance = to_e;
                v.right_distance = to_3;
            }
        }
        // a mistake shows in the answered cells: blanks alone are only missing
        if (v.answered_wrong()) {
            v.mistake = diagnose(t, head, base_id(step.id), cells, tolerance);
            if (const auto own = from_own_answers(t, head, step, sheet, tolerance)) {
                if (all_match(cells, own->first, tolerance)) {
                    v.follows_from = own->second;
                } else {
                    // some wrong cells only: the ones the student's own earlier answers give
                    // (a mask's open cells copied from a wrong S′, its blocked ones a number)
                    for (const auto& w : v.wrong) {
                        if (w.given.kind != Answer::Kind::blank &&
                            matches(w.given, own->first(w.row, w.col), tolerance)) {
                            v.own_cells.emplace_back(w.row, w.col);
                        }
                    }
                    if (!v.own_cells.empty()) {
                        v.own_from = own->second;
                    }
                }
            }
        }
        out.push_back(std::move(v));
    }
    return out;
}

}  // namespace

}  // namespace attn
