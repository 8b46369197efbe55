#include "attn/core/model.hpp"

#include <algorithm>
#include <cmath>

#include "attn/core/error.hpp"
#include "attn/core/random.hpp"

namespace attn {
namespace {

// Rounded to two decimals: std::round and the division are exact or exactly rounded, so
// the result is the same everywhere.
double two_decimals(double x) {
    const double r = std::round(x * 100.0) / 100.0;
    return r == 0.0 ? 0.0 : r;  // no -0.00
}

// A normal number rounded to a whole number from -limit to limit: the by-hand numbers.
double small_integer(double z, double limit) {
    const double r = std::clamp(std::round(z), -limit, limit);
    return r == 0.0 ? 0.0 : r;
}

Matrix seeded_matrix(std::size_t rows, std::size_t cols, double stddev, std::uint64_t seed,
                     std::string_view name, bool hand) {
    Rng rng(stream_seed(seed, "weights", name));
    Matrix m(rows, cols);
    for (double& x : m.data()) {
        const double z = rng.normal();
        x = hand ? small_integer(z, 1.0) : two_decimals(stddev * z);
    }
    return m;
}

void check_size(std::string_view option, std::size_t value, std::size_t max,
                std::string_view meaning) {
    if (value < 1 || value > max) {
        throw errors::bad_size(option, static_cast<long long>(value), 1,
                               static_cast<long long>(max), meaning);  // NOLINT
    }
}

}  // namespace

std::string_view to_string(MaskKind kind) noexcept {
    switch (kind) {
        case MaskKind::causal:
            return "causal";
        case MaskKind::file:
            return "file";
        case MaskKind::none:
            break;
    }
    return "none";
}

std::string_view to_string(PositionKind kind) noexcept {
    switch (kind) {
        case PositionKind::sinusoidal:
            return "sinusoidal";
        case PositionKind::file:
            return "file";
        case PositionKind::none:
            break;
    }
    return "none";
}

Matrix sinusoidal_positions(std::size_t n_tokens, std::size_t d_model) {
    Matrix p(n_tokens, d_model);
    for (std::size_t pos = 0; pos < n_tokens; ++pos) {
        for (std::size_t j = 0; j < d_model; ++j) {
            // columns 2i and 2i+1 share the frequency 1 / 10000^(2i/d_model)
            const double two_i = static_cast<double>(j - j % 2);
            const double angle =
                static_cast<double>(pos) / std::pow(10000.0, two_i / static_cast<double>(d_model));
            p(pos, j) = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    }
    return p;
}

void validate(const Config& config) {
    check_size("--d-model", config.d_model, max_width, "the width of each token's embedding");
    check_size("--heads", config.n_heads, max_heads, "the number of attention heads");
    check_size("--d-k", config.d_k, max_width, "the width of each query and key vector");
    check_size("--d-v", config.d_v, max_width, "the width of each value vector");
    if (config.n_heads * config.d_k > max_width || config.n_heads * config.d_v > max_width) {
        throw Error(ErrorKind::usage,
                    "--heads × --d-k is " + std::to_string(config.n_heads * config.d_k) +
                        " and --heads × --d-v " + std::to_string(config.n_heads * config.d_v) +
                        ", expected at most " + std::to_string(max_width) +
                        " (the width of all heads together)");
    }
}

Matrix seeded_embeddings(const std::vector<std::string>& tokens, std::size_t d_model,
                         std::uint64_t seed, bool hand) {
    Matrix x(tokens.size(), d_model);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        Rng rng(stream_seed(seed, "embedding", tokens[i]));
        for (double& value : x.row(i)) {
            const double z = rng.normal();
            value = hand ? small_integer(z, 2.0) : two_decimals(z);
        }
    }
    return x;
}

std::string_view to_string(Arith arith) noexcept {
    return arith == Arith::hand ? "hand" : "exact";
}

double hand_divisor(std::size_t d_k) noexcept {
    return std::max(1.0, std::round(std::sqrt(static_cast<double>(d_k))));
}

Weights seeded_weights(const Config& c) {
    const double stddev = 1.0 / std::sqrt(static_cast<double>(c.d_model));
    const std::size_t width_k = c.n_heads * c.d_k;
    const std::size_t width_v = c.n_heads * c.d_v;
    Weights w;
    const bool hand = c.arith == Arith::hand;
    w.w_q = seeded_matrix(c.d_model, width_k, stddev, c.seed, "W_Q", hand);
    w.w_k = seeded_matrix(c.d_model, width_k, stddev, c.seed, "W_K", hand);
    w.w_v = seeded_matrix(c.d_model, width_v, stddev, c.seed, "W_V", hand);
    if (c.n_heads > 1) {
        const double o_stddev = 1.0 / std::sqrt(static_cast<double>(width_v));
        w.w_o = seeded_matrix(width_v, c.d_model, o_stddev, c.seed, "W_O", hand);
    }
    return w;
}

}  // namespace attn
