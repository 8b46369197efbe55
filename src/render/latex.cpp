// --format latex: the walk-through as a LaTeX document, each matrix a bmatrix, to paste into
// notes and slides (needs amsmath).
#include <algorithm>
#include <array>
#include <optional>
#include <regex>
#include <utility>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "common.hpp"
#include "narrative.hpp"

namespace attn {
namespace {

constexpr std::size_t edge = 8;  // more rows or columns than 2·edge + 1 are elided

// Text mode: LaTeX's special characters escaped, attn's glyphs as math.
std::string tex_text(std::string_view s) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 26> glyphs{{
        {"│", "$|$"},        {"Σ", "$\\Sigma$"},  {"−∞", "$-\\infty$"}, {"∞", "$\\infty$"},
        {"·", "$\\cdot$"},   {"ᵀ", "$^\\top$"},   {"√", "$\\sqrt{}$"},  {"×", "$\\times$"},
        {"→", "$\\to$"},     {"…", "\\dots{}"},   {"Σ", "$\\Sigma$"},   {"≤", "$\\le$"},
        {"≈", "$\\approx$"}, {"−", "$-$"},        {"′", "$'$"},         {"ₘ", "$_m$"},
        {"⌊", "$\\lfloor$"}, {"⌋", "$\\rfloor$"}, {"\u00A0", "~"},      {"—", "---"},
        {"–", "--"},         {"‘", "`"},          {"’", "'"},           {"“", "``"},
        {"”", "''"},         {"⋮", "$\\vdots$"},
    }};
    return render_common::replace_glyphs(s, glyphs, [](std::string& out, char ch) {
        switch (ch) {
            case '\\':
                out += "\\textbackslash{}";
                break;
            case '<':
                out += "\\textless{}";
                break;
            case '>':
                out += "\\textgreater{}";
                break;
            case '{':
                out += "\\{";
                break;
            case '}':
                out += "\\}";
                break;
            case '$':
                out += "\\$";
                break;
            case '&':
                out += "\\&";
                break;
            case '#':
                out += "\\#";
                break;
            case '%':
                out += "\\%";
                break;
            case '_':
                out += "\\_";
                break;
            case '^':
                out += "\\^{}";
                break;
            case '~':
                out += "\\~{}";
                break;
            default:
                out += ch;
        }
    });
}

std::string tex_math_symbols(std::string_view s);

// Math mode: attn's formulas in LaTeX. Double subscripts become one (W_Q_1 → W_{Q,1}), and a
// file name ("M = mask from FILE") is set as text.
std::string tex_math(std::string_view raw) {
    std::string s(raw);
    const auto from = s.find(" from ");
    if (from != std::string::npos) {
        return tex_math(s.substr(0, from)) + "\\text{ from " + tex_text(s.substr(from + 6)) + "}";
    }
    s = std::regex_replace(s, std::regex("([A-Za-z])_([A-Z])_([0-9]+)"), "$1_{$2,$3}");
    s = std::regex_replace(s, std::regex("′ₘ_([0-9]+)"), "'_{m,$1}");
    s = std::regex_replace(s, std::regex("<pad>"), "\\langle\\text{pad}\\rangle");
    s = std::regex_replace(s, std::regex("d_model"), "d_{\\text{model}}");
    s = std::regex_replace(s, std::regex(" and "), "\\text{ and }");
    s = std::regex_replace(s, std::regex(" is not "), "\\text{ is not }");
    return tex_math_symbols(s);
}

std::string tex_math_symbols(std::string_view s) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 22> glyphs{{
        {" if ", "\\text{ if }"},
        {"by hand", "\\text{by hand}"},
        {"−∞", "-\\infty"},
        {"∞", "\\infty"},
        {"·", "\\cdot "},
        {"ᵀ", "^\\top"},
        {"√d_k", "\\sqrt{d_k}"},
        {"×", "\\times "},
        {"→", "\\to "},
        {"Σ", "\\sum "},
        {"≤", "\\le "},
        {"−", "-"},
        {"′", "'"},
        {"ₘ", "_m"},
        {"⌊", "\\lfloor "},
        {"⌋", "\\rfloor "},
        {"W_Q", "W_Q"},
        {"softmax", "\\operatorname{softmax}"},
        {"embed", "\\operatorname{embed}"},
        {"where", "\\text{ where }"},
        {"row by row", "\\text{ row by row}"},
        {"else", "\\text{ else }"},
    }};
    return render_common::replace_glyphs(s, glyphs, [](std::string& out, char ch) {
        out += ch == '#' ? std::string("\\#") : ch == '%' ? std::string("\\%") : std::string(1, ch);
    });
}

std::vector<std::optional<std::size_t>> shown(std::size_t n) {
    return render_common::shown_indices(n, edge);
}

std::string labels(std::span<const std::string> all,
                   const std::vector<std::optional<std::size_t>>& which) {
    std::string out;
    for (const auto& i : which) {
        out += (out.empty() ? "" : ", ") + (i ? tex_text(all[*i]) : std::string("\\dots{}"));
    }
    return out;
}

}  // namespace

std::string render_latex(const Trace& trace, const TextStyle& style) {
    std::string out =
        "% attn explain --format latex: the walk-through, one bmatrix per step (needs amsmath)\n"
        "\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage[margin=2cm]{geometry}\n"
        "\\begin{document}\n\\section*{Self-attention, step by step}\n\\begin{itemize}\n";
    for (const auto& line : narrative::summary(trace)) {
        if (line.starts_with(" ")) {
            out += "  " + tex_text(line.substr(line.find_first_not_of(' '))) + "\n";
            continue;
        }
        const auto space = line.find(' ');
        out += "  \\item \\textbf{" + tex_text(line.substr(0, space)) +
               "}: " + tex_text(line.substr(line.find_first_not_of(' ', space))) + "\n";
    }
    out += "\\end{itemize}\n";
    for (const auto& step : teaching_steps(trace)) {
        if (!style.steps.empty() &&
            std::find(style.steps.begin(), style.steps.end(), step.id) == style.steps.end()) {
            continue;
        }
        const std::string head = step.head > 0 ? fmt::format("Head {}: ", step.head) : "";
        out += fmt::format("\n\\subsection*{{{}. {}{}}}\n", tex_text(step.number), tex_text(head),
                           tex_text(step.title));
        if (style.explanations) {
            out += tex_text(step.explanation) + "\n";
        }
        if (step.kind == StepKind::tokens) {
            out += "\n";
            for (std::size_t i = 0; i < trace.tokens.size(); ++i) {
                out += fmt::format("{}{}: {}", i > 0 ? ", " : "", i, tex_text(trace.tokens[i]));
            }
            out += "\n";
            continue;
        }
        const auto rows = shown(step.shape.rows);
        const auto cols = shown(step.shape.cols);
        // an input's formula is its name: say it once
        out += "\\[\n" +
               (step.formula == step.symbol ? std::string() : tex_math(step.formula) + "\\qquad ") +
               fmt::format("{} = ", tex_math(step.symbol)) + "\\begin{bmatrix}\n";
        for (const auto& r : rows) {
            std::string line;
            for (const auto& c : cols) {
                std::string v;
                if (!r) {
                    v = c ? "\\vdots" : "\\ddots";
                } else if (!c) {
                    v = "\\cdots";
                } else if (step.kind == StepKind::mask) {
                    v = step.mask->allowed(*r, *c) ? "1" : "0";
                } else {
                    v = format_number((*step.matrix)(*r, *c), style.precision, false);
                    v = v == "-inf" ? "-\\infty" : v;
                }
                line += (line.empty() ? "" : " & ") + v;
            }
            out += "  " + line + " \\\\\n";
        }
        out += "\\end{bmatrix}\n\\]\n";
        out += fmt::format("Rows: {}. Columns: {}.\n", labels(step.row_labels, rows),
                           labels(step.col_labels, cols));
    }
    for (const auto& w : narrative::warnings(trace)) {
        out += "\n\\paragraph{Warning.} " + tex_text(w) + "\n";
    }
    out += "\\end{document}\n";
    return out;
}

}  // namespace attn
