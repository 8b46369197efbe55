// The notes under the scores and the scaled scores: a score taken apart into lengths and an
// angle, and what the scaling did to the variance of the scores, said from the numbers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/core/ops.hpp"
#include "attn/render/render.hpp"
#include "narrative.hpp"
#include "toolkit.hpp"

namespace attn::lesson {
namespace {

// "Close to" a number: within close_percent (25%) of it, the band the sentences state wherever
// they say it. The variance of the few scores of a lesson strays from its average from run to
// run; a quarter either way is a band a reader can check by eye.
constexpr int close_percent = 25;
// below 2^-969 = 2^-1022 · 2^53 a score is subnormal or 0
constexpr double full_precision_log2 = -969.0;

// Whether x is within close_percent of target, on the variances as they are kept (scaled ·
// 2^exponent), so that two variances past the largest double compare as the numbers they are.
bool close_to(const Variance& x, const Variance& target) {
    if (target.scaled == 0.0) {
        return x.scaled == 0.0;
    }
    const double ratio = std::ldexp(x.scaled / target.scaled, x.exponent - target.exponent);
    return std::isfinite(ratio) && std::abs(ratio - 1.0) * 100.0 <= close_percent;
}

// Why S′'s variance is not about 1, from the numbers: the entries' own variances, whose product
// is what S′ has on average for independent entries of mean 0, and whether it is close to that.
// Whether the entries of m have a mean far from 0 against their spread: |mean| at least their
// standard deviation (so a constant matrix of ones counts, and random entries of mean 0 do not).
bool mean_far_from_zero(const Matrix& m, const Variance& variance) {
    const auto [mean, e] = scaled_mean(m);
    if (mean == 0.0) {
        return false;
    }
    // |mean · 2^e| ≥ sqrt(scaled · 2^exponent), compared as squares in the scaled units
    const double mean_squared = mean * mean;
    const double var_in_units = std::ldexp(variance.scaled, variance.exponent - 2 * e);
    return mean_squared >= var_in_units;
}

// Whether two variances are within a percent of each other.
bool within_a_percent(const Variance& x, const Variance& y) {
    if (y.scaled == 0.0) {
        return x.scaled == 0.0;
    }
    const double ratio = std::ldexp(x.scaled / y.scaled, x.exponent - y.exponent);
    return std::isfinite(ratio) && std::abs(ratio - 1.0) <= 0.01;
}

// The product of the numbers.
double product_of(const std::vector<double>& factors) {
    double p = 1.0;
    for (const double x : factors) {
        p *= x;
    }
    return p;
}

// The decimals at which factors are shown so that their product, as shown, is `product` as
// shown at `precision` (toolkit::operand_decimals): "0.63245 · 1.41421 = 0.8944", not
// "0.6325 · 1.4142 = 0.8944" (which gives 0.8945).
int factor_decimals(const std::vector<double>& factors, double product, int precision) {
    return toolkit::operand_decimals(factors, product, precision, precision, product_of);
}

// A number as shown, "2.7658e-322" or "0.0123", taken apart into its digits before the
// exponent (as a long double) and the power of ten after it.
std::pair<long double, int> shown_parts(const std::string& text) {
    const auto e = text.find('e');
    return {std::stold(text.substr(0, e)),
            e == std::string::npos ? 0 : std::stoi(text.substr(e + 1))};
}

// The decimals at which two variances shown in scientific notation ("2.7658e-322 ·
// 1.7681e-322") give, multiplied as shown, their product as shown (`want`, "4.8902e-644"): the
// product of the digits before the exponents, moved to the product's power of ten, written
// with the product's decimals.
int scientific_factor_decimals(const Variance& q, const Variance& k, const std::string& want,
                               int precision) {
    const int product_power = shown_parts(want).second;
    const auto dot = want.find('.');
    const auto end = want.find('e');
    const int want_decimals =
        dot == std::string::npos
            ? 0
            : static_cast<int>((end == std::string::npos ? want.size() : end) - dot - 1);
    const std::string want_digits = want.substr(0, end);
    int decimals = precision;
    for (; decimals < toolkit::max_operand_decimals; ++decimals) {
        const auto [mq, eq] = shown_parts(format_number(q, decimals, true));
        const auto [mk, ek] = shown_parts(format_number(k, decimals, true));
        const long double digits = mq * mk * std::pow(10.0L, eq + ek - product_power);
        if (fmt::format("{:.{}f}", digits, want_decimals) == want_digits) {
            break;
        }
    }
    return decimals;
}

std::string not_near_one(const Trace& t, const Head& head, const std::string& sub, int precision) {
    const auto num = [precision](const Variance& v) { return format_number(v, precision, true); };
    const Variance product{head.variance_q.scaled * head.variance_k.scaled,
                           head.variance_q.exponent + head.variance_k.exponent};
    // the two variances at the decimals that make their product, as shown, the one shown (when
    // all three are doubles a reader can multiply; otherwise each at the precision)
    int factors = precision;
    if (const double q = head.variance_q.value(), k = head.variance_k.value(), p = product.value();
        std::isfinite(p) && q >= 0.5 * std::pow(10.0, -precision) &&
        k >= 0.5 * std::pow(10.0, -precision) && p >= 0.5 * std::pow(10.0, -precision)) {
        factors = factor_decimals({q, k}, p, precision);
    } else if (head.variance_q.scaled > 0.0 && head.variance_k.scaled > 0.0) {
        factors =
            scientific_factor_decimals(head.variance_q, head.variance_k, num(product), precision);
    }
    const auto factor = [factors](const Variance& v) { return format_number(v, factors, true); };
    const std::string start = fmt::format(
        "which is not close to 1 (more than {4}% away from it). Scaling guarantees only the "
        "division by d_k: \"about 1\" is what it gives on average when the entries of Q and K "
        "are independent, with mean 0 and variance 1. Here the entries of Q{0} have variance {1} "
        "and those of K{0} {2}; for independent entries of mean 0 with these variances, S′{0} "
        "would "
        "have on average their product, {1} · {2} = {3}",
        sub, factor(head.variance_q), factor(head.variance_k), num(product), close_percent);
    if (close_to(head.variance_scaled, product)) {
        return start + fmt::format(
                           ", and {} is close to that (within {}%): it is the inputs' own "
                           "variance{} that keeps S′{} from 1.",
                           num(head.variance_scaled), close_percent,
                           t.config.n_pad > 0 ? ", the padding's rows of zeros included," : "",
                           sub);
    }
    const auto plain = [precision](double x) { return format_checkable(x, precision, true); };
    const std::string differs =
        fmt::format(". {} is not close to that either: ", num(head.variance_scaled));
    // the cause the numbers show, where they show one: underflow, then means far from 0
    // underflow only when it changed the variance: the true products' may be the same
    if (const std::size_t n = underflowed_scores(t, head); n > 0) {
        const Variance exact = product_variance(head.q, head.k);
        if (!within_a_percent(head.variance_scores, exact)) {
            return start + differs +
                   fmt::format(
                       "{} of the {} scores are products too small for a double (see "
                       "the warning), stored as 0 or with few correct digits, so their "
                       "variance ({}) is not that of the true products ({}).",
                       n, head.scores.size(), num(head.variance_scores), num(exact));
        }
    }
    const bool q_off = mean_far_from_zero(head.q, head.variance_q);
    const bool k_off = mean_far_from_zero(head.k, head.variance_k);
    if (q_off || k_off) {
        const auto mean = [](const Matrix& m) {
            const auto [x, e] = scaled_mean(m);
            return std::ldexp(x, e);
        };
        const std::string which =
            q_off && k_off ? fmt::format("the entries of Q{0} have mean {1} and those of K{0} {2}",
                                         sub, plain(mean(head.q)), plain(mean(head.k)))
            : q_off ? fmt::format("the entries of Q{} have mean {}", sub, plain(mean(head.q)))
                    : fmt::format("the entries of K{} have mean {}", sub, plain(mean(head.k)));
        return start + differs +
               fmt::format(
                   "{}, not 0 (at least as large as their spread), and the average "
                   "holds only for entries of mean 0.",
                   which);
    }
    // numbers from a file (made by hand, or trained to make some scores large) are no
    // independent random draws; seeded ones are, and one run can stray
    const bool from_file = t.qkv_given || t.embeddings_source.kind == Source::Kind::file ||
                           t.weights_source.kind == Source::Kind::file;
    if (from_file) {
        return start + differs +
               fmt::format(
                   "{} read from a file, so nothing here says they are independent "
                   "draws of mean 0, as the average assumes (a hand-made or trained "
                   "model's are not); and even such draws, in one run of {} scores, "
                   "can stray far from the average.",
                   t.qkv_given ? "Q and K were"
                   : t.embeddings_source.kind == Source::Kind::file &&
                           t.weights_source.kind == Source::Kind::file
                       ? "the embeddings and weights behind Q and K were"
                   : t.weights_source.kind == Source::Kind::file
                       ? "the weights behind Q and K were"
                       : "the embeddings behind Q and K were",
                   head.scores.size());
    }
    return start + differs +
           fmt::format(
               "with {} scores, one run can stray far from the average, and the average "
               "holds only for entries that are independent with mean 0.",
               head.scores.size());
}

}  // namespace

void scaled_notes(const Trace& t, const Head& head, const std::string& sub, int precision,
                  Notes& n) {
    const auto num = [precision](double x) { return format_number(x, precision, true); };
    const auto var = [precision](const Variance& v) { return format_number(v, precision, true); };
    const WeightsRule& rule = t.rule;
    const double sqrt_d_k = std::sqrt(static_cast<double>(t.config.d_k));
    if (!rule.scales() && t.config.d_k == 1) {
        n.before.emplace_back(
            "Here d_k = 1: scaling would divide by √d_k = 1 and change nothing, so leaving it "
            "out makes no difference in this run.");
        return;
    }
    if (!rule.scales() && head.scores.size() < 2) {
        n.before.push_back(fmt::format(
            "Here d_k = {}: scaling would divide by √d_k = {}. (With a single score there is no "
            "spread to measure.)",
            t.config.d_k, num(sqrt_d_k)));
        return;
    }
    if (!rule.scales()) {
        // what the right scaling would have given, in this run's own arithmetic
        const double r = rule.right(t.config.d_k).divisor();
        n.before.push_back(fmt::format(
            "Here d_k = {}: scaling would divide by √d_k = {}{}. The variance of the scores stays "
            "{} instead of falling to {}{}.",
            t.config.d_k, num(sqrt_d_k),
            rule.arith == Arith::hand ? fmt::format("; by hand, by {} and rounded down", r) : "",
            var(head.variance_scores), var(head.variance_right_scaled),
            rule.arith == Arith::hand ? fmt::format(", the variance of ⌊S / {}⌋", r) : ""));
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
    // a checkpoint's d_k is GPT-2's d_head: where it comes from
    const std::string value =
        t.gpt2 ? fmt::format("{} (GPT-2's d_head = n_embd / n_head = {} / {})", rule.scale_width,
                             t.gpt2->config.n_embd, t.gpt2->config.n_head)
               : std::to_string(rule.scale_width);
    if (head.scores.size() < 2) {
        // with a width of 1 the division changes nothing, however many scores there are
        n.before.push_back(
            rule.scale_width == 1
                ? fmt::format("Here {} = {}, so √{} = 1: the division changes nothing. (With a "
                              "single score there is no spread to measure either.)",
                              width, value, width)
                : fmt::format("Here {} = {}, so √{} = {}. (With a single score there is no "
                              "spread to measure; try {} to see the variance shrink.)",
                              width, value, width, num(rule.sqrt_width()),
                              t.qkv_given ? "Q, K and V of more tokens" : "a longer sentence"));
        return;
    }
    const bool near_one = close_to(head.variance_scaled, Variance{1.0, 0});
    const std::string verdict =
        near_one ? fmt::format("close to 1 (within {}% of it)", close_percent)
                 : fmt::format("not close to 1 (more than {}% away from it)", close_percent);
    // "exactly" while the stored S′ shows var(S) / width; numbers below 2.2e-308 keep fewer
    // digits, and dividing them rounds
    const Variance exact{head.variance_scores.scaled / static_cast<double>(rule.scale_width),
                         head.variance_scores.exponent};
    const bool rounded = var(exact) != var(head.variance_scaled);
    n.before.push_back(fmt::format(
        "Here {0} = {1}, so √{0} = {2}. Scaling divides the variance of the scores by "
        "{0}{7}: from {3} (S{4}) to {5} (S′{4}), {6}",
        width, value, num(rule.sqrt_width()), var(head.variance_scores), sub,
        var(head.variance_scaled),
        rule.scale_by == ScaleBy::d_model && t.config.d_model == t.config.d_k
            ? fmt::format("{}: the same as dividing by √d_k, because here d_model = d_k.", verdict)
        : rule.scale_by == ScaleBy::d_model
            ? fmt::format("{}. Dividing by √d_k = {} instead, as the rule says, would give a "
                          "variance of {}: the "
                          "scores here are {} times {} than they should be.",
                          verdict, num(sqrt_d_k), var(head.variance_right_scaled),
                          num(t.config.d_model > t.config.d_k ? rule.sqrt_width() / sqrt_d_k
                                                              : sqrt_d_k / rule.sqrt_width()),
                          t.config.d_model > t.config.d_k ? "smaller" : "larger")
        : near_one ? "which is " + verdict + "."
                   : not_near_one(t, head, sub, precision),
        rounded ? "" : " exactly"));
    if (rounded) {
        // the reason as it is here: scores below 2.2e-308 keep fewer digits; otherwise each
        // division by √width is rounded to a double, which tips a halfway variance
        const auto& scores = head.scores.data();
        const bool subnormal = std::any_of(scores.begin(), scores.end(), [](double x) {
            return x != 0.0 && std::abs(x) < std::numeric_limits<double>::min();
        });
        n.before.push_back(
            subnormal
                ? fmt::format("(Exactly, the variance would fall to {}: scores this small, "
                              "below about 2.2e-308, keep fewer digits, and dividing them by "
                              "√{} rounds.)",
                              var(exact), width)
                : fmt::format("(Exactly, the variance would fall to {}: each score divided by "
                              "√{} is rounded to the nearest double, and the variance of S′ "
                              "comes out a hair {} {}, which shows as {}.)",
                              var(exact), width,
                              head.variance_scaled.value() < exact.value() ? "under" : "over",
                              fmt::format("{:.15g}", exact.value()), var(head.variance_scaled)));
    }
    // --pad-to: the variances above count the padding tokens' scores too, which can turn the
    // verdict round; the real tokens' own, beside them
    const std::size_t total = t.tokens.size();
    const std::size_t real = total - std::min(total, t.config.n_pad);
    if (t.config.n_pad > 0 && real >= 2) {
        Matrix s(real, real);
        Matrix scaled(real, real);
        for (std::size_t i = 0; i < real; ++i) {
            for (std::size_t j = 0; j < real; ++j) {
                s(i, j) = head.scores(i, j);
                scaled(i, j) = head.scaled_scores(i, j);
            }
        }
        const Variance v_real = variance_of(scaled);
        n.before.push_back(fmt::format(
            "These variances count all {} scores, the {} of the padding tokens (--pad-to) too. "
            "Over the {} scores between the {} real tokens alone, the variance falls from {} "
            "(S{}) to {} (S′{}), which is {}.",
            total * total, total * total - real * real, real * real, real, var(variance_of(s)), sub,
            var(v_real), sub,
            close_to(v_real, Variance{1.0, 0})
                ? fmt::format("close to 1 (within {}% of it)", close_percent)
                : fmt::format("not close to 1 (more than {}% away from it)", close_percent)));
    }
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
    // "the largest score" only when no other score the mask allows equals it, "the only
    // score" when there is no other
    std::size_t tied = 0;
    std::size_t allowed = 0;
    for (std::size_t i = 0; i < head.scores.rows(); ++i) {
        for (std::size_t j = 0; j < head.scores.cols(); ++j) {
            if (!t.mask || t.mask->allowed(i, j)) {
                ++allowed;
                // equal up to the rounding of doubles (0.6 and 0.6000000000000001) is a tie
                const double best = head.scores(bi, bj);
                tied += std::abs(head.scores(i, j) - best) <= 1e-12 * std::max(1.0, std::abs(best))
                            ? 1U
                            : 0U;
            }
        }
    }
    const std::string which =
        allowed == 1
            ? fmt::format("Here the only score{} is query {} against key {}",
                          t.mask ? " the mask allows" : "", token_name(t, bi), token_name(t, bj))
        : tied == 1
            ? fmt::format("For example, the largest score{} is query {} against key {}",
                          t.mask ? " the mask allows" : "", token_name(t, bi), token_name(t, bj))
            : fmt::format(
                  "For example, query {} against key {}, one of {} scores{} tied for the "
                  "largest",
                  token_name(t, bi), token_name(t, bj), tied, t.mask ? " the mask allows" : "");
    const auto num = [precision](double x) { return format_checkable(x, precision, true); };
    const double qn = head.q_norms[bi];
    const double kn = head.k_norms[bj];
    if (qn == 0.0 || kn == 0.0) {  // a zero vector: its length is 0 and its angle undefined
        n.after.push_back(fmt::format(
            "{}: {}, because the {} is "
            "all zeros: its length is 0, so its dot product with anything is 0 whatever the "
            "angle. The lengths of the vectors count as much as the angle between them.",
            which, num(head.scores(bi, bj)), qn == 0.0 ? "query" : "key"));
        return;
    }
    // the cosine of the unit vectors, which stays right when the score itself underflows
    double cos = 0.0;
    for (std::size_t k = 0; k < head.q.cols(); ++k) {
        cos += head.q(bi, k) / qn * (head.k(bj, k) / kn);
    }
    cos = std::clamp(cos, -1.0, 1.0);
    if (score_underflows(qn, kn) && cos != 0.0 && head.scores(bi, bj) == 0.0) {
        // |q|·|k|·cos θ, too small for a double: its size from logarithms
        const double log10 = std::log10(qn) + std::log10(kn) + std::log10(std::abs(cos));
        const double exponent = std::floor(log10);
        n.after.push_back(fmt::format(
            "{}: {} here, although "
            "|q| · |k| · cos\u00A0θ = {} · {} · {} ≈ {}{}e{}. That is below the smallest "
            "number a double holds with full precision (about 2.2e-308), so the score is "
            "stored as 0 (it underflows).",
            which, num(head.scores(bi, bj)), num(qn), num(kn), num(cos), cos < 0 ? "−" : "",
            format_number(std::pow(10.0, log10 - exponent), precision, true),
            static_cast<long long>(exponent)));
        return;
    }
    // the lengths and the cosine at the decimals that make their product the score as shown;
    // a whole score of factors that are not whole (4 = √2 · √11 · 0.8528...) with its decimals,
    // which is as far as a product of rounded factors can give it
    const double score = head.scores(bi, bj);
    const bool fixed = is_whole(score) && !(is_whole(qn) && is_whole(kn) && is_whole(cos));
    const auto score_text = [precision, fixed](double x, bool unicode) {
        return fixed ? format_number(x, precision, unicode)
                     : format_checkable(x, precision, unicode);
    };
    const int factors = toolkit::operand_decimals(
        std::vector{qn, kn, cos}, score_text(score, false), precision, product_of,
        [&score_text](double x) { return score_text(x, false); });
    const auto factor = [factors](double x) { return format_checkable(x, factors, true); };
    n.after.push_back(fmt::format(
        "{}: {} = |q| · |k| · "
        "cos\u00A0θ = {} · {} · {}. The lengths of the vectors count as much as the angle "
        "between them.",
        which, score_text(score, true), factor(qn), factor(kn), factor(cos)));
    if (score_underflows(qn, kn) && head.scores(bi, bj) != 0.0) {
        n.after.emplace_back(
            "(Numbers this small, below about 2.2e-308, keep fewer correct digits than others, "
            "so the last digits of this product may be off.)");
    }
}

namespace {

// log2 of a norm; NaN for a zero vector, whose scores are exactly 0, never underflowed
double norm_log2(double norm) {
    return norm > 0.0 ? std::log2(norm) : std::numeric_limits<double>::quiet_NaN();
}

// Whether a score whose vectors' norms have these log2s may underflow: |q|·|k| bounds |q · k|
// (false when either is NaN)
bool underflows_by_log2(double q_log2, double k_log2) {
    return q_log2 + k_log2 < full_precision_log2;
}

}  // namespace

bool score_underflows(double q_norm, double k_norm) {
    return underflows_by_log2(norm_log2(q_norm), norm_log2(k_norm));
}

std::size_t underflowed_scores(const Trace& t, const Head& head) {
    // score_underflows for every pair, with each norm's log2 taken once rather than per pair
    // (T² calls of log2 were a tenth of a 512-token run's computing)
    const auto logs = [](const std::vector<double>& norms) {
        std::vector<double> out;
        out.reserve(norms.size());
        for (double n : norms) {
            out.push_back(norm_log2(n));
        }
        return out;
    };
    const std::vector<double> q_logs = logs(head.q_norms);
    const std::vector<double> k_logs = logs(head.k_norms);
    std::size_t count = 0;
    for (std::size_t i = 0; i < q_logs.size(); ++i) {
        for (std::size_t j = 0; j < k_logs.size(); ++j) {
            if (underflows_by_log2(q_logs[i], k_logs[j]) && (!t.mask || t.mask->allowed(i, j))) {
                ++count;
            }
        }
    }
    return count;
}

}  // namespace attn::lesson
