// --format markdown: the walk-through as Markdown, to paste into notes.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "attn/core/ops.hpp"
#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

constexpr std::size_t markdown_edge =
    10;  // more rows or columns than 2·markdown_edge + 1 are elided

std::string md(std::string_view raw) {
    return toolkit::markdown(raw);
}

std::vector<std::optional<std::size_t>> markdown_shown(std::size_t n) {
    return toolkit::shown_indices(n, markdown_edge, markdown_edge);
}

// A cell; one a what-if changed marked \* with its value before: "\*2.0000 (was 0.2500)".
std::string cell(const Step& s, const Step* before, std::size_t r, std::size_t c,
                 const TableNumbers& numbers) {
    const auto text = [&](const Step& of) {
        return of.kind == StepKind::mask ? std::string(of.allowed(r, c) ? "1" : "0")
                                         : numbers.format(of.value(r, c), true);
    };
    return toolkit::changed(s, before, r, c) ? fmt::format("\\*{} (was {})", text(s), text(*before))
                                             : text(s);
}

}  // namespace

void render_markdown(const Trace& trace, const TextStyle& style, const Sink& sink) {
    toolkit::Spool out(sink);  // a step at a time, never the whole walk-through
    out += "# Self-attention, step by step\n\n";
    // "- **sentence**: ..."; its further sentences continue the item
    out += lesson::summary_list(trace, md, "- **", "**: ");
    for (const Step* step_ptr : toolkit::visible_steps(trace, style.steps)) {
        const Step& step = *step_ptr;
        out += fmt::format("\n## {}\n\n", md(lesson::heading(trace, step)));
        // a code span needs no escapes, but a backtick in it (from a file name) would end it
        std::string formula = notation::formula(step.formula, notation::Style::unicode);
        std::replace(formula.begin(), formula.end(), '`', '\'');
        out += fmt::format("`{}`\n\n", toolkit::terminal(formula));
        const auto notes = lesson::notes(trace, step, style.precision);
        if (style.explanations) {
            out += md(lesson::explanation(trace, step)) + "\n\n";
            for (const auto& n : notes.before) {
                out += md(n) + "\n\n";
            }
        }
        if (step.kind == StepKind::tokens) {
            out += toolkit::numbered_tokens(trace.tokens, md) + "\n";
            continue;
        }
        const auto rows = markdown_shown(step.shape.rows);
        const auto cols = markdown_shown(step.shape.cols);
        const bool sums = step.kind == StepKind::attention;
        const auto numbers = table_numbers(step, style.precision);
        const Step* before = toolkit::before_of(trace, step);
        const auto row_sums_of = sums ? row_sums(*step.matrix) : std::vector<double>{};
        out += "| |";
        for (const auto& c : cols) {
            out += " " + (c ? md(step.col_labels[*c]) : std::string("…")) + " |";
        }
        out += sums ? " Σ |\n|---|" : "\n|---|";
        for (std::size_t i = 0; i < cols.size() + (sums ? 1 : 0); ++i) {
            out += "---:|";
        }
        out += "\n";
        for (const auto& r : rows) {
            if (!r) {
                out += "| ⋮ |";
                for (std::size_t i = 0; i < cols.size() + (sums ? 1 : 0); ++i) {
                    out += " ⋮ |";
                }
                out += "\n";
                continue;
            }
            out += "| **" + md(step.row_labels[*r]) + "** |";
            for (const auto& c : cols) {
                out += " " + (c ? cell(step, before, *r, *c, numbers) : std::string("…")) + " |";
            }
            if (sums) {
                out += " " + format_number(row_sums_of[*r], style.precision, true) + " |";
            }
            out += "\n";
        }
        if (rows.size() != step.shape.rows || cols.size() != step.shape.cols) {
            out += "\n(Some rows or columns are not shown; the JSON dump, --json, has them all.)\n";
        }
        if (style.explanations) {
            for (const auto& n : notes.after) {
                out += "\n" + md(n) + "\n";
            }
        }
    }
    if (trace.comparison) {  // a what-if: the closing section the terminal and --html have
        out += fmt::format("\n## {}\n", md(lesson::what_changed_title(trace)));
        for (const auto& paragraph : lesson::what_changed(trace, style.precision)) {
            out += "\n" + md(paragraph) + "\n";
        }
    }
    for (const auto& w : lesson::warnings(trace)) {
        out += "\n**Warning:** " + md(w) + "\n";
    }
    out.flush();
}

std::string render_markdown(const Trace& trace, const TextStyle& style) {
    return toolkit::collect([&](const Sink& sink) { render_markdown(trace, style, sink); });
}

}  // namespace attn
