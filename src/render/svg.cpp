// --svg: the attention weights as a standalone SVG heatmap, one panel per head, with token
// labels and a legend, for slides and papers.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attn/core/gpt2.hpp"
#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

std::string xml(std::string_view s) {
    return toolkit::xml(s);
}

// The heatmap's colour (white for 0, deep blue for 1) as #rrggbb.
std::string fill(double w) {
    const auto [r, g, b] = toolkit::heat(w);
    return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

// The pixels a line takes at `font_size`: 0.7 em a column.
int em_width(const std::string& line, int font_size) {
    return static_cast<int>(
        std::ceil(0.7 * font_size * static_cast<double>(toolkit::width_of(line))));
}

// `text` wrapped at `widest` columns, then as narrow as it can be on as many lines, so that a
// wrapped title's lines are about as long as each other (no word alone on the last)
std::vector<std::string> balanced(const std::string& text, std::size_t widest) {
    auto lines = toolkit::wrap(text, widest);
    for (std::size_t w = widest; w > 1; --w) {
        auto narrower = toolkit::wrap(text, w - 1);
        if (narrower.size() != lines.size()) {
            break;
        }
        lines = std::move(narrower);
    }
    return lines;
}

}  // namespace

void render_svg(const Trace& trace, const Sink& sink) {
    constexpr int title_font_size = 15;
    constexpr int note_font_size = 12;
    constexpr int cell = 34;
    constexpr int gap = 40;
    const std::size_t n = trace.tokens.size();
    std::size_t longest = 1;
    for (const auto& token : trace.tokens) {
        longest = std::max(longest, toolkit::width_of(token));
    }
    // labels get room for 16 columns; a longer token is cut there (…), whole in its tooltip
    constexpr std::size_t label_columns = 16;
    const int label = 12 + 8 * static_cast<int>(std::min(longest, label_columns));
    const auto token_label = [&](const std::string& token) {
        const std::string cut = toolkit::truncate(token, label_columns, true);
        return cut == token ? xml(token) : fmt::format("{}<title>{}</title>", xml(cut), xml(token));
    };
    const int panel = static_cast<int>(n) * cell;
    const auto heads = static_cast<int>(trace.heads.size());
    const int panels = heads * panel + (heads - 1) * gap;
    // a checkpoint's heads: which layer, and the tensors' name for other tools
    const std::string axes = "rows are queries, columns are keys";
    const std::string standard = fmt::format(
        "Attention weights A{}: {}",
        trace.gpt2 ? fmt::format(" of layer {} [{}{}]", trace.gpt2->layer + 1, trace.gpt2->prefix,
                                 gpt2_name(trace.gpt2->layer, "attn"))
                   : std::string(),
        axes);
    // a rule that is not the right one (--no-scale, --softmax-over, ...) is named, so that a
    // slide never shows its weights as attention's: the title (bold) and a line under it
    const auto caveat = lesson::not_the_rule(trace);
    std::vector<std::string> lines{caveat.headline.empty() ? standard : caveat.headline};
    std::vector<std::string> notes;
    if (!caveat.detail.empty()) {
        const std::string detail =
            lesson::RuleCaveat{
                "", caveat.headline.empty() ? caveat.detail : axes + "; " + caveat.detail}
                .detail_sentence();
        // as many columns as the panels are wide, and at least the standard title's: the
        // picture widens only as far as the longest line needs
        const auto columns = [&](int font_size, std::size_t least) {
            return std::max(least, static_cast<std::size_t>(panels / (0.7 * font_size)));
        };
        lines = balanced(lines.front(), columns(title_font_size, toolkit::width_of(standard)));
        notes = balanced(detail, columns(note_font_size, toolkit::width_of(standard) + 15));
    }
    // never clip a line: wide enough for it at 0.7 em a column (bold DejaVu Sans averages
    // about 0.62 em; a wide character counts two columns), whatever the panels need
    int text_width = 0;
    for (const auto& line : lines) {
        text_width = std::max(text_width, em_width(line, title_font_size));
    }
    for (const auto& line : notes) {
        text_width = std::max(text_width, em_width(line, note_font_size));
    }
    const int width = std::max(label + panels + 20, label + text_width + 20);
    // the first line at y = 22, each further line of the title 19 pixels lower, of the note 16
    const auto extra = static_cast<int>(19 * (lines.size() - 1) + 16 * notes.size());
    const int top = 40 + extra + label;  // the title, then the rotated column labels
    const int legend_y = top + panel + 30;
    const int height = legend_y + 50;
    toolkit::Spool out(sink);  // written in pieces as it is made: an SVG can be hundreds of MiB
    out += fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} "
        "{}\" "
        "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
        "  <title>{}: {}</title>\n",
        width, height, width, height,
        caveat.headline.empty() ? std::string("Attention weights") : xml(caveat.headline),
        xml(trace.sentence));
    if (!caveat.detail.empty()) {
        out += fmt::format(
            "  <desc>{}{}.</desc>\n", caveat.headline.empty() ? "Attention weights A, " : "",
            xml(caveat.headline.empty() ? caveat.detail : caveat.headline + "; " + caveat.detail));
    }
    out += "  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    int baseline = 22;
    for (const auto& line : lines) {
        out += fmt::format(
            "  <text x=\"{}\" y=\"{}\" font-size=\"{}\" font-weight=\"bold\">{}</text>\n", label,
            baseline, title_font_size, xml(line));
        baseline += 19;
    }
    baseline -= 3;
    for (const auto& line : notes) {
        out += fmt::format("  <text x=\"{}\" y=\"{}\">{}</text>\n", label, baseline, xml(line));
        baseline += 16;
    }
    for (int h = 0; h < heads; ++h) {
        const auto& a = trace.heads[static_cast<std::size_t>(h)].attention;
        const int x0 = label + h * (panel + gap);
        out += fmt::format("  <g id=\"head{}\">\n", h + 1);
        if (heads > 1) {
            out += fmt::format("    <text x=\"{}\" y=\"{}\" font-weight=\"bold\">head {}</text>\n",
                               x0, top + panel + 18, h + 1);
        }
        for (std::size_t j = 0; j < n; ++j) {
            const int cx = x0 + static_cast<int>(j) * cell + cell / 2;
            out += fmt::format(
                "    <text x=\"{}\" y=\"{}\" transform=\"rotate(-45 {} {})\">{}</text>\n", cx,
                top - 6, cx, top - 6, token_label(trace.tokens[j]));
        }
        for (std::size_t i = 0; i < n; ++i) {
            const int y = top + static_cast<int>(i) * cell;
            if (h == 0) {
                out += fmt::format(
                    "    <text x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                    "dominant-baseline=\"middle\">{}"
                    "</text>\n",
                    label - 6, y + cell / 2, token_label(trace.tokens[i]));
            }
            for (std::size_t j = 0; j < n; ++j) {
                const double w = a(i, j);
                const int x = x0 + static_cast<int>(j) * cell;
                out += fmt::format(
                    "    <rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                    "stroke=\"#ccc\"><title>{} → {}: {}</title></rect>\n",
                    x, y, cell, cell, fill(w), xml(trace.tokens[i]), xml(trace.tokens[j]),
                    format_number(w, 4, true));
                if (n <= 16) {
                    out += fmt::format(
                        "    <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
                        "dominant-baseline=\"middle\" font-size=\"10\" fill=\"{}\">{}</text>\n",
                        x + cell / 2, y + cell / 2, toolkit::light_text_on(w) ? "white" : "black",
                        format_number(w, 2, true));
                }
            }
        }
        out += "  </g>\n";
    }
    // the legend: 0 to 1
    out +=
        "  <defs><linearGradient id=\"scale\"><stop offset=\"0\" stop-color=\"#ffffff\"/>"
        "<stop offset=\"1\" stop-color=\"#08306b\"/></linearGradient></defs>\n";
    out += fmt::format(
        "  <rect x=\"{}\" y=\"{}\" width=\"160\" height=\"12\" fill=\"url(#scale)\" "
        "stroke=\"#999\"/>\n"
        "  <text x=\"{}\" y=\"{}\">0</text>\n  <text x=\"{}\" y=\"{}\" text-anchor=\"end\">1"
        "</text>\n  <text x=\"{}\" y=\"{}\">weight</text>\n",
        label, legend_y, label, legend_y + 26, label + 160, legend_y + 26, label + 170,
        legend_y + 10);
    out += "</svg>\n";
    out.flush();
}

std::string render_svg(const Trace& trace) {
    return toolkit::collect([&](const Sink& sink) { render_svg(trace, sink); });
}

}  // namespace attn
