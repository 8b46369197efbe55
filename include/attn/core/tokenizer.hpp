#pragma once
/// The tokenizer: a sentence in, tokens out. A token never splits a user-perceived character
/// (an extended grapheme cluster of Unicode 15, as utf8proc finds them).

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/enums.hpp"

namespace attn {

/// How a sentence is cut into tokens.
enum class TokenMode {
    words,  ///< runs of letters, marks, numbers and '_', and each punctuation mark or symbol
    chars   ///< one token per character (grapheme cluster); white space dropped
};

template <>
struct EnumNames<TokenMode> {
    static constexpr std::array names{Named<TokenMode>{TokenMode::words, "words"},
                                      Named<TokenMode>{TokenMode::chars, "chars"}};
};

struct TokenizerOptions {
    TokenMode mode = TokenMode::words;
    bool lowercase = false;  ///< lowercase the sentence first, as to_lower does
};

/// Cuts `sentence` into tokens.
///
///     tokenize("Hello, world!", {}) == {"Hello", ",", "world", "!"}
///     tokenize("naïve café", {TokenMode::chars}) == {"n","a","ï","v","e","c","a","f","é"}
///
/// A "character" is an extended grapheme cluster (Unicode Standard Annex #29): a letter with
/// its combining marks, a Devanagari consonant with its virama or vowel sign, a Thai
/// consonant with its vowel and tone marks, a flag, an emoji with its skin tone or a
/// zero-width-joined emoji sequence. Words mode classifies each cluster by the general
/// category of its first code point: letters, marks, numbers and connector punctuation
/// ('_') make words; other punctuation, symbols, private-use and unassigned code points are
/// tokens of their own; separators, control and format characters separate tokens and are
/// dropped. A mark with no character before it (at the start, or after white space) is a
/// token of its own. Throws attn::Error for invalid UTF-8 and for a sentence without any
/// token.
std::vector<std::string> tokenize(std::string_view sentence, const TokenizerOptions& options);

/// The longest token attn takes, in bytes: a word of a thousand letters is already no word to
/// show in a table, and each token is copied into labels, explanations and outputs, so a
/// megabyte-long one would take memory no --max-memory foresees. The tokenizer, the
/// embeddings and the tokens of a Q, K, V file refuse longer ones.
inline constexpr std::size_t max_token_bytes = 1024;

/// The first characters of a long token, whole UTF-8 characters, then "…": for messages.
std::string token_preview(std::string_view token);

/// `text` lowercased as --lowercase does: Unicode's full default lowercase mapping, the same
/// in every locale (utf8proc's mappings, with İ U+0130 → i + U+0307 and Greek capital sigma
/// → final ς at the end of a word, σ elsewhere). Turkish I and İ therefore become i and
/// i + U+0307, not ı and i. Bytes that are not UTF-8 are kept as they are.
std::string to_lower(std::string_view text);

/// `text` with Unicode full case folding (utf8proc's UTF8PROC_CASEFOLD), as case-insensitive
/// embedding lookup compares tokens: ΟΔΟΣ, οδος and οδοσ all fold to οδοσ, Straße and
/// STRASSE to strasse. The same in every locale. Bytes that are not UTF-8 are kept as they
/// are.
std::string fold_case(std::string_view text);

}  // namespace attn
