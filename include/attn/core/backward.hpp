#pragma once
/// The backward pass: the loss of a walk-through against a target, and the gradient of that
/// loss with respect to every intermediate and every parameter, one function per gradient,
/// each beside the forward step it undoes (as karpathy/llm.c writes `attention_backward`
/// beside `attention_forward`). Names follow llm.c: `d_x` is ∂L/∂x, with the shape of x.
///
/// Shapes use the legend of ops.hpp: T tokens, d_model, d_k, d_v, H heads; d_out is the width
/// of the output (d_v with one plain head, d_model with an output projection).

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attn/core/matrix.hpp"
#include "attn/core/model.hpp"

namespace attn {

struct TraceNumbers;
struct Trace;
struct Head;

/// The gradients of one head.
struct HeadGrads {
    Matrix d_output;   ///< dZ_h (T, d_v): ∂L/∂Z_h
    Matrix d_weights;  ///< dA (T, T) = dZ · Vᵀ
    Matrix d_v;        ///< dV (T, d_v) = Aᵀ · dZ
    Matrix d_scaled;   ///< dS′ (T, T) = A ⊙ (dA − rowsum(dA ⊙ A)): through the softmax
    Matrix d_scores;   ///< dS (T, T) = dS′ / divisor: through the scaling
    Matrix d_q;        ///< dQ (T, d_k) = dS · K
    Matrix d_k;        ///< dK (T, d_k) = dSᵀ · Q
    Matrix d_w_q;      ///< dW_Q_h (d_model, d_k) = X′ᵀ · dQ; empty when Q, K, V were given
    Matrix d_w_k;      ///< (d_model, d_k)
    Matrix d_w_v;      ///< (d_model, d_v)
    /// Per row of A: its largest weight, Σ|dA| over the row and Σ|dS′| over the row (what
    /// reaches the softmax and what passes through it), for the saturation sentence.
    std::vector<double> max_weight, d_weights_mass, d_scaled_mass;
};

/// The loss, every gradient, and (with a learning rate) the updated parameters.
struct Backward {
    std::string target_path;  ///< where the target came from, for the formula and messages
    Matrix target;            ///< Y (T, d_out): the output each token should have
    Matrix loss;              ///< L (1, 1) = mean((O − Y)²) over all T·d_out cells
    Matrix d_output;          ///< dO (T, d_out) = 2·(O − Y) / (T·d_out)
    Matrix d_w_o;             ///< dW_O (H·d_v, d_model) = Zᵀ · dO; empty unless projected
    Matrix d_b_o;             ///< db_O (1, d_model) = column sums of dO; empty without b_O
    Matrix d_concat;          ///< dZ (T, H·d_v) = dO · W_Oᵀ; empty unless projected
    std::vector<HeadGrads> heads;
    Matrix d_w_q;  ///< dW_Q (d_model, H·d_k): every head's side by side; empty with given Q, K, V
    Matrix d_w_k;  ///< (d_model, H·d_k)
    Matrix d_w_v;  ///< (d_model, H·d_v)
    Matrix d_b_q;  ///< (1, H·d_k) = column sums of dQ; empty without biases. Likewise d_b_k, d_b_v
    Matrix d_b_k;
    Matrix d_b_v;
    Matrix d_x;  ///< dX′ (T, d_model) = Σ_h dQ_h·W_Q_hᵀ + dK_h·W_K_hᵀ + dV_h·W_V_hᵀ

    /// With a learning rate η: W ← W − η·dW for every weight and bias, and the loss the same
    /// input gives with the new weights (computed by a second forward pass).
    std::optional<double> lr;
    Weights updated;  ///< W_Q, ..., b_O after the update; empty without a learning rate
    double loss_after = 0.0;

    std::vector<std::string> loss_label{"L"};  ///< the one row and column label of L
    std::vector<std::string> target_labels;    ///< "y0".. : the columns of the target
};

/// About how many bytes the backward pass adds to a run of `n_tokens` tokens (every
/// gradient, the update and the second forward pass the update's loss needs).
std::size_t backward_bytes(std::size_t d_model, std::size_t n_heads, std::size_t d_k,
                           std::size_t d_v, std::size_t n_tokens) noexcept;

/// L (1, 1) = the mean of (output − target)² over all cells; with `graded` rows, over the cells
/// of those rows only (a training task grades only the rows whose answer it knows, such as the
/// pronoun's).
double mse_loss(const Matrix& output, const Matrix& target,
                std::span<const std::size_t> graded = {});

/// dO (T, d) = 2·(output − target) / (T·d): the gradient of mse_loss; with `graded` rows,
/// 2·(output − target) / (n·d) on the n graded rows and 0 on the others.
Matrix mse_loss_backward(const Matrix& output, const Matrix& target,
                         std::span<const std::size_t> graded = {});

/// W − η·dW: one step of gradient descent, for the walk-through's --lr and for training.
Matrix stepped(const Matrix& w, const Matrix& d_w, double lr);

/// Through A = softmax(S′) row by row: dS′ (T, T) = A ⊙ (dA − rowsum(dA ⊙ A)). A masked cell
/// (weight exactly 0) gets exactly 0; a row with every key masked (all weights 0) gets 0.
Matrix softmax_rows_backward(const Matrix& weights, const Matrix& d_weights);

/// Throws attn::Error (input) naming `path` when `target` is not (rows, cols) or holds a
/// number that is not finite.
void check_target(const Matrix& target, std::size_t rows, std::size_t cols, const std::string& path,
                  const std::string& what);

/// The backward pass proper, from dO (T, d_out) = ∂L/∂output back through W_O, every head, the
/// projections and X′: every gradient but the loss's own (d_output is kept as given). What the
/// walk-through (backward()) and a training step both run after the forward pass.
Backward backward_pass(const Trace& trace, Matrix d_output);

/// The backward pass of `trace` against `target` (T, d_out) read from `target_path`; with
/// `lr`, also the update and the loss after it. Throws attn::Error (input) for a target of the
/// wrong shape or with a number that is not finite, (usage) for a run whose rule has no
/// gradient written here (--arith hand, --softmax-over columns or all).
Backward backward(const Trace& trace, const Matrix& target, const std::string& target_path,
                  std::optional<double> lr);

/// The Trace with its backward pass added: the gradient steps follow the forward ones.
Trace with_backward(Trace trace, const Matrix& target, const std::string& target_path,
                    std::optional<double> lr);

}  // namespace attn
