#include "attn/core/model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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

}  // namespace

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
    check_limit(Field::d_model, static_cast<long long>(config.d_model));
    check_limit(Field::n_heads, static_cast<long long>(config.n_heads));
    check_limit(Field::d_k, static_cast<long long>(config.d_k));
    check_limit(Field::d_v, static_cast<long long>(config.d_v));
    if (config.n_heads * config.d_k > max_width || config.n_heads * config.d_v > max_width) {
        throw Error(ErrorKind::usage, Field::n_heads,
                    fmt::format("{} × d_k is {} and {} × d_v {}, expected at most {} (the width "
                                "of all heads together)",
                                subject, config.n_heads * config.d_k, subject,
                                config.n_heads * config.d_v, max_width));
    }
}

Matrix seeded_rows(const std::vector<std::string>& names, std::size_t width, std::uint64_t seed,
                   std::string_view domain, bool hand) {
    Matrix x(names.size(), width);
    for (std::size_t i = 0; i < names.size(); ++i) {
        Rng rng(stream_seed(seed, domain, names[i]));
        for (double& value : x.row(i)) {
            const double z = rng.normal();
            value = hand ? small_integer(z, 2.0) : two_decimals(z);
        }
    }
    return x;
}

Matrix seeded_embeddings(const std::vector<std::string>& tokens, std::size_t d_model,
                         std::uint64_t seed, bool hand) {
    return seeded_rows(tokens, d_model, seed, "embedding", hand);
}

double hand_divisor(std::size_t width) noexcept {
    return std::max(1.0, std::round(std::sqrt(static_cast<double>(width))));
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
