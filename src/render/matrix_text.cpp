// A step's matrix on the terminal: labelled rows and columns that fit the width (split into
// blocks or elided), attention weights as a heatmap with their sums.
#include "matrix_text.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "toolkit.hpp"

namespace attn::text {
namespace {

constexpr std::size_t max_label_width = 16;     // row labels: longer tokens are cut with "…"
constexpr std::size_t max_col_label_width = 8;  // cut to this when they would split a matrix
constexpr std::size_t max_blocks = 4;           // wider matrices are elided instead of split

using toolkit::pad_left;
using toolkit::pad_right;
using toolkit::repeat;

std::vector<std::optional<std::size_t>> pick(std::size_t n, std::size_t head, std::size_t tail) {
    return toolkit::shown_indices(n, head, tail);
}

// Without colour but with Unicode: a shade glyph beside each weight, ░ ▒ ▓ █.
std::string_view shade(double w) {
    if (w < 0.125) {
        return " ";
    }
    if (w < 0.375) {
        return "░";
    }
    if (w < 0.625) {
        return "▒";
    }
    return w < 0.875 ? "▓" : "█";
}

// The sums of an attention step as shown: of each row in the row layout, of each column (one
// query each) in the column layout, where they are the matrix's row sums too.
std::vector<double> shown_sums(const Step& step) {
    std::vector<double> sums(step.matrix->rows(), 0.0);
    for (std::size_t r = 0; r < step.matrix->rows(); ++r) {
        for (double x : step.matrix->row(r)) {
            sums[r] += x;
        }
    }
    return sums;
}

class MatrixPrinter {
  public:
    MatrixPrinter(Writer& w, const Step& step, const Step* before, bool legend)
        : w_(w),
          step_(step),
          before_(before != nullptr && before->shape == step.shape ? before : nullptr),
          legend_(legend),
          sums_(step.kind != StepKind::attention ? std::vector<double>{} : shown_sums(step)) {}

    void print() {
        const auto& style = w_.style();
        const std::size_t n_rows = step_.shape.rows;
        const std::size_t n_cols = step_.shape.cols;
        const std::size_t edge =
            std::max<std::size_t>(1, std::min<std::size_t>(10, style.max_rows / 2));
        rows_ = n_rows > style.max_rows ? pick(n_rows, edge, edge) : pick(n_rows, n_rows, 0);
        // whole numbers without decimals, tiny ones in scientific notation (table_numbers); a
        // what-if's values before, printed under the changed ones, in the same notation: the
        // more precise of the two runs'
        numbers_ = table_numbers(step_, style.precision);
        if (before_ != nullptr) {
            const TableNumbers was = table_numbers(*before_, style.precision);
            numbers_.precision = std::max(numbers_.precision, was.precision);
            numbers_.scientific = numbers_.scientific && was.scientific;
            numbers_.capped =
                (numbers_.capped || was.capped) && numbers_.precision < style.precision;
        }

        // one width for every cell, so columns line up across blocks
        cell_w_ = 1;
        for (const auto& r : rows_) {
            if (!r) {
                continue;
            }
            for (std::size_t c = 0; c < n_cols; ++c) {
                cell_w_ = std::max(cell_w_, toolkit::width_of(cell(*r, c)));
                if (changed(*r, c)) {  // the value before goes under it, in the same width
                    cell_w_ = std::max(cell_w_, toolkit::width_of(old_cell(*r, c)));
                }
            }
        }
        if (is_attention()) {
            cell_w_ = std::max(cell_w_, format_number(1.0, style.precision, true).size());
            shaded_ = !style.color && style.unicode;
            cell_w_ += shaded_ ? 1 : 0;  // the shade glyph after the number
        }
        const std::size_t number_w = cell_w_;
        std::size_t label_max = 0;  // the longest column label, up to the row labels' limit
        for (const auto& label : step_.col_labels) {
            label_max = std::max(
                label_max, std::min(toolkit::width_of(toolkit::terminal(label)), max_label_width));
        }
        cell_w_ = std::max(cell_w_, std::min(label_max, max_col_label_width));
        label_w_ = 1;
        for (const auto& r : rows_) {
            if (r) {
                label_w_ = std::max(label_w_, toolkit::width_of(row_label(*r)));
                for (std::size_t c = 0; before_ != nullptr && c < n_cols; ++c) {
                    if (changed(*r, c)) {
                        label_w_ = std::max(label_w_, was_label().size());
                    }
                }
            }
        }

        const auto fit = [&] {
            const std::size_t fixed =
                2 + label_w_ + 2 + (is_attention() ? cell_w_ + 4 : 0) + 2 * step_.col_breaks.size();
            const std::size_t avail = style.width > fixed ? style.width - fixed : 0;
            return std::max<std::size_t>(2, avail / (cell_w_ + 2));
        };
        std::size_t n_fit = fit();
        if (n_cols > n_fit && cell_w_ > number_w) {
            // long column labels alone would split the matrix: cut them to the numbers' width
            const std::size_t wide = cell_w_;
            cell_w_ = number_w;
            n_fit = fit();
            if (n_cols > n_fit) {
                cell_w_ = wide;  // it does not fit either way: keep the readable labels
                n_fit = fit();
            }
        }
        // then the labels as wide as the space allows: as many columns on a line, wider
        const std::size_t per_line = std::min(n_cols, n_fit);
        while (cell_w_ < label_max) {
            ++cell_w_;
            if (fit() < per_line) {
                --cell_w_;
                break;
            }
        }
        if (n_cols <= n_fit) {
            block(pick(n_cols, n_cols, 0), true);
        } else if ((n_cols + n_fit - 1) / n_fit <= max_blocks && n_rows <= style.max_rows) {
            // blocks only for a matrix shown whole: with its rows cut, its columns are cut
            // the same way (first and last), not shown in blocks of cut rows
            w_.paragraph(fmt::format("{} columns, in blocks of {}:", n_cols, n_fit), "  ", "2");
            for (std::size_t first = 0; first < n_cols; first += n_fit) {
                const std::size_t last = std::min(n_cols, first + n_fit);
                std::vector<std::optional<std::size_t>> cols;
                for (std::size_t c = first; c < last; ++c) {
                    cols.emplace_back(c);
                }
                w_.line();
                w_.line(w_.paint(
                    w_.text(last - first == 1 ? fmt::format("  column {}", first)
                                              : fmt::format("  columns {}–{}", first, last - 1)),
                    "2"));
                block(cols, last == n_cols);
            }
        } else {
            const std::size_t shown = n_fit - 1;  // one place goes to the "…" column
            const std::size_t head = (shown + 1) / 2;
            const auto cols = pick(n_cols, head, shown - head);
            block(cols, true);
            elided_ = true;
            w_.paragraph(fmt::format("(columns {} to {} of {} not shown)", head,
                                     n_cols - (shown - head) - 1, n_cols),
                         "  ", "2");
        }
        if (n_rows > style.max_rows) {
            elided_ = true;
            w_.paragraph(
                fmt::format("(rows {} to {} of {} not shown)", edge, n_rows - edge - 1, n_rows),
                "  ", "2");
        }
        if (elided_) {
            w_.paragraph("The JSON dump (--json FILE) has every value.", "  ", "2");
        }
        if (numbers_.capped) {
            w_.paragraph(fmt::format("Shown to {} decimals, not {}: a double holds about {} "
                                     "significant digits, and past them its digits are the "
                                     "rounding of the computation, not the number's. The JSON "
                                     "dump (--json FILE) has every bit.",
                                     numbers_.precision, style.precision, significant_digits),
                         "  ", "2");
        }
        if (is_attention() && legend_) {
            print_legend(w_);
        }
        if (is_attention() && elided_) {
            print_overview(w_, step_);
        }
    }

  private:
    [[nodiscard]] bool is_attention() const { return step_.kind == StepKind::attention; }

    // The row layout has a Σ column; the column layout, where each query is a column, a Σ row.
    [[nodiscard]] bool sum_column() const { return is_attention() && !step_.transposed; }
    [[nodiscard]] std::string row_label(std::size_t r) const {
        return toolkit::truncate(toolkit::terminal(step_.row_labels[r]), max_label_width,
                                 w_.style().unicode);
    }

    [[nodiscard]] std::string cell(std::size_t r, std::size_t c) const {
        if (step_.kind == StepKind::mask) {
            return step_.allowed(r, c) ? "1" : "0";
        }
        return numbers_.format(step_.value(r, c), w_.style().unicode);
    }

    // A what-if: whether the shown cell differs from the run before, and its value there.
    [[nodiscard]] bool changed(std::size_t r, std::size_t c) const {
        return toolkit::changed(step_, before_, r, c);
    }
    [[nodiscard]] std::string old_cell(std::size_t r, std::size_t c) const {
        if (step_.kind == StepKind::mask) {
            return before_->allowed(r, c) ? "1" : "0";
        }
        return numbers_.format(before_->value(r, c), w_.style().unicode);
    }
    [[nodiscard]] static std::string was_label() { return "was"; }

    // The cell with the two spaces before it; a changed one marked * in the first of them, or
    // right before its number when it is padded.
    [[nodiscard]] std::string spaced_cell(std::size_t r, std::size_t c) const {
        if (!changed(r, c)) {
            return "  " + painted_cell(r, c, cell(r, c));
        }
        return " " + painted_cell(r, c, "*" + cell(r, c), 1);
    }

    // `text` (the cell, maybe marked) padded to the cell's width plus `extra` and painted.
    [[nodiscard]] std::string painted_cell(std::size_t r, std::size_t c, const std::string& text,
                                           std::size_t extra = 0) const {
        if (shaded_) {
            return pad_left(text, cell_w_ - 1 + extra) + std::string(shade(step_.value(r, c)));
        }
        std::string s = pad_left(text, cell_w_ + extra);
        if (changed(r, c) && !is_attention()) {
            return w_.paint(s, "1");  // bold: the number that changed
        }
        if (is_attention()) {
            return w_.paint(
                s, toolkit::heat_sgr(step_.value(r, c), w_.style().color_depth, w_.style().theme));
        }
        if (step_.kind == StepKind::matrix && std::isinf(step_.value(r, c))) {
            return w_.paint(s, "2");
        }
        if (step_.kind == StepKind::mask && !step_.allowed(r, c)) {
            return w_.paint(s, "2");
        }
        return s;
    }

    void block(const std::vector<std::optional<std::size_t>>& cols, bool with_sums) {
        const bool unicode = w_.style().unicode;
        const std::string bar = unicode ? "│" : "|";
        const std::string dash = unicode ? "─" : "-";
        const std::string cross = unicode ? "┼" : "+";
        const std::string h_ellipsis = unicode ? "…" : "...";
        const std::string v_ellipsis = unicode ? "⋮" : ":";
        const bool sums = sum_column() && with_sums;

        // " │" before the first column of each further head
        const auto boundary = [&](const std::optional<std::size_t>& c, std::size_t i) {
            return c && i > 0 &&
                   std::find(step_.col_breaks.begin(), step_.col_breaks.end(), *c) !=
                       step_.col_breaks.end();
        };
        std::string header = "  " + std::string(label_w_, ' ') + " " + bar;
        for (std::size_t i = 0; i < cols.size(); ++i) {
            const auto& c = cols[i];
            if (boundary(c, i)) {
                header += " " + bar;
            }
            header += "  " + pad_left(c ? toolkit::truncate(toolkit::terminal(step_.col_labels[*c]),
                                                            cell_w_, unicode)
                                        : h_ellipsis,
                                      cell_w_);
        }
        if (sums) {
            header += " " + bar + "  " + pad_left(unicode ? "Σ" : "sum", cell_w_);
        }
        w_.line(header);
        std::string rule = "  " + repeat(dash, label_w_ + 1) + cross;
        for (std::size_t i = 0; i < cols.size(); ++i) {
            rule += boundary(cols[i], i) ? repeat(dash, 1) + cross : "";
            rule += repeat(dash, cell_w_ + 2);
        }
        if (sums) {
            rule += dash + cross + repeat(dash, cell_w_ + 2);  // under " │  Σ"
        }
        w_.line(rule);
        for (const auto& r : rows_) {
            std::string line;
            if (!r) {
                line = "  " + pad_right(v_ellipsis, label_w_) + " " + bar;
                for (std::size_t i = 0; i < cols.size(); ++i) {
                    line += boundary(cols[i], i) ? " " + bar : "";
                    line += "  " + pad_left(cols[i] ? v_ellipsis : "", cell_w_);
                }
                if (sums) {
                    line += " " + bar + "  " + pad_left(v_ellipsis, cell_w_);
                }
            } else {
                line = "  " + pad_right(row_label(*r), label_w_) + " " + bar;
                for (std::size_t i = 0; i < cols.size(); ++i) {
                    const auto& c = cols[i];
                    line += boundary(c, i) ? " " + bar : "";
                    line += c ? spaced_cell(*r, *c) : "  " + pad_left(h_ellipsis, cell_w_);
                }
                if (sums) {
                    line +=
                        " " + bar + "  " +
                        pad_left(format_number(sums_[*r], w_.style().precision, unicode), cell_w_);
                }
            }
            // trailing spaces would only make copied output harder to diff
            while (!line.empty() && line.back() == ' ') {
                line.pop_back();
            }
            w_.line(line);
            if (r) {
                was_line(*r, cols, bar);
            }
        }
        if (is_attention() && step_.transposed) {
            // the column layout: each column (one query) sums to 1
            std::string under = "  " + repeat(dash, label_w_ + 1) + cross;
            std::string sum_line = "  " + pad_right(unicode ? "Σ" : "sum", label_w_) + " " + bar;
            for (std::size_t i = 0; i < cols.size(); ++i) {
                under += boundary(cols[i], i) ? repeat(dash, 1) + cross : "";
                under += repeat(dash, cell_w_ + 2);
                sum_line += boundary(cols[i], i) ? " " + bar : "";
                sum_line += "  " + pad_left(cols[i] ? format_number(sums_[*cols[i]],
                                                                    w_.style().precision, unicode)
                                                    : h_ellipsis,
                                            cell_w_);
            }
            w_.line(under);
            w_.line(sum_line);
        }
    }

    // Under a row with changed cells: 'was' and their old values, each under its cell.
    void was_line(std::size_t r, const std::vector<std::optional<std::size_t>>& cols,
                  const std::string& bar) {
        if (std::none_of(cols.begin(), cols.end(),
                         [&](const auto& c) { return c && changed(r, *c); })) {
            return;
        }
        std::string line = "  " + w_.paint(pad_left(was_label(), label_w_), "2") + " " + bar;
        std::size_t pending = 0;  // spaces not yet written: none at the end of the line
        for (std::size_t i = 0; i < cols.size(); ++i) {
            const auto& c = cols[i];
            const bool boundary = c && i > 0 &&
                                  std::find(step_.col_breaks.begin(), step_.col_breaks.end(), *c) !=
                                      step_.col_breaks.end();
            pending += boundary ? 2 : 0;
            if (c && changed(r, *c)) {
                const std::string old = old_cell(r, *c);
                const std::size_t width = cell_w_ - (shaded_ ? 1 : 0);
                line += std::string(pending + 2 + width - toolkit::width_of(old), ' ') +
                        w_.paint(old, "2");
                pending = shaded_ ? 1 : 0;
            } else {
                pending += 2 + cell_w_;
            }
        }
        w_.line(line);
    }

    Writer& w_;
    const Step& step_;
    const Step* before_ = nullptr;  // a what-if's: the same step before, of the same shape
    bool legend_ = true;
    std::vector<double> sums_;
    TableNumbers numbers_;
    bool shaded_ = false;  // a shade glyph after each weight: one more column per cell
    std::vector<std::optional<std::size_t>> rows_;
    std::size_t cell_w_ = 1;
    std::size_t label_w_ = 1;
    bool elided_ = false;
};

}  // namespace

void print_matrix(Writer& w, const Step& step, const Step* before, bool legend) {
    MatrixPrinter(w, step, before, legend).print();
}

void print_legend(Writer& w) {
    const auto& style = w.style();
    if (style.color) {
        std::string line = "  weight";
        for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
            line += " " + w.paint(fmt::format(" {:.2f} ", v),
                                  toolkit::heat_sgr(v, style.color_depth, style.theme));
        }
        w.line(line);
    } else if (style.unicode) {
        w.paragraph("shade: ░ from 0.125, ▒ from 0.375, ▓ from 0.625, █ from 0.875", "  ");
    }
}

}  // namespace attn::text
