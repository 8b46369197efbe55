#pragma once
/// The pipeline: tokens and numbers in, a Trace of every intermediate out.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/matrix.hpp"
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

/// Throws attn::Error (usage) naming the estimate, the limit and what lowers it when a run of
/// `n_tokens` tokens would need more than `max_bytes`.
void check_memory(const Config& config, std::size_t n_tokens, std::size_t max_bytes);

/// A size as people write it: "2112 bytes", "800 KiB", "3.2 MiB", "1.5 GiB".
std::string human_bytes(std::size_t bytes);

/// A --max-memory that would allow `bytes`: rounded up to whole MiB ("12M") or GiB ("3G").
std::string enough_memory(std::size_t bytes);

/// The default of --max-memory: 4 GiB.
inline constexpr std::size_t default_max_memory = std::size_t{4} << 30U;

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

/// Runs single-head self-attention on `input`, recording every step.
/// Throws attn::Error when the shapes of the input do not fit together.
///
///     auto trace = explain(seeded_input("This is book", config), config);
///     trace.attention.rows() == 3;
Trace explain(const Input& input, const Config& config);

}  // namespace attn
