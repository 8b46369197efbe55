// The notes under the attention weights: what their sums say, how far the hand rules land
// from the exact weights (and the weights as fractions), how peaked the weights are without
// scaling.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "narrative.hpp"
#include "toolkit.hpp"

namespace attn::lesson {
namespace {

// The hand weights as exact fractions: 3^(s - min) / Σ 3^(s - min) over each group that
// softmax normalises together (a row, a column, or the whole matrix, as the rule says),
// reduced, shown row by row. Only for whole-number scores and denominators a pencil can
// handle; empty otherwise.
std::vector<std::string> hand_fractions(const Trace& t, const Head& head) {
    constexpr std::size_t max_rows = 6;
    constexpr long long max_denominator = 100000;
    const Matrix& logits = t.mask ? head.masked_scores : head.scaled_scores;
    const std::size_t rows = logits.rows();
    const std::size_t cols = logits.cols();
    // the group of each cell, and each group's smallest finite score
    const auto group_of = [&](std::size_t r, std::size_t c) -> std::size_t {
        switch (t.rule.over) {
            case SoftmaxOver::rows:
                return r;
            case SoftmaxOver::columns:
                return c;
            case SoftmaxOver::all:
                return 0;
        }
        return r;
    };
    const std::size_t groups = t.rule.over == SoftmaxOver::rows      ? rows
                               : t.rule.over == SoftmaxOver::columns ? cols
                                                                     : 1;
    std::vector<double> low(groups, std::numeric_limits<double>::infinity());
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            const double x = logits(r, c);
            if (std::isfinite(x)) {
                if (x != std::round(x)) {
                    return {};
                }
                low[group_of(r, c)] = std::min(low[group_of(r, c)], x);
            }
        }
    }
    std::vector<long long> numerators(rows * cols, 0);
    std::vector<long long> total(groups, 0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            const double x = logits(r, c);
            if (!std::isfinite(x)) {
                continue;  // masked: weight 0
            }
            const double e = x - low[group_of(r, c)];
            if (e > 30) {
                return {};
            }
            long long v = 1;
            for (int k = 0; k < static_cast<int>(e); ++k) {
                v *= 3;
            }
            numerators[r * cols + c] = v;
            total[group_of(r, c)] += v;
            if (total[group_of(r, c)] > max_denominator) {
                return {};
            }
        }
    }
    std::vector<std::string> lines;
    for (std::size_t r = 0; r < rows && r < max_rows; ++r) {
        if (t.rule.over == SoftmaxOver::rows && total[r] == 0) {
            continue;  // every key masked
        }
        std::string row = "  " + quoted(t.tokens[r]) + ":";
        for (std::size_t c = 0; c < cols; ++c) {
            const long long num = numerators[r * cols + c];
            const long long den = total[group_of(r, c)];
            const long long g = std::gcd(num, den);
            row += num == 0     ? std::string(" 0")
                   : num == den ? std::string(" 1")
                                : fmt::format(" {}/{}", num / g, den / g);
            row += c + 1 < cols ? "," : "";
        }
        lines.push_back(row);
    }
    if (rows > max_rows) {
        lines.push_back(fmt::format("  (the first {} rows of {}; the others work the same way)",
                                    max_rows, rows));
    }
    return lines;
}

// A weight or a sum of weights as the table writes it (1.0000, not 1), but in scientific
// notation when it is not 0 and too small for the digits (2.0101e-31, not 0.0000).
std::string weight_text(double x, int precision) {
    return x != 0.0 && std::abs(x) < 0.5 * std::pow(10.0, -precision)
               ? format_checkable(x, precision, true)
               : format_number(x, precision, true);
}

std::string range_of(const std::vector<double>& xs, int precision) {
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    // a sum of 2e-31 is not "0.0000": too small for the digits, in scientific notation
    return *lo == *hi ? weight_text(*lo, precision)
                      : fmt::format("between {} and {}", weight_text(*lo, precision),
                                    weight_text(*hi, precision));
}

// The sums of the weights, as they are: what a row (or, in the column layout, a column) of
// queries adds up to, and what went wrong when the rule is not the right one.
void weight_sums(const Trace& t, const Step& step, const Head& head, int precision, Notes& n) {
    const bool columns = step.transposed;
    const std::string query_sums =
        columns ? "Each column sums to 1 (the Σ row)" : "Each row sums to 1 (the Σ column)";
    const auto& mine = head.row_sums;  // a query's weights: a row of A, whatever the layout
    if (t.rule.over == SoftmaxOver::rows && all_one(mine, head.empty_rows)) {
        n.after.push_back(query_sums + (head.empty_rows.empty()
                                            ? std::string(": every token spends all of its "
                                                          "attention, and only that.")
                                        : head.empty_rows.size() == 1
                                            ? std::string(", but for the token with every key "
                                                          "masked, which has no weights at all "
                                                          "(see the warning at the end).")
                                            : std::string(", but for the tokens with every key "
                                                          "masked, which have no weights at all "
                                                          "(see the warning at the end).")));
        return;
    }
    if (head.all_masked) {
        n.after.emplace_back(
            "Every cell is masked, so there is no weight to share out (see the warning at the "
            "end).");
        return;
    }
    // the sums of a wrong softmax can still all be 1 (equal scores, a single query): then the
    // sums do not show the mistake, and saying "instead of 1" would be false
    const std::string sums_hide = fmt::format(
        "Here every query's weights happen to sum to 1 all the same, so the sums do not show the "
        "mistake; step {}′ compares the weights themselves.",
        step.number);
    if (t.rule.over == SoftmaxOver::columns) {
        std::string keys = "each key's weights sum to 1";
        if (!head.empty_columns.empty()) {
            std::vector<std::string> blocked;
            blocked.reserve(head.empty_columns.size());
            for (std::size_t c : head.empty_columns) {
                blocked.push_back(quoted(t.tokens[c]));
            }
            keys = fmt::format(
                "each key's weights sum to 1, but for {} {}, which every query is blocked "
                "from and which {} no weight at all",
                blocked.size() == 1 ? "key" : "keys", listed(blocked),
                blocked.size() == 1 ? "gets" : "get");
        }
        if (all_one(mine, {})) {
            n.after.push_back(fmt::format("Softmax over each key: {}. {}", keys, sums_hide));
            return;
        }
        n.after.push_back(fmt::format(
            "What went wrong: {}; a query's weights sum to {}, not 1: a token no longer shares "
            "out exactly all of its attention.",
            keys, range_of(mine, precision)));
    } else if (t.rule.over == SoftmaxOver::all) {
        if (all_one(mine, {})) {
            n.after.push_back(fmt::format("All {} weights together sum to 1. {}",
                                          head.attention.size(), sums_hide));
            return;
        }
        const auto top =
            static_cast<std::size_t>(std::max_element(mine.begin(), mine.end()) - mine.begin());
        // the smallest weight of a cell the mask lets through (a masked cell's 0 is no news)
        double smallest = 1.0;
        for (std::size_t i = 0; i < head.attention.size(); ++i) {
            const std::size_t r = i / head.attention.cols();
            const std::size_t c = i % head.attention.cols();
            if (!t.mask || t.mask->allowed(r, c)) {
                smallest = std::min(smallest, head.attention.data()[i]);
            }
        }
        n.after.push_back(fmt::format(
            "What went wrong: all {} weights together sum to 1, so the queries' weights no "
            "longer each sum to 1 (their sums: {}); query {} alone takes {} of all the weight, "
            "because the queries' scores now compete with each other. The smallest weight{} is "
            "{}.",
            head.attention.size(), range_of(mine, precision), token_name(t, top),
            format_number(mine[top], precision, true),
            t.mask ? " of a cell the mask lets through" : "",
            format_checkable(smallest, precision, true)));
    }
}

// Whom each query attends to most, and whether that is itself: the claim "each word attends
// most to itself" holds for some weights and not for others, so it is said only as the
// numbers show it. Ties (equal largest weights) name every key that has the largest weight.
void favourites(const Trace& t, const Head& head, int precision, Notes& n) {
    constexpr std::size_t listed_queries = 8;
    const Matrix& a = head.attention;
    // a token written more than once is named with its position: 'the' at 4
    const auto name = [&](std::size_t i) {
        const bool repeated = std::count(t.tokens.begin(), t.tokens.end(), t.tokens[i]) > 1;
        return repeated ? fmt::format("{} at {}", quoted(t.tokens[i]), i) : quoted(t.tokens[i]);
    };
    std::vector<std::string> items;
    std::size_t self = 0;
    std::size_t self_tied = 0;  // itself among the keys tied for the largest weight
    std::size_t tied_with = 0;  // how many others the (last) such query ties with
    std::size_t counted = 0;
    for (std::size_t r = 0; r < a.rows(); ++r) {
        const auto row = a.row(r);
        const double top = *std::max_element(row.begin(), row.end());
        if (top == 0.0) {
            continue;  // no weights at all: every key masked (or, by columns, blocked)
        }
        std::vector<std::size_t> keys;
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (row[c] == top) {
                keys.push_back(c);
            }
        }
        const bool itself = std::find(keys.begin(), keys.end(), r) != keys.end();
        ++counted;
        if (itself && keys.size() == 1) {  // a tie is not "most"
            ++self;
        } else if (itself) {
            ++self_tied;
            tied_with = keys.size() - 1;
        }
        std::string whom;
        if (keys.size() > 2) {  // a tie of many keys (a uniform row) is counted, not listed
            whom =
                fmt::format("{} keys equally{}", keys.size(), itself ? ", itself among them" : "");
        } else if (keys.size() == 2 && !itself && t.tokens[keys[0]] == t.tokens[keys[1]]) {
            whom = "both " + quoted(t.tokens[keys[0]]);  // two copies of one token
        } else {
            std::vector<std::string> names;
            names.reserve(keys.size());
            for (std::size_t c : keys) {
                names.push_back(c == r ? std::string("itself") : name(c));
            }
            whom = listed(names);
        }
        // a runner-up that prints as the largest does: both written with the decimals that
        // tell them apart, or the table shows a tie where the sentence names one key
        double second = -1.0;
        std::size_t second_key = 0;
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (row[c] < top && row[c] > second) {
                second = row[c];
                second_key = c;
            }
        }
        std::string top_text = weight_text(top, precision);
        if (second > 0.0 && weight_text(second, precision) == top_text) {
            int d = precision;
            while (d < toolkit::max_operand_decimals &&
                   weight_text(second, d) == weight_text(top, d)) {
                ++d;
            }
            top_text = fmt::format("{}, just above {} at {}", weight_text(top, d),
                                   second_key == r ? std::string("itself") : name(second_key),
                                   weight_text(second, d));
        }
        items.push_back(fmt::format("{} → {} ({})", name(r), whom, top_text));
    }
    if (counted == 0) {
        return;
    }
    std::string verdict =
        self == counted
            ? (counted == 1 ? "it attends most to itself" : "every token attends most to itself")
        : self == 0 ? (self_tied == 0 ? "no token attends most to itself"
                                      : "no token attends to itself more than to every other")
        : self == 1 ? fmt::format("1 of the {} tokens attends most to itself", counted)
                    : fmt::format("{} of the {} tokens attend most to themselves", self, counted);
    if (self_tied > 0) {  // say the ties, or the verdict reads as contradicting the list
        verdict += self_tied == 1
                       ? fmt::format("; 1 ties itself with {} for its largest weight",
                                     tied_with == 1 ? std::string("another token")
                                                    : fmt::format("{} other tokens", tied_with))
                       : fmt::format(
                             "; {} tie themselves with other tokens for their "
                             "largest weight",
                             self_tied);
    }
    if (items.size() <= listed_queries) {
        n.after.push_back(
            fmt::format("Each query's largest weight: {}; {}.", fmt::join(items, ", "), verdict));
    } else {
        std::string v = verdict;
        v[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(v[0])));
        n.after.push_back(v + ".");
    }
}

// --no-scale: how peaked each query's weights are without scaling, against scaling by √d_k.
// Dividing a row's scores by √d_k > 1 shrinks every gap to the row's largest score, so the
// largest weight can only fall; it stays the same where the gaps stay (d_k = 1, equal scores,
// or by hand where ⌊S / r⌋ happens to keep them). Rows with no weights (every key masked)
// are left out of the averages.
void unscaled_peaks(const Trace& t, const Head& head, Notes& n) {
    constexpr std::size_t shown = 12;
    const double r = t.rule.right(t.config.d_k).divisor();
    if (r == 1.0) {
        n.after.push_back(fmt::format(
            "With d_k = {} the scaling would divide by √d_k = 1{}, so without it the weights are "
            "exactly the same: this lesson needs d_k > 1{}.",
            t.config.d_k, t.rule.arith == Arith::hand ? " (1 by hand too)" : "",
            t.qkv_given ? " (here the Q, K, V file sets d_k: give Q and K more columns)"
                        : " (try --d-k 16)"));
        return;
    }
    n.after.emplace_back(
        "Without scaling, how peaked each query's weights are (the largest, and their entropy "
        "in nats: 0 when one weight is 1), against what scaling by √d_k would have given:");
    double mean = 0.0;
    double mean_scaled = 0.0;
    std::size_t rows = 0;
    for (std::size_t i = 0; i < head.max_weight.size(); ++i) {
        const bool has_weights = head.max_weight[i] > 0.0;
        if (has_weights) {
            mean += head.max_weight[i];
            mean_scaled += head.scaled_max_weight[i];
            ++rows;
        }
        if (i >= shown) {
            continue;
        }
        n.after.push_back(
            has_weights
                ? fmt::format("  {}: largest weight {} (entropy {}); with scaling {} (entropy {})",
                              quoted(t.tokens[i]),
                              format_number(head.max_weight[i], prose_digits, true),
                              format_number(head.entropy[i], prose_digits, true),
                              format_number(head.scaled_max_weight[i], prose_digits, true),
                              format_number(head.scaled_entropy[i], prose_digits, true))
                : fmt::format("  {}: no weights (the mask blocks every key)", quoted(t.tokens[i])));
    }
    if (head.max_weight.size() > shown) {
        n.after.push_back(fmt::format("  … and {} more queries (the averages count them all)",
                                      head.max_weight.size() - shown));
    }
    if (rows == 0) {
        return;
    }
    mean /= static_cast<double>(rows);
    mean_scaled /= static_cast<double>(rows);
    const std::string over = rows == head.max_weight.size()
                                 ? ""
                                 : fmt::format(" (over the {} queries that have weights)", rows);
    n.after.push_back(fmt::format(
        "On average{} the largest weight is {} without scaling and {} with it{}", over,
        format_number(mean, prose_digits, true), format_number(mean_scaled, prose_digits, true),
        // a gap too small for two decimals is said as such, not as "more peaked"
        mean > mean_scaled && format_number(mean, prose_digits, true) ==
                                  format_number(mean_scaled, prose_digits, true)
            ? fmt::format(": the same to four decimals (without scaling larger by only {:.1e}){}",
                          mean - mean_scaled,
                          mean_scaled >= 0.995
                              ? ", because the weights are saturated either way: on average "
                                "the largest weight is all but 1."
                              : ".")
        : mean > mean_scaled
            ? ": without scaling the weights are more peaked. The wider the heads (the larger "
              "d_k), the larger the gap tends to be."
        : mean < mean_scaled
            ? fmt::format(": here scaling makes them more peaked, because by hand rounding "
                          "down can widen a gap: ⌊S / {}⌋ moves each score by up to 1.",
                          r)
        : t.rule.arith == Arith::hand
            ? fmt::format(": the same, because by hand ⌊S / {}⌋ keeps every gap between a "
                          "query's largest score and its others here. Exactly, dividing by "
                          "√d_k would shrink the gaps.",
                          r)
            : std::string(": the same, because each query's scores that it may see are all "
                          "equal (or there is only one), and dividing equal scores keeps them "
                          "equal.")));
}
}  // namespace

void weights_notes(const Trace& t, const Step& step, const Head& head, int precision, Notes& n) {
    weight_sums(t, step, head, precision, n);
    favourites(t, head, precision, n);
    if (t.rule.arith == Arith::hand) {
        const double d = head.hand_difference;
        // the exact form of the rule in use, which is what hand_difference measures against
        const WeightsRule& r = t.rule;
        const std::string scaled = !r.scales()                      ? "S, not scaled"
                                   : r.scale_by == ScaleBy::d_model ? "S / √d_model"
                                                                    : "S / √d_k";
        // a query's scores are a row, or a column in the column layout
        const bool per_query = r.over == SoftmaxOver::rows;
        const std::string over = r.over == SoftmaxOver::all     ? "the whole matrix"
                                 : per_query != step.transposed ? "each row"
                                                                : "each column";
        n.after.push_back(fmt::format(
            "These hand weights are at most {} away from the same rule computed exactly "
            "(softmax with e^x of {}, over {}){}{}",
            format_number(d, std::max(precision, 2), true), scaled, over,
            d <= 0.05 ? ": close enough for pencil and paper"
                      : ": the rounding of ⌊ ⌋ and 3^x in place of e^x add up, so read them as "
                        "a sketch of the exact weights",
            r.is_right() ? std::string(".")
                         : fmt::format(". That is the rule this run asked for, not the right one: "
                                       "step {}′ (A_right) holds the right rule's weights.",
                                       step.number)));
        const auto fractions = hand_fractions(t, head);
        if (!fractions.empty()) {
            n.after.emplace_back("As fractions, for pencil and paper:");
            n.after.insert(n.after.end(), fractions.begin(), fractions.end());
        }
    }
    if (!t.rule.scales() && t.rule.over == SoftmaxOver::rows) {
        unscaled_peaks(t, head, n);
    }
}

}  // namespace attn::lesson
