#include "attn/model.hpp"

#include <cmath>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn {
namespace {

// Rounded to two decimals: std::round and the division are exact or exactly rounded, so
// the result is the same everywhere.
double two_decimals(double x) {
    const double r = std::round(x * 100.0) / 100.0;
    return r == 0.0 ? 0.0 : r;  // no -0.00
}

Matrix seeded_matrix(std::size_t rows, std::size_t cols, double stddev, std::uint64_t seed,
                     std::string_view name) {
    Rng rng(stream_seed(seed, "weights", name));
    Matrix m(rows, cols);
    for (double& x : m.data()) {
        x = two_decimals(stddev * rng.normal());
    }
    return m;
}

void check_size(std::string_view option, std::size_t value, std::size_t max,
                std::string_view meaning) {
    if (value < 1 || value > max) {
        throw errors::bad_size(option, static_cast<long long>(value), 1,
                               static_cast<long long>(max), meaning);
    }
}

}  // namespace

std::string_view to_string(MaskKind kind) noexcept {
    return kind == MaskKind::causal ? "causal" : "none";
}

void validate(const Config& config) {
    check_size("--d-model", config.d_model, max_width, "the width of each token's embedding");
    check_size("--d-k", config.d_k, max_width, "the width of each query and key vector");
    check_size("--d-v", config.d_v, max_width, "the width of each value vector");
}

Matrix seeded_embeddings(const std::vector<std::string>& tokens, std::size_t d_model,
                         std::uint64_t seed) {
    Matrix x(tokens.size(), d_model);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        Rng rng(stream_seed(seed, "embedding", tokens[i]));
        for (double& value : x.row(i)) {
            value = two_decimals(rng.normal());
        }
    }
    return x;
}

Weights seeded_weights(std::size_t d_model, std::size_t d_k, std::size_t d_v, std::uint64_t seed) {
    const double stddev = 1.0 / std::sqrt(static_cast<double>(d_model));
    return {seeded_matrix(d_model, d_k, stddev, seed, "W_Q"),
            seeded_matrix(d_model, d_k, stddev, seed, "W_K"),
            seeded_matrix(d_model, d_v, stddev, seed, "W_V")};
}

}  // namespace attn
