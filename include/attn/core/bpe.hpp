#pragma once
/// GPT-2's tokenizer: byte-level byte-pair encoding (BPE), as OpenAI's encoder.py does it.
///
/// A text is cut into pieces by GPT-2's pre-tokenisation pattern (words with their leading
/// space, numbers, runs of punctuation, white space), each piece's UTF-8 bytes are written as
/// printable characters (bytes_to_unicode: a space is `Ġ`, a newline `Ċ`), and the merges
/// join neighbouring symbols, the lowest-ranked pair first, until no pair of the piece has a
/// merge. Each final symbol is one token of the vocabulary.
///
///     const Bpe bpe(vocabulary, merges);        // from vocab.json and merges.txt (attn/io)
///     bpe.encode("He took the hat")             // {1544, 1718, 262, 6877} with GPT-2's files
///
/// The core reads no files: attn/io/checkpoint.hpp reads vocab.json, merges.txt and
/// tokenizer.json into the two lists this class is built from.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attn {

/// The largest token id a vocabulary may use (GPT-2's is 50256).
inline constexpr std::uint32_t max_token_id = (std::uint32_t{1} << 20U) - 1;

/// One pair of the merges list: the left and the right symbol, as the vocabulary writes them.
struct BpeMerge {
    std::string left;
    std::string right;
};

/// One token of an encoded text.
struct BpeToken {
    std::uint32_t id = 0;
    /// The token as the vocabulary writes it, its bytes mapped to printable characters:
    /// "Ġcat" for " cat".
    std::string text;
    /// The bytes of the input the token stands for: " cat". A token may hold part of a
    /// character: an emoji's four bytes can be two tokens.
    std::string bytes;
    /// For a person: `bytes` with each space shown as `␣` (U+2423), newlines, tabs and other
    /// invisible characters as escapes (\n, \t, \u200d), and bytes that are only part of a
    /// UTF-8 character as \xNN: "␣cat", "\xf0\x9f".
    std::string display;
    /// The byte offset in the input where `bytes` start.
    std::size_t offset = 0;
    /// The token starts with a space, which the vocabulary writes `Ġ` (GPT-2 glues a word's
    /// leading space to the word).
    bool leading_space = false;
};

/// GPT-2's byte-level BPE over a vocabulary and a ranked merges list.
class Bpe {
  public:
    /// No limit on the number of tokens of a text.
    static constexpr std::size_t no_limit = std::numeric_limits<std::size_t>::max();

    /// `vocabulary`: each token's text (bytes mapped by bytes_to_unicode) and id, as in
    /// vocab.json; `merges`: the merges in order of rank, as in merges.txt without its
    /// "#version" line. Throws attn::Error (input) when the ids repeat or exceed
    /// max_token_id, a token repeats, one of the 256 bytes has no token, a merge repeats or
    /// names, or makes, a symbol that is not in the vocabulary.
    Bpe(const std::vector<std::pair<std::string, std::uint32_t>>& vocabulary,
        const std::vector<BpeMerge>& merges);

    /// The ids of `text`, which must be valid UTF-8. More than `token_limit` tokens (the
    /// model's context, n_ctx) is an error (attn::Error, input) saying how many there are
    /// and where the first token past the limit starts.
    [[nodiscard]] std::vector<std::uint32_t> encode(std::string_view text,
                                                    std::size_t token_limit = no_limit) const;
    /// The tokens of `text` with their text, bytes, display form and offsets; the same ids
    /// and errors as encode().
    [[nodiscard]] std::vector<BpeToken> tokenize(std::string_view text,
                                                 std::size_t token_limit = no_limit) const;

    /// The vocabulary's text for `id` ("Ġcat"); throws attn::Error (input) for an unknown id.
    [[nodiscard]] const std::string& token_text(std::uint32_t id) const;
    /// The bytes that the ids stand for, joined: the inverse of encode(). Throws attn::Error
    /// (input) for an unknown id, and for a token of the vocabulary with a character that
    /// bytes_to_unicode does not make.
    [[nodiscard]] std::string decode(const std::vector<std::uint32_t>& ids) const;
    /// The number of tokens in the vocabulary.
    [[nodiscard]] std::size_t vocabulary_size() const noexcept { return ids_.size(); }
    /// The number of merges.
    [[nodiscard]] std::size_t merge_count() const noexcept { return merges_.size(); }

  private:
    struct Merge {
        std::uint32_t rank;
        std::uint32_t result;  // the id of the merged symbol
    };
    // the symbols (token ids) of one piece after all its merges
    void merge_piece(std::vector<std::uint32_t>& symbols) const;

    std::unordered_map<std::string, std::uint32_t> ids_;  // token text → id
    std::vector<std::string> texts_;                      // id → token text ("" if unused)
    std::vector<bool> used_;                              // id → the vocabulary has it
    std::vector<std::uint32_t> byte_ids_;                 // byte → the id of its token
    std::unordered_map<std::uint64_t, Merge> merges_;     // (left id << 32 | right id) → merge
};

/// GPT-2's bytes_to_unicode(): the printable character that stands for `byte` in the
/// vocabulary. The 188 printable bytes of Latin-1 (`!` to `~`, `¡` to `¬`, `®` to `ÿ`)
/// stand for themselves; the others (controls, space, DEL, no-break and soft hyphen) are
/// U+0100 + n in order: a space (0x20) is `Ġ` (U+0120), a newline (0x0A) is `Ċ` (U+010A).
char32_t byte_to_unicode(unsigned char byte) noexcept;

/// Cuts `text` (valid UTF-8) into GPT-2's pre-tokenisation pieces: the matches of
/// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ in order, as
/// the Python `regex` module finds them. Each piece is a view into `text`.
std::vector<std::string_view> gpt2_pieces(std::string_view text);

}  // namespace attn
