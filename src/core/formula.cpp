#include "attn/core/formula.hpp"

#include <utility>

namespace attn {

Formula& Formula::sym(Symbol s) {
    Term t;
    t.kind = Term::Kind::symbol;
    t.symbol = std::move(s);
    terms_.push_back(std::move(t));
    return *this;
}

Formula& Formula::num(std::string text) {
    terms_.push_back({Term::Kind::number, {}, std::move(text)});
    return *this;
}

Formula& Formula::op(Op o) {
    Term t;
    t.kind = Term::Kind::op;
    t.op = o;
    terms_.push_back(std::move(t));
    return *this;
}

Formula& Formula::word(std::string text) {
    terms_.push_back({Term::Kind::word, {}, std::move(text)});
    return *this;
}

Formula& Formula::fn(std::string name) {
    terms_.push_back({Term::Kind::function, {}, std::move(name)});
    return *this;
}

Formula& Formula::open(Bracket b) {
    Term t;
    t.kind = Term::Kind::open;
    t.bracket = b;
    terms_.push_back(std::move(t));
    return *this;
}

Formula& Formula::close(Bracket b) {
    Term t;
    t.kind = Term::Kind::close;
    t.bracket = b;
    terms_.push_back(std::move(t));
    return *this;
}

Formula& Formula::minus_infinity() {
    terms_.push_back({Term::Kind::infinity, {}, {}});
    return *this;
}

Formula& Formula::then(const Formula& other) {
    terms_.insert(terms_.end(), other.terms_.begin(), other.terms_.end());
    return *this;
}

bool Formula::is_symbol(const Symbol& s) const noexcept {
    return terms_.size() == 1 && terms_.front().kind == Term::Kind::symbol &&
           terms_.front().symbol == s;
}

}  // namespace attn
