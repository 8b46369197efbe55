#include "attn/core/formula.hpp"

#include <utility>

namespace attn {
Formula& Formula::sym(Symbol s) {
    terms_.push_back(Term{Term::Kind::symbol, std::move(s), {}, Op::equals, Bracket::group});
    return *this;
}

Formula& Formula::num(std::string text) {
    terms_.push_back(Term{Term::Kind::number, {}, std::move(text), Op::equals, Bracket::group});
    return *this;
}

Formula& Formula::op(Op o) {
    terms_.push_back(Term{Term::Kind::op, {}, {}, o, Bracket::group});
    return *this;
}

Formula& Formula::word(std::string text) {
    terms_.push_back(Term{Term::Kind::word, {}, std::move(text), Op::equals, Bracket::group});
    return *this;
}

Formula& Formula::fn(std::string name) {
    terms_.push_back(Term{Term::Kind::function, {}, std::move(name), Op::equals, Bracket::group});
    return *this;
}

Formula& Formula::open(Bracket b) {
    terms_.push_back(Term{Term::Kind::open, {}, {}, Op::equals, b});
    return *this;
}

Formula& Formula::close(Bracket b) {
    terms_.push_back(Term{Term::Kind::close, {}, {}, Op::equals, b});
    return *this;
}

Formula& Formula::minus_infinity() {
    terms_.push_back(Term{Term::Kind::infinity, {}, {}, Op::equals, Bracket::group});
    return *this;
}

Formula& Formula::then(const Formula& other) {
    terms_.insert(terms_.end(), other.terms_.begin(), other.terms_.end());
    return *this;
}

Formula& Formula::apply(std::string name, const Formula& argument) {
    return fn(std::move(name)).open(Bracket::call).then(argument).close(Bracket::call);
}

bool Formula::is_symbol(const Symbol& s) const noexcept {
    return terms_.size() == 1 && terms_.front().kind == Term::Kind::symbol &&
           terms_.front().symbol == s;
}

}  // namespace attn
