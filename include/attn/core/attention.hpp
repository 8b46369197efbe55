#pragma once
/// The pipeline: tokens and numbers in, a Trace of every intermediate out.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/matrix.hpp"
#include "attn/core/memory.hpp"
#include "attn/core/model.hpp"
#include "attn/core/trace.hpp"

namespace attn {

/// What a walk-through starts from.
/// Queries, keys and values given directly, as lessons that start from them do (--qkv):
/// the walk-through then begins at the scores.
struct GivenQkv {
    Matrix q;          ///< (T, d_k)
    Matrix k;          ///< (T, d_k)
    Matrix v;          ///< (T, d_v)
    std::string path;  ///< the file they came from
};

struct Input : Provenance {
    Matrix x;  ///< embeddings (T, d_model)
    Weights weights;
    Matrix positions;          ///< P (T, d_model) added to x; empty without positions
    std::optional<Mask> mask;  ///< the mask of a mask file (T, T), before any padding
    /// Q, K and V given directly; then x, weights and positions are empty, and the config has
    /// one head of d_k = Q's columns and d_v = V's columns (d_model is d_k).
    std::optional<GivenQkv> qkv;
};

/// The configuration and input of a run, ready for explain().
struct Loaded {
    Config config;
    Input input;
};

/// About how many bytes the matrices of a run take: every intermediate of every head, the
/// inputs and the weights. Checked against --max-memory before anything large is allocated.
std::size_t estimate_bytes(const Config& config, std::size_t n_tokens) noexcept;

/// Throws attn::Error (Field::max_memory) naming the estimate, the limit and what lowers it
/// when a run of `n_tokens` tokens would need more than `budget` leaves.
void check_memory(const Config& config, std::size_t n_tokens, const MemoryBudget& budget);

/// Tokenizes `sentence`, pads it to config.n_pad more tokens, seeds the embeddings and weights
/// from config.seed, and adds sinusoidal positions when config.positions asks for them.
/// Throws attn::Error for bad sizes, invalid UTF-8 or an empty sentence.
Input seeded_input(std::string_view sentence, const Config& config);

/// What seeded_input seeds: the parts that no file gives (seeding 2048 vectors only to
/// replace them with a file's would be wasted work).
struct SeedParts {
    bool embeddings = true;
    bool weights = true;
};
/// seeded_input, seeding only `parts`; the other numbers are left empty for the caller.
Input seeded_input(std::string_view sentence, const Config& config, SeedParts parts);

/// The numbers of explain() without what only its explanations need: every matrix of every
/// head, the concatenation and the output, but no labels, no facts for the prose, no check
/// that each is finite and no step list. What a training run computes once per example (the
/// forward pass that backward_pass() undoes); explain() is the same computation and more.
Trace forward(const Input& input, const Config& config);

/// Runs single-head self-attention on `input`, recording every step.
/// Throws attn::Error when the shapes of the input do not fit together.
///
///     auto trace = explain(seeded_input("This is book", config), config);
///     trace.attention.rows() == 3;
Trace explain(const Input& input, const Config& config);

/// The same, taking the input's matrices rather than copying them (a checkpoint's weights are
/// megabytes each).
Trace explain(Input&& input, const Config& config);

}  // namespace attn
