#pragma once
/// GPT-2's forward pass up to one layer, recorded as Trace steps: the token and position
/// embeddings, a summary of every layer below, and at the chosen layer the full walk through
/// ln_1 and causal self-attention (the existing head steps), then the MLP and the residual
/// summarised. The core reads no files: the weights come through Gpt2Tensors, which io
/// implements over a mapped safetensors file, one tensor at a time, so that a 500 MB
/// checkpoint is never copied whole.
///
/// Numbering: layers and heads are counted from 0, as the tensor names count them
/// (`h.5.attn` is layer 5; head 0 is columns [0, d_head) of its Q, K and V).
///
/// Shapes: T tokens, d = n_embd, d_head = n_embd / n_head, n_inner (4·d by default).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/matrix.hpp"
#include "attn/core/memory.hpp"

namespace attn {

struct Trace;

/// The sizes of a GPT-2 model, from its config.json.
struct Gpt2Config {
    std::size_t n_embd = 0;       ///< the width of the residual stream (d_model)
    std::size_t n_head = 0;       ///< heads per layer; d_head = n_embd / n_head
    std::size_t n_layer = 0;      ///< transformer blocks
    std::size_t n_positions = 0;  ///< the context: rows of wpe, the most tokens of a text
    std::size_t vocab_size = 0;   ///< rows of wte
    std::size_t n_inner = 0;      ///< the MLP's width: n_inner, or 4 · n_embd when null
    double layer_norm_epsilon = 1e-5;
};

/// Where the weights of a GPT-2 model come from, one tensor at a time. Names are without the
/// "transformer." prefix ("h.0.attn.c_attn.weight"); `shape` is the shape the file must have
/// ({n} or {rows, cols}); `meaning` says in an error where that shape comes from. A 1-D
/// tensor is returned as one row. Implementations throw attn::Error (input) for a missing
/// or misshapen tensor.
class Gpt2Tensors {
  public:
    Gpt2Tensors() = default;
    virtual ~Gpt2Tensors() = default;
    Gpt2Tensors(const Gpt2Tensors&) = delete;
    Gpt2Tensors& operator=(const Gpt2Tensors&) = delete;
    Gpt2Tensors(Gpt2Tensors&&) = delete;
    Gpt2Tensors& operator=(Gpt2Tensors&&) = delete;

    [[nodiscard]] virtual Matrix matrix(const std::string& name,
                                        const std::vector<std::size_t>& shape,
                                        std::string_view meaning) const = 0;
    /// Only rows `ids` of a 2-D tensor, in that order (the wte and wpe rows a text uses).
    [[nodiscard]] virtual Matrix rows(const std::string& name,
                                      const std::vector<std::size_t>& shape,
                                      std::string_view meaning,
                                      const std::vector<std::size_t>& ids) const = 0;
    /// Only columns [begin, begin + count) of a tensor (of a 1-D one, those elements as one
    /// row): W_Q, W_K and W_V out of c_attn, each read once.
    [[nodiscard]] virtual Matrix columns(const std::string& name,
                                         const std::vector<std::size_t>& shape,
                                         std::string_view meaning, std::size_t begin,
                                         std::size_t count) const = 0;
    /// x (T, k) · the 2-D tensor `name` of shape (k, n), its numbers converted a block at a
    /// time and never held whole (the MLP's weights of every layer): matmul_streamed.
    [[nodiscard]] virtual Matrix times(const Matrix& x, const std::string& name,
                                       const std::vector<std::size_t>& shape,
                                       std::string_view meaning) const = 0;
};

/// What a walk through a checkpoint shows: the request gives it, the walk keeps it.
struct Gpt2Choice {
    std::size_t layer = 0;                 ///< the layer walked in full, 0-based, below n_layer
    std::optional<std::size_t> head;       ///< the head shown in full, 0-based; none: every head
    std::string source;                    ///< the checkpoint's folder, for the output to name
    std::string prefix;                    ///< "transformer." when the tensors' names have it
    std::vector<std::uint32_t> token_ids;  ///< T ids, at most n_positions
    std::vector<std::string> token_texts;  ///< T tokens as the vocabulary writes them ("Ġhat")
};

/// What to walk through: a text already tokenized with the model's own tokenizer.
struct Gpt2Request : Gpt2Choice {
    std::string sentence;
    std::vector<std::string> tokens;  ///< T tokens as shown ("␣hat")
};

/// The GPT-2 part of a Trace: everything of the walk that is not the attention heads, which
/// are the Trace's own Head steps (their input X is ln_1's output).
struct Gpt2Walk : Gpt2Choice {
    Gpt2Config config;

    Matrix wte;         ///< (T, d): row token_ids[i] of wte
    Matrix wpe;         ///< (T, d): rows 0..T-1 of wpe
    Matrix embeddings;  ///< (T, d) = wte + wpe: the residual stream entering layer 0
    /// (2·layer, T): for each layer below, the length of the change its attention and then
    /// its MLP added to each token's residual vector, ‖Δ_t‖; rows "h.0.attn", "h.0.mlp", ...
    Matrix layer_changes;
    /// (2·layer, T): the length of each token's residual vector after that change.
    Matrix layer_norms;
    Matrix residual;     ///< (T, d): the residual stream entering the layer
    Matrix ln_mean;      ///< (T, 1): each token's mean over its d numbers
    Matrix ln_variance;  ///< (T, 1): each token's (biased) variance
    Matrix ln_gamma;     ///< (1, d): ln_1.weight
    Matrix ln_beta;      ///< (1, d): ln_1.bias
    // ln_1's output is the Trace's x (and x_in): what the heads project
    Matrix residual_attn;  ///< (T, d) = residual + attention's output (the Trace's output)
    Matrix mlp;            ///< (T, d): the MLP's change, c_proj(gelu(c_fc(ln_2(...))))
    Matrix residual_mlp;   ///< (T, d) = residual_attn + mlp: the layer's output

    std::vector<std::string> change_labels;   ///< "h.0.attn", "h.0.mlp", ...
    std::vector<std::string> mean_label;      ///< {"μ"}
    std::vector<std::string> variance_label;  ///< {"σ²"}
    std::vector<std::string> gamma_label;     ///< {"γ"}: the one row of ln_1.weight
    std::vector<std::string> beta_label;      ///< {"β"}: the one row of ln_1.bias
};

/// "h.5.attn", "h.5.ln_1.weight": a tensor of layer `layer` as the model names it (without
/// the prefix).
std::string gpt2_name(std::size_t layer, std::string_view part);

/// GPT-2's LayerNorm over each row of x (T, d): (x − μ) / √(σ² + ε) · γ + β, with μ and σ²
/// the row's mean and biased variance. Returns the output; `mean` and `variance` (T, 1) when
/// given.
Matrix gpt2_layer_norm(const Matrix& x, const Matrix& gamma, const Matrix& beta, double epsilon,
                       Matrix* mean = nullptr, Matrix* variance = nullptr);

/// GPT-2's "gelu_new": 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
double gelu_new(double x) noexcept;

/// About how many bytes a walk of `n_tokens` tokens through a layer of this model takes: the
/// walked layer's Trace (every head's steps, as estimate_bytes), one layer's weights converted
/// to double at a time, the MLP's hidden numbers and the residual stream's matrices. The
/// mapped checkpoint itself is not counted: its pages are read as a block of a tensor is
/// converted and given back right after (safetensors::File::convert), so at most one block
/// of them is resident at a time.
std::size_t gpt2_bytes(const Gpt2Config& config, std::size_t layer, std::size_t n_tokens) noexcept;

/// Throws attn::Error (usage, Field::max_memory) when gpt2_bytes is more than the budget
/// leaves (one budget for the whole run: the tokenizer's vocabulary and merges, read
/// before, count against it too).
void check_gpt2_memory(const Gpt2Config& config, std::size_t layer, std::size_t n_tokens,
                       const MemoryBudget& budget);

/// Runs GPT-2 on the request's tokens up to the end of layer `request.layer` and records the
/// walk-through: a Trace whose heads are that layer's attention heads (causal, scaled by
/// √d_head, with biases, c_proj as W_O) and whose `gpt2` holds the rest. Throws attn::Error
/// (usage) for a layer or head out of range, (input) for more tokens than n_positions and
/// for the tensors' errors.
Trace explain_gpt2(const Gpt2Request& request, const Gpt2Config& config,
                   const Gpt2Tensors& tensors);

}  // namespace attn
