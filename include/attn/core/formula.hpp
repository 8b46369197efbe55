#pragma once
/// A formula as data: symbols, operators, numbers and a few words, in order. The core builds
/// them; each renderer writes them in its own notation (Unicode or ASCII text, LaTeX, HTML),
/// so no formula is ever printed as text in one layer and parsed back in another.
///
///     Formula f;
///     f.sym(Symbol{"S", "", true}).op(Op::equals).sym({"S"}).op(Op::divide).open(Bracket::sqrt)
///         .sym({"d", "k"}).close(Bracket::sqrt);       // S′ = S / √d_k

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

/// A symbol of the lesson: S, W_Q, S′ₘ_2, Kᵀ, d_k, d_model.
struct Symbol {
    std::string base;         ///< "S", "W", "d", "tokens"
    std::string sub;          ///< "Q", "k", "model": written after an underscore
    bool prime = false;       ///< S′ (scaled)
    bool masked = false;      ///< S′ₘ (masked)
    std::size_t head = 0;     ///< a head's own: W_Q_2 (LaTeX W_{Q,2}); 0 for none
    bool transposed = false;  ///< Kᵀ

    friend bool operator==(const Symbol&, const Symbol&) = default;
};

/// The operators of attn's formulas.
enum class Op {
    equals,      ///< =
    times,       ///< · (a matrix product)
    plus,        ///< +
    minus,       ///< −
    divide,      ///< / with spaces around
    tight,       ///< / without spaces, inside an exponent: 2i/d_model
    concat,      ///< | between blocks of columns
    less_equal,  ///< ≤
    comma,       ///< , (a space after it)
    colon,       ///< : in a range, 0:3
    ellipsis,    ///< …
    hadamard,    ///< ⊙ (the product of two matrices cell by cell)
    assign,      ///< ← (an update: W ← W − η·dW)
};

/// What a pair of brackets means.
enum class Bracket {
    call,   ///< the argument of a function: softmax(...)
    index,  ///< the indices of a cell: M[i, j]
    group,  ///< parentheses set off by spaces: (by hand, ...)
    list,   ///< square brackets set off by spaces: [Z_1 | Z_2]
    floor,  ///< ⌊ ⌋
    sqrt,   ///< √ over what is inside
    power,  ///< an exponent: 3^(...)
};

/// One piece of a formula.
struct Term {
    enum class Kind {
        symbol,    ///< `symbol`
        number,    ///< `text`, a literal number or index: "1", "10000", "2i"
        op,        ///< `op`
        word,      ///< `text`, words set upright: "if", "else", "where", "row by row"
        function,  ///< `text` names it: softmax, embed, words, characters, sin, cos, sum
        open,      ///< `bracket`
        close,     ///< `bracket`
        infinity,  ///< −∞
    };
    Kind kind = Kind::word;
    Symbol symbol;
    std::string text;
    Op op = Op::equals;
    Bracket bracket = Bracket::group;

    friend bool operator==(const Term&, const Term&) = default;
};

/// A formula: its terms in reading order.
class Formula {
  public:
    Formula& sym(Symbol s);
    Formula& num(std::string text);
    Formula& op(Op o);
    Formula& word(std::string text);
    Formula& fn(std::string name);
    Formula& open(Bracket b);
    Formula& close(Bracket b);
    Formula& minus_infinity();
    /// Appends every term of `other`.
    Formula& then(const Formula& other);
    /// Appends the function `name` applied to `argument`: softmax(S′), mean(H), gelu(...).
    Formula& apply(std::string name, const Formula& argument);

    [[nodiscard]] const std::vector<Term>& terms() const noexcept { return terms_; }
    [[nodiscard]] bool empty() const noexcept { return terms_.empty(); }
    /// A formula that is just one symbol (an input such as W_Q).
    [[nodiscard]] bool is_symbol(const Symbol& s) const noexcept;

    friend bool operator==(const Formula&, const Formula&) = default;

  private:
    std::vector<Term> terms_;
};

}  // namespace attn
