#pragma once
// Why: the worked arithmetic behind one cell (--why), a private header of render. why.cpp
// writes the forward pass's cells and the shared writing (sums, products, wrapped lines);
// why_gradient.cpp writes the backward pass's cells.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "attn/core/cell.hpp"
#include "attn/render/render.hpp"
#include "toolkit.hpp"

namespace attn::why {

class Why {
  public:
    Why(const Trace& t, const CellRef& cell, const TextStyle& style)
        : t_(t), cell_(cell), style_(style) {}

    std::string render();

  private:
    // "S[is, book]" as shown: in the column layout the key's row, then the query's column.
    [[nodiscard]] std::string cell(std::string_view symbol, const std::string& sub) const {
        return fmt::format("{}{}[{}, {}]", symbol, sub, shown_row_, shown_col_);
    }
    // "row 'is' of Q", or "column 'is' of Q" in the column layout
    [[nodiscard]] std::string vector_of(const std::string& token, std::string_view matrix) const {
        return fmt::format("{} '{}' of {}", columns_ ? "column" : "row", token, matrix);
    }

    void scores(const Head& head, std::size_t i, std::size_t j, const std::string& sub);

    // The scaling of one score, as the trace's rule did it.
    void scaled(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                double value);

    void weights(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                 const std::string& row, const std::string& col, double value);

    [[nodiscard]] std::string blocked_reason(std::size_t i, std::size_t j) const;

    [[nodiscard]] std::string source_of(std::string_view base) const;

    // The backward pass's cells (--backward): each gradient from the numbers it is made of.
    void gradient(const Step& step, const Head& head, std::size_t i, std::size_t j, double value);

    // "0.1200·(-0.4000)"
    [[nodiscard]] std::string product(double a, double b) const {
        return paren(a) + (style_.unicode ? "·" : "*") + paren(b);
    }
    [[nodiscard]] std::string paren(double x) const {
        const std::string s = num(x);
        return s.front() == '-' ? "(" + s + ")" : s;
    }
    // whole numbers (the integer examples, --arith hand) without decimals; a number too
    // small for the precision in scientific notation, so that the arithmetic stays checkable
    // (1e-12 · 1e-12 is not 0.0000 · 0.0000)
    [[nodiscard]] std::string num(double x) const {
        return format_visible(x, style_.precision, style_.unicode);
    }

    // "  = a + b + ... = total", wrapped at the width, long sums shortened in the middle
    void sum(const std::vector<std::string>& terms, double total);

    void list(const std::vector<std::string>& items) {
        for (const auto& item : items) {
            out_ += text("  " + item) + "\n";
        }
    }

    // One sentence of attn's, word-wrapped at the width.
    void line(const std::string& s) {
        for (const auto& l : toolkit::wrap(text(s), style_.width)) {
            out_ += l + "\n";
        }
    }

    [[nodiscard]] std::string text(const std::string& s) const {
        return style_.unicode ? s : toolkit::to_ascii(s);
    }
    [[nodiscard]] std::string paint(const std::string& s, std::string_view code) const {
        return style_.color ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
    }

    const Trace& t_;
    const CellRef& cell_;
    const TextStyle& style_;
    std::string out_;
    std::string shown_row_;  ///< the cell's row label as shown
    std::string shown_col_;  ///< the cell's column label as shown
    bool columns_ = false;   ///< the column layout: a token's vectors are columns
};

}  // namespace attn::why
