// What-if: what two runs of the same shape differ in, step by step (--set, attn diff), and
// how a difference travelled from the inputs that differ to the output.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/whatif.hpp"

namespace attn {
namespace {

// The first index of the largest value of `row` (ties to the earlier), or nullopt for a row
// of zeros (a query that may attend to nothing).
std::optional<std::size_t> focus_of(std::span<const double> row) {
    if (std::all_of(row.begin(), row.end(), [](double w) { return w == 0.0; })) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

StepDelta delta_of(const Step& after, const Step& before) {
    StepDelta d;
    d.id = after.id;
    d.cells = after.shape.rows * after.shape.cols;
    std::vector<std::size_t> row_changed(after.shape.rows, 0);  // changed cells per row
    std::vector<std::size_t> col_changed(after.shape.cols, 0);
    double largest = -1.0;
    for (std::size_t r = 0; r < after.shape.rows; ++r) {
        for (std::size_t c = 0; c < after.shape.cols; ++c) {
            double a = 0.0;
            double b = 0.0;
            if (after.kind == StepKind::mask) {
                a = after.allowed(r, c) ? 1.0 : 0.0;
                b = before.allowed(r, c) ? 1.0 : 0.0;
            } else if (after.kind == StepKind::tokens) {
                a = after.row_labels[r] == before.row_labels[r] ? 0.0 : 1.0;
            } else {
                a = after.value(r, c);
                b = before.value(r, c);
            }
            if (a == b) {
                continue;
            }
            ++d.changed;
            ++row_changed[r];
            ++col_changed[c];
            const double by = std::isfinite(a) && std::isfinite(b) ? a - b : 0.0;
            if (std::abs(by) > largest) {
                largest = std::abs(by);
                d.largest = by;
                d.row = r;
                d.col = c;
            }
        }
    }
    for (std::size_t r = 0; r < row_changed.size(); ++r) {
        if (row_changed[r] > 0) {
            d.rows.push_back(r);
        }
        if (row_changed[r] == after.shape.cols) {
            d.full_rows.push_back(r);
        }
    }
    for (std::size_t c = 0; c < col_changed.size(); ++c) {
        if (col_changed[c] > 0) {
            d.cols.push_back(c);
        }
        if (col_changed[c] == after.shape.rows) {
            d.full_cols.push_back(c);
        }
    }
    return d;
}

// The steps `s` is computed from in `t`: one per operand, the nearest the run has of its
// alternatives (the weights come from the masked scores when there is a mask, else from the
// scaled scores, else from the scores); a head's steps from that head's, or from steps all
// heads share. Empty for an input.
std::vector<const Step*> operands_of(const Trace& t, const Step& s) {
    using enum StepOp;
    std::vector<std::vector<StepOp>> operands;
    switch (s.op) {
        case embeddings:
            operands = {{tokens}};
            break;
        case with_positions:
            operands = {{embeddings}, {positions}};
            break;
        case q:
            operands = {{with_positions, embeddings}, {head_w_q, w_q}, {b_q}};
            break;
        case k:
            operands = {{with_positions, embeddings}, {head_w_k, w_k}, {b_k}};
            break;
        case v:
            operands = {{with_positions, embeddings}, {head_w_v, w_v}, {b_v}};
            break;
        case scores:
            operands = {{q}, {k}};
            break;
        case scaled_scores:
            operands = {{scores}};
            break;
        case masked_scores:
            operands = {{scaled_scores, scores}, {mask}};
            break;
        case weights:
            operands = {{masked_scores, scaled_scores, scores}};
            break;
        case output:
            operands = {{weights}, {v}};
            break;
        case concat:
            operands = {{output}};
            break;
        case projected_output:
            operands = {{concat, output}, {w_o}, {b_o}};
            break;
        default:
            break;
    }
    if (t.qkv_given && (s.op == q || s.op == k || s.op == v)) {
        return {};  // given, not computed
    }
    std::vector<const Step*> out;
    for (const auto& alternatives : operands) {
        for (const StepOp op : alternatives) {
            const std::size_t found = out.size();
            for (const Step& c : teaching_steps(t)) {
                // the concatenation takes every head's output; the others their own head's
                const bool head = s.op == concat || c.head == 0 || c.head == s.head;
                if (c.op == op && head && &c != &s) {
                    out.push_back(&c);
                }
            }
            if (out.size() > found) {
                break;
            }
        }
    }
    return out;
}

// The computed steps of `after` that changed, each with the steps it is computed from that
// changed too (or that `before` has not); and an input that changed because another did (X
// for a swapped token).
std::vector<Hop> hops(const Comparison& cmp, const Trace& after) {
    const auto differs = [&cmp](const std::string& id) {
        const StepDelta* d = cmp.delta(id);
        return (d != nullptr && d->changed > 0) ||
               std::find(cmp.only_after.begin(), cmp.only_after.end(), id) != cmp.only_after.end();
    };
    const auto inputs = settable_ids(after);
    std::vector<Hop> out;
    for (const Step& s : teaching_steps(after)) {
        if (s.kind == StepKind::tokens || !differs(s.id)) {
            continue;
        }
        Hop hop{s.id, {}};
        for (const Step* from : operands_of(after, s)) {
            if (differs(from->id)) {
                hop.from.push_back(from->id);
            }
        }
        const bool input = std::find(inputs.begin(), inputs.end(), s.id) != inputs.end();
        if (!input || !hop.from.empty()) {
            out.push_back(std::move(hop));
        }
    }
    return out;
}

}  // namespace

const StepDelta* Comparison::delta(std::string_view id) const {
    const auto it =
        std::find_if(steps.begin(), steps.end(), [&](const StepDelta& d) { return d.id == id; });
    return it == steps.end() ? nullptr : &*it;
}

std::vector<std::string> incomparable(const Trace& before, const Trace& after) {
    std::vector<std::string> out;
    if (before.tokens.size() != after.tokens.size()) {
        out.push_back(
            fmt::format("{} tokens against {}", before.tokens.size(), after.tokens.size()));
        return out;  // every step's shape differs with it
    }
    if (before.heads.size() != after.heads.size() || before.projected != after.projected) {
        out.push_back(fmt::format("{} {}{} against {}{}", before.heads.size(),
                                  before.heads.size() == 1 ? "head" : "heads",
                                  before.projected ? " with W_O" : "", after.heads.size(),
                                  after.projected ? " with W_O" : ""));
        return out;  // the steps are named differently
    }
    for (const Step& s : teaching_steps(after)) {
        const Step* b = find_step(before, s.id);
        if (b != nullptr && s.kind != StepKind::tokens && !(b->shape == s.shape)) {
            out.push_back(fmt::format("{} is {}×{} against {}×{}", s.id, b->shape.rows,
                                      b->shape.cols, s.shape.rows, s.shape.cols));
        }
    }
    return out;
}

std::shared_ptr<Comparison> compare(const Trace& before, const Trace& after,
                                    std::vector<Change> changes, MaskKind mask_before) {
    auto cmp = std::make_shared<Comparison>();
    cmp->before = before;
    cmp->changes = std::move(changes);
    cmp->mask_before = mask_before;
    for (const Step& s : teaching_steps(after)) {
        if (const Step* b = find_step(before, s.id); b != nullptr && b->shape == s.shape) {
            cmp->steps.push_back(delta_of(s, *b));
        } else if (b == nullptr) {
            cmp->only_after.push_back(s.id);
        }
    }
    for (const Step& s : teaching_steps(before)) {
        if (find_step(after, s.id) == nullptr) {
            cmp->only_before.push_back(s.id);
        }
    }
    // the attention weights: which moved most, and whose focus changed
    std::vector<WeightMove> moves;
    for (std::size_t h = 0; h < after.heads.size(); ++h) {
        const Matrix& a = after.heads[h].attention;
        const Matrix& b = before.heads[h].attention;
        for (std::size_t i = 0; i < a.rows(); ++i) {
            for (std::size_t j = 0; j < a.cols(); ++j) {
                if (a(i, j) != b(i, j)) {
                    moves.push_back({h, i, j, b(i, j), a(i, j)});
                }
            }
            const auto was = focus_of(b.row(i));
            const auto now = focus_of(a.row(i));
            if (was != now) {  // another key, or none where there was one (or the other way)
                constexpr auto none = FocusChange::no_key;
                cmp->focus.push_back({h, i, was.value_or(none), now.value_or(none),
                                      was ? b(i, *was) : 0.0, now ? a(i, *now) : 0.0});
            }
        }
    }
    cmp->weights_changed = moves.size();
    std::stable_sort(moves.begin(), moves.end(), [](const WeightMove& x, const WeightMove& y) {
        return std::abs(x.after - x.before) > std::abs(y.after - y.before);
    });
    moves.resize(std::min<std::size_t>(moves.size(), 5));
    cmp->moved = std::move(moves);
    // the output, row by row, with what each row is made of
    const Matrix& o = after.output;
    const Matrix& p = before.output;
    cmp->output_rows_total = o.rows();
    for (std::size_t i = 0; i < o.rows(); ++i) {
        OutputRowChange row;
        row.row = i;
        double sum = 0.0;
        double largest = -1.0;
        for (std::size_t j = 0; j < o.cols(); ++j) {
            const double by = o(i, j) - p(i, j);
            sum += by * by;
            if (std::abs(by) > largest) {
                largest = std::abs(by);
                row.largest = by;
                row.col = j;
            }
        }
        if (sum == 0.0 && std::equal(o.row(i).begin(), o.row(i).end(), p.row(i).begin())) {
            continue;
        }
        row.distance = std::sqrt(sum);
        for (std::size_t h = 0; h < after.heads.size(); ++h) {
            const Head& ha = after.heads[h];
            const Head& hb = before.heads[h];
            for (std::size_t j = 0; j < ha.attention.cols(); ++j) {
                const double moved = std::abs(ha.attention(i, j) - hb.attention(i, j));
                if (moved > row.weights_moved) {
                    row.weights_moved = moved;
                    row.weights_head = h;
                }
                if (ha.attention(i, j) != 0.0 &&
                    !std::equal(ha.v.row(j).begin(), ha.v.row(j).end(), hb.v.row(j).begin())) {
                    const auto it =
                        std::find_if(row.values_changed.begin(), row.values_changed.end(),
                                     [j](const auto& e) { return e.first == j; });
                    if (it == row.values_changed.end()) {
                        row.values_changed.emplace_back(j, ha.attention(i, j));
                    } else {
                        it->second = std::max(it->second, ha.attention(i, j));
                    }
                }
            }
        }
        cmp->output_rows.push_back(std::move(row));
    }
    std::stable_sort(
        cmp->output_rows.begin(), cmp->output_rows.end(),
        [](const OutputRowChange& x, const OutputRowChange& y) { return x.distance > y.distance; });
    cmp->path = hops(*cmp, after);
    return cmp;
}

std::vector<Change> input_differences(const Trace& before, const Trace& after) {
    std::vector<Change> out;
    const auto inputs = settable_ids(after);
    const std::size_t n = std::min(before.tokens.size(), after.tokens.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (before.tokens[i] != after.tokens[i]) {
            Change c;
            c.step_id = "tokens";
            c.row = i;
            c.token_before = before.tokens[i];
            c.token_after = after.tokens[i];
            out.push_back(std::move(c));
        }
    }
    for (const Step& s : teaching_steps(after)) {
        const Step* b = find_step(before, s.id);
        // the inputs (a head's slice of W_Q is a part of W_Q, which is compared whole)
        if (b == nullptr || !(b->shape == s.shape) || s.kind == StepKind::tokens ||
            std::find(inputs.begin(), inputs.end(), s.id) == inputs.end() ||
            s.op == StepOp::head_w_q || s.op == StepOp::head_w_k || s.op == StepOp::head_w_v) {
            continue;
        }
        for (std::size_t r = 0; r < s.shape.rows; ++r) {
            for (std::size_t c = 0; c < s.shape.cols; ++c) {
                const double a =
                    s.kind == StepKind::mask ? (s.allowed(r, c) ? 1.0 : 0.0) : s.value(r, c);
                const double was =
                    s.kind == StepKind::mask ? (b->allowed(r, c) ? 1.0 : 0.0) : b->value(r, c);
                if (a != was) {
                    Change change;
                    change.step_id = s.id;
                    change.row = r;
                    change.col = c;
                    change.before = was;
                    change.after = a;
                    out.push_back(std::move(change));
                }
            }
        }
    }
    return out;
}

}  // namespace attn
