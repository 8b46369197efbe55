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
        : t_(t), cell_(cell), style_(style), whole_inputs_(whole_inputs(t)) {}

    std::string render();

  private:
    // "S[is, book]" as shown: in the column layout the key's row, then the query's column.
    [[nodiscard]] std::string cell(std::string_view symbol, const std::string& sub) const {
        return fmt::format("{}{}[{}, {}]", symbol, sub, shown_row_, shown_col_);
    }
    // a token as a cell names it: "the#3" when the sentence has it more than once
    [[nodiscard]] std::string token_label(std::size_t k) const {
        return toolkit::terminal(toolkit::cell_label(t_.tokens, k));
    }
    // "row 'is' of Q", or "column 'is' of Q" in the column layout
    [[nodiscard]] std::string vector_of(const std::string& token, std::string_view matrix) const {
        return fmt::format("{} '{}' of {}", columns_ ? "column" : "row", token, matrix);
    }

    // the dot product of a score, its total at `total_decimals` (sum())
    void scores(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                int total_decimals = -1);

    // The scaling of one score, as the trace's rule did it.
    void scaled(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                double value);

    void weights(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                 const std::string& row, const std::string& col, double value);

    [[nodiscard]] std::string blocked_reason(std::size_t i, std::size_t j) const;

    // Where an input's cell came from; `i` is its row of the matrix (a token for X).
    [[nodiscard]] std::string source_of(std::string_view base, std::size_t i) const;

    // A cell of the right weights shown beside a mistake (--scale-by, --softmax-over): the
    // softmax over its row of the scores scaled by √d_k, worked from the same numbers.
    void correct_weights(const Head& head, std::size_t i, std::size_t j, const std::string& a_name,
                         const std::string& row, const std::string& col, double value);

    // The softmax of one cell of `logits` under `rule`, term by term; `s_name` names the
    // logits, `a_name` the weights (A, or A_right).
    void softmax_cell(const Matrix& logits, const WeightsRule& rule, std::size_t i, std::size_t j,
                      const std::string& s_name, const std::string& a_name, const std::string& row,
                      const std::string& col, double value);

    // A GPT-2 checkpoint's own steps (why_gpt2.cpp): the embeddings, the layers below, the
    // residual stream, ln_1, and where each weight is in c_attn and c_proj. False for a step
    // that is not one of them.
    bool gpt2(const Step& step, std::size_t i, std::size_t j, double value);

    // The symbol of the step with this id, as shown ("H_1"), or the id when there is none.
    [[nodiscard]] std::string symbol_of(std::string_view id) const;

    // The backward pass's cells (--backward): each gradient from the numbers it is made of.
    void gradient(const Step& step, const Head& head, std::size_t i, std::size_t j, double value);

    // Whether every input of the lesson is a whole number (the integer examples): then a
    // whole factor is written without decimals, as those tables write it (paren_at).
    static bool whole_inputs(const Trace& t) {
        const auto whole = [](const Matrix& m) {
            return std::all_of(m.data().begin(), m.data().end(),
                               [](double x) { return is_whole(x); });
        };
        if (t.qkv_given) {
            return !t.heads.empty() && whole(t.heads.front().q) && whole(t.heads.front().k) &&
                   whole(t.heads.front().v);
        }
        return whole(t.x) && whole(t.w_q) && whole(t.w_k) && whole(t.w_v) && whole(t.w_o);
    }
    // the decimals of the tables' numbers in a sentence: the precision, at least prose_digits
    [[nodiscard]] int digits() const { return std::max(style_.precision, prose_digits); }

    // A number at `decimals`: whole numbers without decimals (the integer examples, --arith
    // hand), a number too small for them in scientific notation, so that the arithmetic stays
    // checkable (1e-12 · 1e-12 is not 0.0000 · 0.0000).
    [[nodiscard]] std::string num_at(double x, int decimals) const {
        return format_checkable(x, decimals, style_.unicode);
    }
    // at least prose_digits decimals, like the sentences of the walk-through (narrative):
    // "3 / 2 = 2" would not be arithmetic a student can check
    [[nodiscard]] std::string num(double x) const { return num_at(x, digits()); }

    // A factor at `decimals`, in brackets when negative. In a lesson of whole numbers a whole
    // factor is written without decimals, as its tables write it ("0.1361·1"); in a lesson of
    // decimals it keeps the tables' decimals ("0.2500·0.0000", never "0.2500·0").
    [[nodiscard]] std::string paren_at(double x, int decimals) const {
        const std::string s = whole_inputs_ || !is_whole(x)
                                  ? num_at(x, decimals)
                                  : format_number(x, digits(), style_.unicode);
        return s.front() == '-' ? "(" + s + ")" : s;
    }
    [[nodiscard]] std::string paren(double x) const { return paren_at(x, digits()); }

    // the cell's value in the title as its table writes it ("1.0000" in a table of decimals,
    // "1" in one of whole numbers), at least prose_digits decimals
    [[nodiscard]] std::string title_number(const Step& step, double x) const {
        const auto numbers = table_numbers(step, digits());
        const bool as_table =
            step.kind != StepKind::mask && (numbers.scientific || numbers.precision > 0);
        return as_table ? numbers.format(x, style_.unicode) : num(x);
    }

    [[nodiscard]] static double as_shown(double x, int decimals) {
        return toolkit::as_shown(x, decimals);
    }

    // toolkit::operand_decimals from the tables' decimals (at least prose_digits)
    template <typename F>
    [[nodiscard]] int operand_decimals(const std::vector<double>& operands, double result,
                                       int result_decimals, F f) const {
        return toolkit::operand_decimals(operands, result, result_decimals, digits(), f);
    }
    static constexpr int max_decimals = toolkit::max_operand_decimals;

    // One term of a worked sum: a number, a product of two, a square or the square of a
    // difference, with a note after it ("[book]", "(the bias b_Q)").
    struct Term {
        enum class Kind { number, product, square, square_of_difference };
        Kind kind = Kind::number;
        double a = 0.0;
        double b = 0.0;
        std::string note;

        [[nodiscard]] double value(double x, double y) const {
            switch (kind) {
                case Kind::number:
                    return x;
                case Kind::product:
                    return x * y;
                case Kind::square:
                    return x * x;
                case Kind::square_of_difference:
                    return (x - y) * (x - y);
            }
            return x;
        }
    };
    static Term number(double a, std::string note = {}) {
        return {Term::Kind::number, a, 0.0, std::move(note)};
    }
    static Term product(double a, double b, std::string note = {}) {
        return {Term::Kind::product, a, b, std::move(note)};
    }
    // "0.1200·(-0.4000)", "(-0.3000)²", "(1.2000 − 0.4000)²" at `decimals`
    [[nodiscard]] std::string term_text(const Term& t, int decimals) const;

    // a(0)·c(0), a(1)·c(1), ..., a(n−1)·c(n−1), added to `terms`: the products a dot product
    // of length n sums
    template <typename A, typename C>
    void add_products(std::vector<Term>& terms, std::size_t n, A a, C c) const {
        for (std::size_t k = 0; k < n; ++k) {
            terms.push_back(product(a(k), c(k)));
        }
    }

    // "  = a + b + ... = total", wrapped at the width, long sums shortened in the middle; the
    // terms at the decimals that make the sum of the terms shown give the total shown; the
    // total at `total_decimals` (default: the tables' decimals), those a later line that uses
    // it shows it with
    void sum(const std::vector<Term>& terms, double total, int total_decimals = -1);

    // "a / b = c", a and b at the decimals that make their quotient c as shown
    [[nodiscard]] std::string quotient(double a, double b, double c) const;
    // those decimals
    [[nodiscard]] int quotient_decimals(double a, double b, double c) const;
    // "a − b = c", likewise
    [[nodiscard]] std::string difference(double a, double b, double c) const;
    // "⌊a / b⌋ = c" (--arith hand), likewise
    [[nodiscard]] std::string floored(double a, double b, double c) const;

    void list(const std::vector<std::string>& items) {
        for (const auto& item : items) {
            out_ += text("  " + item) + "\n";
        }
    }

    // One sentence of attn's, word-wrapped at the width (unless the style says not to).
    void line(const std::string& s) {
        if (!style_.wrap_sentences) {
            out_ += text(s) + "\n";
            return;
        }
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
    bool whole_inputs_ = false;
};

}  // namespace attn::why
