// The HTML page's lines view (BertViz-like): the query tokens in a column on the left, the
// keys on the right, and from the query hovered or focused a line to every key it gives a
// nonzero weight, as thick as the weight, one colour per head. Written here: the section, its
// words (counted from the Trace) and its data; drawn by the page's script (report.js, "the
// lines view") with DOM methods only.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attn/core/error.hpp"
#include "html_parts.hpp"
#include "lesson.hpp"

namespace attn::report {

namespace {

// A line's width in pixels for a weight of 1; a weight w draws w times as wide. The page's
// words quote it and its script reads it from the data.
constexpr double line_width_of_one = 12.0;

}  // namespace

bool lines_drawn(const Trace& trace) {
    return !trace.heads.empty() && !trace.tokens.empty() &&
           trace.tokens.size() <= heads_views_up_to;
}

void lines_view(toolkit::Spool& out, const Trace& trace, const TextStyle& style) {
    const std::size_t t = trace.tokens.size();
    const std::size_t heads = trace.heads.size();
    if (heads == 0 || t == 0) {
        return;
    }
    if (t > heads_views_up_to) {
        // the weights' own steps, if --steps shows any, have every weight
        const auto& steps = teaching_steps(trace);
        const bool weights_below = std::any_of(steps.begin(), steps.end(), [&](const Step& s) {
            return s.kind == StepKind::attention &&
                   (style.steps.empty() ||
                    std::find(style.steps.begin(), style.steps.end(), s.id) != style.steps.end());
        });
        out += fmt::format(
            "<p class=\"note\" id=\"lines-absent\">{} drawn for up to {} tokens; this input "
            "has {}, too many {} to follow{}.</p>\n",
            heads > 1 ? "The grid of every head's weights and the lines view of where each "
                        "token's attention goes are"
                      : "The lines view of where each token's attention goes is",
            heads_views_up_to, t, heads > 1 ? "cells and lines" : "lines",
            weights_below ? ": the heatmaps of the weights below show every weight" : "");
        return;
    }
    out += "<section class=\"lines\" id=\"lines\">\n<h2>Where each token's attention goes</h2>\n";
    out += fmt::format(
        "<p class=\"note\">Hover over (or tab to) a query token on the left: a line goes from "
        "it to every key on the right that it gives a nonzero weight{}. A line's thickness is "
        "proportional to its weight: a weight of 1 would be {} pixels thick, 0.5 half that. "
        "Hover over a line for its weight.</p>\n",
        heads == 1 ? std::string()
                   : fmt::format(", one colour per head ({} heads, each with a box to show or "
                                 "hide its lines)",
                                 heads),
        line_width_of_one);
    // the weights that draw no line: the pairs the mask blocks (exactly 0 by construction)
    // and any other weight that came out exactly 0
    std::size_t blocked = 0;
    if (trace.mask && trace.mask->rows() == t && trace.mask->cols() == t) {
        for (std::size_t r = 0; r < t; ++r) {
            for (std::size_t c = 0; c < t; ++c) {
                blocked += trace.mask->allowed(r, c) ? 0U : 1U;
            }
        }
    }
    std::size_t zeros = 0;
    for (const auto& head : trace.heads) {
        for (double w : head.attention.data()) {
            zeros += w == 0.0 ? 1U : 0U;
        }
    }
    const std::size_t other_zeros = zeros - std::min(zeros, blocked * heads);
    if (blocked > 0) {
        out += fmt::format(
            "<p class=\"note\">The mask blocks {} of the {} query–key pairs: their weights are "
            "exactly 0, so they draw no line{}.</p>\n",
            blocked, t * t, other_zeros > 0 ? "" : "; every other pair draws one");
    }
    if (other_zeros > 0) {
        out += fmt::format(
            "<p class=\"note\">{} of the {} weights{} {} exactly 0 as computed and {} no "
            "line either.</p>\n",
            other_zeros, heads * (t * t - blocked), blocked > 0 ? " the mask allows" : "",
            other_zeros == 1 ? "is" : "are", other_zeros == 1 ? "draws" : "draw");
    }
    // softmax over the whole matrix or each column: a query's lines no longer add up to 1, so
    // they are thin where the rule's would not be
    if (trace.rule.over != SoftmaxOver::rows) {
        double low = 1.0;
        double high = 0.0;
        for (const auto& head : trace.heads) {
            for (const double s : head.row_sums) {
                low = std::min(low, s);
                high = std::max(high, s);
            }
        }
        out += fmt::format(
            "<p class=\"note\">These weights come from a softmax over {}, not one per query, so "
            "a query's lines do not add up to 1: here their weights sum to between {} and {}. "
            "With the rule (a softmax over each row) every query's lines would add up to 1; "
            "{} shows those weights.</p>\n",
            trace.rule.over == SoftmaxOver::all ? "the whole matrix at once" : "each column",
            format_number(low, 4, true), format_number(high, 4, true),
            // "step 7′", "step 8′" under a mask, "each head's step 8′" with several heads
            lesson::right_weights_step(trace));
    }
    out += "<div class=\"lines-view\" id=\"lines-view\"></div>\n";
    nlohmann::json data;
    data["widthOfOne"] = line_width_of_one;
    data["precision"] = style.precision;
    auto& labels = data["labels"] = nlohmann::json::array();
    for (const auto& token : trace.tokens) {
        labels.push_back(shown(token));  // control characters made visible, as the tables do
    }
    auto& weights = data["heads"] = nlohmann::json::array();
    for (const auto& head : trace.heads) {
        auto rows = nlohmann::json::array();
        for (std::size_t r = 0; r < head.attention.rows(); ++r) {
            auto row = nlohmann::json::array();
            for (std::size_t c = 0; c < head.attention.cols(); ++c) {
                row.push_back(head.attention(r, c));
            }
            rows.push_back(std::move(row));
        }
        weights.push_back(std::move(rows));
    }
    out += "<script type=\"application/json\" id=\"lines-data\">" + script_safe(data.dump()) +
           "</script>\n</section>\n";
}

}  // namespace attn::report
