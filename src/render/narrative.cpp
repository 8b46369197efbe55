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

// A token as prose names it, with its index when the sentence has it more than once.
std::string token_name(const Trace& t, std::size_t i) {
    return repeated(t, i) ? fmt::format("{} (token {})", quoted(t.tokens[i]), i)
                          : quoted(t.tokens[i]);
}

// V[book], or V[the#4] for a repeated token.
std::string value_name(const Trace& t, std::size_t i) {
    return repeated(t, i) ? fmt::format("V[{}#{}]", t.tokens[i], i)
                          : fmt::format("V[{}]", t.tokens[i]);
}

// "The new vector for 'book' is 0.43 of V[This] + 0.31 of V[is] + 0.26 of V[book]."
std::string contributions(const Trace& t, const Head& head, std::size_t row) {
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
                               format_number(weights[j], 2, true), value_name(t, j));
            ++n_shown;
        } else {
            rest += weights[j];
            ++n_rest;
        }
    }
    if (n_shown == 0) {
        return "The new vector for " + token_name(t, row) +
               " is all zeros: every key is masked for it.";
    }
    if (n_rest > 0) {
        out += fmt::format(" + {} spread over the other {} tokens", format_number(rest, 2, true),
                           n_rest);
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

void readout(const Trace& t, const Head& head, Notes& n, std::string_view lead) {
    constexpr std::size_t all_rows_up_to = 6;
    if (t.tokens.size() <= all_rows_up_to) {
        for (std::size_t i = 0; i < t.tokens.size(); ++i) {
            n.after.push_back(lead_in(lead, contributions(t, head, i)));
        }
        return;
    }
    // the row whose attention is most focused: the most telling one to read out
    std::size_t focused = 0;
    double best = -1.0;
    for (std::size_t i = 0; i < head.attention.rows(); ++i) {
        const auto row = head.attention.row(i);
        const double max = *std::max_element(row.begin(), row.end());
        if (max > best) {
            best = max;
            focused = i;
        }
    }
    n.after.push_back(lead_in(lead, contributions(t, head, focused)));
    n.after.push_back(fmt::format(
        "(That is the row with the most focused attention; every row reads the same way, and "
        "the JSON dump, --json, has all {} of them.)",
        t.tokens.size()));
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

// Whether every token some copy in `group` may see has one and the same row of the input
// (X′, or X): then each copy's output is that row's value vector, whatever its weights.
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
void repeated_tokens(const Trace& t, Notes& n) {
    std::vector<std::string> same;
    std::vector<std::string> different;
    std::vector<std::string> reasons;
    bool by_positions = false;
    bool by_mask = false;
    for (const auto& group : t.identical_embeddings) {
        if (!same_text(t, group)) {
            continue;
        }
        auto name =
            fmt::format("{} (tokens {})", quoted(t.tokens[group.front()]), join_indices(group));
        if (contains(t.identical_outputs, group)) {
            if (!mask_differs(t, group)) {
                same.push_back(std::move(name));
            } else {
                // the mask lets them see different tokens, and yet the outputs are equal
                n.after.push_back(fmt::format(
                    "Identical outputs for {}, although the mask lets each copy see different "
                    "tokens: {}.",
                    name,
                    sees_one_vector(t, group)
                        ? "every token they may see has the same row of " +
                              std::string(t.positions.empty() ? "X" : "X′") +
                              ", so each output is that row's value vector, whatever the "
                              "weights"
                        : std::string("the tokens one copy sees and another does not change "
                                      "nothing in the output here")));
            }
            continue;
        }
        // some copies may still end equal: name them, and the rest, each with its reason
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
        if (!equal.empty()) {
            std::vector<std::size_t> rest;
            std::set_difference(group.begin(), group.end(), equal.begin(), equal.end(),
                                std::back_inserter(rest));
            const std::string x = t.positions.empty() ? "X" : "X′";
            std::vector<std::string> why_rest;
            if (!contains(t.identical_inputs, group)) {
                why_rest.emplace_back("the positional encodings give each copy its own row of " +
                                      x);
            }
            if (mask_differs(t, group)) {
                why_rest.emplace_back("the mask lets the copies see different tokens");
            }
            n.after.push_back(fmt::format(
                "Of the copies of {} (tokens {}), which start from identical embeddings, tokens "
                "{} end with identical outputs ({}), and {} {} {}{}.",
                quoted(t.tokens[group.front()]), join_indices(group), join_indices(equal),
                !mask_differs(t, equal) && contains(t.identical_inputs, equal)
                    ? "the same row of " + x + " and the same tokens to attend to"
                : sees_one_vector(t, equal)
                    ? "every token they may see has the same row of " + x +
                          ", so each output is that row's value vector, whatever the weights"
                    : std::string("what one sees and another does not changes nothing here"),
                rest.size() == 1 ? "token" : "tokens", join_indices(rest),
                rest.size() == 1 ? "ends with a different output"
                                 : "end with outputs that differ from theirs",
                why_rest.empty() ? "" : ": " + join_list(why_rest)));
            continue;
        }
        different.push_back(std::move(name));
        by_positions = by_positions || !contains(t.identical_inputs, group);
        by_mask = by_mask || mask_differs(t, group);
    }
    if (!same.empty()) {
        n.after.push_back(fmt::format(
            "Identical outputs for {}: the copies have the same row of {} and may attend to the "
            "same tokens, so attention cannot tell them apart.",
            join_list(same), t.positions.empty() ? "X" : "X′"));
    }
    if (by_positions) {
        reasons.emplace_back("the positional encodings gave each copy its own row of X′");
    }
    if (by_mask) {
        reasons.emplace_back("the mask lets each copy see different tokens");
    }
    if (!different.empty() && !reasons.empty()) {
        n.after.push_back(fmt::format(
            "Different outputs for {}, although the copies start from identical embeddings: {}.",
            join_list(different), join_list(reasons)));
    }
}

void scaled_notes(const Trace& t, const Head& head, const std::string& sub, int precision,
                  Notes& n) {
    const auto num = [precision](double x) { return format_number(x, precision, true); };
    const WeightsRule& rule = t.rule;
    const double sqrt_d_k = std::sqrt(static_cast<double>(t.config.d_k));
    if (!rule.scales() && t.config.d_k == 1) {
        n.before.emplace_back(
            "Here d_k = 1: scaling would divide by √d_k = 1 and change nothing, so leaving it "
            "out makes no difference in this run.");
        return;
    }
    if (!rule.scales()) {
        n.before.push_back(fmt::format(
            "Here d_k = {}: scaling would divide by √d_k = {}. The variance of the scores stays "
            "{} instead of falling to {}.",
            t.config.d_k, num(sqrt_d_k), num(head.variance_scores),
            num(head.variance_scores / static_cast<double>(t.config.d_k))));
        return;
    }
    if (rule.arith == Arith::hand) {
        if (rule.scale_by == ScaleBy::d_model) {
            n.before.push_back(fmt::format(
                "Here d_model = {}: exactly, the scores would be divided by √d_model = {}; by "
                "hand, by {} and rounded down. The rule divides by √d_k = {} (d_k = {}), the "
                "width of the queries and keys: dividing by √d_model is a mistake a tutorial "
                "makes, shown on purpose.",
                t.config.d_model, num(rule.sqrt_width()), static_cast<int>(rule.divisor()),
                num(sqrt_d_k), t.config.d_k));
            return;
        }
        n.before.push_back(fmt::format(
            "Here d_k = {}: exactly, the scores would be divided by √d_k = {}; by hand, by {} "
            "and rounded down.",
            t.config.d_k, num(rule.sqrt_width()), static_cast<int>(rule.divisor())));
        return;
    }
    const std::string width = rule.scale_by == ScaleBy::d_model ? "d_model" : "d_k";
    if (head.scores.size() < 2) {
        n.before.push_back(fmt::format(
            "Here {} = {}, so √{} = {}. (With a single score there is no spread to measure; try "
            "a longer sentence to see the variance shrink.)",
            width, rule.scale_width, width, num(rule.sqrt_width())));
        return;
    }
    const double after = head.variance_scaled;
    const bool near_one = after >= 0.5 && after <= 2.0;
    n.before.push_back(fmt::format(
        "Here {0} = {1}, so √{0} = {2}. Scaling divides the variance of the scores by {0} "
        "exactly: from {3} (S{4}) to {5} (S′{4}), {6}",
        width, rule.scale_width, num(rule.sqrt_width()), num(head.variance_scores), sub, num(after),
        rule.scale_by == ScaleBy::d_model && t.config.d_model == t.config.d_k
            ? fmt::format("{}: the same as dividing by √d_k, because here d_model = d_k.",
                          near_one ? "close to 1" : "not close to 1")
        : rule.scale_by == ScaleBy::d_model
            ? fmt::format("{}. Dividing by √d_k = {} instead, as the rule says, would give {}: the "
                          "scores here are {} times {} than they should be.",
                          near_one ? "close to 1" : "not close to 1", num(sqrt_d_k),
                          num(head.variance_scores / static_cast<double>(t.config.d_k)),
                          num(t.config.d_model > t.config.d_k ? rule.sqrt_width() / sqrt_d_k
                                                              : sqrt_d_k / rule.sqrt_width()),
                          t.config.d_model > t.config.d_k ? "smaller" : "larger")
        : near_one
            ? "close to 1."
            : fmt::format("which is not close to 1: \"about 1\" is what scaling gives on average "
                          "for queries and keys with independent entries of mean 0 and variance "
                          "1, and it does not rescale each run. Here the entries of Q{} have "
                          "variance {} and those of K{} {}, and there are {} scores.",
                          sub, num(head.variance_q), sub, num(head.variance_k),
                          head.scores.size())));
}

// A dot product is not a cosine: the largest score a query may use, taken apart.
void scores_notes(const Trace& t, const Head& head, int precision, Notes& n) {
    std::size_t bi = 0;
    std::size_t bj = 0;
    bool found = false;
    for (std::size_t i = 0; i < head.scores.rows(); ++i) {
        for (std::size_t j = 0; j < head.scores.cols(); ++j) {
            if (t.mask && !t.mask->allowed(i, j)) {
                continue;
            }
            if (!found || head.scores(i, j) > head.scores(bi, bj)) {
                bi = i;
                bj = j;
                found = true;
            }
        }
    }
    if (!found) {
        return;
    }
    const auto num = [precision](double x) { return format_tidy(x, precision, true); };
    const double qn = head.q_norms[bi];
    const double kn = head.k_norms[bj];
    if (qn == 0.0 || kn == 0.0) {  // a zero vector: its length is 0 and its angle undefined
        n.after.push_back(fmt::format(
            "For example, the largest score{} is query {} against key {}: {}, because the {} is "
            "all zeros: its length is 0, so its dot product with anything is 0 whatever the "
            "angle. The lengths of the vectors count as much as the angle between them.",
            t.mask ? " the mask allows" : "", quoted(t.tokens[bi]), quoted(t.tokens[bj]),
            num(head.scores(bi, bj)), qn == 0.0 ? "query" : "key"));
        return;
    }
    n.after.push_back(fmt::format(
        "For example, the largest score{} is query {} against key {}: {} = |q| · |k| · "
        "cos\u00A0θ = {} · {} · {}. The lengths of the vectors count as much as the angle "
        "between them.",
        t.mask ? " the mask allows" : "", quoted(t.tokens[bi]), quoted(t.tokens[bj]),
        num(head.scores(bi, bj)), num(qn), num(kn), num(head.scores(bi, bj) / (qn * kn))));
}

}  // namespace

Notes notes(const Trace& t, const Step& step, int precision) {
    Notes n;
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
                        fmt::format("Rows {} of X are identical.", join_indices(group)));
                }
            }
            if (!repeats.empty()) {
                n.after.push_back(fmt::format(
                    "{} {}: each copy has the same row of X, because an embedding depends only "
                    "on the token's text. {}",
                    repeats.size() == 1 ? "A repeated token," : "Repeated tokens,",
                    join_list(repeats),
                    !t.positions.empty() ? "The positional encodings, added next, tell the "
                                           "copies apart."
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
                            ? "still have identical rows: their positions are the same vector"
                            : "now have different rows"));
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
            if (t.qkv_given) {
                n.after.push_back(
                    fmt::format("The scores have variance {}.",
                                format_number(head.variance_scores, precision, true)));
            }
            scores_notes(t, head, precision, n);
            break;
        case StepOp::scaled_scores:
            scaled_notes(t, head, sub, precision, n);
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
                "The weights computed above differ from these by up to {}, and the output below, "
                "made with them as asked, differs by up to {} from the output these would give.",
                format_number(largest, std::max(precision, 2), true),
                format_number(head.correct_output_difference, std::max(precision, 2), true)));
            break;
        }
        case StepOp::output:
            if (step.head > 0) {
                readout(t, head, n, fmt::format("In head {}, ", step.head));
            } else {
                readout(t, head, n, "");
                repeated_tokens(t, n);
            }
            break;
        case StepOp::projected_output:
            n.after.emplace_back(
                "Row i mixes what every head found for token i: each output number is a weighted "
                "sum of the whole row of Z, with a column of W_O as the weights.");
            repeated_tokens(t, n);
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
