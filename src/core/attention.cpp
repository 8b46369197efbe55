// The single-head self-attention pipeline: one function per step of the lesson.
// Shapes use the legend of ops.hpp: T tokens, d_model, d_k, d_v.
#include "attn/attention.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "attn/error.hpp"
#include "attn/ops.hpp"

namespace attn {
namespace {

std::vector<std::string> numbered(std::string_view prefix, std::size_t n) {
    std::vector<std::string> labels;
    labels.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        labels.push_back(std::string(prefix) + std::to_string(i));
    }
    return labels;
}

// Groups of two or more rows of m that are exactly equal, each group in index order and the
// groups ordered by their first index. Sorting rows costs O(T log T · width), not O(T² · width).
std::vector<std::vector<std::size_t>> identical_rows(const Matrix& m) {
    std::vector<std::size_t> order(m.rows());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto less = [&m](std::size_t a, std::size_t b) {
        const auto ra = m.row(a);
        const auto rb = m.row(b);
        if (std::lexicographical_compare(ra.begin(), ra.end(), rb.begin(), rb.end())) {
            return true;
        }
        if (std::lexicographical_compare(rb.begin(), rb.end(), ra.begin(), ra.end())) {
            return false;
        }
        return a < b;
    };
    std::sort(order.begin(), order.end(), less);
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i + 1;
        while (j < order.size() && std::ranges::equal(m.row(order[i]), m.row(order[j]))) {
            ++j;
        }
        if (j - i > 1) {
            groups.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(i),
                                order.begin() + static_cast<std::ptrdiff_t>(j));
        }
        i = j;
    }
    std::sort(groups.begin(), groups.end());
    return groups;
}

double largest_magnitude(const Matrix& m) {
    double largest = 0.0;
    for (double x : m.data()) {
        largest = std::max(largest, std::abs(x));
    }
    return largest;
}

// Every number attn prints must be a real number: a product that overflows to infinity (and
// the NaN that infinity - infinity makes in softmax) is an input error, never output.
void check_finite(const Matrix& m, std::string_view name, const std::vector<std::string>& rows,
                  const std::vector<std::string>& cols, const Input& in) {
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            if (std::isfinite(m(r, c))) {
                continue;
            }
            const double largest =
                std::max({largest_magnitude(in.x), largest_magnitude(in.weights.w_q),
                          largest_magnitude(in.weights.w_k), largest_magnitude(in.weights.w_v)});
            std::array<char, 32> shown{};
            std::snprintf(shown.data(), shown.size(), "%.3g", largest);
            throw Error(ErrorKind::input,
                        std::string(name) + "[" + rows[r] + ", " + cols[c] +
                            "] overflows to infinity (a double holds at most about 1.8e308), "
                            "expected finite numbers\n  hint: the embeddings and weights hold "
                            "numbers as large as " +
                            std::string(shown.data()) + "; scale them down");
        }
    }
}

void check_shapes(const Input& in, const Config& config) {
    const auto n_tokens = in.tokens.size();
    if (n_tokens > max_tokens) {
        throw errors::bad_size("the number of tokens", static_cast<long long>(n_tokens), 1,
                               static_cast<long long>(max_tokens), "the length of the sentence");
    }
    if (in.x.rows() != n_tokens || in.x.cols() != config.d_model) {
        throw errors::shape_mismatch("the embeddings", "X", in.x.rows(), in.x.cols(),
                                     "tokens × d_model", n_tokens, config.d_model);
    }
    const auto check = [&](std::string_view name, const Matrix& w, std::size_t cols,
                           std::string_view expected) {
        if (w.rows() != config.d_model || w.cols() != cols) {
            throw errors::shape_mismatch("the weights", name, w.rows(), w.cols(), expected,
                                         config.d_model, cols);
        }
    };
    check("W_Q", in.weights.w_q, config.d_k, "d_model × d_k");
    check("W_K", in.weights.w_k, config.d_k, "d_model × d_k");
    check("W_V", in.weights.w_v, config.d_v, "d_model × d_v");
}

}  // namespace

Input seeded_input(std::string_view sentence, const Config& config) {
    validate(config);
    Input in;
    in.sentence = std::string(sentence);
    in.tokens = tokenize(sentence, config.tokenizer);
    if (in.tokens.size() > max_tokens) {
        throw errors::bad_size("the number of tokens", static_cast<long long>(in.tokens.size()), 1,
                               static_cast<long long>(max_tokens), "the length of the sentence");
    }
    in.x = seeded_embeddings(in.tokens, config.d_model, config.seed);
    in.weights = seeded_weights(config.d_model, config.d_k, config.d_v, config.seed);
    return in;
}

Trace explain(const Input& input, const Config& config) {
    validate(config);
    check_shapes(input, config);

    Trace t;
    t.config = config;
    t.description = input.description;
    t.sentence = input.sentence;
    t.tokens = input.tokens;
    t.embeddings_source = input.embeddings_source;
    t.weights_source = input.weights_source;
    t.dim_labels = numbered("d", config.d_model);
    t.q_labels = numbered("q", config.d_k);
    t.k_labels = numbered("k", config.d_k);
    t.v_labels = numbered("v", config.d_v);
    t.z_labels = numbered("z", config.d_v);

    // Steps 1-3: tokens, embeddings X (T, d_model), weights W_Q, W_K (d_model, d_k),
    // W_V (d_model, d_v): the inputs, recorded as given.
    t.x = input.x;
    t.w_q = input.weights.w_q;
    t.w_k = input.weights.w_k;
    t.w_v = input.weights.w_v;

    // Step 4: projections. q (T, d_k) = x (T, d_model) · w_q (d_model, d_k), likewise k, v.
    t.q = matmul(t.x, t.w_q);
    t.k = matmul(t.x, t.w_k);
    t.v = matmul(t.x, t.w_v);

    // Step 5: scores (T, T) = q (T, d_k) · kᵀ (d_k, T).
    t.scores = matmul_transposed(t.q, t.k);

    // Step 6: scaled scores (T, T) = scores / √d_k. Dividing (not multiplying by 1/√d_k)
    // keeps each cell equal to the worked arithmetic "s / √d_k" to the last bit.
    t.sqrt_d_k = std::sqrt(static_cast<double>(config.d_k));
    t.scaled_scores = t.scores;
    for (double& s : t.scaled_scores.data()) {
        s /= t.sqrt_d_k;
    }
    t.variance_scores = variance(t.scores);
    t.variance_scaled = variance(t.scaled_scores);

    // Step 7: the mask (T, T) and the masked scores, -inf where a key is blocked.
    const Matrix* logits = &t.scaled_scores;
    if (config.mask == MaskKind::causal) {
        t.mask = causal_mask(t.tokens.size());
        t.masked_scores = apply_mask(t.scaled_scores, *t.mask);
        logits = &t.masked_scores;
    }

    check_finite(t.q, "Q", t.tokens, t.q_labels, input);
    check_finite(t.k, "K", t.tokens, t.k_labels, input);
    check_finite(t.v, "V", t.tokens, t.v_labels, input);
    check_finite(t.scores, "S", t.tokens, t.tokens, input);
    check_finite(t.scaled_scores, "S′", t.tokens, t.tokens, input);

    // Step 8: attention weights (T, T) = softmax of each row, stable.
    auto softmax = softmax_rows(*logits);
    t.attention = std::move(softmax.weights);
    t.empty_rows = std::move(softmax.empty_rows);

    // Step 9: output (T, d_v) = attention (T, T) · v (T, d_v).
    t.output = matmul(t.attention, t.v);
    check_finite(t.output, "Z", t.tokens, t.z_labels, input);

    t.identical_embeddings = identical_rows(t.x);
    t.identical_outputs = identical_rows(t.output);
    return t;
}

}  // namespace attn
