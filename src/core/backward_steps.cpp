// The steps of the backward pass (--target FILE --backward), after the forward ones: the
// target, the loss, each gradient in the order the chain rule reaches it, and the update.
// Symbols follow llm.c's names: dW_Q is ∂L/∂W_Q, with the shape of W_Q.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "step_formulas.hpp"
#include "steps.hpp"

namespace attn {
namespace {

using step_formulas::primed;
using step_formulas::sym;

Symbol transposed(Symbol s) {
    s.transposed = true;
    return s;
}

class Builder {
  public:
    explicit Builder(std::vector<Step>& steps) : steps_(steps) {
        // the first number after the forward steps
        int last = 0;
        for (const Step& s : steps) {
            last = std::max(last, std::stoi(s.number));
        }
        next_ = last + 1;
    }

    // One step numbered `number` (a group and a letter).
    Step& add(std::string id, std::string number, StepOp op, Symbol symbol, Formula formula,
              std::vector<Shape> operands, const Matrix& m, std::span<const std::string> rows,
              std::span<const std::string> cols, std::size_t head = 0) {
        Step s = matrix_step(std::move(id), std::move(number), op, std::move(symbol),
                             std::move(formula), std::move(operands), m, rows, cols);
        s.head = head;
        steps_.push_back(std::move(s));
        return steps_.back();
    }
    // The next group number, as text, with `letter`.
    std::string number(const char* letter = "") const { return std::to_string(next_) + letter; }
    void next() { ++next_; }

  private:
    std::vector<Step>& steps_;
    int next_ = 1;
};

// d<name>: the gradient's symbol, with the subscript and head of what it is the gradient of
Symbol grad_sym(const std::string& of, const std::string& sub = "", std::size_t head = 0) {
    return sym("d" + of, sub, head);
}

}  // namespace

// result = left · right: a gradient of a product, which is a product of the other factor and
// the gradient that reaches it
Formula product_of(const Symbol& result, const Symbol& left, const Symbol& right) {
    Formula f;
    f.sym(result).op(Op::equals).sym(left).op(Op::times).sym(right);
    return f;
}

void append_backward_steps(const Trace& t, std::vector<Step>& steps) {
    const Backward& b = *t.backward;
    Builder list(steps);
    const std::span<const std::string> tokens = t.tokens;
    const bool multi = t.projected;
    const std::span<const std::string> out_labels =
        multi ? std::span<const std::string>(t.out_labels)
              : std::span<const std::string>(t.heads.front().z_labels);
    const Symbol out_sym = multi ? sym("O") : sym("Z");
    const Symbol y = sym("Y");

    Formula f;
    f.sym(y).op(Op::equals).word("target from").word(b.target_path);
    list.add("target", list.number(), StepOp::target, y, f, {}, b.target, tokens, out_labels);
    list.next();

    // (O − Y): the error, which the loss squares and its gradient doubles
    Formula error;
    error.open(Bracket::group).sym(out_sym).op(Op::minus).sym(y).close(Bracket::group);
    Formula squared = error;
    squared.open(Bracket::power).num("2").close(Bracket::power);
    f = Formula();
    f.sym(sym("L")).op(Op::equals).apply("mean", squared);
    list.add("loss", list.number(), StepOp::loss, sym("L"), f,
             {shape_of(t.output), shape_of(b.target)}, b.loss, b.loss_label, b.loss_label)
        .joiner = Joiner::minus;
    list.next();

    // dO = 2·(O − Y) / (T·d_out): the number of cells written out
    f = Formula();
    f.sym(grad_sym(out_sym.base))
        .op(Op::equals)
        .num("2")
        .op(Op::times)
        .then(error)
        .op(Op::divide)
        .num(std::to_string(b.d_output.size()));
    list.add("grad.output", list.number(), StepOp::gradient, grad_sym(out_sym.base), f,
             {shape_of(t.output), shape_of(b.target)}, b.d_output, tokens, out_labels)
        .joiner = Joiner::minus;
    list.next();

    if (multi) {
        // O = Z · W_O + b_O
        f = product_of(grad_sym("W", "O"), transposed(sym("Z")), grad_sym("O"));
        list.add("grad.W_O", list.number(t.b_o.empty() ? "" : "a"), StepOp::gradient,
                 grad_sym("W", "O"), f, {{t.concat.cols(), t.concat.rows()}, shape_of(b.d_output)},
                 b.d_w_o, t.concat_labels, t.out_labels);
        if (!t.b_o.empty()) {
            f = Formula();
            f.sym(grad_sym("b", "O"))
                .op(Op::equals)
                .fn("sum")
                .word("over the rows of")
                .sym(grad_sym("O"));
            list.add("grad.b_O", list.number("b"), StepOp::gradient, grad_sym("b", "O"), f,
                     {shape_of(b.d_output)}, b.d_b_o, t.bias_label, t.out_labels);
        }
        list.next();
        f = product_of(grad_sym("Z"), grad_sym("O"), transposed(sym("W", "O")));
        list.add("grad.concat", list.number(), StepOp::gradient, grad_sym("Z"), f,
                 {shape_of(b.d_output), {t.w_o.cols(), t.w_o.rows()}}, b.d_concat, tokens,
                 t.concat_labels);
        list.next();
    }

    const int first_head_number = std::stoi(list.number());
    int after_heads = first_head_number;
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
        const Head& head = t.heads[h];
        const HeadGrads& g = b.heads[h];
        const std::size_t hs = multi ? h + 1 : 0;
        const std::string p = multi ? "head" + std::to_string(h + 1) + "." : "";
        int n = first_head_number;
        const auto num = [&](const char* letter = "") { return std::to_string(n) + letter; };
        if (multi) {
            f = Formula();
            f.sym(grad_sym("Z", "", hs))
                .op(Op::equals)
                .sym(grad_sym("Z"))
                .open(Bracket::index)
                .op(Op::colon)
                .op(Op::comma)
                .num(std::to_string(head.v_begin))
                .op(Op::colon)
                .num(std::to_string(head.v_begin + t.config.d_v))
                .close(Bracket::index);
            list.add(p + "grad.output", num(), StepOp::gradient, grad_sym("Z", "", hs), f, {},
                     g.d_output, tokens, head.z_labels, hs);
            ++n;
        }
        // Z = A · V
        f = product_of(grad_sym("A", "", hs), grad_sym("Z", "", hs), transposed(sym("V", "", hs)));
        list.add(p + "grad.weights", num("a"), StepOp::gradient, grad_sym("A", "", hs), f,
                 {shape_of(g.d_output), {head.v.cols(), head.v.rows()}}, g.d_weights, tokens,
                 tokens, hs);
        f = product_of(grad_sym("V", "", hs), transposed(sym("A", "", hs)), grad_sym("Z", "", hs));
        list.add(p + "grad.V", num("b"), StepOp::gradient, grad_sym("V", "", hs), f,
                 {shape_of(head.attention), shape_of(g.d_output)}, g.d_v, tokens, head.v_labels,
                 hs);
        ++n;
        // A = softmax(S′): dS′ = A ⊙ (dA − rowsum(dA ⊙ A))
        const Symbol d_scaled = primed(grad_sym("S", "", hs));
        f = Formula();
        f.sym(d_scaled)
            .op(Op::equals)
            .sym(sym("A", "", hs))
            .op(Op::hadamard)
            .open(Bracket::group)
            .sym(grad_sym("A", "", hs))
            .op(Op::minus)
            .apply("rowsum",
                   Formula().sym(grad_sym("A", "", hs)).op(Op::hadamard).sym(sym("A", "", hs)))
            .close(Bracket::group);
        list.add(p + "grad.scaled_scores", num(), StepOp::gradient, d_scaled, f,
                 {shape_of(head.attention), shape_of(g.d_weights)}, g.d_scaled, tokens, tokens, hs)
            .joiner = Joiner::plus;
        ++n;
        // S′ = S / divisor
        f = Formula();
        f.sym(grad_sym("S", "", hs)).op(Op::equals).sym(d_scaled);
        if (t.rule.scales()) {
            f.op(Op::divide)
                .open(Bracket::sqrt)
                .sym(sym("d", t.rule.scale_by == ScaleBy::d_model ? "model" : "k"))
                .close(Bracket::sqrt);
        }
        list.add(p + "grad.scores", num(), StepOp::gradient, grad_sym("S", "", hs), f,
                 {shape_of(g.d_scaled)}, g.d_scores, tokens, tokens, hs);
        ++n;
        // S = Q · Kᵀ
        f = product_of(grad_sym("Q", "", hs), grad_sym("S", "", hs), sym("K", "", hs));
        list.add(p + "grad.Q", num("a"), StepOp::gradient, grad_sym("Q", "", hs), f,
                 {shape_of(g.d_scores), shape_of(head.k)}, g.d_q, tokens, head.q_labels, hs);
        f = product_of(grad_sym("K", "", hs), transposed(grad_sym("S", "", hs)), sym("Q", "", hs));
        list.add(p + "grad.K", num("b"), StepOp::gradient, grad_sym("K", "", hs), f,
                 {shape_of(g.d_scores), shape_of(head.q)}, g.d_k, tokens, head.k_labels, hs);
        ++n;
        if (!t.qkv_given) {
            // Q = X′ · W_Q (+ b_Q): dW_Q = X′ᵀ · dQ
            const Symbol x_in = t.positions.empty() ? sym("X") : primed(sym("X"));
            const auto weight = [&](const char* name, const char* letter, const Matrix& d_w,
                                    const Matrix& d_proj, std::span<const std::string> cols) {
                const std::string id = multi ? p + "grad.W_" + name : std::string("grad.W_") + name;
                f = product_of(grad_sym("W", name, hs), transposed(x_in), grad_sym(name, "", hs));
                list.add(id, num(letter), StepOp::gradient, grad_sym("W", name, hs), f,
                         {{t.x_in.cols(), t.x_in.rows()}, shape_of(d_proj)}, d_w, t.dim_labels,
                         cols, hs);
            };
            weight("Q", "a", multi ? g.d_w_q : b.d_w_q, g.d_q, head.q_labels);
            weight("K", "b", multi ? g.d_w_k : b.d_w_k, g.d_k, head.k_labels);
            weight("V", "c", multi ? g.d_w_v : b.d_w_v, g.d_v, head.v_labels);
            ++n;
        }
        after_heads = n;
    }
    while (std::stoi(list.number()) < after_heads) {
        list.next();
    }

    if (!t.qkv_given) {
        char letter = 'a';
        const auto letter_text = [&] { return std::string(1, letter++); };
        if (multi) {
            // every head's gradient side by side, as the weights are
            const auto full = [&](const char* name, const Matrix& d_w,
                                  std::span<const std::string> cols, std::size_t width) {
                f = Formula();
                f.sym(grad_sym("W", name)).op(Op::equals).open(Bracket::list);
                for (std::size_t h = 0; h < t.heads.size(); ++h) {
                    if (h > 0) {
                        f.op(Op::concat);
                    }
                    f.sym(grad_sym("W", name, h + 1));
                }
                f.close(Bracket::list);
                std::vector<Shape> parts;
                for (std::size_t h = 0; h < t.heads.size(); ++h) {
                    parts.push_back({d_w.rows(), width});
                }
                Step& s = list.add(std::string("grad.W_") + name,
                                   list.number(letter_text().c_str()), StepOp::gradient,
                                   grad_sym("W", name), f, parts, d_w, t.dim_labels, cols);
                s.joiner = Joiner::concat;
                for (std::size_t h = 1; h < t.heads.size(); ++h) {
                    s.col_breaks.push_back(h * width);
                }
            };
            full("Q", b.d_w_q, t.q_labels, t.config.d_k);
            full("K", b.d_w_k, t.k_labels, t.config.d_k);
            full("V", b.d_w_v, t.v_labels, t.config.d_v);
        }
        const auto bias = [&](const char* name, const Matrix& d_b,
                              std::span<const std::string> cols) {
            if (d_b.empty()) {
                return;
            }
            f = Formula();
            f.sym(grad_sym("b", name))
                .op(Op::equals)
                .fn("sum")
                .word("over the rows of")
                .sym(grad_sym(name));
            list.add(std::string("grad.b_") + name, list.number(letter_text().c_str()),
                     StepOp::gradient, grad_sym("b", name), f, {}, d_b, t.bias_label, cols);
        };
        bias("Q", b.d_b_q, t.q_labels);
        bias("K", b.d_b_k, t.k_labels);
        bias("V", b.d_b_v, t.v_labels);
        if (letter != 'a') {
            list.next();
        }

        // X′ feeds Q, K and V of every head: dX′ = Σ dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ
        const Symbol d_x = t.positions.empty() ? grad_sym("X") : primed(grad_sym("X"));
        f = Formula();
        f.sym(d_x).op(Op::equals);
        if (multi) {
            f.fn("sum").word("over the heads h of").open(Bracket::group);
        }
        for (const std::string name : {"Q", "K", "V"}) {
            if (name != "Q") {
                f.op(Op::plus);
            }
            f.sym(multi ? sym("d" + name, "h") : grad_sym(name))
                .op(Op::times)
                .sym(transposed(multi ? sym("W", name + ",h") : sym("W", name)));
        }
        if (multi) {
            f.close(Bracket::group);
        }
        list.add("grad.X", list.number(), StepOp::gradient, d_x, f, {}, b.d_x, tokens,
                 t.dim_labels);
        list.next();
    }

    if (b.lr) {
        char letter = 'a';
        const auto update = [&](const std::string& name, const Matrix& w, const Matrix& d_w,
                                std::span<const std::string> rows,
                                std::span<const std::string> cols) {
            if (w.empty()) {
                return;
            }
            const std::string base = name.substr(0, 1);
            const std::string sub = name.substr(2);
            f = Formula();
            f.sym(sym(base, sub))
                .op(Op::assign)
                .sym(sym(base, sub))
                .op(Op::minus)
                .num(fmt::format("{}", *b.lr))
                .op(Op::times)
                .sym(grad_sym(base, sub));
            list.add("update." + name, list.number(std::string(1, letter++).c_str()),
                     StepOp::update, sym(base, sub), f, {shape_of(d_w), shape_of(d_w)}, w, rows,
                     cols)
                .joiner = Joiner::plus;
        };
        update("W_Q", b.updated.w_q, b.d_w_q, t.dim_labels, t.q_labels);
        update("W_K", b.updated.w_k, b.d_w_k, t.dim_labels, t.k_labels);
        update("W_V", b.updated.w_v, b.d_w_v, t.dim_labels, t.v_labels);
        update("b_Q", b.updated.b_q, b.d_b_q, t.bias_label, t.q_labels);
        update("b_K", b.updated.b_k, b.d_b_k, t.bias_label, t.k_labels);
        update("b_V", b.updated.b_v, b.d_b_v, t.bias_label, t.v_labels);
        update("W_O", b.updated.w_o, b.d_w_o, t.concat_labels, t.out_labels);
        update("b_O", b.updated.b_o, b.d_b_o, t.bias_label, t.out_labels);
    }
}

}  // namespace attn
