// The top of the HTML page (html.cpp): a link to every part of it, and what the lesson comes
// to, each query's most attended key.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attn/core/trace.hpp"
#include "attn/core/whatif.hpp"
#include "attn/render/render.hpp"
#include "html_parts.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"

namespace attn::report {
namespace {

// HTML text: escaped, and no-break spaces as &nbsp;
std::string html(std::string_view raw) {
    return toolkit::html(raw);
}

}  // namespace

// Whether --steps shows `step` (every step when it names none).
bool on_page(const Step& step, const TextStyle& style) {
    return style.steps.empty() ||
           std::find(style.steps.begin(), style.steps.end(), step.id) != style.steps.end();
}

namespace {

// "8 · Attention weights", or "10 · Head 1 · Attention weights": a step as its heading names it
std::string step_name(const Trace& trace, const Step& step) {
    return fmt::format("{} · {}{}", step.number,
                       step.head > 0 ? fmt::format("Head {} · ", step.head) : std::string(),
                       lesson::title(trace, step));
}

// A link to a step's section, or its name alone when --steps leaves the step out
std::string step_link(const Step& step, const TextStyle& style, const std::string& text) {
    return on_page(step, style)
               ? fmt::format("<a href=\"#step-{}\">{}</a>", html(step.id), html(text))
               : html(text);
}

// The attention weights' steps: one, or one per head
std::vector<const Step*> weight_steps(const Trace& trace) {
    std::vector<const Step*> weights;
    for (const auto& step : teaching_steps(trace)) {
        if (step.op == StepOp::weights && step.matrix != nullptr) {
            weights.push_back(&step);
        }
    }
    return weights;
}

}  // namespace

// Near the top of the page: a link to every part of it, the steps as their headings name
// them; a head's steps together in one item, each link its number and symbol (the heading
// in its title); the attention weights in bold. A long input's page is tens of thousands of
// pixels high: these take the reader to the weights in one click.
void contents(toolkit::Spool& out, const Trace& trace, const TextStyle& style) {
    out +=
        "<nav class=\"contents\" id=\"contents\" aria-label=\"On this page\">\n"
        "<b>On this page</b>\n<ol>\n";
    out += weight_steps(trace).empty() ? "" : "<li><a href=\"#result\">In short</a></li>\n";
    if (trace.comparison) {
        out += fmt::format("<li><a href=\"#what-changed\">{}</a></li>\n",
                           trace.comparison->before_name.empty() ? "What changed" : "What differs");
    }
    if (heads_grid_drawn(trace)) {
        out += "<li><a href=\"#heads\">Every head's weights</a></li>\n";
    }
    if (report::lines_drawn(trace)) {
        out += "<li><a href=\"#lines\">Where each token's attention goes</a></li>\n";
    }
    std::size_t open_head = 0;  // the head whose item is open, 0: none
    for (const auto& step : teaching_steps(trace)) {
        if (!on_page(step, style)) {
            continue;
        }
        const bool weights = step.op == StepOp::weights;
        if (step.head != open_head) {
            out += open_head > 0 ? "</li>\n" : "";
            open_head = step.head;
            out += open_head > 0 ? fmt::format("<li class=\"head\">Head {}:", open_head) : "";
        }
        const std::string link =
            open_head > 0
                ? fmt::format("<a href=\"#step-{}\" title=\"{}\">{} {}</a>", html(step.id),
                              html(step_name(trace, step)), html(step.number),
                              html(notation::symbol(step.symbol, notation::Style::unicode)))
                : fmt::format("<a href=\"#step-{}\">{}</a>", html(step.id),
                              html(step_name(trace, step)));
        const std::string shown = weights ? "<b>" + link + "</b>" : link;
        out += open_head > 0 ? " " + shown : "<li>" + shown + "</li>\n";
    }
    out += open_head > 0 ? "</li>\n" : "";
    out += "</ol>\n</nav>\n";
}

namespace {

// Up to this many tokens, the summary at the top is a table of each query's most attended
// key; beyond, a sentence with links to the weights.
constexpr std::size_t in_short_rows_up_to = 12;

}  // namespace

// Near the top of the page, what the lesson comes to: each query token, and in each head the
// key it gives its largest attention weight (all of them when several share it exactly), with
// that weight; for a long input a sentence with links to the weights. Labels and numbers as
// the weights' tables show them.
void in_short(toolkit::Spool& out, const Trace& trace, const TextStyle& style) {
    const auto weights = weight_steps(trace);
    if (weights.empty()) {
        return;
    }
    out += "<section class=\"result\" id=\"result\">\n<h2>In short</h2>\n";
    // a rule that is not the right one: said before the weights it made are summed up
    const auto caveat = lesson::not_the_rule(trace);
    if (!caveat.detail.empty()) {
        out += fmt::format(
            "<p class=\"note\">{}</p>\n",
            html(caveat.headline.empty() ? "The weights A are " + caveat.detail + "."
                                         : caveat.headline + ". " + caveat.detail_sentence()));
    }
    const std::string weight = caveat.headline.empty() ? "attention weight" : "weight";
    std::string links;
    for (std::size_t h = 0; h < weights.size(); ++h) {
        links += h == 0 ? "" : h + 1 == weights.size() ? " and " : ", ";
        links += step_link(*weights[h], style, step_name(trace, *weights[h]));
    }
    const std::size_t t = weights.front()->shape.rows;
    if (t > in_short_rows_up_to) {
        out += fmt::format(
            "<p>With {} tokens, each query token gives {} keys a weight: too many to sum up "
            "here. The {}s are in {}{}.</p>\n</section>\n",
            t, weights.front()->shape.cols, weight, links,
            report::compact(trace, *weights.front())
                ? ", drawn as heatmaps (click a row for the keys it attends to most)"
                : "");
        return;
    }
    out += fmt::format(
        "<p>Each query token and the key it gives its largest {}{}, with that "
        "weight; {} {} every weight.</p>\n",
        weight, weights.size() > 1 ? fmt::format(", in each of the {} heads", weights.size()) : "",
        links,
        std::any_of(weights.begin(), weights.end(),
                    [&](const Step* w) { return on_page(*w, style); })
            ? (weights.size() > 1 ? "show" : "shows")
            : (weights.size() > 1 ? "(left out by --steps) show" : "(left out by --steps) shows"));
    out += "<div class=\"scroll\"><table class=\"in-short\">\n<thead><tr><th>query</th>";
    for (const Step* step : weights) {
        out +=
            weights.size() > 1
                ? "<th>" +
                      step_link(*step, style, fmt::format("head {}: attends most to", step->head)) +
                      "</th>"
                : "<th>attends most to</th>";
    }
    out += "</tr></thead>\n<tbody>\n";
    constexpr std::size_t ties_named = 3;  // more keys sharing the largest weight are counted
    for (std::size_t r = 0; r < t; ++r) {
        out += "<tr><th>" + html(weights.front()->row_labels[r]) + "</th>";
        for (const Step* step : weights) {
            const Matrix& a = *step->matrix;
            double most = 0.0;
            for (std::size_t c = 0; c < a.cols(); ++c) {
                most = std::isfinite(a(r, c)) ? std::max(most, a(r, c)) : most;
            }
            std::vector<std::size_t> keys;
            for (std::size_t c = 0; c < a.cols() && most > 0.0; ++c) {
                keys.push_back(c);
                if (a(r, c) != most) {
                    keys.pop_back();
                }
            }
            if (keys.empty()) {  // a row the mask blocks whole
                out += "<td class=\"none\">no key (every weight is 0)</td>";
                continue;
            }
            std::string names;
            for (std::size_t k = 0; k < std::min(keys.size(), ties_named); ++k) {
                names += (k > 0 ? ", " : "") + html(step->col_labels[keys[k]]);
            }
            if (keys.size() > ties_named) {
                names += fmt::format(" and {} more", keys.size() - ties_named);
            }
            // a row the mask leaves one key (under a causal mask the first token's) has its
            // weight 1 whatever the numbers: said, so that it is not read as a finding
            std::size_t open = a.cols();
            if (trace.mask && trace.mask->rows() == t && trace.mask->cols() == a.cols()) {
                open = 0;
                for (std::size_t c = 0; c < a.cols(); ++c) {
                    open += trace.mask->allowed(r, c) ? 1U : 0U;
                }
            }
            out += fmt::format("<td>{} <span class=\"weight\">{}{}{}</span></td>", names,
                               format_number(most, style.precision, true),
                               keys.size() > 1 ? " each" : "",
                               open == 1 ? " (the only key allowed)" : "");
        }
        out += "</tr>\n";
    }
    out += "</tbody></table></div>\n</section>\n";
}

}  // namespace attn::report
