// The words of a what-if (--set) and of attn diff: the summary's line about the changes, the
// note under each step's matrix, and the closing section that says what changed in the output
// and why. Every number is read from the Comparison the core made (attn/core/whatif.hpp).
#include "whatif_words.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"

namespace attn::lesson::whatif {
namespace {

// "row 'is'", "rows 'This' and 'is'", "rows 'cat' (row 1) and 'cat' (row 4)"
std::string rows_words(std::string_view one, std::string_view many,
                       const std::vector<std::size_t>& at, std::span<const std::string> labels) {
    std::vector<std::string> names;
    names.reserve(at.size());
    for (const auto i : at) {
        // a label the step has more than once ('cat' twice in a sentence) with its place
        const bool repeated = std::count(labels.begin(), labels.end(), labels[i]) > 1;
        names.push_back(repeated ? fmt::format("{} ({} {})", quoted(labels[i]), one, i)
                                 : quoted(labels[i]));
    }
    return fmt::format("{} {}", at.size() == 1 ? one : many, join_list(names));
}

// "embeddings[is,d1] from 0.3000 to 0.5", "tokens[2] from 'book' to 'hat'"
std::string change_words(const Change& c, const Trace& t, int precision, Layout layout) {
    std::string name = cell_name(c, t);
    // in the column layout the cell as shown: its step's rows are the matrix's columns
    if (const Step* s = layout == Layout::col && !t.column_steps.empty()
                            ? find_step(t, c.step_id, Layout::col)
                            : nullptr;
        !c.is_token() && s != nullptr && s->transposed && c.col < s->row_labels.size() &&
        c.row < s->col_labels.size()) {
        name = fmt::format("{}[{},{}]", c.step_id, toolkit::cell_label(s->row_labels, c.col),
                           toolkit::cell_label(s->col_labels, c.row));
    }
    if (c.is_token()) {
        return fmt::format("{} from {} to {}{}", name, quoted(c.token_before),
                           quoted(c.token_after),
                           c.token_before == c.token_after ? " (the token it was: no change)" : "");
    }
    if (c.step_id == "mask") {
        return fmt::format("{} from {} to {}{}", name, c.before != 0.0 ? 1 : 0,
                           c.after != 0.0 ? 1 : 0,
                           c.before == c.after ? " (the value it had: no change)" : "");
    }
    return fmt::format("{} {}{}", name, from_to(c.before, c.after, precision),
                       c.before == c.after ? " (the value it had: no change)" : "");
}

// The inputs two dumps differ in (attn diff): each token, and each cell of an input step
// where few differ; a step where more differ in a few words (a seed's every number).
std::vector<std::string> differences_words(const Trace& t, const Comparison& cmp, int precision,
                                           Layout layout) {
    constexpr std::size_t listed_cells = 3;  // more cells of a step are said as the step
    std::vector<std::string> items;
    for (const Change& c : cmp.changes) {
        if (c.is_token()) {
            items.push_back(change_words(c, t, precision, layout));
        }
    }
    for (const Step& step : teaching_steps(t)) {
        std::vector<const Change*> cells;
        for (const Change& c : cmp.changes) {
            if (!c.is_token() && c.step_id == step.id) {
                cells.push_back(&c);
            }
        }
        const StepDelta* d = cmp.delta(step.id);
        if (cells.size() > listed_cells && d != nullptr) {
            items.push_back(step_words(*d, step, "differs", precision));
            continue;
        }
        for (const Change* c : cells) {
            items.push_back(change_words(*c, t, precision, layout));
        }
    }
    return items;
}

}  // namespace

// Numbers in prose: whole numbers without decimals, tiny ones in scientific notation.
std::string num(double x, int precision) {
    return format_checkable(x, precision, true);
}

// A change with its sign: "+0.2000", "−0.1358".
std::string signed_num(double x, int precision) {
    const std::string s = num(std::abs(x), precision);
    return (x < 0 ? "-" : "+") + s;
}

std::string from_to(double before, double after, int precision) {
    int d = precision;
    while (before != after && d < toolkit::max_operand_decimals &&
           num(before, d) == num(after, d)) {
        ++d;
    }
    return fmt::format("from {} to {}", num(before, d), num(after, d));
}

std::string sym(const Step& step) {
    return notation::symbol(step.symbol, notation::Style::unicode);
}

// Where a step changed, as shown (a transposed step's rows are the matrix's columns):
// "in every cell", "in row 'is'", "in row 'is' and column 'is'", "in 2 cells of row 'is'".
std::string where(const StepDelta& d, const Step& step) {
    if (d.changed == d.cells) {
        return d.cells == 1 ? "in its one cell" : "in every cell";
    }
    const bool t = step.transposed;
    const auto& rows = t ? d.full_cols : d.full_rows;
    const auto& cols = t ? d.full_rows : d.full_cols;
    const std::size_t n_rows = step.shape.rows;
    const std::size_t n_cols = step.shape.cols;
    const std::size_t covered =
        rows.size() * n_cols + cols.size() * n_rows - rows.size() * cols.size();
    const auto row_words = [&](const std::vector<std::size_t>& at) {
        return rows_words("row", "rows", at, step.row_labels);
    };
    const auto col_words = [&](const std::vector<std::size_t>& at) {
        return rows_words("column", "columns", at, step.col_labels);
    };
    if (covered == d.changed) {
        if (cols.empty()) {
            return "in " + row_words(rows);
        }
        if (rows.empty()) {
            return "in " + col_words(cols);
        }
        return "in " + row_words(rows) + " and " + col_words(cols);
    }
    const auto& some_rows = t ? d.cols : d.rows;
    const auto& some_cols = t ? d.rows : d.cols;
    if (d.changed == 1) {
        return fmt::format("in the cell [{}, {}]",
                           shown(toolkit::cell_label(step.row_labels, some_rows.front())),
                           shown(toolkit::cell_label(step.col_labels, some_cols.front())));
    }
    // the fewer of the two: "in row 'is'" rather than "in columns 'q1' and 'q2'"
    if (some_cols.size() < n_cols && some_cols.size() < some_rows.size()) {
        return "in " + col_words(some_cols);
    }
    if (some_rows.size() < n_rows) {
        return "in " + row_words(some_rows);
    }
    if (some_cols.size() < n_cols) {
        return "in " + col_words(some_cols);
    }
    return "in every row and every column";
}

// ", by up to +0.2000 at [is, d1]": the largest change of a step, where it is shown; ", by
// +0.2000" for the one cell that changed.
std::string largest(const StepDelta& d, const Step& step, int precision) {
    if (d.largest == 0.0) {
        return "";  // only cells that became or stopped being −∞ (a mask's doing)
    }
    if (d.changed == 1) {
        return ", by " + signed_num(d.largest, precision);
    }
    const std::size_t r = step.transposed ? d.col : d.row;
    const std::size_t c = step.transposed ? d.row : d.col;
    // a repeated label with its index, as --why takes it (cat#4)
    return fmt::format(", by up to {} at [{}, {}]", signed_num(d.largest, precision),
                       shown(toolkit::cell_label(step.row_labels, r)),
                       shown(toolkit::cell_label(step.col_labels, c)));
}

// "a; b; c": clauses that have commas of their own.
std::string clauses(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : "; ") + item;
    }
    return out;
}

// "the run as given" / "a.json (A)"
std::string before_name(const Comparison& cmp) {
    return cmp.before_name.empty() ? "the run as given" : cmp.before_name;
}

bool is_input(const Step& step, const Trace& t) {
    const auto ids = settable_ids(t);
    return std::find(ids.begin(), ids.end(), step.id) != ids.end();
}

// The configuration two dumps differ in (attn diff): "seed 42 → 7", "mask none → causal".
std::vector<std::string> config_differences(const Config& a, const Config& b) {
    std::vector<std::string> out;
    const auto differ = [&](std::string_view what, const std::string& x, const std::string& y) {
        if (x != y) {
            out.push_back(fmt::format("{} {} → {}", what, x, y));
        }
    };
    differ("seed", std::to_string(a.seed), std::to_string(b.seed));
    differ("mask", std::string(to_string(a.mask)), std::string(to_string(b.mask)));
    differ("positions", std::string(to_string(a.positions)), std::string(to_string(b.positions)));
    differ("scaling by", std::string(to_string(a.scale_by)), std::string(to_string(b.scale_by)));
    differ("softmax over", std::string(to_string(a.softmax_over)),
           std::string(to_string(b.softmax_over)));
    differ("arithmetic", std::string(to_string(a.arith)), std::string(to_string(b.arith)));
    return out;
}

// "Q changed in row 'is' (2 of 9 cells, by up to +0.9450 at [is, q2])": how a step differs.
std::string step_words(const StepDelta& d, const Step& step, std::string_view verb, int precision) {
    return fmt::format("{} {} {} ({} of {} cells{})", sym(step), verb, where(d, step), d.changed,
                       d.cells, largest(d, step, precision));
}

// The first paragraph: what was changed.
std::string changes_paragraph(const Trace& t, const Comparison& cmp, int precision, Layout layout) {
    std::vector<std::string> items;
    if (cmp.before_name.empty()) {
        for (const Change& c : cmp.changes) {
            items.push_back(change_words(c, t, precision, layout));
        }
    } else {
        items = differences_words(t, cmp, precision, layout);
    }
    if (cmp.before_name.empty()) {
        std::string out = fmt::format(
            "What if {}? You changed {}. Every step after {} was computed again from "
            "the changed numbers, and the cells that differ from the run as given are marked *.",
            cmp.changes.size() == 1 ? "one input were different" : "some inputs were different",
            join_list(items), cmp.changes.size() == 1 ? "it" : "them");
        return out;
    }
    auto config = config_differences(cmp.before.config, t.config);
    std::string out = fmt::format("{} (B) against {} (A):", cmp.after_name, cmp.before_name);
    if (items.empty() && config.empty()) {
        return out + " their inputs are the same.";
    }
    if (!config.empty()) {
        out += fmt::format(" their settings differ ({});", listed(config, ", "));
    }
    if (!items.empty()) {
        const std::size_t n = cmp.changes.size();
        out += fmt::format(" {} {} of their inputs {}: {}.", n, n == 1 ? "cell" : "cells",
                           n == 1 ? "differs" : "differ", clauses(items));
    } else {
        out += " the inputs both have hold the same numbers.";
    }
    return out + " B is shown, and the cells that differ from A are marked *.";
}

}  // namespace attn::lesson::whatif

namespace attn::lesson {

std::optional<SummaryItem> comparison_item(const Trace& t, Layout layout) {
    if (!t.comparison) {
        return std::nullopt;
    }
    const Comparison& cmp = *t.comparison;
    std::vector<std::string> names;
    for (const Change& c : cmp.changes) {
        names.push_back(whatif::change_words(c, t, 4, layout));
    }
    if (cmp.before_name.empty()) {
        return SummaryItem{"what if", fmt::format("{} (--set)", join_list(names)), {}};
    }
    const auto config = whatif::config_differences(cmp.before.config, t.config);
    return SummaryItem{
        "compared",
        fmt::format(
            "{} (B, shown) with {} (A): {}{} input {}", cmp.after_name, cmp.before_name,
            config.empty() ? "" : fmt::format("settings differ ({}); ", listed(config, ", ")),
            cmp.changes.size(), cmp.changes.size() == 1 ? "cell differs" : "cells differ"),
        {}};
}

std::string change_note(const Trace& t, const Step& step, int precision) {
    const Comparison& cmp = *t.comparison;
    const std::string from = whatif::before_name(cmp);
    if (std::find(cmp.only_after.begin(), cmp.only_after.end(), step.id) != cmp.only_after.end()) {
        return fmt::format("{} has no such step, so nothing here is marked.", from);
    }
    const StepDelta* d = cmp.delta(step.id);
    if (d == nullptr) {
        return "";
    }
    if (step.kind == StepKind::tokens) {
        std::vector<std::string> swaps;
        for (const Change& c : cmp.changes) {
            if (c.is_token()) {
                swaps.push_back(fmt::format("token {} is {}, not {}", c.row, quoted(c.token_after),
                                            quoted(c.token_before)));
            }
        }
        return swaps.empty() ? fmt::format("No token differs from {}.", from)
                             : "Marked *: " + join_list(swaps) + ".";
    }
    if (d->changed == 0) {
        return fmt::format("No cell differs from {}.", from);
    }
    // a changed cell can print as its old value when the change is below the precision
    std::size_t look_alike = 0;
    const Step* before =
        find_step(cmp.before, step.id, step.transposed ? Layout::col : Layout::row);
    if (before != nullptr && step.kind != StepKind::mask) {
        for (std::size_t r = 0; r < step.shape.rows; ++r) {
            for (std::size_t c = 0; c < step.shape.cols; ++c) {
                const double a = step.value(r, c);
                const double b = before->value(r, c);
                if (a != b &&
                    format_number(a, precision, true) == format_number(b, precision, true)) {
                    ++look_alike;
                }
            }
        }
    }
    std::string out =
        d->changed == d->cells
            ? fmt::format(
                  "Marked *: {} differ from {}{}.",
                  d->cells == 1 ? "its one cell" : fmt::format("all {} of its cells", d->cells),
                  from, whatif::largest(*d, step, precision))
            : fmt::format("Marked *: {} of its {} cells {} from {}, {}{}.", d->changed, d->cells,
                          d->changed == 1 ? "differs" : "differ", from, whatif::where(*d, step),
                          whatif::largest(*d, step, precision));
    if (look_alike > 0) {
        out += fmt::format(
            " {} of them changed by less than the {} decimals shown, so {} as before.", look_alike,
            precision, look_alike == 1 ? "it prints the same" : "they print the same");
    }
    return out;
}

}  // namespace attn::lesson
