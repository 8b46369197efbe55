// --why: the worked arithmetic behind one cell, term by term, with the trace's own numbers.
// Every "a op b = c" is written from the numbers it shows: the same values and the same rule
// (WeightsRule) that computed the cell.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "attn/core/whatif.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"
#include "why.hpp"

namespace attn {
namespace why {

std::string Why::render() {
    const Step& step = *find_step(t_, cell_.step_id, cell_.layout);
    const Head& head = head_of(t_, step);
    const double value = step.kind == StepKind::mask
                             ? (step.allowed(cell_.row, cell_.col) ? 1.0 : 0.0)
                             : step.value(cell_.row, cell_.col);
    // i, j: the cell in the step's matrix, where a token is a row; row, col: their labels
    const std::size_t i = cell_.matrix_row();
    const std::size_t j = cell_.matrix_col();
    const auto& rows = step.transposed ? step.col_labels : step.row_labels;
    const auto& cols = step.transposed ? step.row_labels : step.col_labels;
    const std::string row = toolkit::terminal(rows[i]);
    const std::string col = toolkit::terminal(cols[j]);
    // the loss is one number, L; an updated weight keeps its symbol, so the title says it
    const std::string where =
        step.op == StepOp::loss
            ? std::string()
            : fmt::format("[{}, {}]", toolkit::terminal(step.row_labels[cell_.row]),
                          toolkit::terminal(step.col_labels[cell_.col]));
    const std::string title =
        fmt::format("Why is {}{} = {}{}?", notation::symbol(step.symbol, notation::Style::unicode),
                    where, num(value), step.op == StepOp::update ? " after the update" : "");
    out_ += paint(toolkit::heading_rule(text(title), style_.width, style_.unicode), "1") + "\n";
    const auto base = base_id(step.id);
    // the cell as shown: in the column layout its row and column are the matrix's column
    // and row, and a token's vector is a column
    shown_row_ = toolkit::terminal(step.row_labels[cell_.row]);
    shown_col_ = toolkit::terminal(step.col_labels[cell_.col]);
    columns_ = step.transposed;
    const bool token_by_token = base == "scores" || base == "scaled_scores" ||
                                base == "masked_scores" || base == "weights" || base == "mask";
    if (columns_ && token_by_token) {
        line(
            fmt::format("In the column layout this cell is in row '{}' and column '{}': "
                        "the key is '{}', the query '{}'.",
                        shown_row_, shown_col_, col, row));
    }
    const std::string sub = step.head > 0 ? "_" + std::to_string(step.head) : "";
    const std::string x_name = t_.positions.empty() ? "X" : "X′";
    if (base == "Q" || base == "K" || base == "V") {
        const Matrix& w = base == "Q" ? head.w_q : base == "K" ? head.w_k : head.w_v;
        const Matrix& bias = base == "Q" ? t_.b_q : base == "K" ? t_.b_k : t_.b_v;
        const std::size_t begin = base == "V" ? head.v_begin : head.k_begin;
        line(columns_ ? fmt::format("{}{}[{}, {}] is row {} of W_{}{} times column '{}' of {}: "
                                    "the sum of their products, one per embedding dimension.",
                                    base, sub, shown_row_, shown_col_, col, base, sub, row, x_name)
                      : fmt::format("{}{}[{}, {}] is row '{}' of {} times column {} of W_{}{}: "
                                    "the sum of their products, one per embedding dimension.",
                                    base, sub, row, col, row, x_name, col, base, sub));
        std::vector<std::string> terms;
        for (std::size_t k = 0; k < w.rows(); ++k) {
            terms.push_back(product(t_.x_in(i, k), w(k, j)));
        }
        if (!bias.empty()) {
            terms.push_back(num(bias(0, begin + j)) + " (the bias b_" + std::string(base) + ")");
        }
        sum(terms, value);
    } else if (base == "scores") {
        scores(head, i, j, sub);
    } else if (base == "scaled_scores") {
        scores(head, i, j, sub);
        scaled(head, i, j, sub, value);
    } else if (base == "masked_scores") {
        if (t_.mask->allowed(i, j)) {
            line(fmt::format(
                "{} = 1: '{}' may attend to '{}', so the scaled score passes "
                "unchanged: {} = {} = {}.",
                cell("M", ""), row, col, cell("S′ₘ", sub), cell("S′", sub), num(value)));
        } else {
            line(
                fmt::format("{} = 0: '{}' may not attend to '{}'{}, so the score becomes −∞, "
                            "and softmax will give it a weight of exactly 0 (e^−∞ = 0).",
                            cell("M", ""), row, col, blocked_reason(i, j)));
        }
    } else if (base == "weights") {
        weights(head, i, j, sub, row, col, value);
    } else if (base == "output" && (step.head > 0 || !t_.projected)) {
        line(fmt::format(
            "{} is the weighted sum of {} {} of V{}, with {} as the weights:", cell("Z", sub),
            columns_ ? "row" : "column", head.v_labels[j], sub, vector_of(row, "A" + sub)));
        std::vector<std::string> terms;
        for (std::size_t k = 0; k < head.attention.cols(); ++k) {
            terms.push_back(product(head.attention(i, k), head.v(k, j)) + " [" +
                            toolkit::terminal(t_.tokens[k]) + "]");
        }
        sum(terms, value);
    } else if (base == "concat") {
        const std::size_t h = j / t_.config.d_v;
        line(fmt::format("Column {} of Z is column {} of head {}'s output: Z_{}[{}, {}] = {}.", col,
                         j % t_.config.d_v, h + 1, h + 1, row,
                         t_.heads[h].z_labels[j % t_.config.d_v], num(value)));
    } else if (base == "output") {
        line(
            fmt::format("O[{}, {}] is row '{}' of Z (every head's output) times column {} "
                        "of W_O:",
                        row, col, row, col));
        std::vector<std::string> terms;
        for (std::size_t k = 0; k < t_.concat.cols(); ++k) {
            terms.push_back(product(t_.concat(i, k), t_.w_o(k, j)));
        }
        if (!t_.b_o.empty()) {
            terms.push_back(num(t_.b_o(0, j)) + " (the bias b_O)");
        }
        sum(terms, value);
    } else if (is_backward(step.op)) {
        gradient(step, head, i, j, value);
    } else if (base == "with_positions") {
        line(fmt::format("X′[{}, {}] = X[{}, {}] + P[{}, {}] = {} + {} = {}.", row, col, row, col,
                         row, col, num(t_.x(i, j)), num(t_.positions(i, j)), num(value)));
    } else if (base == "mask") {
        line(value == 1.0
                 ? fmt::format("'{}' may attend to '{}'.", row, col)
                 : fmt::format("'{}' may not attend to '{}'{}.", row, col, blocked_reason(i, j)));
    } else {
        line(
            fmt::format("{} is an input of the walk-through, not computed from other "
                        "steps: {}.",
                        notation::symbol(step.symbol, notation::Style::unicode), source_of(base)));
        if (t_.comparison && t_.comparison->before_name.empty()) {
            // a what-if: a cell --set changed is not what its source gave
            for (const Change& c : t_.comparison->changes) {
                if (c.step_id == step.id && c.row == i && c.col == j) {
                    line(fmt::format("But this cell was set by --set: it is {} instead of {}.",
                                     num(c.after), num(c.before)));
                }
            }
        }
    }
    return std::move(out_);
}

void Why::scores(const Head& head, std::size_t i, std::size_t j, const std::string& sub) {
    const std::string a = toolkit::terminal(t_.tokens[i]);
    const std::string b = toolkit::terminal(t_.tokens[j]);
    std::vector<std::string> terms;
    for (std::size_t k = 0; k < head.q.cols(); ++k) {
        terms.push_back(columns_ ? product(head.k(j, k), head.q(i, k))
                                 : product(head.q(i, k), head.k(j, k)));
    }
    if (columns_) {
        line(fmt::format("{} = k_{} · q_{}: the dot product of {} and {}.", cell("S", sub), b, a,
                         vector_of(b, "K" + sub), vector_of(a, "Q" + sub)));
    } else {
        line(fmt::format("{} = q_{} · k_{}: the dot product of {} and {}.", cell("S", sub), a, b,
                         vector_of(a, "Q" + sub), vector_of(b, "K" + sub)));
    }
    sum(terms, head.scores(i, j));
}

// The scaling of one score, as the trace's rule did it.
void Why::scaled(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                 double value) {
    const WeightsRule& rule = t_.rule;
    const std::string cell_s = cell("S", sub);
    const std::string cell_t = cell("S′", sub);
    const std::string width = rule.scale_by == ScaleBy::d_model ? "d_model" : "d_k";
    if (!rule.scales()) {
        line(fmt::format("Then not scaled: {} = {} = {}, with no division.", cell_t, cell_s,
                         num(value)));
    } else if (rule.arith == Arith::hand) {
        line(fmt::format(
            "Then scaled by hand: {} = ⌊{} / {}⌋ = ⌊{} / {}⌋ = {} ({} is √{} = "
            "{} rounded to a whole number).",
            cell_t, cell_s, num(rule.divisor()), num(head.scores(i, j)), num(rule.divisor()),
            num(value), num(rule.divisor()), width, num(rule.sqrt_width())));
    } else {
        line(fmt::format("Then scaled: {} = {} / √{} = {} / {} = {}.", cell_t, cell_s, width,
                         num(head.scores(i, j)), num(rule.divisor()), num(value)));
    }
}

void Why::weights(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                  const std::string& row, const std::string& col, double value) {
    const WeightsRule& rule = t_.rule;
    const Matrix& logits = t_.mask ? head.masked_scores : head.scaled_scores;
    // the cells softmax normalised together with this one: its row, its column, or all
    std::vector<std::pair<std::size_t, std::size_t>> group;
    if (rule.over == SoftmaxOver::columns) {
        for (std::size_t r = 0; r < logits.rows(); ++r) {
            group.emplace_back(r, j);
        }
    } else if (rule.over == SoftmaxOver::all) {
        for (std::size_t r = 0; r < logits.rows(); ++r) {
            for (std::size_t c = 0; c < logits.cols(); ++c) {
                group.emplace_back(r, c);
            }
        }
    } else {
        for (std::size_t c = 0; c < logits.cols(); ++c) {
            group.emplace_back(i, c);
        }
    }
    double max = -std::numeric_limits<double>::infinity();
    for (const auto& [r, c] : group) {
        max = std::max(max, logits(r, c));
    }
    const std::string s_name = std::string(t_.mask ? "S′ₘ" : "S′") + sub;
    // the group named without "row" or "column", which the layout would swap
    const std::string axis = columns_ ? "column" : "row";
    const std::string other = columns_ ? "row" : "column";
    const std::string what =
        rule.over == SoftmaxOver::columns
            ? fmt::format("the scores of key '{}', one per query (its {} of {})", col, other,
                          s_name)
        : rule.over == SoftmaxOver::all
            ? "the whole matrix " + s_name
            : fmt::format("the scores of query '{}', one per key (its {} of {})", row, axis,
                          s_name);
    if (std::isinf(max)) {
        line(
            fmt::format("Every one of {} is masked: softmax is undefined, and attn gives "
                        "them zero weights.",
                        what));
        return;
    }
    const bool hand = rule.arith == Arith::hand;
    const std::string b = hand ? "3" : "e";
    line(fmt::format(
        "{} = {}^(s_{} − max) / Σ {}^(s − max), where s runs over {} and max = {} is the "
        "largest of them (subtracted only so that nothing overflows){}.",
        cell("A", sub), b,
        // the term of this cell: its key's score in a row, its query's in a column
        rule.over == SoftmaxOver::all       ? row + "," + col
        : rule.over == SoftmaxOver::columns ? row
                                            : col,
        b, what, num(max), hand ? "; by hand, 3 stands in for e" : ""));
    std::vector<std::string> terms;
    double total = 0.0;
    constexpr std::size_t listed = 12;
    for (std::size_t n = 0; n < group.size(); ++n) {
        const auto [r, c] = group[n];
        const double s = logits(r, c);
        const double e = rule.power(s - max);
        total += e;
        if (n >= listed && group.size() > listed + 1) {
            continue;
        }
        const std::string where =
            rule.over == SoftmaxOver::rows ? toolkit::terminal(t_.tokens[c])
            : rule.over == SoftmaxOver::columns
                ? toolkit::terminal(t_.tokens[r])
                : toolkit::terminal(t_.tokens[r]) + ", " + toolkit::terminal(t_.tokens[c]);
        terms.push_back(std::isinf(s) ? fmt::format("{}^−∞ = 0 [{}]", b, where)
                                      : fmt::format("{}^({} − {}) = {} [{}]", b, num(s), paren(max),
                                                    num(e), where));
    }
    if (group.size() > listed + 1) {
        terms.push_back(fmt::format("… and {} more terms", group.size() - listed));
    }
    line(rule.over == SoftmaxOver::rows      ? "The terms, one per key:"
         : rule.over == SoftmaxOver::columns ? "The terms, one per query:"
                                             : "The terms, one per cell:");
    list(terms);
    line(fmt::format("Σ = {}, so {} = {} / {} = {}.", num(total), cell("A", sub),
                     num(rule.power(logits(i, j) - max)), num(total), num(value)));
}

std::string Why::blocked_reason(std::size_t i, std::size_t j) const {
    const bool pad = t_.config.n_pad > 0 && j >= t_.tokens.size() - t_.config.n_pad;
    if (pad) {
        return " (it is padding)";
    }
    if (t_.config.mask == MaskKind::causal && j > i) {
        return " (the causal mask: it comes later in the sentence)";
    }
    if (t_.mask_source.kind == Source::Kind::set) {
        return " (the mask says so: the run as given, with the cells --set changed)";
    }
    if (t_.config.mask == MaskKind::file) {
        return " (the mask from " + toolkit::terminal(t_.mask_source.path) + " says so)";
    }
    return "";
}

std::string Why::source_of(std::string_view base) const {
    const auto describe = [&](const Source& s) {
        return s.kind == Source::Kind::file ? "read from " + toolkit::terminal(s.path)
                                            : fmt::format("seeded from --seed {}", t_.config.seed);
    };
    if (base == "embeddings") {
        return describe(t_.embeddings_source);
    }
    if (base == "positions") {
        return t_.config.positions == PositionKind::sinusoidal
                   ? std::string("the sinusoidal table, sin or cos of pos / 10000^(2i/d_model)")
                   : describe(t_.positions_source);
    }
    return describe(t_.weights_source);
}

// "  = a + b + ... = total", wrapped at the width, long sums shortened in the middle
void Why::sum(const std::vector<std::string>& terms, double total) {
    constexpr std::size_t head_terms = 6;
    constexpr std::size_t tail_terms = 3;
    std::vector<std::string> shown;
    if (terms.size() > head_terms + tail_terms + 1) {
        shown.assign(terms.begin(), terms.begin() + head_terms);
        shown.push_back(fmt::format("… ({} more terms) …", terms.size() - head_terms - tail_terms));
        shown.insert(shown.end(), terms.end() - tail_terms, terms.end());
    } else {
        shown = terms;
    }
    std::string current = "  = ";
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const std::string piece = (k > 0 ? " + " : "") + shown[k];
        if (k > 0 && toolkit::width_of(text(current + piece)) > style_.width) {
            out_ += text(current) + "\n";
            current = "    ";
        }
        current += piece;
    }
    out_ += text(current) + "\n";
    out_ += text("  = " + num(total)) + "\n";
}

}  // namespace why

std::string render_why(const Trace& trace, const CellRef& cell, const TextStyle& style) {
    return why::Why(trace, cell, style).render();
}

}  // namespace attn
