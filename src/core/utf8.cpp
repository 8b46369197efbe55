#include "attn/core/utf8.hpp"

namespace attn::utf8 {

std::optional<Decoded> decode(std::string_view text) noexcept {
    if (text.empty()) {
        return std::nullopt;
    }
    const auto b0 = static_cast<unsigned char>(text[0]);
    if (b0 < 0x80) {
        return Decoded{b0, 1};
    }
    std::size_t length = 0;
    char32_t cp = 0;
    char32_t min = 0;
    if ((b0 & 0xE0) == 0xC0) {
        length = 2;
        cp = b0 & 0x1F;
        min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        length = 3;
        cp = b0 & 0x0F;
        min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        length = 4;
        cp = b0 & 0x07;
        min = 0x10000;
    } else {
        return std::nullopt;  // a continuation byte or 0xF8..0xFF where a sequence starts
    }
    if (text.size() < length) {
        return std::nullopt;
    }
    for (std::size_t i = 1; i < length; ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        if ((b & 0xC0) != 0x80) {
            return std::nullopt;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return std::nullopt;  // overlong, beyond Unicode, or a UTF-16 surrogate
    }
    return Decoded{cp, length};
}

std::optional<std::size_t> first_invalid(std::string_view text) noexcept {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto d = decode(text.substr(i));
        if (!d) {
            return i;
        }
        i += d->length;
    }
    return std::nullopt;
}

void append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int code_point_width(char32_t cp) noexcept {
    // zero width: combining marks, zero-width joiner and spaces, variation selectors, tags
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
        (cp >= 0x1DC0 && cp <= 0x1DFF) || (cp >= 0x20D0 && cp <= 0x20FF) ||
        (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
        (cp >= 0xFE20 && cp <= 0xFE2F) || (cp >= 0xE0000 && cp <= 0xE01EF) ||
        (cp >= 0x1F3FB && cp <= 0x1F3FF)) {
        return 0;
    }
    // wide: Hangul Jamo, CJK, Hangul syllables, full-width forms, emoji
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
        (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
        (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
        (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x1FA70 && cp <= 0x1FAFF) ||
        (cp >= 0x1F680 && cp <= 0x1F6FF) || (cp >= 0x20000 && cp <= 0x3FFFD)) {
        return 2;
    }
    return 1;
}

std::size_t display_width(std::string_view text) noexcept {
    std::size_t width = 0;
    std::size_t i = 0;
    bool after_joiner = false;
    while (i < text.size()) {
        const auto d = decode(text.substr(i));
        if (!d) {
            ++i;  // not UTF-8: count the byte as one column rather than fail
            ++width;
            continue;
        }
        if (!after_joiner) {
            width += static_cast<std::size_t>(code_point_width(d->code_point));
        }
        // the code point after a zero-width joiner draws as part of the same glyph
        after_joiner = d->code_point == 0x200D;
        i += d->length;
    }
    return width;
}

}  // namespace attn::utf8
