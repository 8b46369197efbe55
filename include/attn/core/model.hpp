#pragma once
/// The configuration of a walk-through and the numbers it starts from: embeddings and weights.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/enums.hpp"
#include "attn/core/limits.hpp"
#include "attn/core/matrix.hpp"
#include "attn/core/tokenizer.hpp"

namespace attn {

/// Which keys each query may attend to.
enum class MaskKind {
    none,    ///< every token sees every token
    causal,  ///< a token sees itself and the tokens before it
    file     ///< a boolean matrix from a file (true = may attend)
};

template <>
struct EnumNames<MaskKind> {
    static constexpr std::array names{Named<MaskKind>{MaskKind::none, "none"},
                                      Named<MaskKind>{MaskKind::causal, "causal"},
                                      Named<MaskKind>{MaskKind::file, "file"}};
};

/// How the numbers are computed: exactly, or with the by-hand rules of the pencil-and-paper
/// exercises.
enum class Arith {
    exact,  ///< S / √d_k and e^x
    hand    ///< small integers, ⌊S / r⌋ with r = round(√d_k) (⌊x/2⌋ for d_k = 3), and 3^x
};

template <>
struct EnumNames<Arith> {
    static constexpr std::array names{Named<Arith>{Arith::exact, "exact"},
                                      Named<Arith>{Arith::hand, "hand"}};
};

/// What the scores are divided by before softmax.
enum class ScaleBy {
    d_k,      ///< √d_k, as in "Attention Is All You Need"
    d_model,  ///< √d_model: a tutorial's mistake, shown on purpose
    none      ///< nothing: the --no-scale lesson on saturation
};

template <>
struct EnumNames<ScaleBy> {
    static constexpr std::array names{Named<ScaleBy>{ScaleBy::d_k, "d_k"},
                                      Named<ScaleBy>{ScaleBy::d_model, "d_model"},
                                      Named<ScaleBy>{ScaleBy::none, "none"}};
};

/// Over which cells softmax normalises the (masked, scaled) scores.
enum class SoftmaxOver {
    rows,     ///< each row: one query's weights over the keys (the right one)
    columns,  ///< each column: a mistake, shown on purpose
    all       ///< the whole matrix at once: a tutorial's mistake, shown on purpose
};

template <>
struct EnumNames<SoftmaxOver> {
    static constexpr std::array names{Named<SoftmaxOver>{SoftmaxOver::rows, "rows"},
                                      Named<SoftmaxOver>{SoftmaxOver::columns, "columns"},
                                      Named<SoftmaxOver>{SoftmaxOver::all, "all"}};
};

/// The divisor of the by-hand scaling: a square root rounded to a whole number (2 for d_k = 3
/// or 4), at least 1.
double hand_divisor(std::size_t width) noexcept;

/// What is added to the embeddings to tell positions apart.
enum class PositionKind {
    none,        ///< nothing: attention cannot tell where a token stands
    sinusoidal,  ///< the sin/cos table of "Attention Is All You Need"
    file         ///< a table from a file
};

template <>
struct EnumNames<PositionKind> {
    static constexpr std::array names{Named<PositionKind>{PositionKind::none, "none"},
                                      Named<PositionKind>{PositionKind::sinusoidal, "sinusoidal"},
                                      Named<PositionKind>{PositionKind::file, "file"}};
};

/// The sinusoidal positional encodings (T, d_model) of Vaswani et al. (2017):
/// P[pos, 2i] = sin(pos / 10000^(2i/d_model)), P[pos, 2i+1] = cos(pos / 10000^(2i/d_model)).
Matrix sinusoidal_positions(std::size_t n_tokens, std::size_t d_model);

/// Everything that decides the numbers of a walk-through.
struct Config {
    TokenizerOptions tokenizer{};
    std::uint64_t seed = 42;  ///< for every seeded number
    std::size_t d_model = 5;  ///< width of an embedding
    std::size_t n_heads = 1;  ///< attention heads; more than one adds the projection W_O
    std::size_t d_k = 3;      ///< width of one head's queries and keys
    std::size_t d_v = 3;      ///< width of one head's values and outputs
    MaskKind mask = MaskKind::none;
    PositionKind positions = PositionKind::none;
    ScaleBy scale_by = ScaleBy::d_k;               ///< what the scores are divided by
    SoftmaxOver softmax_over = SoftmaxOver::rows;  ///< the cells softmax normalises together
    Arith arith = Arith::exact;
    std::size_t n_pad = 0;  ///< <pad> tokens at the end (--pad-to); no token may attend to them
};

/// The token that fills a sentence up to a padded length.
inline constexpr std::string_view pad_token = "<pad>";

/// Throws attn::Error (usage, naming the field) when a size is out of range.
void validate(const Config& config);

/// The projections of (multi-head) attention, in attn's row layout: Q = X · W_Q + b_Q.
/// With H heads, head h uses columns [h·d_k, (h+1)·d_k) of W_Q and W_K and
/// [h·d_v, (h+1)·d_v) of W_V, as PyTorch's nn.MultiheadAttention splits them.
struct Weights {
    Matrix w_q;  ///< (d_model, H·d_k)
    Matrix w_k;  ///< (d_model, H·d_k)
    Matrix w_v;  ///< (d_model, H·d_v)
    Matrix w_o;  ///< (H·d_v, d_model); empty: no output projection (one plain head)
    Matrix b_q;  ///< (1, H·d_k); empty: no bias. Likewise b_k, b_v and b_o (1, d_model)
    Matrix b_k;
    Matrix b_v;
    Matrix b_o;
    /// How the file laid them out: "attn" (as above) or "pytorch" (in_proj_weight, y = x·Wᵀ + b,
    /// transposed on reading). Said in the output.
    std::string layout = "attn";
    std::size_t n_heads = 0;  ///< the heads a file says its weights are split into; 0: not said
};

/// Where a set of numbers came from, for the output to say so.
struct Source {
    /// seeded, read from a file, or (the mask) the run's own with cells changed by --set
    enum class Kind { seeded, file, set } kind = Kind::seeded;
    std::string path;  ///< the file, when kind == file
    /// Tokens that were not in the file and got seeded vectors (--unknown random).
    std::vector<std::string> seeded_tokens;
    /// For weights from a file: "attn" or "pytorch", the layout the file used.
    std::string layout;
};

/// How attn train made a model file's numbers (the file's "training", docs/json-format.md), so
/// that what the output says of a matrix (learned, or seeded and kept) is read, not guessed.
struct Training {
    std::string command;  ///< the attn train command that makes the file again, byte for byte
    std::string task;     ///< coreference, previous-token or match
    std::uint64_t seed = 0;
    std::size_t steps = 0;
    double learning_rate = 0;
    /// What training changed, in this order: of W_Q, W_K, W_V, W_O, embeddings, positions;
    /// the file's other numbers are seeded ones it kept.
    std::vector<std::string> trained;
    std::size_t held_out_right = 0;  ///< graded tokens of held-out examples right after training
    std::size_t held_out_total = 0;  ///< graded tokens of the held-out examples in all
    std::string file;                ///< the model file it was read from (none in that file)
};

/// The names a Training's `trained` may hold, in their order.
inline constexpr std::array<std::string_view, 6> trainable_parts{"W_Q", "W_K",        "W_V",
                                                                 "W_O", "embeddings", "positions"};

/// What a lesson is (its description, sentence and tokens) and where each of its inputs came
/// from: the Input hands it to the Trace whole (explain()), and the Trace back to an Input.
struct Provenance {
    std::string description;  ///< one line about the lesson, from a model file; may be empty
    std::string sentence;
    std::vector<std::string> tokens;  ///< T tokens
    Source embeddings_source;
    Source weights_source;
    Source positions_source;  ///< where a positions table came from
    Source mask_source;       ///< where a mask came from
    /// How attn train made the model file the lesson came from, when it did.
    std::optional<Training> training;
    /// The tokens name the rows of given Q, K and V (from the file, or t0, t1, ...) rather
    /// than coming from the tokenizer.
    bool tokens_named = false;
};

/// Seeded embeddings X (T, d_model): row i is drawn from the stream ("embedding", token i),
/// With `hand`, whole numbers from -2 to 2 instead (the normal value rounded and clamped).
/// so equal tokens get equal rows, and a token's first n numbers do not depend on d_model.
/// Entries are N(0, 1) rounded to two decimals, so what is printed is exactly what is used.
Matrix seeded_embeddings(const std::vector<std::string>& tokens, std::size_t d_model,
                         std::uint64_t seed, bool hand = false);

/// One seeded row per name: row i is N(0, 1) rounded to two decimals (whole numbers from -2 to
/// 2 with `hand`), drawn from the stream (domain, names[i]). seeded_embeddings is the domain
/// "embedding"; a training task's targets are "target".
Matrix seeded_rows(const std::vector<std::string>& names, std::size_t width, std::uint64_t seed,
                   std::string_view domain, bool hand = false);

/// A seeded matrix (rows, cols) of N(0, stddev²) rounded to two decimals (whole numbers from -1
/// to 1 with `hand`), drawn from the stream ("weights", name): W_Q is the name "W_Q".
Matrix seeded_matrix(std::size_t rows, std::size_t cols, double stddev, std::uint64_t seed,
                     std::string_view name, bool hand = false);

/// Seeded W_Q, W_K, W_V for `config.n_heads` heads: entries N(0, 1/d_model) rounded to two
/// decimals, so that with unit-variance embeddings Q, K and V have entries of variance about
/// 1, and scores QKᵀ of variance about d_k (the variance the scaling step removes). With more
/// than one head also W_O, N(0, 1/(H·d_v)). No biases. With config.arith == hand, whole numbers
/// from -1 to 1 instead, so that every product can be done in the head.
Weights seeded_weights(const Config& config);

}  // namespace attn
