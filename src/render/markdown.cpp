// --format markdown: the walk-through as Markdown, to paste into notes.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "attn/core/ops.hpp"
#include "attn/render/render.hpp"
#include "common.hpp"
#include "narrative.hpp"

namespace attn {
namespace {

constexpr std::size_t edge = 10;  // more rows or columns than 2·edge + 1 are elided

// Markdown-safe text: its special characters escaped, no-break spaces made plain
std::string md(std::string_view raw) {
    std::string s(raw);
    for (auto at = s.find("\u00A0"); at != std::string::npos; at = s.find("\u00A0")) {
        s.replace(at, 2, " ");
    }
    std::string out;
    for (char ch : s) {
        if (ch == '|' || ch == '*' || ch == '_' || ch == '`' || ch == '\\' || ch == '<') {
            out += '\\';
        }
        out += ch;
    }
    return out;
}

std::vector<std::optional<std::size_t>> shown(std::size_t n) {
    return render_common::shown_indices(n, edge);
}

std::string cell(const Step& s, std::size_t r, std::size_t c, int precision) {
    if (s.kind == StepKind::mask) {
        return s.mask->allowed(r, c) ? "1" : "0";
    }
    return format_number((*s.matrix)(r, c), precision, true);
}

}  // namespace

std::string render_markdown(const Trace& trace, const TextStyle& style) {
    std::string out = "# Self-attention, step by step\n\n";
    for (const auto& line : narrative::summary(trace)) {
        // "sentence  ...": the key in bold; an indented line continues the item before it
        const auto text = line.find_first_not_of(' ');
        if (line.starts_with(" ")) {
            out += "  " + md(line.substr(text)) + "\n";
            continue;
        }
        const auto space = line.find(' ');
        const auto value = line.find_first_not_of(' ', space);
        out += "- **" + md(line.substr(0, space)) + "**: " + md(line.substr(value)) + "\n";
    }
    for (const auto& step : teaching_steps(trace)) {
        if (!style.steps.empty() &&
            std::find(style.steps.begin(), style.steps.end(), step.id) == style.steps.end()) {
            continue;
        }
        const std::string head = step.head > 0 ? fmt::format("Head {} · ", step.head) : "";
        out += step.kind == StepKind::tokens
                   ? fmt::format("\n## {} · {}\n\n", step.number, step.title)
                   : fmt::format("\n## {} · {}{} {}\n\n", step.number, head, step.title,
                                 md(step.symbol));
        out += fmt::format("`{}`\n\n", step.formula);  // a code span needs no escapes
        const auto notes = narrative::notes(trace, step, style.precision);
        if (style.explanations) {
            out += md(step.explanation) + "\n\n";
            for (const auto& n : notes.before) {
                out += md(n) + "\n\n";
            }
        }
        if (step.kind == StepKind::tokens) {
            for (std::size_t i = 0; i < trace.tokens.size(); ++i) {
                out += fmt::format("{}{}: {}", i > 0 ? ", " : "", i, md(trace.tokens[i]));
            }
            out += "\n";
            continue;
        }
        const auto rows = shown(step.shape.rows);
        const auto cols = shown(step.shape.cols);
        const bool sums = step.kind == StepKind::attention;
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
                out += " " + (c ? cell(step, *r, *c, style.precision) : std::string("…")) + " |";
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
    for (const auto& w : narrative::warnings(trace)) {
        out += "\n**Warning:** " + md(w) + "\n";
    }
    return out;
}

}  // namespace attn
