// --svg: the attention weights as a standalone SVG heatmap, one panel per head, with token
// labels and a legend, for slides and papers.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/gpt2.hpp"
#include "attn/render/render.hpp"
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

}  // namespace

void render_svg(const Trace& trace, const Sink& sink) {
    constexpr int title_font_size = 15;
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
    const int top = 40 + label;  // title, then the rotated column labels
    const int panel = static_cast<int>(n) * cell;
    const auto heads = static_cast<int>(trace.heads.size());
    // a checkpoint's heads: which layer, and the tensors' name for other tools
    const std::string title = fmt::format(
        "Attention weights A{}: rows are queries, columns are keys",
        trace.gpt2 ? fmt::format(" of layer {} [{}{}]", trace.gpt2->layer + 1, trace.gpt2->prefix,
                                 gpt2_name(trace.gpt2->layer, "attn"))
                   : std::string());
    // never clip the title: wide enough for it at 0.7 em a column (bold DejaVu Sans averages
    // about 0.62 em; a wide character counts two columns), whatever the panels need
    const int title_width = static_cast<int>(
        std::ceil(0.7 * title_font_size * static_cast<double>(toolkit::width_of(title))));
    const int width =
        std::max(label + heads * panel + (heads - 1) * gap + 20, label + title_width + 20);
    const int legend_y = top + panel + 30;
    const int height = legend_y + 50;
    toolkit::Spool out(sink);  // written in pieces as it is made: an SVG can be hundreds of MiB
    out += fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} "
        "{}\" "
        "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
        "  <title>Attention weights: {}</title>\n"
        "  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "  <text x=\"{}\" y=\"22\" font-size=\"{}\" font-weight=\"bold\">{}</text>\n",
        width, height, width, height, xml(trace.sentence), label, title_font_size, xml(title));
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
