// Checking a run's input: its shapes before the pipeline runs, and that every number it
// computes is finite (an overflow is an input error, never output).
#include "input_checks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "attn/core/error.hpp"
#include "attn/core/limits.hpp"

namespace attn {
namespace {

double largest_magnitude(const Matrix& m) {
    double largest = 0.0;
    for (double x : m.data()) {
        largest = std::max(largest, std::abs(x));
    }
    return largest;
}

// Q, K and V given directly: one head, Q and K of one width, one row per token each.
void check_qkv(const Input& in, const Config& config) {
    const auto n_tokens = in.tokens.size();
    const GivenQkv& g = *in.qkv;
    const auto check = [&](std::string_view name, const Matrix& m, std::size_t cols,
                           std::string_view expected) {
        if (m.rows() != n_tokens || m.cols() != cols) {
            throw errors::shape_mismatch(shown(g.path), name, m.rows(), m.cols(), expected,
                                         n_tokens, cols);
        }
    };
    check("Q", g.q, config.d_k, "tokens × d_k");
    check("K", g.k, config.d_k, "tokens × d_k (as wide as Q)");
    check("V", g.v, config.d_v, "tokens × d_v");
    if (config.n_heads != 1 || config.n_pad > 0 || !in.positions.empty()) {
        throw Error(ErrorKind::internal, "Q, K and V given with heads, padding or positions");
    }
}

}  // namespace

// Every number attn prints must be a real number: a product that overflows to infinity (and
// the NaN that infinity - infinity makes in softmax) is an input error, never output.
void check_finite(const Matrix& m, std::string_view name, const std::vector<std::string>& rows,
                  const std::vector<std::string>& cols, const Trace& t, const Input& in) {
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            if (std::isfinite(m(r, c))) {
                continue;
            }
            double largest = std::max({largest_magnitude(t.x), largest_magnitude(t.positions),
                                       largest_magnitude(t.w_q), largest_magnitude(t.w_k),
                                       largest_magnitude(t.w_v)});
            if (in.qkv) {
                largest = std::max({largest, largest_magnitude(in.qkv->q),
                                    largest_magnitude(in.qkv->k), largest_magnitude(in.qkv->v)});
            }
            std::array<char, 32> shown{};
            (void)std::snprintf(shown.data(), shown.size(), "%.3g", largest);
            throw Error(ErrorKind::input,
                        std::string(name) + "[" + rows[r] + ", " + cols[c] +
                            "] overflows to infinity (a double holds at most about 1.8e308), "
                            "expected finite numbers\n  hint: " +
                            (in.qkv ? std::string("Q, K and V (--qkv) hold")
                                    : std::string("the embeddings and weights hold")) +
                            " numbers as large as " + std::string(shown.data()) +
                            "; scale them down");
        }
    }
}

void check_shapes(const Input& in, const Config& config) {
    const auto n_tokens = in.tokens.size();
    check_limit(Field::tokens, static_cast<long long>(n_tokens));
    if (in.mask && (in.mask->rows() != n_tokens || in.mask->cols() != n_tokens)) {
        throw errors::shape_mismatch("the mask", "M", in.mask->rows(), in.mask->cols(),
                                     "tokens × tokens", n_tokens, n_tokens);
    }
    if (in.qkv) {
        check_qkv(in, config);
        return;
    }
    if (in.x.rows() != n_tokens || in.x.cols() != config.d_model) {
        throw errors::shape_mismatch("the embeddings", "X", in.x.rows(), in.x.cols(),
                                     "tokens × d_model", n_tokens, config.d_model);
    }
    if (!in.positions.empty() &&
        (in.positions.rows() != n_tokens || in.positions.cols() != config.d_model)) {
        throw errors::shape_mismatch("the positions", "P", in.positions.rows(), in.positions.cols(),
                                     "tokens × d_model", n_tokens, config.d_model);
    }
    if (config.n_pad >= n_tokens) {
        throw Error(ErrorKind::internal, "padding without any real token");
    }
    const std::size_t width_k = config.n_heads * config.d_k;
    const std::size_t width_v = config.n_heads * config.d_v;
    const auto check = [](std::string_view name, const Matrix& w, std::size_t rows,
                          std::size_t cols, std::string_view expected) {
        if (w.rows() != rows || w.cols() != cols) {
            throw errors::shape_mismatch("the weights", name, w.rows(), w.cols(), expected, rows,
                                         cols);
        }
    };
    const auto& w = in.weights;
    check("W_Q", w.w_q, config.d_model, width_k, "d_model × (heads·d_k)");
    check("W_K", w.w_k, config.d_model, width_k, "d_model × (heads·d_k)");
    check("W_V", w.w_v, config.d_model, width_v, "d_model × (heads·d_v)");
    if (!w.w_o.empty()) {
        check("W_O", w.w_o, width_v, config.d_model, "(heads·d_v) × d_model");
    } else if (config.n_heads > 1) {
        throw Error(ErrorKind::input, "the weights have no W_O, expected one with " +
                                          std::to_string(config.n_heads) +
                                          " heads (it mixes the heads' outputs)");
    }
    const auto check_bias = [&](std::string_view name, const Matrix& b, std::size_t cols) {
        if (!b.empty()) {
            check(name, b, 1, cols, "1 × its matrix's columns");
        }
    };
    check_bias("b_Q", w.b_q, width_k);
    check_bias("b_K", w.b_k, width_k);
    check_bias("b_V", w.b_v, width_v);
    check_bias("b_O", w.b_o, config.d_model);
    if (!w.b_o.empty() && w.w_o.empty()) {
        throw Error(ErrorKind::input, "the weights have b_O but no W_O, expected W_O with it");
    }
}

}  // namespace attn
