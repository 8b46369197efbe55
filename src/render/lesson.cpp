// The words of the lesson: titles and explanations by step op, the summary, the warnings.
#include "lesson.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "attn/render/render.hpp"

#include "attn/core/utf8.hpp"
#include "attn/core/whatif.hpp"
#include "narrative.hpp"
#include "notation.hpp"

namespace attn::lesson {
namespace {

std::string source_text(const Source& source, std::uint64_t seed, std::string_view seeded_how) {
    if (source.kind == Source::Kind::file) {
        std::string out = "read from " + toolkit::terminal(source.path);
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

// The title of each step, in the order of StepOp (trace.hpp); the mask's depends on the run
// (mask_title), and the scaled scores' on whether they are scaled.
constexpr auto titles = std::to_array<std::string_view>({
    "Tokens",                                  // tokens
    "Embeddings",                              // embeddings
    "Positional encodings",                    // positions
    "Embeddings with positions",               // with_positions
    "Query weights",                           // w_q
    "Key weights",                             // w_k
    "Value weights",                           // w_v
    "Bias",                                    // b_q
    "Bias",                                    // b_k
    "Bias",                                    // b_v
    "Query weights",                           // head_w_q
    "Key weights",                             // head_w_k
    "Value weights",                           // head_w_v
    "Queries",                                 // q
    "Keys",                                    // k
    "Values",                                  // v
    "Scores",                                  // scores
    "Scaled scores",                           // scaled_scores
    "Mask",                                    // mask: mask_title
    "Masked scores",                           // masked_scores
    "Attention weights",                       // weights
    "The right weights, for comparison",       // correct_weights
    "Output",                                  // output
    "Concatenation",                           // concat
    "Output weights",                          // w_o
    "Bias",                                    // b_o
    "Output",                                  // projected_output
    "Target",                                  // target
    "Loss",                                    // loss
    "Gradient",                                // gradient: backward_title
    "Updated weights",                         // update: backward_title
    "Token embeddings",                        // gpt2_wte
    "Position embeddings",                     // gpt2_wpe
    "The residual stream at the start",        // gpt2_embeddings
    "What the layers below did",               // layer_changes
    "The residual stream entering the layer",  // residual
    "LayerNorm: each token's mean",            // ln_mean
    "LayerNorm: each token's variance",        // ln_variance
    "LayerNorm's scale",                       // ln_gamma
    "LayerNorm's shift",                       // ln_beta
    "LayerNorm's output, what the heads see",  // ln_output
    "The residual stream after attention",     // residual_attn
    "The MLP's change, summarised",            // mlp
    "The layer's output",                      // residual_mlp
});
static_assert(titles.size() == step_op_count);

std::string mask_title(const Trace& t) {
    const Config& c = t.config;
    const bool padded = c.n_pad > 0;
    // a mask --set changed: "Edited causal mask" (its symbol follows the title, so the title
    // ends in the noun: "Mask, with cells set by --set M" read as if M were set)
    if (t.mask_source.kind == Source::Kind::set) {
        const MaskKind before = t.comparison ? t.comparison->mask_before : MaskKind::none;
        return before == MaskKind::causal
                   ? (padded ? "Edited causal and padding mask" : "Edited causal mask")
               : before == MaskKind::file
                   ? (padded ? "Edited mask from a file, with padding" : "Edited mask from a file")
               : padded ? "Edited padding mask"
                        : "Edited mask";
    }
    if (c.mask == MaskKind::file) {
        return padded ? "Mask from a file, with padding" : "Mask from a file";
    }
    if (c.mask == MaskKind::causal) {
        return padded ? "Causal and padding mask" : "Causal mask";
    }
    return "Padding mask";
}

}  // namespace

std::string mask_name(const Trace& t) {
    if (t.mask_source.kind == Source::Kind::set) {
        return t.comparison ? fmt::format("{}, with cells set by --set",
                                          to_string(t.comparison->mask_before))
                            : "with cells set by --set";
    }
    return std::string(to_string(t.config.mask));
}

// "0, 4 and 9"; a long list is cut: "0, 229, 245, 261, 551, ... (14 in all)"
std::string join_indices(const std::vector<std::size_t>& indices) {
    constexpr std::size_t shown = 5;
    if (indices.size() > shown + 1) {
        const std::vector<std::size_t> first(indices.begin(), indices.begin() + shown);
        return listed(first, ", ") + fmt::format(", … ({} in all)", indices.size());
    }
    return listed(indices);
}

bool all_one(const std::vector<double>& sums, const std::vector<std::size_t>& skip) {
    for (std::size_t i = 0; i < sums.size(); ++i) {
        if (std::find(skip.begin(), skip.end(), i) == skip.end() &&
            std::abs(sums[i] - 1.0) > 1e-12) {
            return false;
        }
    }
    return true;
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
        const std::vector<std::string> first(items.begin(), items.begin() + shown);
        return listed(first, ", ") + fmt::format(" and {} more", items.size() - shown);
    }
    return listed(items);
}

std::string quoted(const std::string& token) {
    return "'" + shown(token) + "'";  // its controls and invisible characters made visible
}

std::string title(const Trace& t, const Step& step) {
    if (step.op == StepOp::scaled_scores && !t.rule.scales()) {
        return "Scores, not scaled";
    }
    if (step.op == StepOp::mask) {
        return mask_title(t);
    }
    if (is_backward(step.op)) {
        return backward_title(step);
    }
    const auto i = static_cast<std::size_t>(step.op);
    return std::string(i < titles.size() ? titles[i] : "");
}

std::string gpt2_tensor(const Trace& t, const Step& step) {
    if (!t.gpt2) {
        return "";
    }
    const auto& g = *t.gpt2;
    const auto name = [&](std::string_view part) { return g.prefix + gpt2_name(g.layer, part); };
    switch (step.op) {
        case StepOp::gpt2_wte:
            return g.prefix + "wte";
        case StepOp::gpt2_wpe:
            return g.prefix + "wpe";
        case StepOp::ln_mean:
        case StepOp::ln_variance:
        case StepOp::ln_output:
            return name("ln_1");
        case StepOp::ln_gamma:
            return name("ln_1.weight");
        case StepOp::ln_beta:
            return name("ln_1.bias");
        case StepOp::w_q:
        case StepOp::w_k:
        case StepOp::w_v:
        case StepOp::head_w_q:
        case StepOp::head_w_k:
        case StepOp::head_w_v:
            return name("attn.c_attn.weight");
        case StepOp::b_q:
        case StepOp::b_k:
        case StepOp::b_v:
            return name("attn.c_attn.bias");
        case StepOp::w_o:
            return name("attn.c_proj.weight");
        case StepOp::b_o:
            return name("attn.c_proj.bias");
        case StepOp::q:
        case StepOp::k:
        case StepOp::v:
        case StepOp::scores:
        case StepOp::scaled_scores:
        case StepOp::mask:
        case StepOp::masked_scores:
        case StepOp::weights:
        case StepOp::output:
        case StepOp::concat:
        case StepOp::projected_output:
            return name("attn");
        case StepOp::residual:
        case StepOp::residual_attn:
        case StepOp::residual_mlp:
            return g.prefix + "h." + std::to_string(g.layer);
        case StepOp::mlp:
            return name("mlp");
        default:
            return "";
    }
}

std::string heading(const Trace& t, const Step& step) {
    const std::string head = step.head > 0 ? fmt::format("Head {} · ", step.head) : "";
    if (step.kind == StepKind::tokens) {
        return fmt::format("{} · {}", step.number, title(t, step));
    }
    const std::string tensor = gpt2_tensor(t, step);
    return fmt::format("{} · {}{} {}{}", step.number, head, title(t, step),
                       notation::symbol(step.symbol, notation::Style::unicode),
                       tensor.empty() ? "" : "  [" + tensor + "]");
}

std::vector<SummaryItem> summary(const Trace& t, Layout layout) {
    auto lines = summary_of_run(t);
    if (auto item = comparison_item(t, layout)) {
        lines.push_back(std::move(*item));
    }
    return lines;
}

std::vector<SummaryItem> summary_of_run(const Trace& t) {
    std::vector<SummaryItem> lines;
    const auto& c = t.config;
    if (!t.description.empty()) {
        lines.push_back({"lesson", t.description, {}});
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
    if (t.gpt2) {
        // a GPT-2 checkpoint: its text, sizes, the layer and head, and where the numbers are
        const auto& g = *t.gpt2;
        std::string ids;
        for (const auto id : g.token_ids) {
            ids += (ids.empty() ? "" : " ") + std::to_string(id);
        }
        lines.push_back(
            {"sentence",
             fmt::format("\"{}\": {} {} of GPT-2's tokenizer (ids {})", sentence, t.tokens.size(),
                         t.tokens.size() == 1 ? "token" : "tokens", ids),
             {}});
        lines.push_back(
            {"model",
             fmt::format("GPT-2 checkpoint {}: {} layers of {} heads, n_embd = {} (d_head = {}), "
                         "context {} tokens",
                         g.source, g.config.n_layer, g.config.n_head, g.config.n_embd, c.d_k,
                         g.config.n_positions),
             {}});
        lines.push_back(
            {"layer",
             fmt::format("{} of {} (tensors {}h.{}.*); {}; layers and heads counted from 1, "
                         "as everywhere in attn",
                         g.layer + 1, g.config.n_layer, g.prefix, g.layer,
                         g.head ? fmt::format("head {} in full, the others in brief", *g.head + 1)
                                : fmt::format("all {} heads side by side", g.config.n_head)),
             {}});
        return lines;
    }
    if (t.tokens_named) {
        lines.push_back({"tokens",
                         fmt::format("{}: {} {}, the names of the rows of Q, K and V", sentence,
                                     t.tokens.size(), t.tokens.size() == 1 ? "token" : "tokens"),
                         {}});
    } else {
        // the sentence's own tokens; the <pad> tokens after them are not words of it
        const std::size_t own = t.tokens.size() - c.n_pad;
        lines.push_back(
            {"sentence",
             fmt::format(
                 "\"{}\": {} {} ({}{}){}", sentence, own, own == 1 ? "token" : "tokens",
                 c.tokenizer.mode == TokenMode::chars ? "characters" : "words and punctuation",
                 c.tokenizer.lowercase ? ", lowercased" : "",
                 c.n_pad == 0
                     ? ""
                     : fmt::format(", padded with {} <pad> to {}", c.n_pad, t.tokens.size())),
             {}});
    }
    if (t.qkv_given) {  // no embeddings, no weights: nothing is seeded
        lines.push_back(
            {"sizes", fmt::format("d_k = {}, d_v = {}; mask: {}", c.d_k, c.d_v, mask_name(t)), {}});
        lines.push_back(
            {"numbers",
             fmt::format("Q, K and V read from {}; the walk-through starts from them, so "
                         "there are no embeddings or weights and nothing is seeded",
                         toolkit::terminal(t.qkv_path)),
             {}});
        return lines;
    }
    if (c.n_heads > 1) {
        lines.push_back({"sizes",
                         fmt::format("d_model = {}, {} heads of d_k = {}, d_v = {}; mask: {}",
                                     c.d_model, c.n_heads, c.d_k, c.d_v, mask_name(t)),
                         {}});
    } else {
        lines.push_back({"sizes",
                         fmt::format("d_model = {}, d_k = {}, d_v = {}; mask: {}", c.d_model, c.d_k,
                                     c.d_v, mask_name(t)),
                         {}});
    }
    lines.push_back({"numbers",
                     "embeddings " +
                         source_text(t.embeddings_source, c.seed, " and each token's text") +
                         "; weights " + source_text(t.weights_source, c.seed, ""),
                     {}});
    const bool x_seeded = t.embeddings_source.kind == Source::Kind::seeded ||
                          !t.embeddings_source.seeded_tokens.empty();
    const bool w_seeded = t.weights_source.kind == Source::Kind::seeded;
    if ((x_seeded || w_seeded) && c.arith == Arith::hand) {
        lines.back().more.push_back(fmt::format(
            "(seeded numbers are whole numbers, from -2 to 2 for X and from -1 to 1 "
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
        lines.back().more.push_back(
            fmt::format("(seeded numbers are {}, rounded to two decimals; the same --seed {} gives "
                        "the same numbers on every machine)",
                        what, c.seed));
    }
    return lines;
}

std::string summary_list(const Trace& trace, toolkit::Escape escape, std::string_view item_start,
                         std::string_view key_end) {
    std::string out;
    for (const auto& item : summary(trace)) {
        out += std::string(item_start) + escape(item.key) + std::string(key_end) +
               escape(item.value) + "\n";
        for (const auto& more : item.more) {
            out += "  " + escape(more) + "\n";
        }
    }
    return out;
}

std::vector<std::string> warnings(const Trace& t) {
    std::vector<std::string> out;
    // every head shares the mask, so the first head's empty rows are every head's
    const Head& head = t.heads.front();
    for (std::size_t row : head.empty_rows) {
        out.push_back(fmt::format(
            "token {} ({}) may attend to no token: every key is masked for it, so its softmax "
            "is undefined; attn gives it zero weights and a zero output (PyTorch's "
            "nn.MultiheadAttention gives NaN; scaled_dot_product_attention zeros since PyTorch "
            "2.5, NaN before)",
            row, quoted(t.tokens[row])));
    }
    for (std::size_t col : head.empty_columns) {
        // named by the key, not by "column": in the column layout a key is a row
        out.push_back(fmt::format(
            "key {} ({}) is masked for every query: the softmax over that key's weights is "
            "undefined, so attn gives it zero weights",
            col, quoted(t.tokens[col])));
    }
    if (head.all_masked) {
        out.emplace_back(
            "every cell of the attention weights is masked: a softmax over the whole matrix is "
            "undefined, so attn gives every cell a weight of zero");
    }
    for (const Head& h : t.heads) {
        const std::size_t n = underflowed_scores(t, h);
        if (n == 0) {
            continue;
        }
        out.push_back(fmt::format(
            "{} of the scores{} are dot products of vectors so short (|q| · |k| below 2e-292) "
            "that a double cannot hold them with full precision: they are stored as 0 or with "
            "few correct digits, and the scores, their variance and the worked sums show those "
            "stored values{}",
            n == h.scores.size() ? "all" : std::to_string(n),
            t.heads.size() > 1 ? fmt::format(" of head {}", h.index + 1) : std::string(),
            t.rule.arith == Arith::exact
                ? "; the weights are still right, since e^s is 1 for any s that small"
                : ""));
    }
    return out;
}

}  // namespace attn::lesson
