#pragma once
/// The configuration of a walk-through and the numbers it starts from: embeddings and weights.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/tokenizer.hpp"

namespace attn {

/// Which keys each query may attend to.
enum class MaskKind {
    none,   ///< every token sees every token
    causal  ///< a token sees itself and the tokens before it
};

/// The name of a mask kind as used on the command line and in JSON ("none", "causal").
std::string_view to_string(MaskKind kind) noexcept;

/// The limits of the sizes a user may ask for (see validate()).
inline constexpr std::size_t max_width = 4096;
inline constexpr std::size_t max_tokens = 8192;

/// Everything that decides the numbers of a walk-through.
struct Config {
    TokenizerOptions tokenizer{};
    std::uint64_t seed = 42;  ///< for every seeded number
    std::size_t d_model = 5;  ///< width of an embedding
    std::size_t d_k = 3;      ///< width of a query and of a key
    std::size_t d_v = 3;      ///< width of a value and of an output row
    MaskKind mask = MaskKind::none;
};

/// Throws attn::Error (usage) when a size is out of range.
void validate(const Config& config);

/// The three projection matrices of one attention head.
struct Weights {
    Matrix w_q;  ///< (d_model, d_k)
    Matrix w_k;  ///< (d_model, d_k)
    Matrix w_v;  ///< (d_model, d_v)
};

/// Where a set of numbers came from, for the output to say so.
struct Source {
    enum class Kind { seeded, file } kind = Kind::seeded;
    std::string path;  ///< the file, when kind == file
    /// Tokens that were not in the file and got seeded vectors (--unknown random).
    std::vector<std::string> seeded_tokens;
};

/// Seeded embeddings X (T, d_model): row i is drawn from the stream ("embedding", token i),
/// so equal tokens get equal rows, and a token's first n numbers do not depend on d_model.
/// Entries are N(0, 1) rounded to two decimals, so what is printed is exactly what is used.
Matrix seeded_embeddings(const std::vector<std::string>& tokens, std::size_t d_model,
                         std::uint64_t seed);

/// Seeded W_Q, W_K, W_V: entries N(0, 1/d_model) rounded to two decimals, so that with unit
/// variance embeddings Q, K and V have entries of variance about 1, and scores QKᵀ of
/// variance about d_k (the variance the scaling step removes).
Weights seeded_weights(std::size_t d_model, std::size_t d_k, std::size_t d_v, std::uint64_t seed);

}  // namespace attn
