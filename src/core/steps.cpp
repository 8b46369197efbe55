// The step list of a Trace, in teaching order (teaching_steps): each step's id, number, symbol,
// shapes and labels, and the column layout of the by-hand exercises. Every renderer walks this
// list, so the order, ids, symbols, formulas (step_formulas.cpp) and labels never diverge
// between outputs. The words that explain each step are render's (src/render/lesson.cpp).
#include "steps.hpp"

#include <algorithm>
#include <initializer_list>
#include <iterator>

#include "step_formulas.hpp"

namespace attn {
namespace {

using step_formulas::primed;
using step_formulas::sym;
namespace formula = step_formulas;

Shape transposed(const Shape& s) {
    return {s.cols, s.rows};
}

std::vector<std::size_t> breaks(std::size_t n_heads, std::size_t width) {
    std::vector<std::size_t> out;
    for (std::size_t h = 1; h < n_heads; ++h) {
        out.push_back(h * width);
    }
    return out;
}

// The number of a step moved `by` groups on: "3a" → "5a".
std::string moved(const std::string& number, int by) {
    std::size_t digits = 0;
    while (digits < number.size() && number[digits] >= '0' && number[digits] <= '9') {
        ++digits;
    }
    if (digits == 0) {
        return number;
    }
    return std::to_string(std::stoi(number.substr(0, digits)) + by) + number.substr(digits);
}

// Builds the list; steps added after set_head(h) belong to head h (1-based; 0 = shared).
class StepList {
  public:
    Step& matrix(std::string id, std::string number, StepOp op, Symbol symbol, Formula formula,
                 std::vector<Shape> operands, const Matrix& m, std::span<const std::string> rows,
                 std::span<const std::string> cols) {
        return add(matrix_step(std::move(id), std::move(number), op, std::move(symbol),
                               std::move(formula), std::move(operands), m, rows, cols));
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
    [[nodiscard]] std::size_t size() const noexcept { return steps_.size(); }
    // Moves the numbers of the steps from `first` on by `by` groups.
    void move_numbers(std::size_t first, int by) {
        for (std::size_t i = first; i < steps_.size(); ++i) {
            steps_[i].number = moved(steps_[i].number, by);
        }
    }
    std::vector<Step> take() { return std::move(steps_); }

  private:
    std::vector<Step> steps_;
    std::size_t head_ = 0;
};

// Every matrix shown transposed: tokens are columns; (AB)ᵀ = BᵀAᵀ for the shapes.
void to_columns(std::vector<Step>& steps) {
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

// GPT-2's formulas (gpt2.hpp): the embeddings, LayerNorm, the residual stream.
Formula equals(const Symbol& left) {
    Formula f;
    f.sym(left).op(Op::equals);
    return f;
}

// c_proj(gelu(c_fc(ln_2(x)))): the functions applied to `x` in turn, the last first
Formula composed(std::initializer_list<const char*> functions, const Symbol& x) {
    Formula f;
    f.sym(x);
    for (auto fn = std::rbegin(functions); fn != std::rend(functions); ++fn) {
        f = Formula().apply(*fn, f);
    }
    return f;
}

Symbol stream(std::size_t layer) {
    return sym("H", std::to_string(layer));
}

// The GPT-2 steps before the heads: the embeddings, the layers below, the residual stream
// entering the layer and ln_1, whose output is X.
void gpt2_before(StepList& list, const Trace& t, const Gpt2Walk& g) {
    const std::span<const std::string> tokens = t.tokens;
    list.matrix(
        "wte", "2a", StepOp::gpt2_wte, sym("E"),
        equals(sym("E")).fn("wte").open(Bracket::index).word("token ids").close(Bracket::index), {},
        g.wte, tokens, t.dim_labels);
    list.matrix("wpe", "2b", StepOp::gpt2_wpe, sym("P"),
                equals(sym("P"))
                    .fn("wpe")
                    .open(Bracket::index)
                    .num("0")
                    .op(Op::colon)
                    .sym(sym("T"))
                    .close(Bracket::index),
                {}, g.wpe, tokens, t.dim_labels);
    list.matrix("embeddings", "2c", StepOp::gpt2_embeddings, stream(0),
                equals(stream(0)).sym(sym("E")).op(Op::plus).sym(sym("P")),
                {shape_of(g.wte), shape_of(g.wpe)}, g.embeddings, tokens, t.dim_labels)
        .joiner = Joiner::plus;
    int group = 3;
    if (g.layer > 0) {
        list.matrix("layers_below", std::to_string(group++), StepOp::layer_changes, sym("Δ"),
                    equals(sym("Δ")).word("the length of each change to a token's vector"), {},
                    g.layer_changes, g.change_labels, tokens);
    }
    const Symbol h = stream(g.layer);
    const std::string n = std::to_string(group);
    Formula residual;
    residual.sym(h);
    if (g.layer > 0) {
        residual.op(Op::equals).sym(stream(0));
        for (std::size_t l = 0; l < g.layer; ++l) {
            residual.op(Op::plus).sym(sym("Δ", std::to_string(l) + ".attn"));
            residual.op(Op::plus).sym(sym("Δ", std::to_string(l) + ".mlp"));
            if (l == 0 && g.layer > 2) {
                residual.op(Op::plus).op(Op::ellipsis);
                l = g.layer - 2;
            }
        }
    }
    list.matrix("residual", n + "a", StepOp::residual, h, residual, {}, g.residual, tokens,
                t.dim_labels);
    list.matrix("ln_1.mean", n + "b", StepOp::ln_mean, sym("μ"),
                equals(sym("μ")).apply("mean", Formula().sym(h)).word("row by row"),
                {shape_of(g.residual)}, g.ln_mean, tokens, g.mean_label);
    list.matrix(
        "ln_1.variance", n + "c", StepOp::ln_variance, sym("σ²"),
        equals(sym("σ²"))
            .apply("mean", Formula().apply("square", Formula().sym(h).op(Op::minus).sym(sym("μ"))))
            .word("row by row"),
        {shape_of(g.residual)}, g.ln_variance, tokens, g.variance_label);
    list.input("ln_1.weight", n + "d", StepOp::ln_gamma, sym("γ"), g.ln_gamma, g.gamma_label,
               t.dim_labels);
    list.input("ln_1.bias", n + "e", StepOp::ln_beta, sym("β"), g.ln_beta, g.beta_label,
               t.dim_labels);
    list.matrix("ln_1", n + "f", StepOp::ln_output, sym("X"),
                equals(sym("X"))
                    .open(Bracket::group)
                    .sym(h)
                    .op(Op::minus)
                    .sym(sym("μ"))
                    .close(Bracket::group)
                    .op(Op::divide)
                    .open(Bracket::sqrt)
                    .sym(sym("σ²"))
                    .op(Op::plus)
                    .sym(sym("ε"))
                    .close(Bracket::sqrt)
                    .op(Op::times)
                    .sym(sym("γ"))
                    .op(Op::plus)
                    .sym(sym("β")),
                {shape_of(g.residual), shape_of(g.ln_gamma)}, t.x, tokens, t.dim_labels);
}

// The GPT-2 steps after the heads: the residual stream, the MLP and the layer's output.
void gpt2_after(StepList& list, const Trace& t, const Gpt2Walk& g, int group) {
    const std::span<const std::string> tokens = t.tokens;
    const Symbol h = stream(g.layer);
    const Symbol h_attn = primed(h);
    const std::string n = std::to_string(group);
    list.matrix("residual_attn", n + "a", StepOp::residual_attn, h_attn,
                equals(h_attn).sym(h).op(Op::plus).sym(sym("O")),
                {shape_of(g.residual), shape_of(t.output)}, g.residual_attn, tokens, t.dim_labels)
        .joiner = Joiner::plus;
    list.matrix("mlp", n + "b", StepOp::mlp, sym("M"),
                equals(sym("M")).then(composed({"c_proj", "gelu", "c_fc", "ln_2"}, h_attn)),
                {shape_of(g.residual_attn)}, g.mlp, tokens, t.dim_labels);
    const Symbol next = stream(g.layer + 1);
    list.matrix("residual_mlp", n + "c", StepOp::residual_mlp, next,
                equals(next).sym(h_attn).op(Op::plus).sym(sym("M")),
                {shape_of(g.residual_attn), shape_of(g.mlp)}, g.residual_mlp, tokens, t.dim_labels)
        .joiner = Joiner::plus;
}

}  // namespace

Shape shape_of(const Matrix& m) {
    return {m.rows(), m.cols()};
}

Step matrix_step(std::string id, std::string number, StepOp op, Symbol symbol, Formula formula,
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
    return s;
}

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
    tok.formula = t.gpt2           ? formula::bpe_tokens()
                  : t.tokens_named ? formula::named_tokens(columns)
                                   : formula::tokens(c.tokenizer.mode);
    tok.shape = {t.tokens.size(), 1};
    tok.kind = StepKind::tokens;
    tok.row_labels = tokens;
    list.add(std::move(tok));

    const bool positions = !t.positions.empty();
    std::size_t gpt2_steps = 0;  // the steps before the heads in a GPT-2 walk
    if (t.gpt2) {
        gpt2_before(list, t, *t.gpt2);
        gpt2_steps = list.size();
    } else if (!t.qkv_given) {
        list.matrix("embeddings", positions ? "2a" : "2", StepOp::embeddings, sym("X"),
                    formula::embeddings(), {}, t.x, tokens, t.dim_labels);
    }
    const Symbol x_in = positions ? primed(sym("X")) : sym("X");
    if (positions) {
        list.matrix("positions", "2b", StepOp::positions, sym("P"), formula::positions(t, columns),
                    {}, t.positions, tokens, t.dim_labels);
        list.matrix("with_positions", "2c", StepOp::with_positions, x_in,
                    formula::with_positions(x_in), {shape_of(t.x), shape_of(t.positions)}, t.x_in,
                    tokens, t.dim_labels)
            .joiner = Joiner::plus;
    }

    // W_Q, W_K, W_V and the biases: every head's columns side by side, a bar between heads
    const auto full = [&](const std::string& id, std::string number, StepOp op, const Matrix& m,
                          std::span<const std::string> rows, std::span<const std::string> cols,
                          std::size_t head_width) {
        Step& s = list.input(id, std::move(number), op, sym(id.substr(0, 1), id.substr(2)), m, rows,
                             cols);
        if (multi && n_heads > 1) {
            s.col_breaks = breaks(n_heads, head_width);
        }
    };
    if (!t.qkv_given) {
        full("W_Q", "3a", StepOp::w_q, t.w_q, t.dim_labels, t.q_labels, c.d_k);
        full("W_K", "3b", StepOp::w_k, t.w_k, t.dim_labels, t.k_labels, c.d_k);
        full("W_V", "3c", StepOp::w_v, t.w_v, t.dim_labels, t.v_labels, c.d_v);
    }
    char bias_letter = 'd';
    const auto bias = [&](const std::string& id, StepOp op, const Matrix& b,
                          std::span<const std::string> cols, std::size_t head_width) {
        if (!b.empty()) {
            full(id, std::string("3") + bias_letter++, op, b, t.bias_label, cols, head_width);
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
        m.formula = formula::mask(t, columns);
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
                list.matrix(p + "W_" + name, num(n, letter), op, sym("W", name, h),
                            formula::slice(name, h, begin, width), {}, m, t.dim_labels, cols);
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
            list.matrix(p + name, num(n, letter), op, sym(name, "", hs),
                        formula::projection(name, hs, x_in, !b.empty(), columns),
                        {shape_of(t.x_in), shape_of(w)}, m, tokens, cols);
        };
        proj("a", "Q", StepOp::q, head.q, head.w_q, t.b_q, head.q_labels);
        proj("b", "K", StepOp::k, head.k, head.w_k, t.b_k, head.k_labels);
        proj("c", "V", StepOp::v, head.v, head.w_v, t.b_v, head.v_labels);
        ++n;

        const Symbol s_sym = sym("S", "", hs);
        list.matrix(p + "scores", num(n++), StepOp::scores, s_sym, formula::scores(hs, columns),
                    {shape_of(head.q), transposed(shape_of(head.k))}, head.scores, tokens, tokens);
        list.matrix(p + "scaled_scores", num(n++), StepOp::scaled_scores, primed(s_sym),
                    formula::scaled(rule, hs), {shape_of(head.scores)}, head.scaled_scores, tokens,
                    tokens);
        if (masked) {
            if (!multi) {
                mask_step(num(n, "a"));
            }
            list.matrix(p + "masked_scores", num(n, multi ? "" : "b"), StepOp::masked_scores,
                        primed(s_sym, true), formula::masked(hs), {shape_of(head.scaled_scores)},
                        head.masked_scores, tokens, tokens);
            ++n;
        }
        const std::string number = num(n++);
        list.matrix(p + "weights", number, StepOp::weights, sym("A", "", hs),
                    formula::weights(rule, hs, masked, columns),
                    {shape_of(masked ? head.masked_scores : head.scaled_scores)}, head.attention,
                    tokens, tokens)
            .kind = StepKind::attention;
        if (!head.correct_attention.empty()) {
            // the right weights, for comparison
            list.matrix(p + "correct_weights", number + "′", StepOp::correct_weights,
                        sym("A", "right", hs),
                        formula::right_weights(rule.right(t.config.d_k), hs, masked, columns),
                        {shape_of(head.scores)}, head.correct_attention, tokens, tokens)
                .kind = StepKind::attention;
        }
        list.matrix(p + "output", num(n), StepOp::output, sym("Z", "", hs),
                    formula::output(hs, columns), {shape_of(head.attention), shape_of(head.v)},
                    head.output, tokens, head.z_labels);
        if (head.index + 1 == n_heads) {
            next = n + 1;
        }
    }
    list.set_head(0);

    if (multi) {
        std::vector<Shape> outs;
        for (const auto& head : t.heads) {
            outs.push_back(shape_of(head.output));
        }
        Step& cat = list.matrix("concat", std::to_string(next++), StepOp::concat, sym("Z"),
                                formula::concat(n_heads), outs, t.concat, tokens, t.concat_labels);
        cat.col_breaks = breaks(n_heads, c.d_v);
        cat.joiner = Joiner::concat;
        list.input("W_O", std::to_string(next) + (t.b_o.empty() ? "" : "a"), StepOp::w_o,
                   sym("W", "O"), t.w_o, t.concat_labels, t.out_labels);
        if (!t.b_o.empty()) {
            list.input("b_O", std::to_string(next) + "b", StepOp::b_o, sym("b", "O"), t.b_o,
                       t.bias_label, t.out_labels);
        }
        ++next;
        list.matrix("output", std::to_string(next), StepOp::projected_output, sym("O"),
                    formula::projected_output(!t.b_o.empty()),
                    {shape_of(t.concat), shape_of(t.w_o)}, t.output, tokens, t.out_labels);
    }
    if (t.gpt2) {
        // the heads' steps count on from the GPT-2 steps before them (the classic lesson's
        // "3a" for W_Q is after its step 2, the embeddings)
        const int by = t.gpt2->layer > 0 ? 2 : 1;
        list.move_numbers(gpt2_steps, by);
        gpt2_after(list, t, *t.gpt2, next + 1 + by);
    }
    auto steps = list.take();
    if (columns) {
        to_columns(steps);
    } else if (t.backward) {
        append_backward_steps(t, steps);  // written in the row layout only
    }
    return steps;
}

}  // namespace attn
