#pragma once
/// The inputs of a run as data: embedding tables and model files (read by io), and looking
/// tokens up in a table. Deciding which input wins (flags, files, defaults) is the run plan's
/// job (src/cli/plan.hpp).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/model.hpp"

namespace attn {

/// A vocabulary of token vectors.
struct EmbeddingTable {
    std::vector<std::string> tokens;  ///< as written in the file, in file order
    Matrix vectors;                   ///< (vocabulary size, d_model), one row per token
    bool case_insensitive = false;    ///< look tokens up with their case folded
    std::string path;                 ///< the file it came from
};

/// Everything a model file may hold; each part is optional.
struct ModelFile {
    std::string path;
    std::optional<std::string> description;  ///< one line about the lesson
    std::optional<Training> training;        ///< how attn train made it, if it did
    std::optional<std::string> sentence;     ///< the sentence when none is given
    std::optional<MaskKind> mask;
    std::optional<TokenizerOptions> tokenizer;
    std::optional<EmbeddingTable> embeddings;
    std::optional<Weights> weights;
    std::optional<PositionKind> positions;  ///< "none", "sinusoidal", or file for a table
    std::optional<Matrix> positions_table;  ///< the table given in the file (one row a position)
    std::optional<std::size_t> pad_to;      ///< pad the sentence to this many tokens
};

/// A lesson that starts from queries, keys and values (--qkv FILE): the matrices, and
/// optionally the tokens that name their rows, a description and a mask.
struct QkvFile {
    std::string path;
    std::optional<std::string> description;          ///< one line about the lesson
    std::optional<std::vector<std::string>> tokens;  ///< one per row; else t0, t1, ...
    std::optional<MaskKind> mask;
    GivenQkv qkv;  ///< Q (T, d_k), K (T, d_k), V (T, d_v)
};

/// What to do with a token that is not in the embeddings file.
enum class UnknownTokens {
    error,  ///< stop with an error that lists every missing token
    random  ///< give it a seeded vector, and say so
};

template <>
struct EnumNames<UnknownTokens> {
    static constexpr std::array names{Named<UnknownTokens>{UnknownTokens::error, "error"},
                                      Named<UnknownTokens>{UnknownTokens::random, "random"}};
};

/// The rows of `tokens` in a table.
struct LookUp {
    Matrix x;                          ///< (T, d_model); a missing token's row is zero
    std::vector<std::size_t> missing;  ///< the positions of the tokens not in the table
};

/// Looks each token up (with its case folded when the table says so).
LookUp look_up(const EmbeddingTable& table, const std::vector<std::string>& tokens);

/// The known spellings closest to `word` (edit distance on characters, at most a third of
/// the word's length), at most three, nearest first; of equally near ones, the first in
/// `known`. For many words against one list, Spellings builds its index once.
std::vector<std::string> nearest(const std::string& word, const std::vector<std::string>& known);

/// The known spellings of a table, indexed by length and by the characters they hold, so that
/// nearest() looks only at those that can be near enough: 4,000 words against 40,000 spellings
/// take a fraction of a second, where comparing each pair took 37 s (docs/performance.md).
///
///     const Spellings table(known);
///     for (const auto& w : missing) { hints.push_back(table.nearest(w)); }
class Spellings {
  public:
    explicit Spellings(std::vector<std::string> known);

    /// The same answer as nearest(word, known), except that the work for one word is bounded
    /// (max_cells steps of the edit distance): past that, the nearest found so far. Only a
    /// table of thousands of long spellings alike in length and letters reaches the bound.
    [[nodiscard]] std::vector<std::string> nearest(const std::string& word) const;

    /// The most steps of the edit distance one word may take (under half a millisecond).
    static constexpr std::size_t max_cells = 1U << 16U;

  private:
    /// The spellings of one length n, in table order, each array side by side so that the
    /// scan of a length reads only the bits it tests.
    struct Bucket {
        std::vector<std::uint64_t> chars;  ///< a bit for each character one holds (hashed to 64)
        std::u32string folded;             ///< the k-th, case folded, at [k·n, k·n + n)
        std::vector<std::size_t> index;    ///< the k-th's place in the table
    };
    std::vector<std::string> known_;
    std::vector<Bucket> by_length_;  ///< by_length_[n]: the spellings of n characters
};

}  // namespace attn
