#pragma once
/// The tokenizer: a sentence in, tokens out. UTF-8 safe: a token never splits a character.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/enums.hpp"

namespace attn {

/// How a sentence is cut into tokens.
enum class TokenMode {
    words,  ///< runs of letters and digits, and each punctuation mark or symbol on its own
    chars   ///< one token per character (whitespace dropped)
};

template <>
struct EnumNames<TokenMode> {
    static constexpr std::array names{Named<TokenMode>{TokenMode::words, "words"},
                                      Named<TokenMode>{TokenMode::chars, "chars"}};
};

struct TokenizerOptions {
    TokenMode mode = TokenMode::words;
    bool lowercase = false;  ///< fold ASCII, Latin-1, Greek and Cyrillic capitals to lowercase
};

/// Cuts `sentence` into tokens.
///
///     tokenize("Hello, world!", {}) == {"Hello", ",", "world", "!"}
///     tokenize("naïve café", {TokenMode::chars}) == {"n","a","ï","v","e","c","a","f","é"}
///
/// A "character" is a code point with the combining marks, variation selectors and
/// zero-width-joined code points that follow it, so an accented letter, a flag or a
/// family emoji stays one token. Throws attn::Error for invalid UTF-8 and for a sentence
/// without any token.
std::vector<std::string> tokenize(std::string_view sentence, const TokenizerOptions& options);

/// `text` with ASCII, Latin-1, Greek and Cyrillic capitals folded to lowercase, as
/// --lowercase and case-insensitive embedding lookup do. `text` must be valid UTF-8.
std::string fold_case(std::string_view text);

}  // namespace attn
