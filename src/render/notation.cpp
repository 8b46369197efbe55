// Formulas as text and as LaTeX, term by term, from the core's Formula data.
#include "notation.hpp"

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "toolkit.hpp"

namespace attn::notation {
namespace {

// One term as written, and whether it is set off by a space from the term before and after
// it (a space goes between two terms only when both want one).
struct Piece {
    std::string text;
    bool space_before = true;
    bool space_after = true;
};

bool latex_style(Style s) {
    return s == Style::latex;
}

// Multi-letter bases are words in LaTeX: \text{tokens}, not t·o·k·e·n·s.
std::string latex_base(const std::string& base) {
    return base.size() > 1 ? "\\text{" + base + "}" : base;
}

std::string latex_sub(const std::string& sub) {
    return sub.size() > 1 ? "\\text{" + sub + "}" : sub;
}

std::string op_text(Op op, Style style) {
    const bool ascii = style == Style::ascii;
    const bool tex = latex_style(style);
    switch (op) {
        case Op::equals:
            return "=";
        case Op::times:
            return tex ? "\\cdot" : ascii ? "*" : "·";
        case Op::plus:
            return "+";
        case Op::minus:
            return tex || ascii ? "-" : "−";
        case Op::divide:
        case Op::tight:
            return "/";
        case Op::concat:
            return tex ? "\\mid" : "|";
        case Op::less_equal:
            return tex ? "\\le" : ascii ? "<=" : "≤";
        case Op::comma:
            return ",";
        case Op::colon:
            return ":";
        case Op::ellipsis:
            return tex ? "\\dots" : ascii ? "..." : "…";
        case Op::hadamard:
            return tex ? "\\odot" : ascii ? "(.)" : "⊙";
        case Op::assign:
            return tex ? "\\leftarrow" : ascii ? "<-" : "←";
    }
    return "?";
}

std::string function_text(const std::string& name, Style style) {
    if (name == "sum") {
        return latex_style(style) ? "\\sum" : style == Style::ascii ? "sum" : "Σ";
    }
    if (latex_style(style)) {
        return name == "sin" || name == "cos" ? "\\" + name : "\\operatorname{" + name + "}";
    }
    return name;
}

// Whether the brackets opened at `open` hold exactly one term (√d_k needs no parentheses).
bool holds_one_term(const std::vector<Term>& terms, std::size_t open) {
    return open + 2 < terms.size() && terms[open + 2].kind == Term::Kind::close &&
           terms[open + 2].bracket == terms[open].bracket &&
           terms[open + 1].kind != Term::Kind::open;
}

// One kind of bracket: how it opens and closes in each style (unicode, ascii, latex, the order
// of Style), whether a space may set it off from the term before it, and whether LaTeX sets
// what it holds off by spaces (\lfloor S \rfloor).
struct BracketForm {
    std::array<std::string_view, 3> open;
    std::array<std::string_view, 3> close;
    bool spaced = false;
    bool latex_spaced_inside = false;
};

// In the order of Bracket (attn/core/formula.hpp).
constexpr std::array<BracketForm, 7> brackets{{
    {{"(", "(", "("}, {")", ")", ")"}, false, false},                   // call
    {{"[", "[", "["}, {"]", "]", "]"}, false, false},                   // index
    {{"(", "(", "("}, {")", ")", ")"}, true, false},                    // group
    {{"[", "[", "["}, {"]", "]", "]"}, true, false},                    // list
    {{"⌊", "floor(", "\\lfloor"}, {"⌋", ")", "\\rfloor"}, true, true},  // floor
    {{"√(", "sqrt(", "\\sqrt{"}, {")", ")", "}"}, true, false},  // sqrt (√ alone: one term)
    {{"^(", "^(", "^{"}, {")", ")", "}"}, false, false},         // power
}};

const BracketForm& form_of(Bracket b) {
    const auto i = static_cast<std::size_t>(b);
    return brackets[i < brackets.size() ? i : static_cast<std::size_t>(Bracket::group)];
}

std::string_view in_style(const std::array<std::string_view, 3>& spellings, Style style) {
    return spellings[static_cast<std::size_t>(style)];
}

// √d_k: in Unicode a root over one term needs no parentheses.
bool bare_root(Bracket b, Style style, bool one_term) {
    return b == Bracket::sqrt && style == Style::unicode && one_term;
}

Piece open_piece(Bracket b, Style style, bool one_term) {
    const BracketForm& f = form_of(b);
    return {std::string(bare_root(b, style, one_term) ? "√" : in_style(f.open, style)), f.spaced,
            f.latex_spaced_inside && latex_style(style)};
}

Piece close_piece(Bracket b, Style style, bool one_term) {
    const BracketForm& f = form_of(b);
    return {std::string(bare_root(b, style, one_term) ? "" : in_style(f.close, style)),
            f.latex_spaced_inside && latex_style(style), true};
}

}  // namespace

std::string symbol(const Symbol& s, Style style) {
    if (latex_style(style)) {
        std::string subs;
        for (const std::string& part :
             {s.masked ? std::string("m") : std::string(), latex_sub(s.sub),
              s.head > 0 ? std::to_string(s.head) : std::string()}) {
            if (!part.empty()) {
                subs += (subs.empty() ? "" : ",") + part;
            }
        }
        std::string out = latex_base(s.base) + (s.prime ? "'" : "");
        if (subs.size() == 1) {
            out += "_" + subs;
        } else if (!subs.empty()) {
            out += "_{" + subs + "}";
        }
        return out + (s.transposed ? "^\\top" : "");
    }
    const bool ascii = style == Style::ascii;
    std::string out = s.base;
    if (s.prime) {
        out += ascii ? "'" : "′";
    }
    if (s.masked) {
        out += ascii ? "_m" : "ₘ";
    }
    if (!s.sub.empty()) {
        out += "_" + s.sub;
    }
    if (s.head > 0) {
        out += "_" + std::to_string(s.head);
    }
    if (s.transposed) {
        out += ascii ? "^T" : "ᵀ";
    }
    return out;
}

std::string formula(const Formula& f, Style style) {
    const auto& terms = f.terms();
    const bool tex = latex_style(style);
    std::vector<Piece> pieces;
    std::vector<bool> one_term_open;  // for each open bracket, still open: one term inside?
    for (std::size_t i = 0; i < terms.size(); ++i) {
        const Term& t = terms[i];
        switch (t.kind) {
            case Term::Kind::symbol:
                pieces.push_back({symbol(t.symbol, style)});
                break;
            case Term::Kind::number:
                pieces.push_back({t.text});
                break;
            case Term::Kind::word:
                pieces.push_back({tex ? "\\text{ " + toolkit::latex_text(t.text) + " }"
                                  : style == Style::ascii
                                      ? toolkit::to_ascii(toolkit::terminal(t.text))
                                      : toolkit::terminal(t.text)});
                break;
            case Term::Kind::infinity:
                pieces.push_back({tex ? "-\\infty" : style == Style::ascii ? "-inf" : "−∞"});
                break;
            case Term::Kind::op: {
                Piece p{op_text(t.op, style)};
                if (t.op == Op::comma) {
                    p.space_before = false;
                } else if (t.op == Op::colon || t.op == Op::tight) {
                    p.space_before = false;
                    p.space_after = false;
                }
                pieces.push_back(std::move(p));
                break;
            }
            case Term::Kind::function: {
                const bool called = i + 1 < terms.size() && terms[i + 1].kind == Term::Kind::open &&
                                    terms[i + 1].bracket == Bracket::call;
                pieces.push_back({function_text(t.text, style), true, !called});
                break;
            }
            case Term::Kind::open: {
                const bool one = holds_one_term(terms, i);
                one_term_open.push_back(one);
                pieces.push_back(open_piece(t.bracket, style, one));
                break;
            }
            case Term::Kind::close: {
                const bool one = !one_term_open.empty() && one_term_open.back();
                if (!one_term_open.empty()) {
                    one_term_open.pop_back();
                }
                pieces.push_back(close_piece(t.bracket, style, one));
                break;
            }
        }
    }
    std::string out;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (i > 0 && pieces[i - 1].space_after && pieces[i].space_before) {
            out += ' ';
        }
        out += pieces[i].text;
    }
    return out;
}

}  // namespace attn::notation
