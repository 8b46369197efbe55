// The notes that quote a trace's own numbers, step by step: repeated tokens, the variance
// before and after scaling, the largest score taken apart, the readout of the output rows.
#include "lesson.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "attn/core/utf8.hpp"
#include "attn/render/render.hpp"
#include "narrative.hpp"

namespace attn::lesson {
namespace {

bool repeated(const Trace& t, std::size_t i) {
    return std::count(t.tokens.begin(), t.tokens.end(), t.tokens[i]) > 1;
}

// V[book], or V[the#4] for a repeated token.
std::string value_name(const Trace& t, std::size_t i) {
    return repeated(t, i) ? fmt::format("V[{}#{}]", t.tokens[i], i)
                          : fmt::format("V[{}]", t.tokens[i]);
}

// "The new vector for 'book' is 0.4300 of V[This] + 0.3100 of V[is] + 0.2600 of V[book]."
// The weights are written at the walk-through's precision, as the matrix above shows them, so
// that the sentence never rounds a shown 0.3750 differently from it.
std::string contributions(const Trace& t, const Head& head, std::size_t row, int precision) {
    const auto weights = head.attention.row(row);
    std::vector<std::size_t> order(weights.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
    const auto n_nonzero = static_cast<std::size_t>(
        std::count_if(weights.begin(), weights.end(), [](double w) { return w != 0.0; }));
    // the three largest, or all four rather than "the other 1 token"
    const std::size_t shown = n_nonzero == 4 ? 4 : 3;
    std::string out = "The new vector for " + token_name(t, row) + " is ";
    double rest = 0.0;
    std::size_t n_rest = 0;
    std::size_t n_shown = 0;
    for (std::size_t j : order) {
        if (weights[j] == 0.0) {
            continue;  // a masked key contributes nothing
        }
        if (n_shown < shown) {
            out += fmt::format("{}{} of {}", n_shown > 0 ? " + " : "",
                               format_number(weights[j], precision, true), value_name(t, j));
            ++n_shown;
        } else {
            // as the table shows it, so that the rest adds up the table's own digits
            rest += std::round(weights[j] * std::pow(10.0, precision)) / std::pow(10.0, precision);
            ++n_rest;
        }
    }
    if (n_shown == 0) {
        return "The new vector for " + token_name(t, row) +
               " is all zeros: every key is masked for it.";
    }
    if (n_rest > 0) {
        out += fmt::format(" + {} spread over the other {} tokens",
                           format_number(rest, precision, true), n_rest);
    }
    return out + ".";
}

// "In head 2, " + "The new vector ..." → "In head 2, the new vector ..."
std::string lead_in(std::string_view lead, std::string sentence) {
    if (!lead.empty() && !sentence.empty()) {
        sentence[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(sentence[0])));
    }
    return std::string(lead) + sentence;
}

void readout(const Trace& t, const Head& head, Notes& n, std::string_view lead, Axis axis,
             int precision) {
    constexpr std::size_t all_rows_up_to = 6;
    if (t.tokens.size() <= all_rows_up_to) {
        for (std::size_t i = 0; i < t.tokens.size(); ++i) {
            n.after.push_back(lead_in(lead, contributions(t, head, i, precision)));
        }
        return;
    }
    // the row whose attention is most focused: the most telling one to read out; not a row
    // that can give weight to one token only (a causal mask's first), whose weight of 1 says
    // nothing
    const Matrix& a = head.attention;
    const auto spread = [&a](std::size_t i) {
        const auto row = a.row(i);
        return std::count_if(row.begin(), row.end(), [](double w) { return w > 0.0; }) > 1;
    };
    bool any_spread = false;
    for (std::size_t i = 0; i < a.rows() && !any_spread; ++i) {
        any_spread = spread(i);
    }
    std::size_t focused = 0;
    double best = -1.0;
    std::size_t ties = 0;
    for (std::size_t i = 0; i < a.rows(); ++i) {
        if (any_spread && !spread(i)) {
            continue;
        }
        const auto row = a.row(i);
        const double max = *std::max_element(row.begin(), row.end());
        if (max > best) {
            best = max;
            focused = i;
            ties = 1;
        } else if (max == best) {
            ++ties;
        }
    }
    bool all_same = true;
    for (std::size_t i = 0; i < a.rows() && all_same; ++i) {
        const auto row = a.row(i);
        const auto first = a.row(focused);
        all_same = std::equal(row.begin(), row.end(), first.begin());
    }
    n.after.push_back(lead_in(lead, contributions(t, head, focused, precision)));
    const std::string dump =
        fmt::format("the JSON dump, --json, has all {} of them.)", t.tokens.size());
    if (all_same) {
        n.after.push_back(
            fmt::format("(Every {} of A is the same here, so they all read the "
                        "same way; {}",
                        axis.one(), dump));
        return;
    }
    const std::string which =
        ties > 1 ? fmt::format(
                       "That is the first of the {} {}s with the most focused attention "
                       "(their largest weight is the same)",
                       ties, axis.one())
                 : fmt::format("That is the {} with the most focused attention", axis.one());
    bool skipped = false;  // rows left out for giving weight to one token only
    for (std::size_t i = 0; i < a.rows() && any_spread && !skipped; ++i) {
        skipped = !spread(i);
    }
    n.after.push_back(fmt::format("({}{}; every {} reads the same way, and {}", which,
                                  skipped ? " of those that may attend to more than one token" : "",
                                  axis.one(), dump));
}

// Whether the mask lets the copies in `group` see different tokens.
bool mask_differs(const Trace& t, const std::vector<std::size_t>& group) {
    if (!t.mask) {
        return false;
    }
    for (std::size_t i : group) {
        for (std::size_t j = 0; j < t.mask->cols(); ++j) {
            if (t.mask->allowed(i, j) != t.mask->allowed(group.front(), j)) {
                return true;
            }
        }
    }
    return false;
}

// Whether every token some copy in `group` may see has one and the same vector of the input
// (X′, or X): then each copy's output is that row's value vector, whatever its weights.
// Whether the rows of `group` in m are equal up to the rounding of doubles (a few units in
// the last place): 1/3·v + 1/3·v + 1/3·v is v exactly, but not in doubles.
bool rows_agree(const Matrix& m, const std::vector<std::size_t>& group) {
    for (const std::size_t r : group) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            const double a = m(group.front(), c);
            const double b = m(r, c);
            if (std::abs(a - b) > 1e-12 * std::max({1.0, std::abs(a), std::abs(b)})) {
                return false;
            }
        }
    }
    return true;
}

bool sees_one_vector(const Trace& t, const std::vector<std::size_t>& group) {
    const Matrix& x = t.x_in;
    std::optional<std::size_t> first;
    for (std::size_t i : group) {
        for (std::size_t j = 0; j < t.tokens.size(); ++j) {
            if (t.mask && !t.mask->allowed(i, j)) {
                continue;
            }
            if (!first) {
                first = j;
            } else if (!std::equal(x.row(j).begin(), x.row(j).end(), x.row(*first).begin())) {
                return false;
            }
        }
    }
    return first.has_value();
}

// Why copies of a token got identical or different outputs, from what differs between them:
// their rows of X′ (positions) and their rows of the mask (what each may see).
void repeated_tokens(const Trace& t, Notes& n, Axis axis) {
    const std::string x = t.positions.empty() ? "X" : "X′";
    const std::string row_of_x = fmt::format("{} of {}", axis.one(), x);
    std::vector<std::string> same;
    // the copies whose outputs differ, by the reasons they differ (one sentence per set of
    // reasons: the positions may separate one token's copies and the mask another's)
    std::vector<std::pair<std::string, std::vector<std::string>>> different;
    const auto identical = [&](const std::vector<std::size_t>& group, std::string name) {
        if (!mask_differs(t, group)) {
            same.push_back(std::move(name));
            return;
        }
        // the mask lets them see different tokens, and yet the outputs are equal
        n.after.push_back(
            fmt::format("Identical outputs for {}, although the mask lets each copy see different "
                        "tokens: {}.",
                        name,
                        sees_one_vector(t, group)
                            ? fmt::format("every token they may see has the same {}, so each "
                                          "output is that {}'s value vector, whatever the weights",
                                          row_of_x, axis.one())
                            : std::string("the tokens one copy sees and another does not change "
                                          "nothing in the output here")));
    };
    for (const auto& group : t.identical_embeddings) {
        if (!same_text(t, group)) {
            continue;
        }
        auto name =
            fmt::format("{} (tokens {})", quoted(t.tokens[group.front()]), join_indices(group));
        // the copies that end equal: every one (their outputs may also equal other tokens'),
        // some, or none
        std::vector<std::size_t> equal;
        for (const auto& outputs : t.identical_outputs) {
            std::vector<std::size_t> both;
            std::set_intersection(outputs.begin(), outputs.end(), group.begin(), group.end(),
                                  std::back_inserter(both));
            if (both.size() >= 2) {
                equal = both;
                break;
            }
        }
        // equal up to rounding when each is the one value vector every copy sees
        if (contains(t.identical_outputs, group) || equal.size() == group.size() ||
            (sees_one_vector(t, group) && rows_agree(t.output, group))) {
            identical(group, std::move(name));
            continue;
        }
        if (!equal.empty()) {
            std::vector<std::size_t> rest;
            std::set_difference(group.begin(), group.end(), equal.begin(), equal.end(),
                                std::back_inserter(rest));
            std::vector<std::string> why_rest;
            if (!contains(t.identical_inputs, group)) {
                why_rest.emplace_back("the positional encodings give each copy its own " +
                                      row_of_x);
            }
            if (mask_differs(t, group)) {
                why_rest.emplace_back("the mask lets the copies see different tokens");
            }
            n.after.push_back(fmt::format(
                "Of the copies of {} (tokens {}), which start from identical embeddings, tokens "
                "{} end with identical outputs ({}), and {} {} {}{}.",
                quoted(t.tokens[group.front()]), join_indices(group), join_indices(equal),
                !mask_differs(t, equal) && contains(t.identical_inputs, equal)
                    ? "the same " + row_of_x + " and the same tokens to attend to"
                : sees_one_vector(t, equal)
                    ? fmt::format("every token they may see has the same {}, so each output "
                                  "is that {}'s value vector, whatever the weights",
                                  row_of_x, axis.one())
                    : std::string("what one sees and another does not changes nothing here"),
                rest.size() == 1 ? "token" : "tokens", join_indices(rest),
                rest.size() == 1 ? "ends with a different output"
                                 : "end with outputs that differ from theirs",
                why_rest.empty() ? "" : ": " + join_list(why_rest)));
            continue;
        }
        std::vector<std::string> reasons;
        if (!contains(t.identical_inputs, group)) {
            reasons.emplace_back("the positional encodings gave each copy its own " + row_of_x);
        }
        if (mask_differs(t, group)) {
            reasons.emplace_back("the mask lets each copy see different tokens");
        }
        if (reasons.empty()) {
            continue;
        }
        const std::string why = join_list(reasons);
        auto it = std::find_if(different.begin(), different.end(),
                               [&](const auto& d) { return d.first == why; });
        if (it == different.end()) {
            different.emplace_back(why, std::vector<std::string>{});
            it = std::prev(different.end());
        }
        it->second.push_back(std::move(name));
    }
    if (!same.empty()) {
        n.after.push_back(fmt::format(
            "Identical outputs for {}: the copies have the same {} and may attend to the "
            "same tokens, so attention cannot tell them apart.",
            join_list(same), row_of_x));
    }
    for (const auto& [why, names] : different) {
        n.after.push_back(fmt::format(
            "Different outputs for {}, although the copies start from identical embeddings: {}.",
            join_list(names), why));
    }
}

}  // namespace

std::string token_name(const Trace& t, std::size_t i) {
    return repeated(t, i) ? fmt::format("{} (token {})", quoted(t.tokens[i]), i)
                          : quoted(t.tokens[i]);
}

Notes notes(const Trace& t, const Step& step, int shown_precision) {
    // Sentences quote numbers with at least prose_digits decimals, whatever --precision the
    // tables use: with 0 or 1, "√d_k = 2" or "3 = 2 · 3 · 1" would be arithmetic a student
    // cannot follow, and "1 times smaller" no comparison at all.
    const int precision = std::max(shown_precision, prose_digits);
    Notes n;
    const Axis axis{step.transposed};
    const Head& head = head_of(t, step);
    const std::string sub = step.head > 0 ? "_" + std::to_string(step.head) : "";
    switch (step.op) {
        case StepOp::embeddings: {
            std::vector<std::string> repeats;
            bool mask_tells = false;  // does the mask let some copies see different tokens?
            for (const auto& group : t.identical_embeddings) {
                mask_tells = mask_tells || (same_text(t, group) && mask_differs(t, group));
                if (same_text(t, group)) {
                    repeats.push_back(fmt::format("{} (tokens {})", quoted(t.tokens[group.front()]),
                                                  join_indices(group)));
                } else {
                    n.after.push_back(
                        fmt::format("{} {} of X are identical.", axis.Many(), join_indices(group)));
                }
            }
            // do the positions give every copy its own row? (a positions file may repeat one)
            bool positions_tell = !t.positions.empty();
            for (const auto& group : t.identical_embeddings) {
                for (const auto& still : t.identical_inputs) {
                    std::vector<std::size_t> both;
                    std::set_intersection(group.begin(), group.end(), still.begin(), still.end(),
                                          std::back_inserter(both));
                    positions_tell = positions_tell && both.size() < 2;
                }
            }
            if (!repeats.empty()) {
                n.after.push_back(fmt::format(
                    "{} {}: each copy has the same {} of X, because an embedding depends only "
                    "on the token's text. {}",
                    repeats.size() == 1 ? "A repeated token," : "Repeated tokens,",
                    join_list(repeats), axis.one(),
                    positions_tell ? "The positional encodings, added next, tell the "
                                     "copies apart."
                    : !t.positions.empty()
                        ? "The positional encodings, added next, do not tell every copy apart: "
                          "some get the same position vector."
                    : mask_tells ? "Nothing in X tells the copies apart; only the mask can, by "
                                   "letting each copy see different tokens."
                    : t.mask     ? "Nothing in X tells the copies apart, and the mask lets "
                                   "every copy see the same tokens."
                                 : "Nothing here tells attention where a token stands: no "
                                   "positions and no mask."));
            }
            break;
        }
        case StepOp::with_positions:
            for (const auto& group : t.identical_embeddings) {
                if (same_text(t, group)) {
                    n.after.push_back(fmt::format(
                        "The copies of {} (tokens {}) {}.", quoted(t.tokens[group.front()]),
                        join_indices(group),
                        contains(t.identical_inputs, group)
                            ? fmt::format("still have identical {}: their positions are the "
                                          "same vector",
                                          axis.many())
                            : fmt::format("now have different {}", axis.many())));
                }
            }
            break;
        case StepOp::w_q:
            if (t.projected && t.heads.size() > 1) {
                n.before.push_back(fmt::format(
                    "Here {} heads of d_k = {} columns each: columns 1.q0–1.q{} are head 1's, "
                    "2.q0–2.q{} head 2's{}. W_K and W_V are split the same way.",
                    t.heads.size(), t.config.d_k, t.config.d_k - 1, t.config.d_k - 1,
                    t.heads.size() > 2 ? ", and so on" : ""));
            }
            break;
        case StepOp::q:
        case StepOp::k:
            if (t.qkv_given) {  // the lessons that start from Q and K show their spread
                n.after.push_back(fmt::format(
                    "The entries of {} have variance {}.", step.op == StepOp::q ? "Q" : "K",
                    format_number(step.op == StepOp::q ? head.variance_q : head.variance_k,
                                  precision, true)));
            }
            break;
        case StepOp::scores:
            if (t.qkv_given && head.scores.size() > 1) {  // one score has no spread
                n.after.push_back(
                    fmt::format("The scores have variance {}.",
                                format_number(head.variance_scores, precision, true)));
            }
            scores_notes(t, head, precision, n);
            break;
        case StepOp::scaled_scores:
            scaled_notes(t, head, sub, precision, n);
            break;
        case StepOp::layer_changes:
            layers_below_notes(t, precision, n);
            break;
        case StepOp::weights:
            weights_notes(t, step, head, precision, n);
            break;
        case StepOp::correct_weights: {
            double largest = 0.0;
            for (std::size_t i = 0; i < head.attention.size(); ++i) {
                largest = std::max(
                    largest, std::abs(head.attention.data()[i] - head.correct_attention.data()[i]));
            }
            if (largest == 0.0) {
                n.after.emplace_back(
                    "The weights computed above are exactly these: in this run the mistake "
                    "changes nothing.");
                break;
            }
            n.after.push_back(fmt::format(
                "The weights computed above differ from these by up to {}, and the output Z, "
                "made with them as asked, differs by up to {} from the output these would give.",
                format_number(largest, std::max(precision, 2), true),
                format_number(head.correct_output_difference, std::max(precision, 2), true)));
            break;
        }
        case StepOp::output:
            if (step.head > 0) {
                readout(t, head, n, fmt::format("In head {}, ", step.head), axis, precision);
            } else {
                readout(t, head, n, "", axis, precision);
                repeated_tokens(t, n, axis);
            }
            break;
        case StepOp::projected_output:
            n.after.push_back(fmt::format(
                "Row i mixes what every head found for token i: each output number is a weighted "
                "sum of the whole row of Z, with a column of W_O as the weights{}.",
                t.b_o.empty() ? "" : ", plus that column's bias b_O"));
            repeated_tokens(t, n, axis);
            break;
        case StepOp::target:
        case StepOp::loss:
        case StepOp::gradient:
        case StepOp::update:
            return backward_notes(t, step, precision);
        default:
            break;
    }
    if (t.comparison) {  // a what-if or attn diff: what differs here from the run before
        n.after.push_back(change_note(t, step, precision));
    }
    return n;
}

}  // namespace attn::lesson

namespace attn {
std::vector<std::string> trace_warnings(const Trace& trace) {
    return lesson::warnings(trace);
}
}  // namespace attn
