#pragma once
/// UTF-8 decoding, grapheme clusters and display width, for the tokenizer and terminal output.
/// The Unicode data (Unicode 15 with Debian 12's utf8proc 2.8) comes from utf8proc.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attn::utf8 {

/// One decoded code point and the number of bytes it took.
struct Decoded {
    char32_t code_point;
    std::size_t length;
};

/// Decodes the code point at the start of `text`. Returns nothing for invalid UTF-8:
/// a stray continuation byte, a truncated sequence, an overlong form, a surrogate or a
/// value above U+10FFFF.
std::optional<Decoded> decode(std::string_view text) noexcept;

/// The byte offset of the first invalid sequence, or nothing when `text` is valid UTF-8.
std::optional<std::size_t> first_invalid(std::string_view text) noexcept;

/// The byte offset of the first white space (Unicode categories Zs, Zl, Zp, and tab, line
/// feed and the other ASCII spacing controls) or control character (Cc) in `text`, which must
/// be valid UTF-8; nothing when there is none. A label of a row (a token) has neither.
std::optional<std::size_t> first_space_or_control(std::string_view text) noexcept;

/// Unicode's general categories by their first letter: L, M, N, P, S, Z and C (controls,
/// format characters, private use, surrogates and unassigned code points).
enum class MajorCategory { letter, mark, number, punctuation, symbol, separator, other };

/// The major category of `cp`'s general category (Lu, Ll, ... are letters).
MajorCategory major_category(char32_t cp) noexcept;

/// Whether a code point would act on a terminal or a page, or hide, rather than show: C0 and
/// C1 controls, DEL, line and paragraph separators, format characters (bidirectional
/// overrides and isolates, zero-width spaces, the byte order mark, tags), private use and
/// unassigned code points. The zero-width joiner and non-joiner are not: emoji sequences and
/// many scripts need them. Every string from outside attn is shown with these made visible.
bool hidden(char32_t code_point) noexcept;

/// Appends the UTF-8 encoding of `cp` to `out`.
void append(std::string& out, char32_t cp);

/// The length in bytes of the extended grapheme cluster (Unicode Standard Annex #29) that
/// starts `text`: a user-perceived character such as `e` + U+0301, the Devanagari `स्`, the
/// Thai `ดี`, a flag, an emoji with its skin tone or a family joined by zero-width joiners.
/// An invalid byte is a cluster of its own (length 1); empty `text` gives 0.
std::size_t grapheme_length(std::string_view text) noexcept;

/// How many terminal columns `text` takes, counted per grapheme cluster. An emoji sequence
/// (a flag, a zero-width-joined sequence, an emoji with a skin tone or with the emoji
/// variation selector U+FE0F) is one glyph of 2 columns. Any other cluster takes the sum of
/// its code points' widths (code_point_width), except that Hangul vowel and final jamo take
/// none after the syllable's first jamo. An invalid byte counts 1.
std::size_t display_width(std::string_view text) noexcept;

/// Columns taken by one code point on its own (utf8proc_charwidth): 2 for East Asian wide
/// and full-width characters and emoji, 0 for combining marks, format and control
/// characters, 1 otherwise.
int code_point_width(char32_t cp) noexcept;

/// The version of Unicode whose data attn uses ("15.0.0" with Debian 12's utf8proc 2.8).
std::string_view unicode_version() noexcept;

/// The version of the utf8proc library that attn runs with ("2.8.0").
std::string_view utf8proc_version() noexcept;

}  // namespace attn::utf8
