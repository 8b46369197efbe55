#include "narrative.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "attn/core/utf8.hpp"
#include "attn/render/render.hpp"

namespace attn::narrative {
namespace {

// "0, 4 and 9"; a long list is cut: "0, 229, 245, 261, 551, ... (14 in all)"
std::string join_indices(const std::vector<std::size_t>& indices) {
    constexpr std::size_t shown = 5;
    if (indices.size() > shown + 1) {
        std::string out;
        for (std::size_t i = 0; i < shown; ++i) {
            out += std::to_string(indices[i]) + ", ";
        }
        return out + fmt::format("… ({} in all)", indices.size());
    }
    std::string out;
    for (std::size_t i = 0; i < indices.size(); ++i) {
        if (i > 0) {
            out += i + 1 == indices.size() ? " and " : ", ";
        }
        out += std::to_string(indices[i]);
    }
    return out;
}

bool same_text(const Trace& t, const std::vector<std::size_t>& group) {
    return std::all_of(group.begin(), group.end(),
                       [&](std::size_t i) { return t.tokens[i] == t.tokens[group.front()]; });
}

bool contains(const std::vector<std::vector<std::size_t>>& groups,
              const std::vector<std::size_t>& group) {
    return std::find(groups.begin(), groups.end(), group) != groups.end();
}

// "a, b and c"; past six items: "a, b, c, d, e and 12 more"
std::string join_list(const std::vector<std::string>& items) {
    constexpr std::size_t shown = 5;
    if (items.size() > shown + 1) {
        std::string out;
        for (std::size_t i = 0; i < shown; ++i) {
            out += (i > 0 ? ", " : "") + items[i];
        }
        return out + fmt::format(" and {} more", items.size() - shown);
    }
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            out += i + 1 == items.size() ? " and " : ", ";
        }
        out += items[i];
    }
    return out;
}

std::string source_text(const Source& source, std::uint64_t seed, std::string_view seeded_how) {
    if (source.kind == Source::Kind::file) {
        std::string out = "read from " + source.path;
        if (source.layout == "pytorch") {
            out +=
                " in PyTorch's layout (y\u00A0=\u00A0x·Wᵀ\u00A0+\u00A0b): W_Q, W_K, W_V are the "
                "three blocks of "
                "rows of in_proj_weight, transposed, W_O is out_proj.weight transposed, and "
                "the biases come from in_proj_bias and out_proj.bias";
        }
        if (!source.seeded_tokens.empty()) {
            std::vector<std::string> quoted_tokens;
            for (const auto& t : source.seeded_tokens) {
                quoted_tokens.push_back(quoted(t));
            }
            out += fmt::format(
                " ({} not in it and seeded from --seed {}, as --unknown random "
                "asks)",
                join_list(quoted_tokens), seed);
        }
        return out;
    }
    return fmt::format("seeded from --seed {}{}", seed, seeded_how);
}

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
               " is all zeros: every key is masked in its row.";
    }
    if (n_rest > 0) {
        out += fmt::format(" + {} spread over the other {} tokens", format_number(rest, 2, true),
                           n_rest);
    }
    return out + ".";
}

}  // namespace

std::string quoted(const std::string& token) {
    return "'" + token + "'";
}

std::vector<std::string> summary(const Trace& t) {
    std::vector<std::string> lines;
    const auto& c = t.config;
    if (!t.description.empty()) {
        lines.push_back("lesson    " + t.description);
    }
    // a long sentence is cut after 120 columns of whole characters (grapheme clusters): the
    // tokens step shows them all (or their ends)
    constexpr std::size_t shown_columns = 120;
    std::string sentence = t.sentence;
    if (utf8::display_width(sentence) > shown_columns) {
        const std::string_view all(t.sentence);
        std::size_t cut = 0;
        std::size_t width = 0;
        std::size_t characters = 0;
        for (std::size_t i = 0; i < all.size(); ++characters) {
            const std::size_t length = utf8::grapheme_length(all.substr(i));
            width += utf8::display_width(all.substr(i, length));
            i += length;
            if (width <= shown_columns) {
                cut = i;
            }
        }
        sentence = fmt::format("{} … ({} characters in all)", all.substr(0, cut), characters);
    }
    lines.push_back(
        fmt::format("sentence  \"{}\": {} {} ({}{})", sentence, t.tokens.size(),
                    t.tokens.size() == 1 ? "token" : "tokens",
                    c.tokenizer.mode == TokenMode::chars ? "characters" : "words and punctuation",
                    c.tokenizer.lowercase ? ", lowercased" : ""));
    if (c.n_heads > 1) {
        lines.push_back(
            fmt::format("sizes     d_model = {}, {} heads of d_k = {}, d_v = {}; mask: {}",
                        c.d_model, c.n_heads, c.d_k, c.d_v, to_string(c.mask)));
    } else {
        lines.push_back(fmt::format("sizes     d_model = {}, d_k = {}, d_v = {}; mask: {}",
                                    c.d_model, c.d_k, c.d_v, to_string(c.mask)));
    }
    lines.push_back("numbers   embeddings " +
                    source_text(t.embeddings_source, c.seed, " and each token's text") +
                    "; weights " + source_text(t.weights_source, c.seed, ""));
    const bool x_seeded = t.embeddings_source.kind == Source::Kind::seeded ||
                          !t.embeddings_source.seeded_tokens.empty();
    const bool w_seeded = t.weights_source.kind == Source::Kind::seeded;
    if ((x_seeded || w_seeded) && c.arith == Arith::hand) {
        lines.push_back(fmt::format(
            "          (seeded numbers are whole numbers, from -2 to 2 for X and from -1 to 1 "
            "for W, so that everything can be done by hand; the same --seed {} gives the same "
            "numbers on every machine)",
            c.seed));
    } else if (x_seeded || w_seeded) {
        const std::string w_what = t.projected ? "N(0, 1/d_model) for W_Q, W_K, W_V and "
                                                 "N(0, 1/(heads·d_v)) for W_O"
                                               : "N(0, 1/d_model) for W";
        const std::string what = x_seeded && w_seeded ? "N(0, 1) for X and " + w_what
                                 : x_seeded           ? std::string("N(0, 1) for X")
                                                      : w_what;
        lines.push_back(fmt::format(
            "          (seeded numbers are {}, rounded to two decimals; the same --seed {} gives "
            "the same numbers on every machine)",
            what, c.seed));
    }
    return lines;
}

std::vector<std::string> warnings(const Trace& t) {
    std::vector<std::string> out;
    // every head shares the mask, so the first head's empty rows are every head's
    for (std::size_t row : t.heads.front().empty_rows) {
        out.push_back(fmt::format(
            "row {} ({}) of the attention weights has every key masked: softmax is undefined "
            "there, so attn gives it zero weights and a zero output row (PyTorch's "
            "nn.MultiheadAttention gives NaN, scaled_dot_product_attention zeros)",
            row, quoted(t.tokens[row])));
    }
    return out;
}

namespace {

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

// The hand weights of each row as exact fractions: 3^(s_j - min) / Σ 3^(s - min), reduced.
// Only for whole-number scores and denominators a pencil can handle; empty otherwise.
std::vector<std::string> hand_fractions(const Trace& t, const Head& head) {
    constexpr std::size_t max_rows = 6;
    constexpr long long max_denominator = 100000;
    const Matrix& logits = t.mask ? head.masked_scores : head.scaled_scores;
    std::vector<std::string> lines;
    for (std::size_t r = 0; r < logits.rows() && r < max_rows; ++r) {
        const auto s = logits.row(r);
        double low = std::numeric_limits<double>::infinity();
        for (double x : s) {
            if (std::isfinite(x)) {
                if (x != std::round(x)) {
                    return {};
                }
                low = std::min(low, x);
            }
        }
        if (std::isinf(low)) {
            continue;  // every key masked
        }
        std::vector<long long> numerators;
        long long total = 0;
        for (double x : s) {
            long long v = 0;
            if (std::isfinite(x)) {
                const double e = x - low;
                if (e > 30) {
                    return {};
                }
                v = 1;
                for (int k = 0; k < static_cast<int>(e); ++k) {
                    v *= 3;
                }
            }
            numerators.push_back(v);
            total += v;
        }
        if (total > max_denominator) {
            return {};
        }
        std::string row = "  " + quoted(t.tokens[r]) + ":";
        for (std::size_t j = 0; j < numerators.size(); ++j) {
            const long long g = std::gcd(numerators[j], total);
            row += numerators[j] == 0 ? " 0" : fmt::format(" {}/{}", numerators[j] / g, total / g);
            row += j + 1 < numerators.size() ? "," : "";
        }
        lines.push_back(row);
    }
    return lines;
}

void repeated_tokens(const Trace& t, Notes& n) {
    std::vector<std::string> same;
    std::vector<std::string> different;
    for (const auto& group : t.identical_embeddings) {
        if (!same_text(t, group)) {
            continue;
        }
        auto name =
            fmt::format("{} (tokens {})", quoted(t.tokens[group.front()]), join_indices(group));
        (contains(t.identical_outputs, group) ? same : different).push_back(std::move(name));
    }
    if (!same.empty()) {
        n.after.push_back(
            fmt::format("Identical outputs for {}: same embedding and no position information, so "
                        "attention cannot tell the copies apart.",
                        join_list(same)));
    }
    if (!different.empty()) {
        n.after.push_back(fmt::format(
            "Different outputs for {}, although the copies start from identical embeddings: {}.",
            join_list(different),
            t.positions.empty() ? "the mask lets each copy see different tokens"
                                : "the positional encodings gave each copy its own row of X′"));
    }
}

}  // namespace

Notes notes(const Trace& t, const Step& step, int precision, bool columns) {
    // in the column layout each query is a column: its weights sum down the column
    const std::string sums_to_one =
        columns ? "Each column sums to 1 (the Σ row)" : "Each row sums to 1 (the Σ column)";
    Notes n;
    const auto num = [precision](double x) { return format_number(x, precision, true); };
    const auto base = base_id(step.id);
    const Head& head = head_of(t, step);
    const std::string sub = step.head > 0 ? "_" + std::to_string(step.head) : "";
    if (base == "embeddings") {
        std::vector<std::string> repeats;
        for (const auto& group : t.identical_embeddings) {
            if (same_text(t, group)) {
                repeats.push_back(fmt::format("{} (tokens {})", quoted(t.tokens[group.front()]),
                                              join_indices(group)));
            } else {
                n.after.push_back(fmt::format("Rows {} of X are identical.", join_indices(group)));
            }
        }
        if (!repeats.empty()) {
            n.after.push_back(fmt::format(
                "{} {}: each copy has the same row of X, because an embedding depends only on "
                "the token's text. {}",
                repeats.size() == 1 ? "A repeated token," : "Repeated tokens,", join_list(repeats),
                t.positions.empty()
                    ? "Nothing here tells attention where a token stands (there is no position "
                      "information yet)."
                    : "The positional encodings, added next, tell the copies apart."));
        }
    } else if (base == "W_Q" && step.head == 0 && t.projected && t.heads.size() > 1) {
        n.before.push_back(fmt::format(
            "Here {} heads of d_k = {} columns each: columns 1.q0–1.q{} are head 1's, 2.q0–2.q{} "
            "head 2's{}. W_K and W_V are split the same way.",
            t.heads.size(), t.config.d_k, t.config.d_k - 1, t.config.d_k - 1,
            t.heads.size() > 2 ? ", and so on" : ""));
    } else if (base == "scaled_scores" && t.config.arith == Arith::hand && t.config.scale) {
        n.before.push_back(fmt::format(
            "Here d_k = {}: exactly, the scores would be divided by √d_k = {}; by hand, by {} "
            "and rounded down.",
            t.config.d_k, num(head.sqrt_d_k), static_cast<int>(hand_divisor(t.config.d_k))));
    } else if (base == "scaled_scores" && !t.config.scale) {
        n.before.push_back(fmt::format(
            "Here d_k = {}: scaling would divide by √d_k = {}. The variance of the scores stays "
            "{} instead of falling to {}.",
            t.config.d_k, num(head.sqrt_d_k), num(head.variance_scores),
            num(head.variance_scores / (head.sqrt_d_k * head.sqrt_d_k))));
    } else if (base == "scaled_scores" && head.scores.size() < 2) {
        n.before.push_back(fmt::format(
            "Here d_k = {}, so √d_k = {}. (With a single score there is no spread to measure; "
            "try a longer sentence to see the variance shrink.)",
            t.config.d_k, num(head.sqrt_d_k)));
    } else if (base == "scaled_scores") {
        n.before.push_back(fmt::format(
            "Here d_k = {}, so √d_k = {}. The variance of the scores falls from {} (S{}) to {} "
            "(S′{}), a factor of d_k.",
            t.config.d_k, num(head.sqrt_d_k), num(head.variance_scores), sub,
            num(head.variance_scaled), sub));
    } else if (base == "weights" && t.config.arith == Arith::hand) {
        n.after.push_back(fmt::format(
            "{}. These hand weights are at most {} away from the exact ones (softmax with e^x of "
            "S / √d_k).",
            sums_to_one, format_number(head.hand_difference, std::max(precision, 2), true)));
        const auto fractions = hand_fractions(t, head);
        if (!fractions.empty()) {
            n.after.emplace_back("As fractions, for pencil and paper:");
            n.after.insert(n.after.end(), fractions.begin(), fractions.end());
        }
    } else if (base == "weights" && !t.config.scale) {
        constexpr std::size_t shown = 6;
        n.after.emplace_back(
            "Without scaling, how peaked each row is (its largest weight, and its "
            "entropy in nats: 0 when one weight is 1), against what scaling by "
            "√d_k would have given:");
        double mean = 0.0;
        double mean_scaled = 0.0;
        for (std::size_t r = 0; r < head.max_weight.size(); ++r) {
            mean += head.max_weight[r];
            mean_scaled += head.scaled_max_weight[r];
            if (r < shown) {
                n.after.push_back(fmt::format(
                    "  {}: largest weight {} (entropy {}); with scaling {} (entropy {})",
                    quoted(t.tokens[r]), format_number(head.max_weight[r], 2, true),
                    format_number(head.entropy[r], 2, true),
                    format_number(head.scaled_max_weight[r], 2, true),
                    format_number(head.scaled_entropy[r], 2, true)));
            }
        }
        const auto rows = static_cast<double>(head.max_weight.size());
        n.after.push_back(fmt::format(
            "On average the largest weight is {} without scaling and {} with it. The wider "
            "the heads (the larger --d-k), the bigger the gap.",
            format_number(mean / rows, 2, true), format_number(mean_scaled / rows, 2, true)));
    } else if (base == "weights" && !head.empty_rows.empty()) {
        n.after.push_back(sums_to_one +
                          ", but for the tokens with every key masked, which have no weights at "
                          "all (see the warning at the end).");
    } else if (base == "weights") {
        n.after.push_back(sums_to_one +
                          ": every token spends all of its attention, and only that.");
    } else if (base == "output" && step.head > 0) {
        readout(t, head, n, fmt::format("In head {}, ", step.head));
    } else if (base == "output" && t.projected) {
        n.after.emplace_back(
            "Row i mixes what every head found for token i: each output number is a weighted "
            "sum of the whole row of Z, with a column of W_O as the weights.");
        repeated_tokens(t, n);
    } else if (base == "output") {
        readout(t, head, n, "");
        repeated_tokens(t, n);
    }
    return n;
}

}  // namespace attn::narrative

namespace attn {
std::vector<std::string> trace_warnings(const Trace& trace) {
    return narrative::warnings(trace);
}
}  // namespace attn
