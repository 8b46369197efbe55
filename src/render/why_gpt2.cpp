// --why on a GPT-2 checkpoint's own steps: the embeddings, the layers below, the residual
// stream, LayerNorm ln_1, and where each weight comes from in c_attn and c_proj. The head
// steps (Q, K, V, scores, scaling, mask, softmax, Z, the concatenation, O) are the lesson's
// own and are written by why.cpp. Every number written here is one the Trace holds, and
// every result is the value the core computed, in the order it computed it.
#include <array>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "attn/core/gpt2.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"
#include "why.hpp"

namespace attn::why {

std::string Why::symbol_of(std::string_view id) const {
    const Step* step = find_step(t_, id, cell_.layout);
    return step == nullptr ? std::string(id)
                           : notation::symbol(step->symbol, notation::Style::unicode);
}

bool Why::gpt2(const Step& step, std::size_t i, std::size_t j, double value) {
    const Gpt2Walk& g = *t_.gpt2;
    const Gpt2Config& c = g.config;
    const std::string& row = shown_row_;
    const std::string& col = shown_col_;
    const std::string me = notation::symbol(step.symbol, notation::Style::unicode);
    const std::string layer_name = g.prefix + gpt2_name(g.layer, "");
    const auto tensor = [&](std::string_view part) { return layer_name + std::string(part); };
    const std::string from =
        fmt::format("read from the checkpoint {}", toolkit::terminal(g.source));
    // "H_1[He, d0] + O[He, d0] = 1 + 2 = 3."
    const auto added = [&](std::string_view a_id, double a, std::string_view b_id, double b) {
        const int at = operand_decimals({a, b}, value, digits(),
                                        [](const std::vector<double>& v) { return v[0] + v[1]; });
        line(fmt::format("{}[{}, {}] = {}[{}, {}] + {}[{}, {}] = {} + {} = {}.", me, row, col,
                         symbol_of(a_id), row, col, symbol_of(b_id), row, col, num_at(a, at),
                         paren_at(b, at), num(value)));
    };
    // c_attn's weight and bias hold W_Q, W_K and W_V side by side: the block of a step
    const auto block_of = [](StepOp op) -> std::size_t {
        return op == StepOp::w_q || op == StepOp::b_q || op == StepOp::head_w_q   ? 0
               : op == StepOp::w_k || op == StepOp::b_k || op == StepOp::head_w_k ? 1
                                                                                  : 2;
    };
    const std::size_t d = c.n_embd;
    switch (step.op) {
        case StepOp::gpt2_wte: {
            const auto id = g.token_ids[i];
            line(fmt::format(
                "{}[{}, {}] = wte[{}, {}]: '{}' is token id {}, so its row of the token "
                "embeddings is row {} of {}wte.weight ({} rows, one per token of the "
                "vocabulary), {}.",
                me, row, col, id, j, row, id, id, g.prefix, c.vocab_size, from));
            return true;
        }
        case StepOp::gpt2_wpe:
            line(fmt::format(
                "{}[{}, {}] = wpe[{}, {}]: '{}' stands at position {} (counted from 0), so its "
                "row of the position embeddings is row {} of {}wpe.weight ({} rows, one per "
                "position of the context), {}.",
                me, row, col, i, j, row, i, i, g.prefix, c.n_positions, from));
            return true;
        case StepOp::gpt2_embeddings:
            added("wte", g.wte(i, j), "wpe", g.wpe(i, j));
            return true;
        case StepOp::layer_changes: {
            const std::size_t layer = i / 2;
            const bool attention = i % 2 == 0;
            line(fmt::format(
                "{}[{}, {}] is the length of the vector that layer {}'s {} ({}) added to the "
                "residual vector of '{}': the square root of the sum of its n_embd = {} numbers "
                "squared. attn computes the layers below in full but summarises them, and does "
                "not keep those vectors, so the sum is not written out here.",
                me, row, col, layer + 1, attention ? "attention" : "MLP", row, col, d));
            const double after = g.layer_norms(i, j);
            line(fmt::format(
                "After this change the residual vector of '{}' has length {}{}.", col, num(after),
                after > 0.0 ? fmt::format(", so the change is {} times as long as the vector it "
                                          "left",
                                          num(value / after))
                            : ""));
            return true;
        }
        case StepOp::residual:
            if (g.layer == 0) {
                line(fmt::format(
                    "{}[{}, {}] = {}: layer 1 reads the residual stream as it starts (step "
                    "{}), since no layer comes before it.",
                    me, row, col, num(value), find_step(t_, "embeddings")->number));
            } else {
                const double start = g.embeddings(i, j);
                line(fmt::format(
                    "{}[{}, {}] is {}[{}, {}] plus what the attention and the MLP of {} added "
                    "to it. attn summarises those layers (the lengths of their changes are step "
                    "{}) and does not keep the changes' numbers, so they are not listed here; "
                    "together they changed this number by {}.",
                    me, row, col, symbol_of("embeddings"), row, col,
                    g.layer == 1 ? std::string("the layer below")
                                 : fmt::format("each of the {} layers below", g.layer),
                    find_step(t_, "layers_below")->number,
                    difference(value, start, value - start)));
            }
            return true;
        case StepOp::ln_mean: {
            const auto h = g.residual.row(i);
            line(
                fmt::format("{}[{}] is the mean of row '{}' of {}: its n_embd = {} numbers "
                            "added, then divided by {}.",
                            me, row, row, symbol_of("residual"), d, d));
            std::vector<Term> terms;
            double total = 0.0;
            for (const double v : h) {
                terms.push_back(number(v));
                total += v;
            }
            sum(terms, total);
            line(fmt::format("{}[{}] = {}.", me, row,
                             quotient(total, static_cast<double>(d), value)));
            return true;
        }
        case StepOp::ln_variance: {
            const auto h = g.residual.row(i);
            const double mu = g.ln_mean(i, 0);
            line(fmt::format(
                "{}[{}] is the mean of the squared distances of row '{}' of {} from its mean "
                "μ[{}] = {}: added, then divided by n_embd = {} (not n_embd − 1, as PyTorch's "
                "LayerNorm).",
                me, row, row, symbol_of("residual"), row, num(mu), d));
            std::vector<Term> terms;
            double total = 0.0;
            for (const double v : h) {
                terms.push_back({Term::Kind::square_of_difference, v, mu, {}});
                total += (v - mu) * (v - mu);
            }
            sum(terms, total);
            line(fmt::format("{}[{}] = {}.", me, row,
                             quotient(total, static_cast<double>(d), value)));
            return true;
        }
        case StepOp::ln_gamma:
        case StepOp::ln_beta:
            line(fmt::format("{}[{}] is element {} of {}, LayerNorm's learned {}, {}.", me, col, j,
                             tensor(step.op == StepOp::ln_gamma ? "ln_1.weight" : "ln_1.bias"),
                             step.op == StepOp::ln_gamma ? "scale" : "shift", from));
            return true;
        case StepOp::ln_output: {
            const double h = g.residual(i, j);
            const double mu = g.ln_mean(i, 0);
            const double var = g.ln_variance(i, 0);
            const double eps = c.layer_norm_epsilon;
            const double root = std::sqrt(var + eps);
            const double gamma = g.ln_gamma(0, j);
            const double beta = g.ln_beta(0, j);
            const std::string h_name = symbol_of("residual");
            line(
                fmt::format("{}[{}, {}] = ({}[{}, {}] − μ[{}]) / √(σ²[{}] + ε) · γ[{}] + β[{}], "
                            "with ε = {} from config.json (layer_norm_epsilon):",
                            me, row, col, h_name, row, col, row, row, col, col, num(eps)));
            // the second line's numbers give the value as shown, the first's the second's
            const int second = operand_decimals(
                {h - mu, root, gamma, beta}, value, digits(),
                [](const std::vector<double>& v) { return v[0] / v[1] * v[2] + v[3]; });
            int first = digits();
            for (; first < max_decimals; ++first) {
                const auto at = [first](double x) { return as_shown(x, first); };
                if (format_checkable(at(h) - at(mu), second, false) ==
                        format_checkable(h - mu, second, false) &&
                    format_checkable(std::sqrt(at(var) + at(eps)), second, false) ==
                        format_checkable(root, second, false)) {
                    break;
                }
            }
            list({fmt::format("= ({} − {}) / √({} + {}) · {} + {}", num_at(h, first),
                              paren_at(mu, first), num_at(var, first), num_at(eps, first),
                              paren_at(gamma, second), paren_at(beta, second)),
                  fmt::format("= {} / {} · {} + {}", num_at(h - mu, second), num_at(root, second),
                              paren_at(gamma, second), paren_at(beta, second)),
                  fmt::format("= {}", num(value))});
            return true;
        }
        case StepOp::w_q:
        case StepOp::w_k:
        case StepOp::w_v: {
            const std::size_t block = block_of(step.op);
            line(fmt::format(
                "{}[{}, {}] = c_attn.weight[{}, {}]: {} is columns {} to {} of {} (shape "
                "[n_embd, 3·n_embd] = [{}, {}], GPT-2's Conv1D layout [in, out]: a row per "
                "number of X, so X · W with no transpose), {}.",
                me, row, col, i, block * d + j, me, block * d, block * d + d - 1,
                tensor("attn.c_attn.weight"), d, 3 * d, from));
            return true;
        }
        case StepOp::b_q:
        case StepOp::b_k:
        case StepOp::b_v: {
            const std::size_t block = block_of(step.op);
            line(
                fmt::format("{}[{}] = c_attn.bias[{}]: {} is elements {} to {} of {} ({} "
                            "numbers: b_Q, b_K and b_V one after another), {}.",
                            me, col, block * d + j, me, block * d, block * d + d - 1,
                            tensor("attn.c_attn.bias"), 3 * d, from));
            return true;
        }
        case StepOp::head_w_q:
        case StepOp::head_w_k:
        case StepOp::head_w_v: {
            const std::size_t block = block_of(step.op);
            const Head& head = head_of(t_, step);
            const std::size_t begin = block == 2 ? head.v_begin : head.k_begin;
            const std::size_t width = block == 2 ? t_.config.d_v : t_.config.d_k;
            // the whole W_Q, W_K or W_V the head's slice is cut from, by its block of c_attn
            constexpr std::array<std::string_view, 3> wholes{"W_Q", "W_K", "W_V"};
            const std::string whole = symbol_of(wholes.at(block));
            line(fmt::format(
                "{}[{}, {}] = {}[{}, {}]: head {}'s slice is columns {} to {} of {} (d_head = "
                "n_embd / n_head = {} / {} = {} columns per head), and column {} of {} is column "
                "{} of {}, {}.",
                me, row, col, whole, row, col, step.head, begin, begin + width - 1, whole, d,
                c.n_head, width, begin + j, whole, block * d + begin + j,
                tensor("attn.c_attn.weight"), from));
            return true;
        }
        case StepOp::w_o:
            line(fmt::format(
                "{}[{}, {}] = c_proj.weight[{}, {}]: {} is {} (shape [n_embd, n_embd] = [{}, "
                "{}], Conv1D's [in, out] layout: row {} holds what number {} of the "
                "concatenation Z adds to each output), {}.",
                me, row, col, i, j, me, tensor("attn.c_proj.weight"), d, d, i, i, from));
            return true;
        case StepOp::b_o:
            line(
                fmt::format("{}[{}] = c_proj.bias[{}]: element {} of {}, added to every "
                            "token's output, {}.",
                            me, col, j, j, tensor("attn.c_proj.bias"), from));
            return true;
        case StepOp::residual_attn:
            added("residual", g.residual(i, j), "output", t_.output(i, j));
            return true;
        case StepOp::mlp:
            line(fmt::format(
                "{}[{}, {}] is what the MLP of this layer ({}) adds to this number: "
                "c_proj(gelu(c_fc(ln_2(row '{}' of {})))), computed for each token alone. attn "
                "summarises the MLP and does not keep its inner numbers (ln_2's output and the "
                "n_inner = {} numbers of c_fc and GELU), so the arithmetic is not written out "
                "here.",
                me, row, col, tensor("mlp"), row, symbol_of("residual_attn"), c.n_inner));
            return true;
        case StepOp::residual_mlp:
            added("residual_attn", g.residual_attn(i, j), "mlp", g.mlp(i, j));
            return true;
        default:
            return false;
    }
}

}  // namespace attn::why
