// --why: the worked arithmetic behind one cell, term by term, with the trace's own numbers.
// Every "a op b = c" is written from the numbers it shows: the same values and the same rule
// (WeightsRule) that computed the cell.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

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
        add_products(
            terms, w.rows(), [&](std::size_t k) { return t_.x_in(i, k); },
            [&](std::size_t k) { return w(k, j); });
        if (!bias.empty()) {
            terms.push_back(number(bias(0, begin + j), "(the bias b_" + std::string(base) + ")"));
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
    } else if (base == "correct_weights") {
        correct_weights(head, i, j, notation::symbol(step.symbol, notation::Style::unicode), row,
                        col, value);
    } else if (base == "output" && (step.head > 0 || !t_.projected)) {
        line(fmt::format(
            "{} is the weighted sum of {} {} of V{}, with {} as the weights:", cell("Z", sub),
            columns_ ? "row" : "column", head.v_labels[j], sub, vector_of(row, "A" + sub)));
        std::vector<Term> terms;
        for (std::size_t k = 0; k < head.attention.cols(); ++k) {
            terms.push_back(
                product(head.attention(i, k), head.v(k, j), "[" + token_label(k) + "]"));
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
    }
    return std::move(out_);
}

void Why::scores(const Head& head, std::size_t i, std::size_t j, const std::string& sub) {
    const std::string a = token_label(i);
    const std::string b = token_label(j);
    std::vector<Term> terms;
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
    if (lesson::score_underflows(head.q_norms[i], head.k_norms[j])) {
        // the products are below what a double holds: the sum shown is the stored one
        line(head.scores(i, j) == 0.0
                 ? fmt::format("These products are too small for a double (|q| · |k| = {} · {}, "
                               "below about 2.2e-308 with full precision): each is stored as 0, "
                               "so the sum above is the stored value, not the exact one (it "
                               "underflows).",
                               num(head.q_norms[i]), num(head.k_norms[j]))
                 : fmt::format("Numbers this small (|q| · |k| = {} · {}, below about 2.2e-308) "
                               "keep fewer correct digits than others, so the last digits of "
                               "this sum may be off: it is the stored value.",
                               num(head.q_norms[i]), num(head.k_norms[j])));
    }
}

// The scaling of one score, as the trace's rule did it.
void Why::scaled(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                 double value) {
    const WeightsRule& rule = t_.rule;
    if (lesson::score_underflows(head.q_norms[i], head.k_norms[j]) && head.scores(i, j) != 0.0) {
        line(
            "A number this small keeps few correct digits, so the division below is not "
            "exact either.");
    }
    const std::string cell_s = cell("S", sub);
    const std::string cell_t = cell("S′", sub);
    const std::string width = rule.scale_by == ScaleBy::d_model ? "d_model" : "d_k";
    if (!rule.scales()) {
        line(fmt::format("Then not scaled: {} = {} = {}, with no division.", cell_t, cell_s,
                         num(value)));
    } else if (rule.arith == Arith::hand) {
        line(fmt::format(
            "Then scaled by hand: {} = ⌊{} / {}⌋ = {} ({} is √{} = {} rounded to a whole "
            "number).",
            cell_t, cell_s, num(rule.divisor()), floored(head.scores(i, j), rule.divisor(), value),
            num(rule.divisor()), width, num(rule.sqrt_width())));
    } else {
        // a checkpoint's d_k is GPT-2's d_head, which it does not state: say where it is from
        const std::string d_head =
            t_.gpt2 ? fmt::format(", where d_k = d_head = n_embd / n_head = {} / {} = {}",
                                  t_.gpt2->config.n_embd, t_.gpt2->config.n_head, t_.config.d_k)
                    : std::string();
        line(fmt::format("Then scaled: {} = {} / √{} = {}{}.", cell_t, cell_s, width,
                         quotient(head.scores(i, j), rule.divisor(), value), d_head));
    }
}

void Why::weights(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                  const std::string& row, const std::string& col, double value) {
    const Matrix& logits = t_.mask ? head.masked_scores : head.scaled_scores;
    softmax_cell(logits, t_.rule, i, j, std::string(t_.mask ? "S′ₘ" : "S′") + sub, "A" + sub, row,
                 col, value);
}

void Why::correct_weights(const Head& head, std::size_t i, std::size_t j, const std::string& a_name,
                          const std::string& row, const std::string& col, double value) {
    const WeightsRule right = t_.rule.right(t_.config.d_k);
    const bool hand = right.arith == Arith::hand;
    const std::string divisor = hand ? num(right.divisor()) : "√d_k";
    // named by queries and keys, never by rows and columns, which the layout swaps
    // (both mistakes when a run makes both)
    const std::string scaling = t_.rule.scale_by == ScaleBy::d_model ? "scores divided by √d_model"
                                : t_.rule.scale_by == ScaleBy::none  ? "scores that were not scaled"
                                                                     : "";
    const std::string softmax =
        t_.rule.over == SoftmaxOver::all       ? "one softmax over the whole matrix"
        : t_.rule.over == SoftmaxOver::columns ? "one softmax per key (over its queries)"
                                               : "";
    const std::string done = scaling.empty()   ? softmax
                             : softmax.empty() ? scaling
                                               : scaling + " and " + softmax;
    line(fmt::format(
        "{} is a weight of the right rule, shown beside the walk-through's weights, which came "
        "from {}. The right rule divides the scores by {}{} and takes one softmax per query "
        "(over that query's keys).",
        cell(a_name, ""), done, divisor,
        hand ? fmt::format(" (√d_k = {} rounded) and rounds down", num(right.sqrt_width()))
             : fmt::format(" = {}", num(right.divisor()))));
    // the scores of this query, scaled by the right rule, and masked as the run masks: the
    // right rule's softmax reads only this row
    const std::size_t n = head.scores.rows();
    Matrix logits(n, n);
    std::vector<std::string> terms;
    constexpr std::size_t listed = 12;
    for (std::size_t c = 0; c < n; ++c) {
        const bool blocked = t_.mask && !t_.mask->allowed(i, c);
        logits(i, c) =
            blocked ? -std::numeric_limits<double>::infinity() : right.scale(head.scores(i, c));
        if (c >= listed) {
            continue;
        }
        const std::string where = token_label(c);
        terms.push_back(
            blocked ? fmt::format("masked: −∞ [{}]", where)
            : hand
                ? fmt::format("{} [{}]", floored(head.scores(i, c), right.divisor(), logits(i, c)),
                              where)
                : fmt::format("{} [{}]", quotient(head.scores(i, c), right.divisor(), logits(i, c)),
                              where));
    }
    if (n > listed) {
        terms.push_back(fmt::format("… and {} more", n - listed));
    }
    const std::string scaled = hand ? "⌊S / " + divisor + "⌋" : "S / " + divisor;
    line(fmt::format("The scores of query '{}', scaled by the right rule ({}):", row, scaled));
    list(terms);
    softmax_cell(logits, right, i, j, scaled, a_name, row, col, value);
}

void Why::softmax_cell(const Matrix& logits, const WeightsRule& rule, std::size_t i, std::size_t j,
                       const std::string& s_name, const std::string& a_name, const std::string& row,
                       const std::string& col, double value) {
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
    // every term, and the total of them all; the first `listed` are shown
    constexpr std::size_t listed = 12;
    const bool shortened = group.size() > listed + 1;
    const std::size_t shown_terms = shortened ? listed : group.size();
    std::vector<double> powers(group.size());
    double total = 0.0;
    for (std::size_t n = 0; n < group.size(); ++n) {
        powers[n] = rule.power(logits(group[n].first, group[n].second) - max);
        total += powers[n];
    }
    const double e_cell = rule.power(logits(i, j) - max);
    // the decimals of each line, from the last back: e / Σ gives the weight as the tables show
    // it; the terms shown add up to Σ as shown; each term's exponent gives it as shown
    const int final_decimals = operand_decimals(
        {e_cell, total}, value, digits(), [](const std::vector<double>& v) { return v[0] / v[1]; });
    const int term_decimals = shortened ? digits()
                                        : operand_decimals(powers, total, final_decimals,
                                                           [](const std::vector<double>& v) {
                                                               double added = 0.0;
                                                               for (const double x : v) {
                                                                   added += x;
                                                               }
                                                               return added;
                                                           });
    int score_decimals = digits();
    for (; score_decimals < max_decimals; ++score_decimals) {
        const double m = as_shown(max, score_decimals);
        bool all = true;
        for (std::size_t n = 0; n < shown_terms && all; ++n) {
            const double s = logits(group[n].first, group[n].second);
            all = std::isinf(s) ||
                  format_checkable(rule.power(as_shown(s, score_decimals) - m), term_decimals,
                                   false) == format_checkable(powers[n], term_decimals, false);
        }
        if (all) {
            break;
        }
    }
    // max as the sentence and every term write it (0, not 0.0000, in both)
    const std::string max_text = num_at(max, score_decimals);
    line(fmt::format(
        "{} = {}^(s_{} − max) / Σ {}^(s − max), where s runs over {} and max = {} is the "
        "largest of them (subtracted only so that nothing overflows){}.",
        cell(a_name, ""), b,
        // the term of this cell: its key's score in a row, its query's in a column
        // (the cell as shown: key then query in the column layout)
        rule.over == SoftmaxOver::all       ? (columns_ ? col + "," + row : row + "," + col)
        : rule.over == SoftmaxOver::columns ? row
                                            : col,
        b, what, max_text, hand ? "; by hand, 3 stands in for e" : ""));
    std::vector<std::string> terms;
    for (std::size_t n = 0; n < shown_terms; ++n) {
        const auto [r, c] = group[n];
        const double s = logits(r, c);
        const std::string where = rule.over == SoftmaxOver::rows      ? token_label(c)
                                  : rule.over == SoftmaxOver::columns ? token_label(r)
                                  : columns_ ? token_label(c) + ", " + token_label(r)
                                             : token_label(r) + ", " + token_label(c);
        terms.push_back(std::isinf(s)
                            ? fmt::format("{}^−∞ = 0 [{}]", b, where)
                            : fmt::format("{}^({} − {}) = {} [{}]", b, num_at(s, score_decimals),
                                          max_text.front() == '-' ? "(" + max_text + ")" : max_text,
                                          num_at(powers[n], term_decimals), where));
    }
    if (shortened) {
        terms.push_back(fmt::format("… and {} more terms", group.size() - listed));
    }
    line(rule.over == SoftmaxOver::rows      ? "The terms, one per key:"
         : rule.over == SoftmaxOver::columns ? "The terms, one per query:"
                                             : "The terms, one per cell:");
    list(terms);
    line(fmt::format("Σ = {}, so {} = {} / {} = {}.", num_at(total, final_decimals),
                     cell(a_name, ""), num_at(e_cell, final_decimals),
                     num_at(total, final_decimals), num(value)));
}

std::string Why::blocked_reason(std::size_t i, std::size_t j) const {
    const bool pad = t_.config.n_pad > 0 && j >= t_.tokens.size() - t_.config.n_pad;
    if (pad) {
        return " (it is padding)";
    }
    if (t_.config.mask == MaskKind::causal && j > i) {
        return " (the causal mask: it comes later in the sentence)";
    }
    if (t_.config.mask == MaskKind::file) {
        return " (the mask from " + toolkit::terminal(t_.mask_source.path) + " says so)";
    }
    return "";
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

std::string Why::quotient(double a, double b, double c) const {
    const int d = operand_decimals({a, b}, c, digits(),
                                   [](const std::vector<double>& v) { return v[0] / v[1]; });
    return fmt::format("{} / {} = {}", num_at(a, d), num_at(b, d), num(c));
}

// "  = a + b + ... = total", wrapped at the width, long sums shortened in the middle
void Why::sum(const std::vector<Term>& terms, double total) {
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
        decimals = operand_decimals(operands, total, digits(), [&](const std::vector<double>& v) {
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
    out_ += text("  = " + num(total)) + "\n";
}

}  // namespace why

std::string render_why(const Trace& trace, const CellRef& cell, const TextStyle& style) {
    return why::Why(trace, cell, style).render();
}

}  // namespace attn
