// --format latex: the walk-through as a LaTeX document, each matrix a bmatrix, to paste into
// notes and slides (needs amsmath).
#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

constexpr std::size_t latex_edge = 8;  // more rows or columns than 2·latex_edge + 1 are elided

std::string tex_text(std::string_view s) {
    return toolkit::latex_text(s);
}

std::string tex_math(const Formula& f) {
    return notation::formula(f, notation::Style::latex);
}

std::vector<std::optional<std::size_t>> latex_shown(std::size_t n) {
    return toolkit::shown_indices(n, latex_edge, latex_edge);
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

void render_latex(const Trace& trace, const TextStyle& style, const Sink& sink) {
    toolkit::Spool out(sink);  // a step at a time, never the whole document
    out +=
        "% attn explain --format latex: the walk-through, one bmatrix per step (needs amsmath)\n"
        "\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage[margin=2cm]{geometry}\n"
        // a wide matrix is elided to 8 + ⋯ + 2 columns (11), past amsmath's default of 10
        "\\setcounter{MaxMatrixCols}{20}\n"
        "\\begin{document}\n\\section*{Self-attention, step by step}\n\\begin{itemize}\n";
    out += lesson::summary_list(trace, tex_text, "  \\item \\textbf{", "}: ");
    out += "\\end{itemize}\n";
    for (const Step* step_ptr : toolkit::visible_steps(trace, style.steps)) {
        const Step& step = *step_ptr;
        const std::string head = step.head > 0 ? fmt::format("Head {}: ", step.head) : "";
        out += fmt::format("\n\\subsection*{{{}. {}{}}}\n", tex_text(step.number), tex_text(head),
                           tex_text(lesson::title(trace, step)));
        // the notes computed from the numbers, as the text and Markdown show them: what the
        // scaling did to the variance, what went wrong with a mistake shown on purpose, ...
        const auto notes =
            style.explanations ? lesson::notes(trace, step, style.precision) : lesson::Notes{};
        if (style.explanations) {
            out += tex_text(lesson::explanation(trace, step)) + "\n";
            for (const auto& n : notes.before) {
                out += "\n" + tex_text(n) + "\n";
            }
        }
        if (step.kind == StepKind::tokens) {
            out += "\n" + toolkit::numbered_tokens(trace.tokens, tex_text) + "\n";
            continue;
        }
        const auto rows = latex_shown(step.shape.rows);
        const auto cols = latex_shown(step.shape.cols);
        const auto numbers = table_numbers(step, style.precision);
        const Step* before = toolkit::before_of(trace, step);
        // an input's formula is its name: say it once
        out += "\\[\n" +
               (step.formula.is_symbol(step.symbol) ? std::string()
                                                    : tex_math(step.formula) + "\\qquad ") +
               fmt::format("{} = ", notation::symbol(step.symbol, notation::Style::latex)) +
               "\\begin{bmatrix}\n";
        const auto value = [&](const Step& of, std::size_t r, std::size_t c) {
            if (of.kind == StepKind::mask) {
                return std::string(of.allowed(r, c) ? "1" : "0");
            }
            const std::string v = numbers.format(of.value(r, c), false);
            return v == "-inf" ? std::string("-\\infty") : v;
        };
        for (const auto& r : rows) {
            std::string line;
            for (const auto& c : cols) {
                std::string v;
                if (!r) {
                    v = c ? "\\vdots" : "\\ddots";
                } else if (!c) {
                    v = "\\cdots";
                } else if (toolkit::changed(step, before, *r, *c)) {
                    // a cell a what-if changed: marked *, as the note under the matrix says,
                    // with its value before small beneath it ("(was 0.2500)" in Markdown),
                    // which keeps the column about as narrow as the number
                    v = fmt::format("\\underset{{\\text{{was }}{}}}{{{{}}^{{*}}{}}}",
                                    value(*before, *r, *c), value(step, *r, *c));
                } else {
                    v = value(step, *r, *c);
                }
                line += (line.empty() ? "" : " & ") + v;
            }
            out += "  " + line + " \\\\\n";
        }
        out += "\\end{bmatrix}\n\\]\n";
        out += fmt::format("Rows: {}. Columns: {}.\n", labels(step.row_labels, rows),
                           labels(step.col_labels, cols));
        for (const auto& n : notes.after) {
            out += "\n" + tex_text(n) + "\n";
        }
    }
    if (trace.comparison) {  // a what-if: the closing section the terminal and --html have
        out += fmt::format("\n\\subsection*{{{}}}\n", tex_text(lesson::what_changed_title(trace)));
        for (const auto& paragraph : lesson::what_changed(trace, style.precision)) {
            out += "\n" + tex_text(paragraph) + "\n";
        }
    }
    for (const auto& w : lesson::warnings(trace)) {
        out += "\n\\paragraph{Warning.} " + tex_text(w) + "\n";
    }
    out += "\\end{document}\n";
    out.flush();
}

std::string render_latex(const Trace& trace, const TextStyle& style) {
    return toolkit::collect([&](const Sink& sink) { render_latex(trace, style, sink); });
}

}  // namespace attn
