// The terminal walk-through: every step of teaching_steps() as a heading, its formula and
// shapes, an explanation and a labelled matrix that fits the width (split or elided).
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

constexpr std::size_t max_label_width = 16;     // row labels: longer tokens are cut with "…"
constexpr std::size_t max_col_label_width = 8;  // longer column labels are cut to fit
constexpr std::size_t max_blocks = 4;           // wider matrices are elided instead of split

using toolkit::pad_left;
using toolkit::pad_right;
using toolkit::repeat;

class Writer {
  public:
    explicit Writer(const TextStyle& style) : style_(style) {}

    // Our own prose (explanations, glyphs): transliterated in ASCII mode.
    [[nodiscard]] std::string text(std::string_view s) const {
        return style_.unicode ? std::string(s) : toolkit::to_ascii(s);
    }
    // A formula, in Unicode or ASCII notation.
    [[nodiscard]] std::string formula(const Formula& f) const {
        return notation::formula(
            f, style_.unicode ? notation::Style::unicode : notation::Style::ascii);
    }
    [[nodiscard]] std::string paint(std::string_view s, std::string_view code) const {
        if (!style_.color || s.empty()) {
            return std::string(s);
        }
        return fmt::format("\x1b[{}m{}\x1b[0m", code, s);
    }
    void line(std::string_view s = {}) {
        // a no-break space (U+00A0) keeps "1 = may attend" on one line; print it as a space
        constexpr std::string_view nbsp = "\u00A0";
        for (auto at = s.find(nbsp); at != std::string_view::npos; at = s.find(nbsp)) {
            out_ += s.substr(0, at);
            out_ += ' ';
            s.remove_prefix(at + nbsp.size());
        }
        out_ += s;
        out_ += '\n';
    }
    // Word-wraps `body` (already in the output's notation) to the width: the first line
    // starts with `indent`, the others with `rest_indent` (the same as `indent` when not given).
    void wrapped(std::string_view body, std::string_view indent = "", std::string_view code = {},
                 std::optional<std::string_view> rest_indent = std::nullopt) {
        const std::string_view rest = rest_indent.value_or(indent);
        const auto lines =
            toolkit::wrap(body, style_.width, toolkit::width_of(indent), toolkit::width_of(rest));
        for (std::size_t i = 0; i < lines.size(); ++i) {
            line(std::string(i == 0 ? indent : rest) + paint(lines[i], code));
        }
    }
    // Our own prose, transliterated and word-wrapped.
    void paragraph(std::string_view s, std::string_view indent = "", std::string_view code = {},
                   std::optional<std::string_view> rest_indent = std::nullopt) {
        wrapped(text(s), indent, code, rest_indent);
    }
    [[nodiscard]] const TextStyle& style() const { return style_; }
    std::string take() {
        std::string text = std::move(out_);
        out_.clear();  // a moved-from string is valid but unspecified: start afresh
        return text;
    }

  private:
    const TextStyle& style_;
    std::string out_;
};

std::vector<std::optional<std::size_t>> pick(std::size_t n, std::size_t head, std::size_t tail) {
    return toolkit::shown_indices(n, head, tail);
}

std::string shape_text(const Shape& s) {
    return fmt::format("({}×{})", s.rows, s.cols);
}

// "(3×5)·(5×3) → (3×3)", or "(3×5)" for a step with nothing going in.
std::string shapes_line(const Step& step) {
    if (step.kind == StepKind::tokens) {
        return fmt::format("{} {}", step.shape.rows, step.shape.rows == 1 ? "token" : "tokens");
    }
    // Many equal operands (the concatenation of eight heads) read better counted than listed.
    const auto& ops = step.operands;
    if (ops.size() > 3 && std::all_of(ops.begin(), ops.end(), [&](const Shape& s) {
            return s.rows == ops.front().rows && s.cols == ops.front().cols;
        })) {
        return fmt::format("{} × {} side by side → {}", ops.size(), shape_text(ops.front()),
                           shape_text(step.shape));
    }
    std::string out;
    for (std::size_t i = 0; i < step.operands.size(); ++i) {
        const std::string joiner = step.joiner == Joiner::product ? "·"
                                   : step.joiner == Joiner::plus  ? " + "
                                                                  : " | ";
        out += (i > 0 ? joiner : "") + shape_text(step.operands[i]);
    }
    return out.empty() ? shape_text(step.shape) : out + " → " + shape_text(step.shape);
}

// The heatmap's colours (toolkit::heat: white for 0 to deep blue for 1), with black text on
// the light half and white text on the dark half. 24-bit colour where the terminal says it
// has it (COLORTERM), else the nearest of the 256-colour palette's 6×6×6 cube.
std::string heat_code(double w, int depth) {
    const auto [r, g, b] = toolkit::heat(w);
    const bool light_text = toolkit::light_text_on(w);
    if (depth == 24) {
        return fmt::format("48;2;{};{};{};38;2;{}", r, g, b, light_text ? "255;255;255" : "0;0;0");
    }
    const auto level = [](int c) { return static_cast<int>(std::lround(c / 255.0 * 5.0)); };
    return fmt::format("48;5;{};38;5;{}", 16 + 36 * level(r) + 6 * level(g) + level(b),
                       light_text ? 231 : 16);
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
    MatrixPrinter(Writer& w, const Step& step)
        : w_(w),
          step_(step),
          sums_(step.kind != StepKind::attention ? std::vector<double>{} : shown_sums(step)) {}

    void print() {
        const auto& style = w_.style();
        const std::size_t n_rows = step_.shape.rows;
        const std::size_t n_cols = step_.shape.cols;
        const std::size_t edge =
            std::max<std::size_t>(1, std::min<std::size_t>(10, style.max_rows / 2));
        rows_ = n_rows > style.max_rows ? pick(n_rows, edge, edge) : pick(n_rows, n_rows, 0);
        // a matrix of whole numbers (the integer examples, --arith hand) prints without decimals
        precision_ = style.precision;
        if (step_.kind == StepKind::matrix &&
            std::all_of(step_.matrix->data().begin(), step_.matrix->data().end(),
                        [](double x) { return std::isinf(x) || is_whole(x); })) {
            precision_ = 0;
        }

        // one width for every cell, so columns line up across blocks
        cell_w_ = 1;
        for (const auto& r : rows_) {
            if (!r) {
                continue;
            }
            for (std::size_t c = 0; c < n_cols; ++c) {
                cell_w_ = std::max(cell_w_, toolkit::width_of(cell(*r, c)));
            }
        }
        if (is_attention()) {
            cell_w_ = std::max(cell_w_, format_number(1.0, style.precision, true).size());
            shaded_ = !style.color && style.unicode;
            cell_w_ += shaded_ ? 1 : 0;  // the shade glyph after the number
        }
        const std::size_t number_w = cell_w_;
        for (const auto& label : step_.col_labels) {
            cell_w_ = std::max(cell_w_, std::min(toolkit::width_of(label), max_col_label_width));
        }
        label_w_ = 1;
        for (const auto& r : rows_) {
            if (r) {
                label_w_ = std::max(label_w_, toolkit::width_of(row_label(*r)));
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
        if (n_cols <= n_fit) {
            block(pick(n_cols, n_cols, 0), true);
        } else if ((n_cols + n_fit - 1) / n_fit <= max_blocks) {
            w_.paragraph(fmt::format("{} columns, in blocks of {}:", n_cols, n_fit), "  ", "2");
            for (std::size_t first = 0; first < n_cols; first += n_fit) {
                const std::size_t last = std::min(n_cols, first + n_fit);
                std::vector<std::optional<std::size_t>> cols;
                for (std::size_t c = first; c < last; ++c) {
                    cols.emplace_back(c);
                }
                w_.line();
                w_.line(w_.paint(w_.text(fmt::format("  columns {}–{}", first, last - 1)), "2"));
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
        if (is_attention()) {
            legend();
        }
    }

  private:
    [[nodiscard]] bool is_attention() const { return step_.kind == StepKind::attention; }

    // The key to the heatmap: the colours or the shades, from 0 to 1.
    void legend() {
        const auto& style = w_.style();
        if (style.color) {
            std::string line = "  weight";
            for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
                line += " " + w_.paint(fmt::format(" {:.2f} ", v), heat_code(v, style.color_depth));
            }
            w_.line(line);
        } else if (style.unicode) {
            w_.line("  shade: ░ from 0.125, ▒ from 0.375, ▓ from 0.625, █ from 0.875");
        }
    }
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
        return format_number(step_.value(r, c), precision_, w_.style().unicode);
    }

    [[nodiscard]] std::string painted_cell(std::size_t r, std::size_t c) const {
        if (shaded_) {
            return pad_left(cell(r, c), cell_w_ - 1) + std::string(shade(step_.value(r, c)));
        }
        std::string s = pad_left(cell(r, c), cell_w_);
        if (is_attention()) {
            return w_.paint(s, heat_code(step_.value(r, c), w_.style().color_depth));
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
        rule += dash;
        if (sums) {
            rule += cross + repeat(dash, cell_w_ + 2);
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
                    line += "  " + (c ? painted_cell(*r, *c) : pad_left(h_ellipsis, cell_w_));
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
            w_.line(under + dash);
            w_.line(sum_line);
        }
    }

    Writer& w_;
    const Step& step_;
    std::vector<double> sums_;
    int precision_ = 4;
    bool shaded_ = false;  // a shade glyph after each weight: one more column per cell
    std::vector<std::optional<std::size_t>> rows_;
    std::size_t cell_w_ = 1;
    std::size_t label_w_ = 1;
    bool elided_ = false;
};

void print_tokens(Writer& w, const Step& step) {
    const auto& tokens = step.row_labels;
    const auto shown =
        tokens.size() > 100 ? pick(tokens.size(), 50, 10) : pick(tokens.size(), tokens.size(), 0);
    std::vector<std::string> items;
    items.reserve(shown.size());
    for (const auto& i : shown) {
        items.push_back(i ? fmt::format("[{}] {}", *i, toolkit::terminal(tokens[*i]))
                          : std::string(w.style().unicode ? "…" : "..."));
    }
    const std::size_t width = std::max<std::size_t>(w.style().width, 20);
    std::string current = "  ";
    std::size_t current_w = 2;
    for (const auto& item : items) {
        const auto iw = toolkit::width_of(item);
        if (current_w > 2 && current_w + 3 + iw > width) {
            w.line(current);
            current = "  ";
            current_w = 2;
        }
        if (current_w > 2) {
            current += "   ";
            current_w += 3;
        }
        current += item;
        current_w += iw;
    }
    w.line(current);
    if (tokens.size() > 100) {
        w.paragraph(
            fmt::format("(tokens 50 to {} of {} not shown)", tokens.size() - 11, tokens.size()),
            "  ", "2");
    }
}

void print_heading(Writer& w, const Trace& trace, const Step& step) {
    w.line(w.paint(toolkit::heading_rule(w.text(lesson::heading(trace, step)), w.style().width,
                                         w.style().unicode),
                   "1"));
}

void print_summary(Writer& w, const Trace& trace) {
    w.line(w.paint(w.text("attn explain · self-attention, step by step"), "1"));
    // "sizes     d_model = ...": the key, then the value wrapped under itself
    constexpr std::size_t value_column = 10;
    const std::string under(value_column, ' ');
    for (const auto& item : lesson::summary(trace)) {
        w.wrapped(w.text(toolkit::terminal(item.value)), pad_right(item.key, value_column), {},
                  under);
        for (const auto& more : item.more) {
            w.wrapped(w.text(toolkit::terminal(more)), under);
        }
    }
}

}  // namespace

std::string render_summary(const Trace& trace, const TextStyle& style) {
    Writer w(style);
    print_summary(w, trace);
    return w.take();
}

std::vector<TextPage> render_text_pages(const Trace& trace, const TextStyle& style) {
    Writer w(style);
    print_summary(w, trace);
    if (style.layout == Layout::col) {
        w.line();
        w.paragraph(
            "Column layout (--layout col), as in the by-hand exercises: every matrix below is "
            "the transpose of attn's usual row layout. Tokens are columns, Q = W_Q · X, the "
            "scores Kᵀ · Q have a row per key and a column per query, and softmax runs down "
            "each column.");
    }
    std::vector<TextPage> pages;
    pages.push_back({"", w.take()});

    for (const Step* step : toolkit::visible_steps(trace, style.steps, style.layout)) {
        // --head N: the other heads in brief, their attention weights only
        const bool brief = style.head > 0 && step->head > 0 && step->head != style.head;
        if (brief && step->op != StepOp::weights) {
            continue;
        }
        w.line();
        print_heading(w, trace, *step);
        w.wrapped(
            w.formula(step->formula) + "\u00A0\u00A0\u00A0\u00A0" + w.text(shapes_line(*step)), "",
            "36");
        if (brief) {
            w.paragraph(fmt::format("(Head {} in brief: its attention weights only; --head {} "
                                    "shows all of its steps.)",
                                    step->head, step->head),
                        "", "2");
            w.line();
            MatrixPrinter(w, *step).print();
            pages.push_back({w.text(lesson::heading(trace, *step)), w.take()});
            continue;
        }
        const auto notes = lesson::notes(trace, *step, style.precision);
        if (style.explanations) {
            w.paragraph(lesson::explanation(trace, *step));
            for (const auto& note : notes.before) {
                w.paragraph(note);
            }
        }
        w.line();
        if (step->kind == StepKind::tokens) {
            print_tokens(w, *step);
        } else {
            MatrixPrinter(w, *step).print();
        }
        if (style.explanations && !notes.after.empty()) {
            w.line();
            for (const auto& note : notes.after) {
                w.paragraph(note);
            }
        }
        pages.push_back({w.text(lesson::heading(trace, *step)), w.take()});
    }
    const auto warnings = lesson::warnings(trace);
    if (!warnings.empty()) {
        w.line();
        for (const auto& warning : warnings) {
            w.paragraph("warning: " + warning);
        }
        pages.back().text += w.take();
    }
    return pages;
}

std::string render_text(const Trace& trace, const TextStyle& style) {
    std::string out;
    for (const auto& page : render_text_pages(trace, style)) {
        out += page.text;
    }
    return out;
}

}  // namespace attn
