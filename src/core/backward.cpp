// The backward pass: one function per gradient, in the reverse order of the forward steps.
// Shapes use the legend of ops.hpp: T tokens, d_model, d_k, d_v, H heads; d_out is d_v with
// one plain head, d_model with an output projection.
#include "attn/core/backward.hpp"

#include <cmath>

#include <fmt/format.h>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/trace.hpp"

namespace attn {
namespace {

// out[:, begin:begin+n] = part
void put_columns(Matrix& out, const Matrix& part, std::size_t begin) {
    for (std::size_t r = 0; r < part.rows(); ++r) {
        for (std::size_t c = 0; c < part.cols(); ++c) {
            out(r, begin + c) = part(r, c);
        }
    }
}

// db (1, n) = the sum of each column of d (T, n): a bias is added to every row, so its
// gradient is what every row's gradient sends back to it
Matrix column_sums(const Matrix& d) {
    Matrix out(1, d.cols());
    for (std::size_t r = 0; r < d.rows(); ++r) {
        for (std::size_t c = 0; c < d.cols(); ++c) {
            out(0, c) += d(r, c);
        }
    }
    return out;
}

// One head backwards, from dZ_h (T, d_v) to the gradients of its projections.
HeadGrads head_backward(const Trace& t, const Head& head, Matrix d_output) {
    HeadGrads g;
    g.d_output = std::move(d_output);
    // Z (T, d_v) = A (T, T) · V (T, d_v), so dA (T, T) = dZ · Vᵀ and dV (T, d_v) = Aᵀ · dZ
    g.d_weights = matmul_transposed(g.d_output, head.v);
    g.d_v = matmul(transpose(head.attention), g.d_output);
    // A = softmax(S′) row by row
    g.d_scaled = softmax_rows_backward(head.attention, g.d_weights);
    // S′ = S / divisor (a masked cell's dS′ is already 0: it stays 0)
    g.d_scores = g.d_scaled;
    const double divisor = t.rule.divisor();
    for (double& value : g.d_scores.data()) {
        value /= divisor;
    }
    // S (T, T) = Q (T, d_k) · Kᵀ, so dQ (T, d_k) = dS · K and dK (T, d_k) = dSᵀ · Q
    g.d_q = matmul(g.d_scores, head.k);
    g.d_k = matmul(transpose(g.d_scores), head.q);
    if (!t.qkv_given) {
        // Q (T, d_k) = X′ (T, d_model) · W_Q_h (d_model, d_k), so dW_Q_h = X′ᵀ · dQ
        const Matrix x_t = transpose(t.x_in);
        g.d_w_q = matmul(x_t, g.d_q);
        g.d_w_k = matmul(x_t, g.d_k);
        g.d_w_v = matmul(x_t, g.d_v);
    }
    for (std::size_t r = 0; r < head.attention.rows(); ++r) {
        double largest = 0.0;
        double in = 0.0;
        double out = 0.0;
        for (std::size_t c = 0; c < head.attention.cols(); ++c) {
            largest = std::max(largest, head.attention(r, c));
            in += std::abs(g.d_weights(r, c));
            out += std::abs(g.d_scaled(r, c));
        }
        g.max_weight.push_back(largest);
        g.d_weights_mass.push_back(in);
        g.d_scaled_mass.push_back(out);
    }
    return g;
}

// The input that gives the trace's numbers, with the weights of `b` after the update.
Input updated_input(const Trace& t, const Backward& b) {
    Input in;
    static_cast<Provenance&>(in) = static_cast<const Provenance&>(t);  // its metadata only
    in.x = t.x;
    in.positions = t.positions;
    in.mask = t.mask;  // already with its padding; and-ing it again changes nothing
    in.weights = b.updated;
    return in;
}

}  // namespace

std::size_t backward_bytes(std::size_t d_model, std::size_t n_heads, std::size_t d_k,
                           std::size_t d_v, std::size_t n_tokens) noexcept {
    const std::size_t t = n_tokens;
    // per head: dA, dS′, dS and Aᵀ (T, T); dZ, dV, dQ, dK, (T, d); dW_Q, dW_K, dW_V
    const std::size_t per_head = 4 * t * t + t * (2 * d_k + 2 * d_v) + d_model * (2 * d_k + d_v);
    // the target, dO, dZ, dX, the full gradients and the updated weights, twice over
    const std::size_t shared = 4 * t * d_model + 4 * d_model * n_heads * (2 * d_k + d_v);
    return sizeof(double) * (n_heads * per_head + shared);
}

Matrix stepped(const Matrix& w, const Matrix& d_w, double lr) {
    Matrix out = w;
    for (std::size_t i = 0; i < out.size(); ++i) {
        out.data()[i] -= lr * d_w.data()[i];
    }
    return out;
}

double mse_loss(const Matrix& output, const Matrix& target, std::span<const std::size_t> graded) {
    double sum = 0.0;
    if (graded.empty()) {
        for (std::size_t i = 0; i < output.size(); ++i) {
            const double e = output.data()[i] - target.data()[i];
            sum += e * e;
        }
        return sum / static_cast<double>(output.size());
    }
    for (const std::size_t r : graded) {
        for (std::size_t c = 0; c < output.cols(); ++c) {
            const double e = output(r, c) - target(r, c);
            sum += e * e;
        }
    }
    return sum / static_cast<double>(graded.size() * output.cols());
}

Matrix mse_loss_backward(const Matrix& output, const Matrix& target,
                         std::span<const std::size_t> graded) {
    Matrix d(output.rows(), output.cols());
    if (graded.empty()) {
        const auto n = static_cast<double>(output.size());
        for (std::size_t i = 0; i < output.size(); ++i) {
            d.data()[i] = 2.0 * (output.data()[i] - target.data()[i]) / n;
        }
        return d;
    }
    // a row the loss does not grade does not reach L: its gradient is 0
    const auto n = static_cast<double>(graded.size() * output.cols());
    for (const std::size_t r : graded) {
        for (std::size_t c = 0; c < output.cols(); ++c) {
            d(r, c) = 2.0 * (output(r, c) - target(r, c)) / n;
        }
    }
    return d;
}

Matrix softmax_rows_backward(const Matrix& weights, const Matrix& d_weights) {
    // a_ij = e^s_ij / Σ_k e^s_ik, so ∂a_ij/∂s_il = a_ij (δ_jl − a_il), and
    // dS′_il = Σ_j dA_ij a_ij (δ_jl − a_il) = a_il (dA_il − Σ_j dA_ij a_ij)
    Matrix d(weights.rows(), weights.cols());
    for (std::size_t r = 0; r < weights.rows(); ++r) {
        double dot = 0.0;
        for (std::size_t c = 0; c < weights.cols(); ++c) {
            dot += d_weights(r, c) * weights(r, c);
        }
        for (std::size_t c = 0; c < weights.cols(); ++c) {
            d(r, c) = weights(r, c) * (d_weights(r, c) - dot);
        }
    }
    return d;
}

void check_target(const Matrix& target, std::size_t rows, std::size_t cols, const std::string& path,
                  const std::string& what) {
    if (target.rows() != rows || target.cols() != cols) {
        throw Error(ErrorKind::input,
                    fmt::format("{}: \"target\" is {}×{}, expected {}×{}: one row per token "
                                "and one column per {}",
                                path, target.rows(), target.cols(), rows, cols, what));
    }
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            if (!std::isfinite(target(r, c))) {
                throw Error(ErrorKind::input,
                            fmt::format("{}: \"target\"[{}][{}] is {}, expected a finite number",
                                        path, r, c, target(r, c)));
            }
        }
    }
}

Backward backward_pass(const Trace& t, Matrix d_output) {
    Backward b;
    b.d_output = std::move(d_output);

    const auto& c = t.config;
    const bool projected = t.projected;
    const std::size_t n_heads = t.heads.size();
    if (projected) {
        // O (T, d_model) = Z (T, H·d_v) · W_O (H·d_v, d_model) + b_O:
        // dW_O = Zᵀ · dO, db_O = column sums of dO, dZ = dO · W_Oᵀ
        b.d_w_o = matmul(transpose(t.concat), b.d_output);
        if (!t.b_o.empty()) {
            b.d_b_o = column_sums(b.d_output);
        }
        b.d_concat = matmul_transposed(b.d_output, t.w_o);
    }
    for (std::size_t h = 0; h < n_heads; ++h) {
        const Head& head = t.heads[h];
        b.heads.push_back(head_backward(
            t, head, projected ? columns(b.d_concat, head.v_begin, c.d_v) : b.d_output));
    }
    if (!t.qkv_given) {
        b.d_w_q = Matrix(t.w_q.rows(), t.w_q.cols());
        b.d_w_k = Matrix(t.w_k.rows(), t.w_k.cols());
        b.d_w_v = Matrix(t.w_v.rows(), t.w_v.cols());
        b.d_x = Matrix(t.x_in.rows(), t.x_in.cols());
        for (std::size_t h = 0; h < n_heads; ++h) {
            const Head& head = t.heads[h];
            const HeadGrads& g = b.heads[h];
            put_columns(b.d_w_q, g.d_w_q, head.k_begin);
            put_columns(b.d_w_k, g.d_w_k, head.k_begin);
            put_columns(b.d_w_v, g.d_w_v, head.v_begin);
            // X′ feeds every head three times: its gradient is the sum of all of them
            add_to(b.d_x, matmul_transposed(g.d_q, head.w_q));
            add_to(b.d_x, matmul_transposed(g.d_k, head.w_k));
            add_to(b.d_x, matmul_transposed(g.d_v, head.w_v));
        }
        const auto bias_grad = [&](const Matrix& bias, std::size_t width, auto member) {
            if (bias.empty()) {
                return Matrix();
            }
            Matrix out(1, bias.cols());
            for (std::size_t h = 0; h < n_heads; ++h) {
                const Matrix part = column_sums(b.heads[h].*member);
                put_columns(out, part, h * width);
            }
            return out;
        };
        b.d_b_q = bias_grad(t.b_q, c.d_k, &HeadGrads::d_q);
        b.d_b_k = bias_grad(t.b_k, c.d_k, &HeadGrads::d_k);
        b.d_b_v = bias_grad(t.b_v, c.d_v, &HeadGrads::d_v);
    }
    return b;
}

Backward backward(const Trace& t, const Matrix& target, const std::string& target_path,
                  std::optional<double> lr) {
    if (t.rule.arith == Arith::hand) {
        throw Error(ErrorKind::usage,
                    "the backward pass needs --arith exact: the by-hand rules round the scaled "
                    "scores down (⌊S/r⌋), a step whose gradient is 0 everywhere it is defined, "
                    "so no gradient would reach Q, K or the weights");
    }
    if (t.rule.over != SoftmaxOver::rows) {
        throw Error(ErrorKind::usage,
                    "the backward pass is written for softmax over rows, the right rule, "
                    "expected --softmax-over rows");
    }
    const bool projected = t.projected;
    check_target(target, t.output.rows(), t.output.cols(), target_path,
                 projected ? "column of the output O (d_model)" : "column of the output Z (d_v)");
    if (lr && t.qkv_given) {
        throw Error(ErrorKind::usage,
                    "--lr updates the weights, and a run that starts from given Q, K and V "
                    "has none, expected --backward without --lr");
    }
    if (lr && !std::isfinite(*lr)) {
        throw Error(ErrorKind::usage, "--lr must be a finite number");
    }

    Backward b = backward_pass(t, mse_loss_backward(t.output, target));
    b.target_path = target_path;
    b.target = target;
    for (std::size_t c = 0; c < target.cols(); ++c) {
        b.target_labels.push_back(fmt::format("y{}", c));
    }
    b.loss = Matrix(1, 1, mse_loss(t.output, target));
    if (!std::isfinite(b.loss(0, 0)) && target.cols() > 0) {
        // finite numbers, but a difference whose square passes the largest double: name the
        // cell with the largest difference
        std::size_t worst = 0;
        for (std::size_t i = 1; i < target.size(); ++i) {
            if (std::abs(t.output.data()[i] - target.data()[i]) >
                std::abs(t.output.data()[worst] - target.data()[worst])) {
                worst = i;
            }
        }
        const std::size_t r = worst / target.cols();
        const std::size_t c = worst % target.cols();
        const char* out = projected ? "O" : "Z";
        throw Error(ErrorKind::input,
                    fmt::format("{}: \"target\"[{}][{}] is {:g} and {}[{}, {}] is {:g}: the "
                                "loss, the mean of ({} − Y)², overflows to infinity (a double "
                                "holds at most about 1.8e308), expected numbers that differ by "
                                "less than about 1e154",
                                target_path, r, c, target(r, c), out, r, c, t.output(r, c), out));
    }

    if (lr) {
        b.lr = lr;
        const auto step = [&](const Matrix& w, const Matrix& d_w) {
            return w.empty() ? Matrix() : stepped(w, d_w, *lr);
        };
        Weights& w = b.updated;
        w.w_q = step(t.w_q, b.d_w_q);
        w.w_k = step(t.w_k, b.d_w_k);
        w.w_v = step(t.w_v, b.d_w_v);
        w.w_o = step(t.w_o, b.d_w_o);
        w.b_q = step(t.b_q, b.d_b_q);
        w.b_k = step(t.b_k, b.d_b_k);
        w.b_v = step(t.b_v, b.d_b_v);
        w.b_o = step(t.b_o, b.d_b_o);
        const Trace after = forward(updated_input(t, b), t.config);
        b.loss_after = mse_loss(after.output, target);
    }
    return b;
}

Trace with_backward(Trace trace, const Matrix& target, const std::string& target_path,
                    std::optional<double> lr) {
    trace.backward = backward(trace, target, target_path, lr);
    trace.index_steps();
    return trace;
}

}  // namespace attn
