// --html: one self-contained HTML page (inline CSS and JavaScript, no network; they are
// src/render/assets/report.css and report.js, embedded at build time) with every step
// as a heatmap-coloured table, the explanations, and interaction: hover or focus a query token
// to see its attention as bars; hover a cell for its exact value and how it was computed.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attn/core/cell.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/whatif.hpp"
#include "attn/render/render.hpp"
#include "html_parts.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "render_assets.hpp"  // generated from src/render/assets/ (cmake/EmbedAssets.cmake)
#include "toolkit.hpp"

namespace attn {

namespace report {

// JSON text made safe for a <script type="application/json"> block: every '<', '>' and '&'
// written \u003c, \u003e and \u0026, and the line and paragraph separators U+2028 and
// U+2029 as \u2028 and \u2029 (the same string to JSON.parse), so that no token or text can
// end the script ("</script>"), open or close a comment ("<!--", "-->") or start a character
// reference. Outside strings, JSON has none of them.
std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char ch = json[i];
        if (ch == '<') {
            out += "\\u003c";
        } else if (ch == '>') {
            out += "\\u003e";
        } else if (ch == '&') {
            out += "\\u0026";
        } else if (json.compare(i, 3, "\u2028") == 0 || json.compare(i, 3, "\u2029") == 0) {
            out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
            i += 2;
        } else {
            out += ch;
        }
    }
    return out;
}

toolkit::Rgb cell_background(double v, double scale, bool weights) {
    const double t = weights ? std::clamp(v, 0.0, 1.0)
                             : std::clamp(scale > 0 ? std::abs(v) / scale : 0.0, 0.0, 1.0);
    if (!weights && v < 0) {
        const auto mix = [t](int from, int to) {
            return static_cast<int>(std::lround(from + (to - from) * t));
        };
        return {mix(255, 165), mix(255, 15), mix(255, 21)};
    }
    return toolkit::heat(t);
}

// Whether the page draws the grid of every head's heatmaps (heads_grid).
bool heads_grid_drawn(const Trace& trace) {
    return trace.heads.size() >= 2 && trace.tokens.size() <= report::heads_views_up_to;
}

}  // namespace report

namespace {

// HTML text: escaped, and no-break spaces as &nbsp;
std::string html(std::string_view raw) {
    return toolkit::html(raw);
}

using Json = nlohmann::ordered_json;

// Attention weights and other numbers, coloured by report::cell_background; the text white or
// black, whichever contrasts more.
std::string colour(double v, double scale, bool weights) {
    if (std::isinf(v)) {
        return "background:#eee;color:#888";
    }
    const auto bg = report::cell_background(v, scale, weights);
    const bool light_text =
        toolkit::contrast(bg, {255, 255, 255}) > toolkit::contrast(bg, {17, 17, 17});
    return fmt::format("background:rgb({},{},{});color:{}", bg.r, bg.g, bg.b,
                       light_text ? "#fff" : "#111");
}

// A step's matrix as a table: every cell coloured, with its value, its labels and (for the
// worked arithmetic) its place as data attributes; attention weights with their sums. With
// `before` (a what-if's or attn diff's same step, of the same shape) the cells that differ
// are of class "changed", their value before in data-old.
void matrix_table(toolkit::Spool& out, const Step& step, const TextStyle& style,
                  const Step* before) {
    const bool weights = step.kind == StepKind::attention;
    double scale = 0.0;
    if (step.matrix != nullptr) {
        for (double v : step.matrix->data()) {
            scale = std::isfinite(v) ? std::max(scale, std::abs(v)) : scale;
        }
    }
    out += fmt::format("<div class=\"scroll\"><table class=\"matrix{}\" data-step=\"{}\">\n",
                       weights ? " attention" : "", html(step.id));
    out += "<thead><tr><th></th>";
    for (const auto& label : step.col_labels) {
        out += "<th>" + html(label) + "</th>";
    }
    out += weights ? "<th>Σ</th></tr></thead>\n<tbody>\n" : "</tr></thead>\n<tbody>\n";
    const auto sums = weights ? row_sums(*step.matrix) : std::vector<double>{};
    const auto numbers = table_numbers(step, style.precision);
    for (std::size_t r = 0; r < step.shape.rows; ++r) {
        out += fmt::format("<tr><th{}>{}</th>", weights ? " class=\"query\" tabindex=\"0\"" : "",
                           html(step.row_labels[r]));
        for (std::size_t c = 0; c < step.shape.cols; ++c) {
            if (step.kind == StepKind::mask) {
                const bool ok = step.mask->allowed(r, c);
                const bool was = before != nullptr && before->mask->allowed(r, c);
                out += fmt::format(
                    "<td style=\"{}\"{}>{}</td>",
                    ok ? "background:#dfe8f5" : "background:#eee;color:#999",
                    before != nullptr && was != ok
                        ? fmt::format(" class=\"changed\" data-rl=\"{}\" data-cl=\"{}\" "
                                      "data-old=\"{}\"",
                                      html(step.row_labels[r]), html(step.col_labels[c]),
                                      was ? 1 : 0)
                        : std::string(),
                    ok ? 1 : 0);
                continue;
            }
            const double v = (*step.matrix)(r, c);
            const bool changed = before != nullptr && (*before->matrix)(r, c) != v;
            out += fmt::format(
                "<td style=\"{}\"{} data-r=\"{}\" data-c=\"{}\" data-rl=\"{}\" "
                "data-cl=\"{}\" data-v=\"{}\">{}</td>",
                colour(v, scale, weights),
                changed ? fmt::format(" class=\"changed\" data-old=\"{}\"",
                                      html(format_checkable((*before->matrix)(r, c),
                                                            style.precision, true)))
                        : std::string(),
                r, c, html(step.row_labels[r]), html(step.col_labels[c]),
                std::isinf(v) ? std::string(v < 0 ? "-inf" : "inf") : fmt::format("{}", v),
                html(numbers.format(v, true)));
        }
        if (weights) {
            out += "<td class=\"sum\">" + format_number(sums[r], style.precision, true) + "</td>";
        }
        out += "</tr>\n";
    }
    out += "</tbody></table></div>\n";
}

// Several heads: every head's attention weights as a small heatmap, side by side in a grid
// near the top of the page, so that the heads can be compared at a glance (the steps below
// have every number). Each cell's colour is its weight's; its title gives the tokens and the
// weight. Not for a long input, whose heads' compact heatmaps are in their steps.

void heads_grid(toolkit::Spool& out, const Trace& trace, const TextStyle& style) {
    if (!report::heads_grid_drawn(trace)) {
        return;
    }
    // a rule that is not the right one is named in the heading, so that the grid is never
    // taken for attention's weights (lesson::not_the_rule, as the SVG says it)
    const auto caveat = lesson::not_the_rule(trace);
    out += fmt::format("<section class=\"heads\" id=\"heads\">\n<h2>Every head's {}</h2>\n",
                       caveat.headline.empty() ? "attention weights"
                                               : "weights, not attention's: A from " +
                                                     html(lesson::rule_mistake(trace)));
    out += fmt::format(
        "<p class=\"note\">The {}weights A of each of the {} heads, side by side: a row "
        "per query token, a column per key, darker for a larger weight (white 0, deep blue 1). "
        "Hover over a cell for its weight; the steps below show every number.{}</p>\n",
        caveat.headline.empty() ? "attention " : "", trace.heads.size(),
        caveat.detail.empty()     ? std::string()
        : caveat.headline.empty() ? " They are " + html(caveat.detail) + "."
                                  : " " + html(caveat.detail_sentence()));
    out += "<div class=\"head-grid\">\n";
    // a what-if's: the heads of the run compared with, when they match these
    const Trace* before = trace.comparison ? &trace.comparison->before : nullptr;
    if (before != nullptr && (before->heads.size() != trace.heads.size() ||
                              before->tokens.size() != trace.tokens.size())) {
        before = nullptr;
    }
    std::size_t n_changed = 0;
    for (std::size_t h = 0; h < trace.heads.size(); ++h) {
        const Matrix& a = trace.heads[h].attention;
        out += fmt::format(
            "<figure class=\"head-map\" data-head=\"{}\"><figcaption>head {}</figcaption>"
            "<table class=\"mini\"><thead><tr><th></th>",
            h + 1, h + 1);
        for (const auto& token : trace.tokens) {
            out += "<th class=\"key\"><span>" + html(token) + "</span></th>";
        }
        out += "</tr></thead><tbody>\n";
        for (std::size_t r = 0; r < a.rows(); ++r) {
            out += "<tr><th>" + html(trace.tokens[r]) + "</th>";
            for (std::size_t c = 0; c < a.cols(); ++c) {
                const auto bg = report::cell_background(a(r, c), 1.0, true);
                const double was = before != nullptr ? before->heads[h].attention(r, c) : a(r, c);
                n_changed += was != a(r, c) ? 1U : 0U;
                out += fmt::format(
                    "<td style=\"background:rgb({},{},{})\"{} title=\"{} → {}: {}{}\"></td>", bg.r,
                    bg.g, bg.b, was != a(r, c) ? " class=\"changed\"" : "", html(trace.tokens[r]),
                    html(trace.tokens[c]), format_number(a(r, c), style.precision, true),
                    was != a(r, c) ? " (was " + format_number(was, style.precision, true) + ")"
                                   : std::string());
            }
            out += "</tr>\n";
        }
        out += "</tbody></table></figure>\n";
    }
    out +=
        "</div>\n<div class=\"legend\">0 <span class=\"bar\" style=\"background:"
        "linear-gradient(to right,#fff,#08306b)\"></span> 1 (weight)</div>\n";
    if (before != nullptr) {
        const std::size_t all = trace.heads.size() * trace.tokens.size() * trace.tokens.size();
        out += fmt::format(
            "<p class=\"note\">{} from the run as given{}.</p>\n",
            n_changed == all ? fmt::format("All {} weights differ", all)
            : n_changed == 0 ? std::string("No weight differs")
                             : fmt::format("{} of the {} weights differ", n_changed, all),
            n_changed > 0 ? ": those cells are outlined, and their tooltips give the value before"
                          : "");
    }
    out += "</section>\n";
}

// --why's text without its heading, which repeats the value: the lines up to the one its
// rule ends (a long title is wrapped over several)
std::string without_heading(const std::string& why, bool unicode) {
    const std::string rule = unicode ? "━━\n" : "==\n";
    const auto end = why.find(rule);
    return end == std::string::npos ? why.substr(why.find('\n') + 1)
                                    : why.substr(end + rule.size());
}

}  // namespace

void render_html(const Trace& trace, const TextStyle& style, const Sink& sink) {
    const auto& steps = teaching_steps(trace);
    constexpr std::size_t why_up_to = 12;    // tokens: beyond this, no worked arithmetic
    constexpr std::size_t tip_columns = 80;  // the tooltip's width in characters
    // an object of the worked arithmetic by "step|row|column", a member per line, its keys
    // and strings dumped by nlohmann/json (assembled here: an ordered_json object looks each
    // new key up among all the others, and a page can have tens of thousands of cells),
    // written into the page a member at a time (a checkpoint's is 16 MB of text)
    const auto write_why_data = [&](toolkit::Spool& page) {
        bool first = true;
        if (trace.tokens.size() <= why_up_to) {
            // sentences whole, for the tooltip to wrap at its own width; the arithmetic's lines
            // broken at the tooltip's width, tip_columns (report.css: #tip's max-width)
            TextStyle plain = style;
            plain.color = false;
            plain.width = tip_columns;
            plain.wrap_sentences = false;
            for (const auto& step : steps) {
                const auto base = base_id(step.id);
                // the computed steps: a head's, the backward pass's, and a checkpoint's own
                // sums (the embeddings, LayerNorm, the residual stream)
                const bool gpt2_sum =
                    step.op == StepOp::gpt2_embeddings || step.op == StepOp::ln_mean ||
                    step.op == StepOp::ln_variance || step.op == StepOp::ln_output ||
                    step.op == StepOp::residual_attn || step.op == StepOp::residual_mlp;
                if (step.kind == StepKind::tokens || step.kind == StepKind::mask ||
                    !(base == "Q" || base == "K" || base == "V" || base == "scores" ||
                      base == "scaled_scores" || base == "masked_scores" || base == "weights" ||
                      base == "output" || is_backward(step.op) || gpt2_sum)) {
                    continue;
                }
                for (std::size_t r = 0; r < step.shape.rows; ++r) {
                    for (std::size_t c = 0; c < step.shape.cols; ++c) {
                        const std::string text = render_why(trace, {step.id, r, c}, plain);
                        std::string member = first ? "{\n" : ",\n";
                        member += Json(fmt::format("{}|{}|{}", step.id, r, c)).dump();
                        member += ":";
                        member += Json(without_heading(text, plain.unicode)).dump();
                        page += report::script_safe(member);
                        first = false;
                    }
                }
            }
        }
        page += first ? "{}" : "}";
    };
    const std::string tokens_json = Json(trace.tokens).dump();

    toolkit::Spool out(sink);  // written in pieces as it is made: a page can be hundreds of MiB
    out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    // nothing from the network, no script but the page's own (named by its digest), so no
    // inline event handler runs even if markup were ever injected
    out += fmt::format(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "script-src 'sha256-{}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
        "form-action 'none'\">\n",
        assets::report_js_sha256);
    out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    out += fmt::format("<title>attn: {}</title>\n", html(trace.sentence));
    out += "<style>\n" + std::string(assets::report_css) + "</style>\n</head>\n<body>\n";
    out += "<h1>Self-attention, step by step</h1>\n<ul class=\"summary\">\n";
    for (const auto& item : lesson::summary(trace)) {
        out += "  <li><b>" + html(item.key) + "</b>: " + html(item.value) + "</li>\n";
        for (const auto& more : item.more) {
            out += "  <li>" + html(more) + "</li>\n";
        }
    }
    out += "</ul>\n";
    report::contents(out, trace, style);
    report::in_short(out, trace, style);
    out +=
        "<p class=\"note\">Hover over (or tab to) a query token in an attention table "
        "to see where its attention goes; hover over any number for its exact value and how "
        "it was computed.</p>\n";
    const Comparison* cmp = trace.comparison.get();
    if (cmp != nullptr) {  // a what-if or attn diff: what changed, before the steps that show it
        out += fmt::format(
            "<section class=\"what-changed\" id=\"what-changed\" "
            "data-before=\"{}\">\n<h2>{}</h2>\n",
            html(cmp->before_name.empty() ? "the run as given" : cmp->before_name),
            lesson::what_changed_title(trace));
        for (const auto& paragraph : lesson::what_changed(trace, style.precision)) {
            out += "<p>" + html(paragraph) + "</p>\n";
        }
        out +=
            "<p class=\"note\">Cells that changed are outlined and marked *; hover over one "
            "for its value before.</p>\n</section>\n";
    }
    heads_grid(out, trace, style);
    report::lines_view(out, trace, style);
    for (const auto& step : steps) {
        if (!report::on_page(step, style)) {
            continue;
        }
        const std::string head = step.head > 0 ? fmt::format("Head {} · ", step.head) : "";
        out += fmt::format("<section class=\"step\" id=\"step-{}\" data-step=\"{}\">\n",
                           html(step.id), html(step.id));
        // a checkpoint's step names the tensor its numbers come from, as the text does
        const std::string tensor = lesson::gpt2_tensor(trace, step);
        out += fmt::format(
            "<h2>{} · {}{} <span class=\"formula\">{}</span>{}</h2>\n", html(step.number),
            html(head), html(lesson::title(trace, step)),
            step.kind == StepKind::tokens
                ? ""
                : html(notation::symbol(step.symbol, notation::Style::unicode)),
            tensor.empty() ? "" : " <span class=\"tensor\">[" + html(tensor) + "]</span>");
        out += fmt::format("<p class=\"formula\">{}</p>\n",
                           html(notation::formula(step.formula, notation::Style::unicode)));
        const auto notes = lesson::notes(trace, step, style.precision);
        if (style.explanations) {
            out += "<p class=\"why\">" + html(lesson::explanation(trace, step)) + "</p>\n";
            for (const auto& n : notes.before) {
                out += "<p class=\"note\">" + html(n) + "</p>\n";
            }
        }
        const Step* before =
            cmp == nullptr ? nullptr : find_step(cmp->before, step.id);  // same id, row layout
        if (before != nullptr && !(before->shape == step.shape)) {
            before = nullptr;
        }
        if (step.kind == StepKind::tokens) {
            out += "<p class=\"tokens\">";
            for (std::size_t i = 0; i < trace.tokens.size(); ++i) {
                const bool swapped = before != nullptr && before->row_labels[i] != trace.tokens[i];
                out += swapped ? fmt::format(
                                     "<span class=\"changed\" data-old=\"{}\" "
                                     "tabindex=\"0\"><small>{}</small>{}</span>",
                                     html(before->row_labels[i]), i, html(trace.tokens[i]))
                               : fmt::format("<span><small>{}</small>{}</span>", i,
                                             html(trace.tokens[i]));
            }
            out += "</p>\n</section>\n";
            continue;
        }
        const bool weights = step.kind == StepKind::attention;
        if (report::compact(trace, step)) {
            report::heatmap(out, step, style, before);
        } else {
            matrix_table(out, step, style, before);
        }

        if ((step.kind == StepKind::matrix || weights) && !report::compact(trace, step)) {
            out += weights
                       ? "<div class=\"legend\">0 <span class=\"bar\" style=\"background:"
                         "linear-gradient(to right,#fff,#08306b)\"></span> 1 (weight)</div>\n"
                       : "<div class=\"legend\">negative <span class=\"bar\" style=\"background:"
                         "linear-gradient(to right,#a50f15,#fff,#08306b)\"></span> positive "
                         "(colour: the size against the largest number here)</div>\n";
        }
        if (weights) {
            out += fmt::format("<div class=\"bars\" id=\"bars-{}\" aria-live=\"polite\"></div>\n",
                               html(step.id));
        }
        if (style.explanations) {
            for (const auto& n : notes.after) {
                out += "<p class=\"note\">" + html(n) + "</p>\n";
            }
        }
        out += "</section>\n";
    }
    for (const auto& w : lesson::warnings(trace)) {
        out += "<p class=\"warning\">" + html(w) + "</p>\n";
    }
    out += "<div id=\"tip\" role=\"tooltip\"></div>\n";
    out += "<script type=\"application/json\" id=\"why-data\">";
    write_why_data(out);
    out += "</script>\n";
    out += "<script type=\"application/json\" id=\"token-data\">" +
           report::script_safe(tokens_json) + "</script>\n";
    out += "<script>\n" + std::string(assets::report_js) + "</script>\n</body>\n</html>\n";
    out.flush();
}

std::string render_html(const Trace& trace, const TextStyle& style) {
    return toolkit::collect([&](const Sink& sink) { render_html(trace, style, sink); });
}

}  // namespace attn
