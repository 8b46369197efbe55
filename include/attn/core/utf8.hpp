#pragma once
/// UTF-8 decoding and display width, written for attn's tokenizer and terminal output.

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

/// Appends the UTF-8 encoding of `cp` to `out`.
void append(std::string& out, char32_t cp);

/// How many terminal columns `text` takes: 2 for East Asian wide characters and emoji,
/// 0 for combining marks and joiners, 1 otherwise. `text` must be valid UTF-8.
std::size_t display_width(std::string_view text) noexcept;

/// Columns taken by one code point (see display_width).
int code_point_width(char32_t cp) noexcept;

}  // namespace attn::utf8
