// The step list of a Trace, in teaching order (teaching_steps): each step's id, number, symbol,
// formula, shapes and labels, and the column layout of the by-hand exercises. Every renderer
// walks this list, so the order, ids, symbols, formulas and labels never diverge between
// outputs. The words that explain each step are render's (src/render/lesson.cpp).
#include "steps.hpp"

#include <algorithm>

namespace attn {
namespace {

Shape shape_of(const Matrix& m) {
    return {m.rows(), m.cols()};
}

Shape transposed(const Shape& s) {
    return {s.cols, s.rows};
}

Symbol sym(std::string base, std::string sub = "", std::size_t head = 0) {
    Symbol s;
    s.base = std::move(base);
    s.sub = std::move(sub);
    s.head = head;
    return s;
}

// S′ (prime), S′ₘ (prime and masked), Kᵀ (transposed)
Symbol primed(Symbol s, bool masked = false) {
    s.prime = true;
    s.masked = masked;
    return s;
}

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

std::vector<std::size_t> breaks(std::size_t n_heads, std::size_t width) {
    std::vector<std::size_t> out;
    for (std::size_t h = 1; h < n_heads; ++h) {
        out.push_back(h * width);
    }
    return out;
}

// Builds the list; steps added after set_head(h) belong to head h (1-based; 0 = shared).
class StepList {
  public:
    Step& matrix(std::string id, std::string number, StepOp op, Symbol symbol, Formula formula,
                 std::vector<Shape> operands, const Matrix& m, std::span<const std::string> rows,
                 std::span<const std::string> cols) {
        Step s;
        s.id = std::move(id);
        s.number = std::move(number);
        s.op = op;
        s.symbol = std::move(symbol);
        s.formula = std::move(formula);
        s.operands = std::move(operands);
        s.shape = shape_of(m);
        s.matrix = &m;
        s.row_labels = rows;
        s.col_labels = cols;
        return add(std::move(s));
    }
    // An input of the walk-through: its formula is its name.
    Step& input(std::string id, std::string number, StepOp op, const Symbol& symbol,
                const Matrix& m, std::span<const std::string> rows,
                std::span<const std::string> cols) {
        Formula f;
        f.sym(symbol);
        return matrix(std::move(id), std::move(number), op, symbol, f, {}, m, rows, cols);
    }
    Step& add(Step s) {
        s.head = head_;
        steps_.push_back(std::move(s));
        return steps_.back();
    }
    void set_head(std::size_t head) { head_ = head; }
    std::vector<Step> take() { return std::move(steps_); }

  private:
    std::vector<Step> steps_;
    std::size_t head_ = 0;
};

// The formula of the mask step: M[i, j] = 1 if j ≤ i, else 0, and so on.
Formula mask_formula(const Trace& t, bool columns) {
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
    if (c.mask == MaskKind::file) {
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

}  // namespace

std::vector<Step> build_steps(const Trace& t, bool columns) {
    StepList list;
    const std::span<const std::string> tokens = t.tokens;
    const bool masked = t.mask.has_value();
    const bool multi = t.projected;
    const std::size_t n_heads = t.heads.size();
    const auto& c = t.config;
    const WeightsRule& rule = t.rule;

    Step tok;
    tok.id = "tokens";
    tok.number = "1";
    tok.op = StepOp::tokens;
    tok.symbol = sym("tokens");
    tok.formula.sym(sym("tokens"))
        .op(Op::equals)
        .fn(c.tokenizer.mode == TokenMode::chars ? "characters" : "words")
        .open(Bracket::call)
        .sym(sym("sentence"))
        .close(Bracket::call);
    tok.shape = {t.tokens.size(), 1};
    tok.kind = StepKind::tokens;
    tok.row_labels = tokens;
    list.add(std::move(tok));

    const bool positions = !t.positions.empty();
    if (!t.qkv_given) {
        Formula f;
        f.sym(sym("X"))
            .op(Op::equals)
            .fn("embed")
            .open(Bracket::call)
            .sym(sym("tokens"))
            .close(Bracket::call);
        list.matrix("embeddings", positions ? "2a" : "2", StepOp::embeddings, sym("X"), f, {}, t.x,
                    tokens, t.dim_labels);
    }
    const Symbol x_in = positions ? primed(sym("X")) : sym("X");
    if (positions) {
        Formula f;
        if (c.positions == PositionKind::sinusoidal) {
            const auto entry = [&](std::string column, std::string fn) {
                Formula exponent;
                exponent.num("2i").op(Op::tight).sym(d("model"));
                f.sym(sym("P"))
                    .open(Bracket::index)
                    .num("pos")
                    .op(Op::comma)
                    .num(std::move(column))
                    .close(Bracket::index)
                    .op(Op::equals)
                    .fn(std::move(fn))
                    .open(Bracket::call)
                    .num("pos")
                    .op(Op::divide)
                    .num("10000")
                    .open(Bracket::power)
                    .then(exponent)
                    .close(Bracket::power)
                    .close(Bracket::call);
            };
            entry("2i", "sin");
            f.op(Op::comma);
            entry("2i+1", "cos");
        } else {
            f.sym(sym("P")).op(Op::equals).word("positions from").word(t.positions_source.path);
        }
        list.matrix("positions", "2b", StepOp::positions, sym("P"), f, {}, t.positions, tokens,
                    t.dim_labels);
        Formula sum;
        sum.sym(x_in).op(Op::equals).sym(sym("X")).op(Op::plus).sym(sym("P"));
        list.matrix("with_positions", "2c", StepOp::with_positions, x_in, sum,
                    {shape_of(t.x), shape_of(t.positions)}, t.x_in, tokens, t.dim_labels)
            .joiner = Joiner::plus;
    }

    const auto weight = [&](const std::string& id, std::string number, StepOp op, const Matrix& m,
                            std::span<const std::string> cols, std::size_t head_width) {
        Step& s =
            list.input(id, std::move(number), op, sym("W", id.substr(2)), m, t.dim_labels, cols);
        if (multi && n_heads > 1) {
            s.col_breaks = breaks(n_heads, head_width);
        }
    };
    if (!t.qkv_given) {
        weight("W_Q", "3a", StepOp::w_q, t.w_q, t.q_labels, c.d_k);
        weight("W_K", "3b", StepOp::w_k, t.w_k, t.k_labels, c.d_k);
        weight("W_V", "3c", StepOp::w_v, t.w_v, t.v_labels, c.d_v);
    }
    char bias_letter = 'd';
    const auto bias = [&](const std::string& id, StepOp op, const Matrix& b,
                          std::span<const std::string> cols, std::size_t head_width) {
        if (b.empty()) {
            return;
        }
        Step& s = list.input(id, std::string("3") + bias_letter++, op, sym("b", id.substr(2)), b,
                             t.bias_label, cols);
        if (multi && n_heads > 1) {
            s.col_breaks = breaks(n_heads, head_width);
        }
    };
    bias("b_Q", StepOp::b_q, t.b_q, t.q_labels, c.d_k);
    bias("b_K", StepOp::b_k, t.b_k, t.k_labels, c.d_k);
    bias("b_V", StepOp::b_v, t.b_v, t.v_labels, c.d_v);

    const auto mask_step = [&](std::string number) {
        Step m;
        m.id = "mask";
        m.number = std::move(number);
        m.op = StepOp::mask;
        m.kind = StepKind::mask;
        m.symbol = sym("M");
        m.formula = mask_formula(t, columns);
        m.shape = {t.mask->rows(), t.mask->cols()};
        m.mask = &*t.mask;
        m.row_labels = tokens;
        m.col_labels = tokens;
        list.add(std::move(m));
    };

    // numbering: one plain head keeps the classic 4a..9; several heads number their steps
    // after the shared ones, the same numbers in every head
    int next = multi ? (masked ? 5 : 4) : t.qkv_given ? 2 : 4;
    if (multi && masked) {
        mask_step("4");
    }
    for (const auto& head : t.heads) {
        const std::size_t h = head.index + 1;
        const std::size_t hs = multi ? h : 0;  // the head as a subscript: Q_1; none for one
        const std::string p = multi ? "head" + std::to_string(h) + "." : "";
        list.set_head(hs);
        int n = next;
        const auto num = [&](int group, const char* letter = "") {
            return std::to_string(group) + letter;
        };
        if (multi) {
            const auto slice = [&](const char* name, StepOp op, const char* letter, const Matrix& m,
                                   std::size_t begin, std::size_t width,
                                   std::span<const std::string> cols) {
                Formula f;
                f.sym(sym("W", name, h))
                    .op(Op::equals)
                    .sym(sym("W", name))
                    .open(Bracket::index)
                    .op(Op::colon)
                    .op(Op::comma)
                    .num(std::to_string(begin))
                    .op(Op::colon)
                    .num(std::to_string(begin + width))
                    .close(Bracket::index);
                list.matrix(p + "W_" + name, num(n, letter), op, sym("W", name, h), f, {}, m,
                            t.dim_labels, cols);
            };
            slice("Q", StepOp::head_w_q, "a", head.w_q, head.k_begin, c.d_k, head.q_labels);
            slice("K", StepOp::head_w_k, "b", head.w_k, head.k_begin, c.d_k, head.k_labels);
            slice("V", StepOp::head_w_v, "c", head.w_v, head.v_begin, c.d_v, head.v_labels);
            ++n;
        }
        const auto proj = [&](const char* letter, const char* name, StepOp op, const Matrix& m,
                              const Matrix& w, const Matrix& b, std::span<const std::string> cols) {
            if (t.qkv_given) {  // given as they are: inputs of the walk-through
                list.input(p + name, num(n, letter), op, sym(name, "", hs), m, tokens, cols);
                return;
            }
            Formula f;
            f.sym(sym(name, "", hs)).op(Op::equals);
            if (columns) {  // Q = W_Q · X: tokens are columns
                f.sym(sym("W", name, hs)).op(Op::times).sym(x_in);
            } else {
                f.sym(x_in).op(Op::times).sym(sym("W", name, hs));
            }
            if (!b.empty()) {
                f.op(Op::plus).sym(sym("b", name, hs));
            }
            list.matrix(p + name, num(n, letter), op, sym(name, "", hs), f,
                        {shape_of(t.x_in), shape_of(w)}, m, tokens, cols);
        };
        proj("a", "Q", StepOp::q, head.q, head.w_q, t.b_q, head.q_labels);
        proj("b", "K", StepOp::k, head.k, head.w_k, t.b_k, head.k_labels);
        proj("c", "V", StepOp::v, head.v, head.w_v, t.b_v, head.v_labels);
        ++n;

        const Symbol s_sym = sym("S", "", hs);
        {
            Formula f;
            f.sym(s_sym).op(Op::equals);
            if (columns) {  // S = Kᵀ · Q: a row per key, a column per query
                f.sym(transpose_of(sym("K", "", hs))).op(Op::times).sym(sym("Q", "", hs));
            } else {
                f.sym(sym("Q", "", hs)).op(Op::times).sym(transpose_of(sym("K", "", hs)));
            }
            list.matrix(p + "scores", num(n++), StepOp::scores, s_sym, f,
                        {shape_of(head.q), transposed(shape_of(head.k))}, head.scores, tokens,
                        tokens);
        }
        const Symbol width = d(rule.scale_by == ScaleBy::d_model ? "model" : "k");
        {
            Formula f;
            f.sym(primed(s_sym)).op(Op::equals);
            if (!rule.scales()) {
                f.sym(s_sym).open(Bracket::group).word("not divided by").then(sqrt_of(d("k")));
                f.close(Bracket::group);
            } else if (rule.arith == Arith::hand) {
                f.open(Bracket::floor)
                    .sym(s_sym)
                    .op(Op::divide)
                    .num(std::to_string(static_cast<long long>(rule.divisor())))
                    .close(Bracket::floor)
                    .open(Bracket::group)
                    .word("by hand, for")
                    .sym(s_sym)
                    .op(Op::divide)
                    .then(sqrt_of(width))
                    .close(Bracket::group);
            } else {
                f.sym(s_sym).op(Op::divide).then(sqrt_of(width));
            }
            list.matrix(p + "scaled_scores", num(n++), StepOp::scaled_scores, primed(s_sym), f,
                        {shape_of(head.scores)}, head.scaled_scores, tokens, tokens);
        }
        if (masked) {
            if (!multi) {
                mask_step(num(n, "a"));
            }
            Formula f;
            f.sym(primed(s_sym, true))
                .op(Op::equals)
                .sym(primed(s_sym))
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
            list.matrix(p + "masked_scores", num(n, multi ? "" : "b"), StepOp::masked_scores,
                        primed(s_sym, true), f, {shape_of(head.scaled_scores)}, head.masked_scores,
                        tokens, tokens);
            ++n;
        }
        {
            const Symbol logits = primed(s_sym, masked);
            const char* along = rule.over == SoftmaxOver::all ? "over the whole matrix"
                                : (rule.over == SoftmaxOver::rows) != columns ? "row by row"
                                                                              : "column by column";
            Formula f;
            f.sym(sym("A", "", hs)).op(Op::equals);
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
                f.fn("softmax").open(Bracket::call).sym(logits).close(Bracket::call);
                f.op(Op::comma).word(along);
            }
            const std::string number = num(n++);
            Step& a = list.matrix(p + "weights", number, StepOp::weights, sym("A", "", hs), f,
                                  {shape_of(masked ? head.masked_scores : head.scaled_scores)},
                                  head.attention, tokens, tokens);
            a.kind = StepKind::attention;
            if (!head.correct_attention.empty()) {
                // the right weights, for comparison: scaled by √d_k, softmax over each row
                Formula right;
                right.sym(sym("A", "right", hs)).op(Op::equals).fn("softmax").open(Bracket::call);
                if (masked) {
                    right.word("masked");
                }
                right.sym(s_sym).op(Op::divide).then(sqrt_of(d("k"))).close(Bracket::call);
                right.op(Op::comma).word(columns ? "column by column" : "row by row");
                Step& right_step =
                    list.matrix(p + "correct_weights", number + "′", StepOp::correct_weights,
                                sym("A", "right", hs), right, {shape_of(head.scores)},
                                head.correct_attention, tokens, tokens);
                right_step.kind = StepKind::attention;
            }
        }
        {
            Formula f;
            f.sym(sym("Z", "", hs)).op(Op::equals);
            if (columns) {  // Z = V · A: each column of A weighs the columns of V
                f.sym(sym("V", "", hs)).op(Op::times).sym(sym("A", "", hs));
            } else {
                f.sym(sym("A", "", hs)).op(Op::times).sym(sym("V", "", hs));
            }
            list.matrix(p + "output", num(n), StepOp::output, sym("Z", "", hs), f,
                        {shape_of(head.attention), shape_of(head.v)}, head.output, tokens,
                        head.z_labels);
        }
        if (head.index + 1 == n_heads) {
            next = n + 1;
        }
    }
    list.set_head(0);

    if (multi) {
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
        std::vector<Shape> outs;
        for (const auto& head : t.heads) {
            outs.push_back(shape_of(head.output));
        }
        Step& cat = list.matrix("concat", std::to_string(next++), StepOp::concat, sym("Z"), f, outs,
                                t.concat, tokens, t.concat_labels);
        cat.col_breaks = breaks(n_heads, c.d_v);
        cat.joiner = Joiner::concat;
        list.input("W_O", std::to_string(next) + (t.b_o.empty() ? "" : "a"), StepOp::w_o,
                   sym("W", "O"), t.w_o, t.concat_labels, t.out_labels);
        if (!t.b_o.empty()) {
            list.input("b_O", std::to_string(next) + "b", StepOp::b_o, sym("b", "O"), t.b_o,
                       t.bias_label, t.out_labels);
        }
        ++next;
        Formula o;
        o.sym(sym("O")).op(Op::equals).sym(sym("Z")).op(Op::times).sym(sym("W", "O"));
        if (!t.b_o.empty()) {
            o.op(Op::plus).sym(sym("b", "O"));
        }
        list.matrix("output", std::to_string(next), StepOp::projected_output, sym("O"), o,
                    {shape_of(t.concat), shape_of(t.w_o)}, t.output, tokens, t.out_labels);
    }
    auto steps = list.take();
    if (columns) {
        // every matrix shown transposed: tokens are columns; (AB)ᵀ = BᵀAᵀ for the shapes
        for (Step& s : steps) {
            if (s.kind == StepKind::tokens) {
                continue;
            }
            std::swap(s.row_labels, s.col_labels);
            s.shape = transposed(s.shape);
            s.transposed = true;
            std::vector<Shape> ops;
            for (const auto& o : s.operands) {
                ops.push_back(transposed(o));
            }
            if (s.joiner == Joiner::product) {
                std::reverse(ops.begin(), ops.end());
            }
            s.operands = std::move(ops);
        }
    }
    return steps;
}

}  // namespace attn
