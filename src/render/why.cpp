// --why: the worked arithmetic behind one cell, term by term, with the trace's own numbers.
// Every "a op b = c" is written from the numbers it shows: the same values and the same rule
// (WeightsRule) that computed the cell.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "attn/core/whatif.hpp"
#include "lesson.hpp"
#include "narrative.hpp"
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
    const std::string row = toolkit::terminal(toolkit::cell_label(rows, i));
    const std::string col = toolkit::terminal(toolkit::cell_label(cols, j));
    // the loss is one number, L; an updated weight keeps its symbol, so the title says it
    // a vector is named by one index: a bias, LayerNorm's γ and β by their column, each
    // token's mean and variance by its token
    const bool by_column = step.op == StepOp::b_q || step.op == StepOp::b_k ||
                           step.op == StepOp::b_v || step.op == StepOp::b_o ||
                           step.op == StepOp::ln_gamma || step.op == StepOp::ln_beta;
    const bool by_row = step.op == StepOp::ln_mean || step.op == StepOp::ln_variance;
    const auto shown = [](std::span<const std::string> labels, std::size_t at) {
        return toolkit::terminal(toolkit::cell_label(labels, at));
    };
    const std::string where = step.op == StepOp::loss ? std::string()
                              : by_column ? fmt::format("[{}]", shown(step.col_labels, cell_.col))
                              : by_row    ? fmt::format("[{}]", shown(step.row_labels, cell_.row))
                                       : fmt::format("[{}, {}]", shown(step.row_labels, cell_.row),
                                                     shown(step.col_labels, cell_.col));
    const std::string title = fmt::format(
        "Why is {}{} = {}{}?", notation::symbol(step.symbol, notation::Style::unicode), where,
        title_number(step, value), step.op == StepOp::update ? " after the update" : "");
    for (const auto& line : toolkit::heading_rule(text(title), style_.width, style_.unicode)) {
        out_ += paint(line, "1") + "\n";
    }
    const auto base = base_id(step.id);
    // the cell as shown: in the column layout its row and column are the matrix's column
    // and row, and a token's vector is a column
    shown_row_ = shown(step.row_labels, cell_.row);
    shown_col_ = shown(step.col_labels, cell_.col);
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
    if ((base == "Q" || base == "K" || base == "V") && t_.qkv_given) {
        line(
            fmt::format("{}{}[{}, {}] is an input of the walk-through, read from {} (--qkv), "
                        "which gives Q, K and V directly: there are no embeddings or weights "
                        "to compute it from.",
                        base, sub, shown_row_, shown_col_, toolkit::terminal(t_.qkv_path)));
    } else if (base == "Q" || base == "K" || base == "V") {
        const Matrix& w = base == "Q" ? head.w_q : base == "K" ? head.w_k : head.w_v;
        const Matrix& bias = base == "Q" ? t_.b_q : base == "K" ? t_.b_k : t_.b_v;
        const std::size_t begin = base == "V" ? head.v_begin : head.k_begin;
        line(columns_ ? fmt::format("{}{}[{}, {}] is row {} of W_{}{} times column '{}' of {}: "
                                    "the sum of their products, one per embedding dimension.",
                                    base, sub, shown_row_, shown_col_, col, base, sub, row, x_name)
                      : fmt::format("{}{}[{}, {}] is row '{}' of {} times column {} of W_{}{}: "
                                    "the sum of their products, one per embedding dimension.",
                                    base, sub, row, col, row, x_name, col, base, sub));
        std::vector<Term> terms;
        // the factors in the order the sentence names them: W's row first in the column layout
        const auto x_k = [&](std::size_t k) { return t_.x_in(i, k); };
        const auto w_k = [&](std::size_t k) { return w(k, j); };
        if (columns_) {
            add_products(terms, w.rows(), w_k, x_k);
        } else {
            add_products(terms, w.rows(), x_k, w_k);
        }
        if (!bias.empty()) {
            terms.push_back(number(bias(0, begin + j), "(the bias b_" + std::string(base) + ")"));
        }
        sum(terms, value);
    } else if (base == "scores") {
        scores(head, i, j, sub);
    } else if (base == "scaled_scores") {
        // the score at the decimals the division below shows it with, in its sum too
        const bool divides = t_.rule.scales() && t_.rule.arith != Arith::hand;
        scores(head, i, j, sub,
               divides ? quotient_decimals(head.scores(i, j), t_.rule.divisor(), value) : -1);
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
    } else if (base == "correct_weights") {
        correct_weights(head, i, j, notation::symbol(step.symbol, notation::Style::unicode), row,
                        col, value);
    } else if (base == "output" && (step.head > 0 || !t_.projected)) {
        line(fmt::format(
            "{} is the weighted sum of {} {} of V{}, with {} as the weights:", cell("Z", sub),
            columns_ ? "row" : "column", head.v_labels[j], sub, vector_of(row, "A" + sub)));
        std::vector<Term> terms;
        // in the order of the formula: A · V, or V · A in the column layout
        for (std::size_t k = 0; k < head.attention.cols(); ++k) {
            const std::string note = "[" + token_label(k) + "]";
            terms.push_back(columns_ ? product(head.v(k, j), head.attention(i, k), note)
                                     : product(head.attention(i, k), head.v(k, j), note));
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
        std::vector<Term> terms;
        add_products(
            terms, t_.concat.cols(), [&](std::size_t k) { return t_.concat(i, k); },
            [&](std::size_t k) { return t_.w_o(k, j); });
        if (!t_.b_o.empty()) {
            terms.push_back(number(t_.b_o(0, j), "(the bias b_O)"));
        }
        sum(terms, value);
    } else if (is_backward(step.op)) {
        gradient(step, head, i, j, value);
    } else if (base == "with_positions") {
        // the cell as shown: [d0, This] in the column layout
        const std::string at = fmt::format("[{}, {}]", shown_row_, shown_col_);
        const int d = operand_decimals({t_.x(i, j), t_.positions(i, j)}, value, digits(),
                                       [](const std::vector<double>& v) { return v[0] + v[1]; });
        line(fmt::format("X′{0} = X{0} + P{0} = {1} + {2} = {3}.", at, num_at(t_.x(i, j), d),
                         paren_at(t_.positions(i, j), d), num(value)));
    } else if (base == "mask") {
        line(value == 1.0
                 ? fmt::format("'{}' may attend to '{}'.", row, col)
                 : fmt::format("'{}' may not attend to '{}'{}.", row, col, blocked_reason(i, j)));
    } else if (t_.gpt2 && gpt2(step, i, j, value)) {
        // written by why_gpt2.cpp
    } else {
        line(fmt::format(
            "{} is an input of the walk-through, not computed from other "
            "steps: {}.",
            notation::symbol(step.symbol, notation::Style::unicode), source_of(base, i)));
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
    // near a double's 15 significant digits the operands shown are rounded in the last place
    // a double holds, and so may be a result redone from them
    if (digits() >= significant_digits - 2) {
        line(fmt::format(
            "At {} decimals the numbers reach the {} significant digits a double holds: redone "
            "from the rounded numbers shown, a line's last digit may differ by one.",
            digits(), significant_digits));
    }
    return std::move(out_);
}

std::string Why::source_of(std::string_view base, std::size_t i) const {
    const auto describe = [&](const Source& s) {
        return s.kind == Source::Kind::file ? "read from " + toolkit::terminal(s.path)
                                            : fmt::format("seeded from --seed {}", t_.config.seed);
    };
    if (base == "embeddings") {
        // a row of X: padding is zeros, a token missing from the file was seeded
        const std::string& token = t_.tokens[i];
        if (t_.config.n_pad > 0 && i >= t_.tokens.size() - t_.config.n_pad) {
            return fmt::format(
                "row '{}' is padding (--pad-to), and a padding token's vector "
                "is all zeros: it carries no information",
                toolkit::terminal(token));
        }
        const auto& seeded = t_.embeddings_source.seeded_tokens;
        if (std::find(seeded.begin(), seeded.end(), token) != seeded.end()) {
            return fmt::format(
                "'{}' is not in {}, so --unknown random gave it a vector seeded "
                "from --seed {}",
                toolkit::terminal(token), toolkit::terminal(t_.embeddings_source.path),
                t_.config.seed);
        }
        return describe(t_.embeddings_source);
    }
    if (base == "positions") {
        return t_.config.positions == PositionKind::sinusoidal
                   ? std::string("the sinusoidal table, sin or cos of pos / 10000^(2i/d_model)")
                   : describe(t_.positions_source);
    }
    return describe(t_.weights_source);
}

std::string Why::term_text(const Term& t, int decimals) const {
    std::string s;
    switch (t.kind) {
        case Term::Kind::number:
            s = paren_at(t.a, decimals);
            break;
        case Term::Kind::product:
            s = paren_at(t.a, decimals) + (style_.unicode ? "·" : "*") + paren_at(t.b, decimals);
            break;
        case Term::Kind::square:
            s = paren_at(t.a, decimals) + "²";
            break;
        case Term::Kind::square_of_difference:
            s = fmt::format("({} − {})²", num_at(t.a, decimals), paren_at(t.b, decimals));
            break;
    }
    return t.note.empty() ? s : s + " " + t.note;
}

std::string Why::floored(double a, double b, double c) const {
    const int d = operand_decimals(
        {a, b}, c, digits(), [](const std::vector<double>& v) { return std::floor(v[0] / v[1]); });
    return fmt::format("⌊{} / {}⌋ = {}", num_at(a, d), num_at(b, d), num(c));
}

std::string Why::difference(double a, double b, double c) const {
    const int d = operand_decimals({a, b}, c, digits(),
                                   [](const std::vector<double>& v) { return v[0] - v[1]; });
    return fmt::format("{} − {} = {}", num_at(a, d), paren_at(b, d), num(c));
}

int Why::quotient_decimals(double a, double b, double c) const {
    return operand_decimals({a, b}, c, digits(),
                            [](const std::vector<double>& v) { return v[0] / v[1]; });
}

std::string Why::quotient(double a, double b, double c) const {
    const int d = quotient_decimals(a, b, c);
    return fmt::format("{} / {} = {}", num_at(a, d), num_at(b, d), num(c));
}

// "  = a + b + ... = total", wrapped at the width, long sums shortened in the middle
void Why::sum(const std::vector<Term>& terms, double total, int total_decimals) {
    if (total_decimals < 0) {
        total_decimals = digits();
    }
    constexpr std::size_t head_terms = 6;
    constexpr std::size_t tail_terms = 3;
    const bool shortened = terms.size() > head_terms + tail_terms + 1;
    // every term shown: at the decimals that make their sum the total shown (a sum shortened
    // in the middle cannot be added up by the reader, and keeps the tables' decimals)
    int decimals = digits();
    if (!shortened) {
        std::vector<double> operands;
        for (const Term& t : terms) {
            operands.push_back(t.a);
            operands.push_back(t.b);
        }
        decimals =
            operand_decimals(operands, total, total_decimals, [&](const std::vector<double>& v) {
                double added = 0.0;
                for (std::size_t k = 0; k < terms.size(); ++k) {
                    added += terms[k].value(v[2 * k], v[2 * k + 1]);
                }
                return added;
            });
    }
    std::vector<std::string> shown;
    const auto text_of = [&](const Term& t) { return term_text(t, decimals); };
    if (shortened) {
        std::transform(terms.begin(), terms.begin() + head_terms, std::back_inserter(shown),
                       text_of);
        shown.push_back(fmt::format("… ({} more terms) …", terms.size() - head_terms - tail_terms));
        std::transform(terms.end() - tail_terms, terms.end(), std::back_inserter(shown), text_of);
    } else {
        std::transform(terms.begin(), terms.end(), std::back_inserter(shown), text_of);
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
    out_ += text("  = " + num_at(total, total_decimals)) + "\n";
}

}  // namespace why

std::string render_why(const Trace& trace, const CellRef& cell, const TextStyle& style) {
    return why::Why(trace, cell, style).render();
}

}  // namespace attn
