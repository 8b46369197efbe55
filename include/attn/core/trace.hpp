#pragma once
/// The Trace: every intermediate of one walk-through, and the one list of its steps in
/// teaching order that every renderer walks. Steps carry numbers, shapes, symbols and
/// formulas as data; the words that explain them live in render.

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/backward.hpp"
#include "attn/core/formula.hpp"
#include "attn/core/gpt2.hpp"
#include "attn/core/matrix.hpp"
#include "attn/core/model.hpp"
#include "attn/core/variance.hpp"
#include "attn/core/weights_rule.hpp"

namespace attn {

struct Comparison;  // attn/core/whatif.hpp

/// Every number of one attention head. Shapes use the legend of ops.hpp; d_k and d_v are
/// one head's widths.
struct Head {
    std::size_t index = 0;        ///< 0-based; printed 1-based ("head 1")
    std::size_t k_begin = 0;      ///< this head's first column in W_Q and W_K
    std::size_t v_begin = 0;      ///< this head's first column in W_V
    Matrix w_q;                   ///< its slice of W_Q (d_model, d_k)
    Matrix w_k;                   ///< its slice of W_K (d_model, d_k)
    Matrix w_v;                   ///< its slice of W_V (d_model, d_v)
    Matrix q;                     ///< queries (T, d_k) = x · w_q (+ b_q)
    Matrix k;                     ///< keys (T, d_k) = x · w_k (+ b_k)
    Matrix v;                     ///< values (T, d_v) = x · w_v (+ b_v)
    Matrix scores;                ///< (T, T) = q · kᵀ
    Matrix scaled_scores;         ///< (T, T) = the trace's rule applied to scores
    Matrix masked_scores;         ///< (T, T), -inf where the mask blocks; empty without a mask
    Matrix attention;             ///< the attention weights A (T, T) = softmax as the rule says
    Matrix output;                ///< Z (T, d_v) = attention · v
    std::vector<double> q_norms;  ///< the length |q_i| of each query (for the cosine)
    std::vector<double> k_norms;  ///< the length |k_j| of each key
    Variance variance_q;          ///< of all entries of q
    Variance variance_k;          ///< of all entries of k
    Variance variance_scores;     ///< of all entries of scores
    Variance variance_scaled;     ///< of all finite entries of scaled_scores
    /// Of the scores scaled as the right rule scales them, in this run's arithmetic (S / √d_k,
    /// or ⌊S / r⌋ by hand): what a run that scales otherwise (or not at all) compares with.
    Variance variance_right_scaled;
    std::vector<std::size_t> empty_rows;  ///< rows with every key masked (zero weights)
    /// With softmax over columns (--softmax-over columns): keys that every query is blocked
    /// from, whose column has no softmax (zero weights). With softmax over the whole matrix,
    /// every cell masked is `all_masked`.
    std::vector<std::size_t> empty_columns;
    bool all_masked = false;
    /// With --arith hand: the weights exact arithmetic would give, and the largest difference.
    Matrix exact_attention;
    double hand_difference = 0.0;
    /// When the rule is not the right one (scaling by √d_model or not at all, softmax over
    /// columns or the whole matrix): the weights the right rule (√d_k, each row) gives, and the
    /// largest difference between the output and the output those weights would give.
    Matrix correct_attention;
    double correct_output_difference = 0.0;
    /// The sum of each row and of each column of the attention weights.
    std::vector<double> row_sums, col_sums;
    /// Without scaling, per row: the largest weight and the entropy (in nats) of the weights
    /// as computed, and of the weights scaling by √d_k would have given. Empty otherwise.
    std::vector<double> max_weight, entropy, scaled_max_weight, scaled_entropy;
    std::vector<std::string> q_labels, k_labels, v_labels, z_labels;  ///< "q0".., "k0"..
};

/// How a renderer should draw a step's values.
enum class StepKind {
    tokens,    ///< the token list (no matrix)
    matrix,    ///< a matrix of numbers
    mask,      ///< a boolean matrix: 1 = may attend, 0 = blocked
    attention  ///< attention weights: numbers in [0, 1] with a sum column
};

/// What a step computes; renderers choose its title and explanation by it.
enum class StepOp {
    tokens,
    embeddings,
    positions,
    with_positions,
    w_q,  ///< the full W_Q (all heads side by side); likewise w_k, w_v
    w_k,
    w_v,
    b_q,  ///< the full biases
    b_k,
    b_v,
    head_w_q,  ///< one head's slice of W_Q; likewise head_w_k, head_w_v
    head_w_k,
    head_w_v,
    q,
    k,
    v,
    scores,
    scaled_scores,
    mask,
    masked_scores,
    weights,
    correct_weights,  ///< the right weights, beside weights computed with a mistake
    output,           ///< one head's Z = A · V (the output, with one plain head)
    concat,
    w_o,
    b_o,
    projected_output,  ///< O = Z · W_O (+ b_O)
    // the backward pass (backward.hpp), after the forward steps with --target --backward
    target,    ///< Y, the output each token should have
    loss,      ///< L = mean((O − Y)²), a 1×1 matrix
    gradient,  ///< one gradient: "grad.W_Q", "head1.grad.scores", ... (the id says which)
    update,    ///< W ← W − η·dW: "update.W_Q", ...
    // a GPT-2 checkpoint's walk (gpt2.hpp)
    gpt2_wte,         ///< the wte row of each token id
    gpt2_wpe,         ///< the wpe row of each position
    gpt2_embeddings,  ///< wte + wpe: the residual stream entering layer 0
    layer_changes,    ///< how much each layer below changed each token's residual vector
    residual,         ///< the residual stream entering the layer walked through
    ln_mean,          ///< LayerNorm: each token's mean
    ln_variance,      ///< LayerNorm: each token's variance
    ln_gamma,         ///< LayerNorm's weight γ
    ln_beta,          ///< LayerNorm's bias β
    ln_output,        ///< LayerNorm's output: what the heads project
    residual_attn,    ///< the residual stream plus attention's output
    mlp,              ///< the MLP's change to the residual stream
    residual_mlp,     ///< the layer's output: the residual stream plus the MLP's change; the
                      ///< last: tables indexed by StepOp have step_op_count rows
};

/// How many ops there are.
inline constexpr std::size_t step_op_count = static_cast<std::size_t>(StepOp::residual_mlp) + 1;

/// Whether `op` is a step of the backward pass (the loss, a gradient, an update).
constexpr bool is_backward(StepOp op) noexcept {
    return op >= StepOp::target && op <= StepOp::update;
}

/// How the operands of a step are joined in its shape line.
enum class Joiner {
    product,  ///< (3×5)·(5×3)
    plus,     ///< (3×5) + (3×5)
    minus,    ///< (3×5) − (3×5): the loss's and its gradient's Z − Y
    concat,   ///< (3×3) | (3×3)
};

/// rows × cols of a matrix.
struct Shape {
    std::size_t rows = 0;
    std::size_t cols = 0;
    friend bool operator==(const Shape&, const Shape&) = default;
};

/// One step of the lesson, as every renderer sees it. Points into the Trace it came from.
struct Step {
    std::string id;      ///< stable id used by --steps and the JSON dump, e.g. "scores", "head2.Q"
    std::string number;  ///< its place in the lesson, e.g. "5" or "3a"
    std::size_t head = 0;  ///< 1-based head of a per-head step; 0 for the others
    StepOp op = StepOp::tokens;
    StepKind kind = StepKind::matrix;
    Symbol symbol;                ///< e.g. S, Q_2
    Formula formula;              ///< e.g. S = Q · Kᵀ
    std::vector<Shape> operands;  ///< the shapes that go in, for "(3×3)·(3×3) → (3×3)"
    Joiner joiner = Joiner::product;
    Shape shape;                     ///< the shape that comes out, as shown
    const Matrix* matrix = nullptr;  ///< for matrix and attention steps
    const Mask* mask = nullptr;      ///< for the mask step
    std::span<const std::string> row_labels;
    std::span<const std::string> col_labels;
    /// Columns where another head's columns begin, for renderers to draw the boundary.
    std::vector<std::size_t> col_breaks;
    /// The column layout: the shown cell (r, c) is the matrix's (c, r).
    bool transposed = false;

    /// The number shown at (r, c).
    [[nodiscard]] double value(std::size_t r, std::size_t c) const noexcept {
        return transposed ? (*matrix)(c, r) : (*matrix)(r, c);
    }
    /// The mask cell shown at (r, c).
    [[nodiscard]] bool allowed(std::size_t r, std::size_t c) const noexcept {
        return transposed ? mask->allowed(c, r) : mask->allowed(r, c);
    }
};

/// Every number of one walk-through, named as in the lesson. Shapes use the legend of ops.hpp.
struct TraceNumbers : Provenance {  // the lesson and where its inputs came from, as given
    Config config;
    WeightsRule rule;  ///< how scores became weights (weights_rule(config))
    /// Q, K and V were given directly (GivenQkv): no embeddings and no weights; the file.
    bool qkv_given = false;
    std::string qkv_path;

    Matrix x;          ///< embeddings (T, d_model), as looked up
    Matrix positions;  ///< P (T, d_model); empty without positions
    Matrix x_in;       ///< what the heads see: X′ = X + P, or X itself without positions
    Matrix w_q;        ///< (d_model, H·d_k): every head's query weights side by side
    Matrix w_k;        ///< (d_model, H·d_k)
    Matrix w_v;        ///< (d_model, H·d_v)
    Matrix b_q;        ///< (1, H·d_k); empty without biases. Likewise b_k, b_v
    Matrix b_k;
    Matrix b_v;
    std::optional<Mask> mask;  ///< (T, T), true = may attend; absent without a mask
    std::vector<Head> heads;   ///< H heads

    /// Whether the heads are mixed by an output projection (several heads, or a file's W_O).
    /// Without it there is one head, and its output is the output.
    bool projected = false;
    Matrix concat;  ///< [Z_1 | ... | Z_H] (T, H·d_v); empty unless projected
    Matrix w_o;     ///< (H·d_v, d_model); empty unless projected
    Matrix b_o;     ///< (1, d_model); empty without a bias
    Matrix output;  ///< the final output: concat · W_O + b_O, or the one head's Z

    // Facts the explanations quote, computed once with the numbers.
    std::vector<std::vector<std::size_t>> identical_embeddings;  ///< groups of equal rows of x
    std::vector<std::vector<std::size_t>> identical_inputs;      ///< groups of equal rows of x_in
    std::vector<std::vector<std::size_t>> identical_outputs;     ///< groups of equal outputs

    /// "d0".."d{d_model-1}" for embedding dimensions; "q0".. for all heads' query columns
    /// side by side (and k, v); "z0".. for the concatenation; "o0".. for a projected output.
    std::vector<std::string> dim_labels, q_labels, k_labels, v_labels, concat_labels, out_labels;
    std::vector<std::string> bias_label;  ///< the one row label of a bias: "b"

    /// The loss against a target and every gradient (--target FILE --backward); absent
    /// without. Its steps follow the forward ones, in the row layout only.
    std::optional<Backward> backward;
    /// A GPT-2 checkpoint's walk: the steps before and after the heads (explain_gpt2).
    std::optional<Gpt2Walk> gpt2;
    /// A what-if (--set) or attn diff: the run this one is compared with, what differs in
    /// their inputs and by how much each step moved (attn/core/whatif.hpp); null otherwise.
    /// Renderers mark the cells that differ and show the values before.
    std::shared_ptr<const Comparison> comparison;
};

/// A walk-through: its numbers and its steps, which point into them.
struct Trace : TraceNumbers {
    /// The steps in teaching order (teaching_steps), made once; they point into this Trace.
    std::vector<Step> steps;
    /// The same steps in the column layout of the by-hand exercises (tokens are columns);
    /// empty when there is more than one head or an output projection.
    std::vector<Step> column_steps;

    Trace() = default;
    ~Trace() = default;
    /// Copies and moves remake the steps, which point into the Trace they belong to.
    Trace(const Trace& other);
    Trace(Trace&& other) noexcept;
    Trace& operator=(const Trace& other);
    Trace& operator=(Trace&& other) noexcept;

    /// Makes `steps` and `column_steps` from the numbers (explain() calls it).
    void index_steps();
};

/// The layout a walk-through is shown in.
enum class Layout {
    row,  ///< tokens are rows: Q = X · W_Q, as in PyTorch and most tutorials
    col   ///< tokens are columns: Q = W_Q · X, as in the by-hand exercises
};

template <>
struct EnumNames<Layout> {
    static constexpr std::array names{Named<Layout>{Layout::row, "row"},
                                      Named<Layout>{Layout::col, "col"}};
};

/// The steps of `trace` in teaching order, as the Trace holds them: mask steps only when a
/// mask is on, bias steps only with biases. With one plain head the ids are "Q", "scores",
/// ...; with an output projection each head's steps are "head1.Q", "head1.scores", ...
/// followed by "concat", "W_O" and "output".
const std::vector<Step>& teaching_steps(const Trace& trace);

/// The steps as shown in `layout` (the column layout needs one plain head).
const std::vector<Step>& steps_in(const Trace& trace, Layout layout);

/// The step of that id, or nullptr.
const Step* find_step(const Trace& trace, std::string_view id, Layout layout = Layout::row);

/// The bytes of every number the trace holds (its matrices and mask): what --stats compares
/// the peak memory with.
std::size_t trace_bytes(const Trace& trace) noexcept;

/// The id without its head prefix: "head2.scores" → "scores".
std::string_view base_id(std::string_view id) noexcept;

/// The head a step belongs to (the only head for shared steps of a one-head trace).
const Head& head_of(const Trace& trace, const Step& step);

/// Whether every score of every head is a whole number: the premise of the hand rules
/// (⌊S / r⌋, 3^x), which seeded --arith hand numbers always meet. Where it fails, ⌊ ⌋ also
/// drops the scores' fractions and the hand weights can be far from the exact ones (each
/// head's `hand_difference` says how far).
bool scores_whole(const Trace& trace) noexcept;

/// The largest difference between a hand weight and the exact one, over every head (0 when
/// the arithmetic is exact).
double hand_difference(const Trace& trace) noexcept;

/// The version of the JSON dump format written by render_json and read by --from.
inline constexpr int json_schema_version = 1;

}  // namespace attn
