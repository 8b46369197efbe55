// --why for the attention steps' cells: a score, its scaling, the mask and the softmax, each
// written from the numbers it is made of, by the same rule (WeightsRule) that computed it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attn/core/whatif.hpp"
#include "lesson.hpp"
#include "narrative.hpp"
#include "notation.hpp"
#include "toolkit.hpp"
#include "why.hpp"

namespace attn::why {

void Why::scores(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                 int total_decimals) {
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
    sum(terms, head.scores(i, j), total_decimals);
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
    line(fmt::format(
        "{} is a weight of the right rule, shown beside the walk-through's weights, which came "
        "from {}. The right rule divides the scores by {}{} and takes one softmax per query "
        "(over that query's keys).",
        cell(a_name, ""), lesson::rule_mistake(t_), divisor,
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
    // every term, and the total of them all; the first `listed` are shown, this cell's among
    // them (the last of them when it comes later), since its term is the one divided by Σ
    constexpr std::size_t listed = 12;
    const bool shortened = group.size() > listed + 1;
    if (const auto at = std::find(group.begin(), group.end(), std::pair{i, j});
        shortened && at - group.begin() >= static_cast<std::ptrdiff_t>(listed)) {
        std::rotate(group.begin() + static_cast<std::ptrdiff_t>(listed) - 1, at, at + 1);
    }
    const std::size_t shown_terms = shortened ? listed : group.size();
    std::vector<double> powers(group.size());
    double total = 0.0;
    for (std::size_t n = 0; n < group.size(); ++n) {
        powers[n] = rule.power(logits(group[n].first, group[n].second) - max);
        total += powers[n];
    }
    const double e_cell = rule.power(logits(i, j) - max);
    // the decimals of Σ and of the terms, each number written once, as it is used: the
    // fewest for Σ, then for the terms (at least Σ's), at which the terms shown add up to Σ
    // as shown and this cell's term, as listed, divided by Σ, as shown, gives the weight as
    // the tables show it ("0.037037 / 2.2593 = 0.0164"; each term's exponent gives it as
    // shown, below)
    const auto add = [](const std::vector<double>& v) {
        double added = 0.0;
        for (const double x : v) {
            added += x;
        }
        return added;
    };
    const auto works = [&](int sigma, int terms) {
        const std::string want = format_checkable(value, digits(), false);
        const double quotient = as_shown(e_cell, terms) / as_shown(total, sigma);
        if (toolkit::halfway(quotient, digits()) ||
            format_checkable(quotient, digits(), false) != want) {
            return false;
        }
        return shortened || toolkit::operand_decimals(powers, total, sigma, terms, add) == terms;
    };
    int final_decimals = digits();
    int term_decimals = digits();
    for (bool found = false; !found && final_decimals < max_decimals;) {
        for (term_decimals = final_decimals; term_decimals < max_decimals; ++term_decimals) {
            if (works(final_decimals, term_decimals)) {
                found = true;
                break;
            }
        }
        if (!found) {
            ++final_decimals;
        }
    }
    term_decimals = std::min(term_decimals, max_decimals);
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
                     cell(a_name, ""), num_at(e_cell, term_decimals), num_at(total, final_decimals),
                     num(value)));
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

}  // namespace attn::why
