// The terminal walk-through: every step of teaching_steps() as a heading, its formula and
// shapes, an explanation and a labelled matrix that fits the width (split or elided).
#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "attn/core/ops.hpp"
#include "attn/core/utf8.hpp"
#include "attn/render/render.hpp"
#include "narrative.hpp"

namespace attn {
namespace {

constexpr std::size_t max_label_width = 16;     // row labels: longer tokens are cut with "…"
constexpr std::size_t max_col_label_width = 8;  // longer column labels are cut to fit
constexpr std::size_t max_blocks = 4;           // wider matrices are elided instead of split

class Writer {
  public:
    explicit Writer(const TextStyle& style) : style_(style) {}

    // Our own text (formulas, explanations, glyphs): transliterated in ASCII mode.
    [[nodiscard]] std::string text(std::string_view s) const {
        return style_.unicode ? std::string(s) : to_ascii(s);
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
    // Word-wraps `s` to the width: the first line starts with `indent`, the others with
    // `rest_indent` (the same as `indent` when not given).
    void paragraph(std::string_view s, std::string_view indent = "", std::string_view code = {},
                   std::optional<std::string_view> rest_indent = std::nullopt) {
        const std::string body = text(s);
        const std::size_t width = std::max<std::size_t>(style_.width, 20);
        std::string current;
        std::size_t current_width = 0;
        std::size_t pos = 0;
        while (pos < body.size()) {
            const auto end = std::min(body.find(' ', pos), body.size());
            const std::string_view word(body.data() + pos, end - pos);  // NOLINT
            pos = end + 1;
            if (word.empty()) {
                continue;
            }
            const auto w = utf8::display_width(word);
            if (!current.empty() && indent.size() + current_width + 1 + w > width) {
                line(std::string(indent) + paint(current, code));
                current.clear();
                current_width = 0;
                indent = rest_indent.value_or(indent);
            }
            if (!current.empty()) {
                current += ' ';
                ++current_width;
            }
            current += word;
            current_width += w;
        }
        if (!current.empty()) {
            line(std::string(indent) + paint(current, code));
        }
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

std::string repeat(std::string_view s, std::size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

std::string pad_left(std::string_view s, std::size_t width) {
    const auto w = utf8::display_width(s);
    return w >= width ? std::string(s) : std::string(width - w, ' ') + std::string(s);
}

std::string pad_right(std::string_view s, std::size_t width) {
    const auto w = utf8::display_width(s);
    return w >= width ? std::string(s) : std::string(s) + std::string(width - w, ' ');
}

// Cuts `s` to at most `width` columns, ending with an ellipsis when cut.
std::string truncate(std::string_view s, std::size_t width, bool unicode) {
    if (utf8::display_width(s) <= width) {
        return std::string(s);
    }
    const std::string_view ellipsis = unicode ? "…" : "~";
    std::string out;
    std::size_t used = 0;
    std::size_t i = 0;
    while (i < s.size()) {
        // whole characters only: never half a flag or a mark without its letter
        const std::size_t len = utf8::grapheme_length(s.substr(i));
        const std::size_t w = utf8::display_width(s.substr(i, len));
        if (used + w + 1 > width) {
            break;
        }
        out.append(s.substr(i, len));
        used += w;
        i += len;
    }
    return out + std::string(ellipsis);
}

// The indices to show out of n, with nullopt standing for the elided middle.
std::vector<std::optional<std::size_t>> pick(std::size_t n, std::size_t head, std::size_t tail) {
    std::vector<std::optional<std::size_t>> out;
    if (n <= head + tail + 1) {
        for (std::size_t i = 0; i < n; ++i) {
            out.emplace_back(i);
        }
        return out;
    }
    for (std::size_t i = 0; i < head; ++i) {
        out.emplace_back(i);
    }
    out.emplace_back(std::nullopt);
    for (std::size_t i = n - tail; i < n; ++i) {
        out.emplace_back(i);
    }
    return out;
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
        const std::string joiner = step.joiner == "·" ? "·" : " " + std::string(step.joiner) + " ";
        out += (i > 0 ? joiner : "") + shape_text(step.operands[i]);
    }
    return out.empty() ? shape_text(step.shape) : out + " → " + shape_text(step.shape);
}

// Background shade for an attention weight in [0, 1]: the 24 greys of the 256-colour
// palette, dark for small weights and light for large ones, with black or white text.
// The heatmap's colours: white (0) to deep blue (1), as in the SVG, with black text on the
// light half and white text on the dark half. 24-bit colour where the terminal says it has
// it (COLORTERM), else the nearest of the 256-colour palette's 6×6×6 cube.
std::string heat_code(double w, int depth) {
    const double t = std::clamp(w, 0.0, 1.0);
    const auto mix = [t](int from, int to) {
        return static_cast<int>(std::lround(from + (to - from) * t));
    };
    const int r = mix(255, 8);
    const int g = mix(255, 48);
    const int b = mix(255, 107);
    const bool dark = t > 0.5;
    if (depth == 24) {
        return fmt::format("48;2;{};{};{};38;2;{}", r, g, b, dark ? "255;255;255" : "0;0;0");
    }
    const auto level = [](int c) { return static_cast<int>(std::lround(c / 255.0 * 5.0)); };
    return fmt::format("48;5;{};38;5;{}", 16 + 36 * level(r) + 6 * level(g) + level(b),
                       dark ? 231 : 16);
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

class MatrixPrinter {
  public:
    MatrixPrinter(Writer& w, const Step& step)
        : w_(w),
          step_(step),
          sums_(step.kind != StepKind::attention ? std::vector<double>{}
                : step.sums_down                 ? row_sums(transpose(*step.matrix))
                                                 : row_sums(*step.matrix)) {}

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
                cell_w_ = std::max(cell_w_, utf8::display_width(cell(*r, c)));
            }
        }
        if (is_attention()) {
            cell_w_ = std::max(cell_w_, format_number(1.0, style.precision, true).size());
            shaded_ = !style.color && style.unicode;
            cell_w_ += shaded_ ? 1 : 0;  // the shade glyph after the number
        }
        const std::size_t number_w = cell_w_;
        for (const auto& label : step_.col_labels) {
            cell_w_ = std::max(cell_w_, std::min(utf8::display_width(label), max_col_label_width));
        }
        label_w_ = 1;
        for (const auto& r : rows_) {
            if (r) {
                label_w_ = std::max(label_w_, utf8::display_width(row_label(*r)));
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
    [[nodiscard]] bool sum_column() const { return is_attention() && !step_.sums_down; }
    [[nodiscard]] std::string row_label(std::size_t r) const {
        return truncate(step_.row_labels[r], max_label_width, w_.style().unicode);
    }

    [[nodiscard]] std::string cell(std::size_t r, std::size_t c) const {
        if (step_.kind == StepKind::mask) {
            return step_.mask->allowed(r, c) ? "1" : "0";
        }
        return format_number((*step_.matrix)(r, c), precision_, w_.style().unicode);
    }

    [[nodiscard]] std::string painted_cell(std::size_t r, std::size_t c) const {
        if (shaded_) {
            return pad_left(cell(r, c), cell_w_ - 1) + std::string(shade((*step_.matrix)(r, c)));
        }
        std::string s = pad_left(cell(r, c), cell_w_);
        if (is_attention()) {
            return w_.paint(s, heat_code((*step_.matrix)(r, c), w_.style().color_depth));
        }
        if (step_.kind == StepKind::matrix && std::isinf((*step_.matrix)(r, c))) {
            return w_.paint(s, "2");
        }
        if (step_.kind == StepKind::mask && !step_.mask->allowed(r, c)) {
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
            header +=
                "  " + pad_left(c ? truncate(step_.col_labels[*c], cell_w_, unicode) : h_ellipsis,
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
        if (is_attention() && step_.sums_down) {
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
        items.push_back(i ? fmt::format("[{}] {}", *i, tokens[*i])
                          : std::string(w.style().unicode ? "…" : "..."));
    }
    const std::size_t width = std::max<std::size_t>(w.style().width, 20);
    std::string current = "  ";
    std::size_t current_w = 2;
    for (const auto& item : items) {
        const auto iw = utf8::display_width(item);
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

Mask transposed_mask(const Mask& m) {
    Mask t(m.cols(), m.rows(), false);
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            t.set(c, r, m.allowed(r, c));
        }
    }
    return t;
}

// The column layout of the by-hand exercises: every matrix transposed (tokens are columns),
// with the formulas written as those exercises write them (Q = W_Q · X, S = Kᵀ · Q).
Step column_view(const Step& s, const Trace& t, std::deque<Matrix>& matrices,
                 std::deque<Mask>& masks) {
    Step c = s;
    std::swap(c.row_labels, c.col_labels);
    c.shape = {s.shape.cols, s.shape.rows};
    if (s.kind == StepKind::tokens) {
        c = s;
        return c;
    }
    if (s.kind == StepKind::mask) {
        masks.push_back(transposed_mask(*s.mask));
        c.mask = &masks.back();
    } else {
        matrices.push_back(transpose(*s.matrix));
        c.matrix = &matrices.back();
    }
    const auto t_shape = [](const Shape& x) { return Shape{x.cols, x.rows}; };
    c.operands.clear();
    if (s.joiner == "·") {
        for (std::size_t i = s.operands.size(); i-- > 0;) {
            c.operands.push_back(t_shape(s.operands[i]));  // (AB)ᵀ = BᵀAᵀ
        }
    } else {
        for (const auto& o : s.operands) {
            c.operands.push_back(t_shape(o));
        }
    }
    const auto base = base_id(s.id);
    const std::string x = t.positions.empty() ? "X" : "X′";
    const auto bias = [&](const Matrix& b, std::string_view name) {
        return b.empty() ? std::string() : " + b_" + std::string(name);
    };
    if (base == "embeddings") {
        c.formula = "X = embed(tokens), one column per token";
    } else if (base == "Q") {
        c.formula = "Q = W_Q · " + x + bias(t.b_q, "Q");
    } else if (base == "K") {
        c.formula = "K = W_K · " + x + bias(t.b_k, "K");
    } else if (base == "V") {
        c.formula = "V = W_V · " + x + bias(t.b_v, "V");
    } else if (base == "scores") {
        c.formula = "S = Kᵀ · Q (a row per key, a column per query)";
    } else if (base == "mask" && t.config.mask == MaskKind::causal && t.config.n_pad == 0) {
        c.formula = "M[j, i] = 1 if j ≤ i, else 0 (column i: the query)";
    } else if (base == "weights") {
        c.formula = s.formula;
        const auto row_by_row = c.formula.find("row by row");
        if (row_by_row != std::string::npos) {
            c.formula.replace(row_by_row, 10, "column by column");
        }
        c.sums_down = true;
    } else if (base == "output") {
        c.formula = "Z = V · A";
    }
    return c;
}

// "5 · Scores S" (with "Head 2 · " for a head's step), as the heading prints it.
std::string heading_text(const Writer& w, const Step& step) {
    const std::string head = step.head > 0 ? fmt::format("Head {} · ", step.head) : "";
    return w.text(step.kind == StepKind::tokens
                      ? fmt::format("{} · {}", step.number, step.title)
                      : fmt::format("{} · {}{} {}", step.number, head, step.title, step.symbol));
}

void print_heading(Writer& w, const Step& step) {
    const bool unicode = w.style().unicode;
    const std::string head = step.head > 0 ? fmt::format("Head {} · ", step.head) : "";
    std::string title =
        step.kind == StepKind::tokens
            ? fmt::format("{} · {}", step.number, step.title)
            : fmt::format("{} · {}{} {}", step.number, head, step.title, step.symbol);
    title = w.text(title);
    const std::string lead = unicode ? "━━ " : "== ";
    const std::size_t used = 3 + utf8::display_width(title) + 1;
    const std::size_t fill = w.style().width > used ? w.style().width - used : 2;
    w.line(w.paint(lead + title + " " + repeat(unicode ? "━" : "=", fill), "1"));
}

void print_summary(Writer& w, const Trace& trace) {
    w.line(w.paint(w.text("attn explain · self-attention, step by step"), "1"));
    for (const auto& line : narrative::summary(trace)) {
        // "sizes     d_model = ...": the key, then the value wrapped under itself
        constexpr std::size_t value_column = 10;
        const auto space = line.find(' ');
        const auto value_at =
            space == std::string::npos ? space : line.find_first_not_of(' ', space);
        if (value_at > value_column) {  // npos too: a line without a value
            w.paragraph(line);
            continue;
        }
        w.paragraph(line.substr(value_at), pad_right(line.substr(0, space), value_column), {},
                    std::string(value_column, ' '));
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
    std::deque<Matrix> transposed;
    std::deque<Mask> transposed_masks;
    auto steps = teaching_steps(trace);
    if (style.columns) {
        w.line();
        w.paragraph(
            "Column layout (--layout col), as in the by-hand exercises: every matrix below is "
            "the transpose of attn's usual row layout. Tokens are columns, Q = W_Q · X, the "
            "scores Kᵀ · Q have a row per key and a column per query, and softmax runs down "
            "each column. Where an explanation says \"row i\" of a token, read \"column i\".");
        for (auto& step : steps) {
            step = column_view(step, trace, transposed, transposed_masks);
        }
    }
    std::vector<TextPage> pages;
    pages.push_back({"", w.take()});

    for (const auto& step : steps) {
        if (!style.steps.empty() &&
            std::find(style.steps.begin(), style.steps.end(), step.id) == style.steps.end()) {
            continue;
        }
        // --head N: the other heads in brief, their attention weights only
        const bool brief = style.head > 0 && step.head > 0 && step.head != style.head;
        if (brief && base_id(step.id) != "weights") {
            continue;
        }
        w.line();
        print_heading(w, step);
        if (brief) {
            w.paragraph(
                fmt::format("{}\u00A0\u00A0\u00A0\u00A0{}", step.formula, shapes_line(step)), "",
                "36");
            w.paragraph(fmt::format("(Head {} in brief: its attention weights only; --head {} "
                                    "shows all of its steps.)",
                                    step.head, step.head),
                        "", "2");
            w.line();
            MatrixPrinter(w, step).print();
            pages.push_back({heading_text(w, step), w.take()});
            continue;
        }
        w.paragraph(fmt::format("{}\u00A0\u00A0\u00A0\u00A0{}", step.formula, shapes_line(step)),
                    "", "36");
        const auto notes = narrative::notes(trace, step, style.precision, style.columns);
        if (style.explanations) {
            w.paragraph(step.explanation);
            for (const auto& note : notes.before) {
                w.paragraph(note);
            }
        }
        w.line();
        if (step.kind == StepKind::tokens) {
            print_tokens(w, step);
        } else {
            MatrixPrinter(w, step).print();
        }
        if (style.explanations && !notes.after.empty()) {
            w.line();
            for (const auto& note : notes.after) {
                w.paragraph(note);
            }
        }
        pages.push_back({heading_text(w, step), w.take()});
    }
    const auto warnings = narrative::warnings(trace);
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
