// The formula of each step, as data: symbols, operators, brackets and words, which each
// renderer writes in its notation.
#include "step_formulas.hpp"

#include <string_view>

namespace attn::step_formulas {
namespace {

// Kᵀ
Symbol transpose_of(Symbol s) {
    s.transposed = true;
    return s;
}

Symbol d(std::string_view which) {
    return sym("d", std::string(which));
}

// √d_k, √d_model
Formula sqrt_of(const Symbol& width) {
    Formula f;
    f.open(Bracket::sqrt).sym(width).close(Bracket::sqrt);
    return f;
}

}  // namespace

Symbol sym(std::string base, std::string sub, std::size_t head) {
    Symbol s;
    s.base = std::move(base);
    s.sub = std::move(sub);
    s.head = head;
    return s;
}

Symbol primed(Symbol s, bool masked) {
    s.prime = true;
    s.masked = masked;
    return s;
}

// result = fn(argument): tokens = words(sentence), X = embed(tokens)
Formula call(std::string_view result, std::string fn, std::string_view argument) {
    Formula f;
    f.sym(sym(std::string(result)))
        .op(Op::equals)
        .apply(std::move(fn), Formula().sym(sym(std::string(argument))));
    return f;
}

Formula tokens(TokenMode mode) {
    return call("tokens", mode == TokenMode::chars ? "characters" : "words", "sentence");
}

Formula named_tokens(bool columns) {
    return call("tokens", columns ? "columns" : "rows", "Q");
}

Formula bpe_tokens() {
    return call("tokens", "bpe", "sentence");
}

Formula embeddings() {
    return call("X", "embed", "tokens");
}

Formula positions(const Trace& t, bool columns) {
    Formula f;
    if (t.config.positions != PositionKind::sinusoidal) {
        // the file's name: the header says where it is (a worksheet for students shows no
        // teacher's folders)
        const std::string& path = t.positions_source.path;
        f.sym(sym("P"))
            .op(Op::equals)
            .word("positions from")
            .word(path.substr(path.rfind('/') + 1));
        return f;
    }
    const auto entry = [&](std::string column, std::string fn) {
        Formula exponent;
        exponent.num("2i").op(Op::tight).sym(d("model"));
        // P[pos, 2i]: a row per position; in the column layout P[2i, pos], a column per position
        f.sym(sym("P"))
            .open(Bracket::index)
            .num(columns ? column : "pos")
            .op(Op::comma)
            .num(columns ? "pos" : std::move(column))
            .close(Bracket::index)
            .op(Op::equals)
            .apply(std::move(fn), Formula()
                                      .num("pos")
                                      .op(Op::divide)
                                      .num("10000")
                                      .open(Bracket::power)
                                      .then(exponent)
                                      .close(Bracket::power));
    };
    entry("2i", "sin");
    f.op(Op::comma);
    entry("2i+1", "cos");
    return f;
}

Formula with_positions(const Symbol& x_in) {
    Formula f;
    f.sym(x_in).op(Op::equals).sym(sym("X")).op(Op::plus).sym(sym("P"));
    return f;
}

Formula slice(const char* name, std::size_t head, std::size_t begin, std::size_t width) {
    Formula f;
    f.sym(sym("W", name, head))
        .op(Op::equals)
        .sym(sym("W", name))
        .open(Bracket::index)
        .op(Op::colon)
        .op(Op::comma)
        .num(std::to_string(begin))
        .op(Op::colon)
        .num(std::to_string(begin + width))
        .close(Bracket::index);
    return f;
}

Formula projection(const char* name, std::size_t head, const Symbol& x_in, bool biased,
                   bool columns) {
    Formula f;
    f.sym(sym(name, "", head)).op(Op::equals);
    if (columns) {  // Q = W_Q · X: tokens are columns
        f.sym(sym("W", name, head)).op(Op::times).sym(x_in);
    } else {
        f.sym(x_in).op(Op::times).sym(sym("W", name, head));
    }
    if (biased) {
        f.op(Op::plus).sym(sym("b", name, head));
    }
    return f;
}

Formula scores(std::size_t head, bool columns) {
    Formula f;
    f.sym(sym("S", "", head)).op(Op::equals);
    if (columns) {  // S = Kᵀ · Q: a row per key, a column per query
        f.sym(transpose_of(sym("K", "", head))).op(Op::times).sym(sym("Q", "", head));
    } else {
        f.sym(sym("Q", "", head)).op(Op::times).sym(transpose_of(sym("K", "", head)));
    }
    return f;
}

Formula scaled(const WeightsRule& rule, std::size_t head) {
    const Symbol s = sym("S", "", head);
    const Symbol width = d(rule.scale_by == ScaleBy::d_model ? "model" : "k");
    Formula f;
    f.sym(primed(s)).op(Op::equals);
    if (!rule.scales()) {
        f.sym(s).open(Bracket::group).word("not divided by").then(sqrt_of(d("k")));
        f.close(Bracket::group);
    } else if (rule.arith == Arith::hand) {
        f.open(Bracket::floor)
            .sym(s)
            .op(Op::divide)
            .num(std::to_string(static_cast<long long>(rule.divisor())))
            .close(Bracket::floor)
            .open(Bracket::group)
            .word("by hand, for")
            .sym(s)
            .op(Op::divide)
            .then(sqrt_of(width))
            .close(Bracket::group);
    } else {
        f.sym(s).op(Op::divide).then(sqrt_of(width));
    }
    return f;
}

Formula mask(const Trace& t, bool columns) {
    const auto& c = t.config;
    const bool padded = c.n_pad > 0;
    Formula f;
    const auto cell = [&] {
        f.sym(sym("M")).open(Bracket::index);
        if (columns) {
            f.num("j").op(Op::comma).num("i");
        } else {
            f.num("i").op(Op::comma).num("j");
        }
        f.close(Bracket::index).op(Op::equals);
    };
    if (c.mask == MaskKind::file && t.mask_source.kind == Source::Kind::set) {
        f.sym(sym("M")).op(Op::equals).word("a mask given cell by cell");  // a what-if's
        if (padded) {
            f.op(Op::comma).word("and");
            cell();
            f.num("0").word("for the <pad> keys j");
        }
    } else if (c.mask == MaskKind::file) {
        f.sym(sym("M")).op(Op::equals).word("mask from").word(t.mask_source.path);
        if (padded) {
            f.op(Op::comma).word("and");
            cell();
            f.num("0").word("for the <pad> keys j");
        }
    } else if (c.mask == MaskKind::causal) {
        cell();
        f.num("1").word("if").num("j").op(Op::less_equal).num("i");
        if (padded) {
            f.word("and j is not <pad>");
        }
        f.op(Op::comma).word("else").num("0");
    } else {
        cell();
        f.num("0").word("if j is <pad>").op(Op::comma).word("else").num("1");
    }
    return f;
}

Formula masked(std::size_t head) {
    const Symbol s = sym("S", "", head);
    Formula f;
    f.sym(primed(s, true))
        .op(Op::equals)
        .sym(primed(s))
        .word("where")
        .sym(sym("M"))
        .op(Op::equals)
        .num("1")
        .op(Op::comma)
        .minus_infinity()
        .word("where")
        .sym(sym("M"))
        .op(Op::equals)
        .num("0");
    return f;
}

Formula weights(const WeightsRule& rule, std::size_t head, bool masked, bool columns) {
    const Symbol logits = primed(sym("S", "", head), masked);
    const char* along = rule.over == SoftmaxOver::all                 ? "over the whole matrix"
                        : (rule.over == SoftmaxOver::rows) != columns ? "row by row"
                                                                      : "column by column";
    Formula f;
    f.sym(sym("A", "", head)).op(Op::equals);
    if (rule.arith == Arith::hand) {
        Formula power;  // 3^(S′ − max)
        power.num("3")
            .open(Bracket::power)
            .sym(logits)
            .op(Op::minus)
            .word("max")
            .close(Bracket::power);
        f.then(power)
            .op(Op::divide)
            .fn("sum")
            .then(power)
            .op(Op::comma)
            .word(along)
            .open(Bracket::group)
            .word("by hand")
            .close(Bracket::group);
    } else {
        f.apply("softmax", Formula().sym(logits));
        f.op(Op::comma).word(along);
    }
    return f;
}

Formula right_weights(const WeightsRule& right, std::size_t head, bool masked, bool columns) {
    // scaled by √d_k, softmax over each row; by hand ⌊S / r⌋ and 3^x, as the run computes it
    const char* along = columns ? "column by column" : "row by row";
    Formula f;
    f.sym(sym("A", "right", head)).op(Op::equals);
    if (right.arith == Arith::hand) {
        Formula power;  // 3^(s − max)
        power.num("3")
            .open(Bracket::power)
            .word("s")
            .op(Op::minus)
            .word("max")
            .close(Bracket::power);
        f.then(power).op(Op::divide).fn("sum").then(power).op(Op::comma).word("where").word("s");
        f.op(Op::equals).open(Bracket::floor);
        if (masked) {
            f.word("masked");
        }
        f.sym(sym("S", "", head))
            .op(Op::divide)
            .num(std::to_string(static_cast<long long>(right.divisor())))
            .close(Bracket::floor)
            .op(Op::comma)
            .word(along)
            .open(Bracket::group)
            .word("by hand, for")
            .apply("softmax",
                   Formula().sym(sym("S", "", head)).op(Op::divide).then(sqrt_of(d("k"))))
            .close(Bracket::group);
        return f;
    }
    Formula scaled;
    if (masked) {
        scaled.word("masked");
    }
    scaled.sym(sym("S", "", head)).op(Op::divide).then(sqrt_of(d("k")));
    f.apply("softmax", scaled).op(Op::comma).word(along);
    return f;
}

Formula output(std::size_t head, bool columns) {
    Formula f;
    f.sym(sym("Z", "", head)).op(Op::equals);
    if (columns) {  // Z = V · A: each column of A weighs the columns of V
        f.sym(sym("V", "", head)).op(Op::times).sym(sym("A", "", head));
    } else {
        f.sym(sym("A", "", head)).op(Op::times).sym(sym("V", "", head));
    }
    return f;
}

Formula concat(std::size_t n_heads) {
    Formula f;
    f.sym(sym("Z")).op(Op::equals).open(Bracket::list);
    for (std::size_t h = 1; h <= n_heads; ++h) {
        // Beyond four heads the middle is elided: Z = [Z_1 | Z_2 | … | Z_8].
        if (n_heads > 4 && h > 2 && h < n_heads) {
            if (h == 3) {
                f.op(Op::concat).op(Op::ellipsis);
            }
            continue;
        }
        if (h > 1) {
            f.op(Op::concat);
        }
        f.sym(sym("Z", "", h));
    }
    f.close(Bracket::list);
    return f;
}

Formula projected_output(bool biased) {
    Formula f;
    f.sym(sym("O")).op(Op::equals).sym(sym("Z")).op(Op::times).sym(sym("W", "O"));
    if (biased) {
        f.op(Op::plus).sym(sym("b", "O"));
    }
    return f;
}

}  // namespace attn::step_formulas
