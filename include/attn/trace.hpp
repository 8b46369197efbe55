#pragma once
/// The Trace: every intermediate of one walk-through, and the one list of its steps in
/// teaching order that every renderer walks.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/model.hpp"

namespace attn {

/// Every number of one single-head self-attention walk-through, named as in the lesson.
/// Shapes use the legend of ops.hpp.
struct Trace {
    Config config;
    std::string description;  ///< one line about the lesson; may be empty
    std::string sentence;
    std::vector<std::string> tokens;  ///< T tokens
    Source embeddings_source;
    Source weights_source;

    Matrix x;                  ///< embeddings (T, d_model)
    Matrix w_q;                ///< (d_model, d_k)
    Matrix w_k;                ///< (d_model, d_k)
    Matrix w_v;                ///< (d_model, d_v)
    Matrix q;                  ///< queries (T, d_k) = x · w_q
    Matrix k;                  ///< keys (T, d_k) = x · w_k
    Matrix v;                  ///< values (T, d_v) = x · w_v
    Matrix scores;             ///< (T, T) = q · kᵀ
    double sqrt_d_k = 1.0;     ///< √d_k, the divisor of the scaling step
    Matrix scaled_scores;      ///< (T, T) = scores / √d_k
    std::optional<Mask> mask;  ///< (T, T), true = may attend; absent without a mask
    Matrix masked_scores;      ///< (T, T), -inf where the mask blocks; empty without a mask
    Matrix attention;          ///< the attention weights A (T, T) = softmax of each row
    Matrix output;             ///< Z (T, d_v) = attention · v

    // Facts the explanations quote, computed once with the numbers.
    double variance_scores = 0.0;         ///< of all entries of scores
    double variance_scaled = 0.0;         ///< of all entries of scaled_scores
    std::vector<std::size_t> empty_rows;  ///< rows with every key masked (zero weights)
    std::vector<std::vector<std::size_t>> identical_embeddings;  ///< groups of equal rows of x
    std::vector<std::vector<std::size_t>> identical_outputs;     ///< groups of equal rows of z

    // Column labels: "d0".."d{d_model-1}" for embedding dimensions, "q0".., "k0".., "v0"..,
    // and "z0".. for the output.
    std::vector<std::string> dim_labels, q_labels, k_labels, v_labels, z_labels;
};

/// How a renderer should draw a step's values.
enum class StepKind {
    tokens,    ///< the token list (no matrix)
    matrix,    ///< a matrix of numbers
    mask,      ///< a boolean matrix: 1 = may attend, 0 = blocked
    attention  ///< attention weights: numbers in [0, 1] with a row-sum column
};

/// rows × cols of a matrix.
struct Shape {
    std::size_t rows = 0;
    std::size_t cols = 0;
    friend bool operator==(const Shape&, const Shape&) = default;
};

/// One step of the lesson, as every renderer sees it. Points into the Trace it came from.
struct Step {
    std::string_view id;           ///< stable id used by --steps and the JSON dump, e.g. "scores"
    std::string number;            ///< its place in the lesson, e.g. "5" or "3a"
    std::string_view title;        ///< e.g. "Scores"
    std::string_view symbol;       ///< e.g. "S"
    std::string formula;           ///< e.g. "S = Q · Kᵀ"
    std::string_view explanation;  ///< why the step exists, in plain words
    std::vector<Shape> operands;   ///< the shapes that go in, for "(3×3)·(3×3) → (3×3)"
    Shape shape;                   ///< the shape that comes out
    StepKind kind = StepKind::matrix;
    const Matrix* matrix = nullptr;  ///< for matrix and attention steps
    const Mask* mask = nullptr;      ///< for the mask step
    std::span<const std::string> row_labels;
    std::span<const std::string> col_labels;
};

/// The steps of `trace` in teaching order. Mask steps appear only when a mask is on.
std::vector<Step> teaching_steps(const Trace& trace);

/// Every step id in teaching order, whether or not a given trace has the step.
std::span<const std::string_view> all_step_ids() noexcept;

}  // namespace attn
