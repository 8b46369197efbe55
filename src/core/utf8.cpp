#include "attn/core/utf8.hpp"

#include <utf8proc.h>

#include <array>

namespace attn::utf8 {
namespace {

constexpr char32_t emoji_presentation = 0xFE0F;  // VARIATION SELECTOR-16
constexpr char32_t text_presentation = 0xFE0E;   // VARIATION SELECTOR-15

utf8proc_int32_t to_int(char32_t cp) noexcept {
    return static_cast<utf8proc_int32_t>(cp);
}

int boundclass(char32_t cp) noexcept {
    return static_cast<int>(utf8proc_get_property(to_int(cp))->boundclass);
}

// The width of one grapheme cluster (`cluster` is exactly one, as grapheme_length cuts it).
std::size_t cluster_width(std::string_view cluster) noexcept {
    const auto first = decode(cluster);
    if (!first) {
        return 1;  // an invalid byte
    }
    const int first_class = boundclass(first->code_point);
    const bool pictograph = first_class == UTF8PROC_BOUNDCLASS_EXTENDED_PICTOGRAPHIC ||
                            first_class == UTF8PROC_BOUNDCLASS_REGIONAL_INDICATOR;
    std::size_t sum = static_cast<std::size_t>(code_point_width(first->code_point));
    bool more = false;
    bool emoji_selector = false;
    bool text_selector = false;
    for (std::size_t i = first->length; i < cluster.size();) {
        const auto d = decode(cluster.substr(i));
        if (!d) {
            break;  // cannot happen: a cluster holds valid UTF-8 only
        }
        i += d->length;
        more = true;
        emoji_selector = emoji_selector || d->code_point == emoji_presentation;
        text_selector = text_selector || d->code_point == text_presentation;
        const int cls = boundclass(d->code_point);
        if (cls != UTF8PROC_BOUNDCLASS_V && cls != UTF8PROC_BOUNDCLASS_T) {
            sum += static_cast<std::size_t>(code_point_width(d->code_point));
        }
    }
    // a flag, a ZWJ sequence, an emoji with a skin tone or U+FE0F: one emoji glyph
    if (emoji_selector || (more && pictograph && !text_selector)) {
        return 2;
    }
    return sum;
}

}  // namespace

MajorCategory major_category(char32_t cp) noexcept {
    // utf8proc names the category as Unicode does ("Lu", "Mn", ...): its first letter, in
    // the order of MajorCategory
    constexpr std::string_view letters = "LMNPSZ";
    const auto at = letters.find(utf8proc_category_string(to_int(cp))[0]);
    return at == std::string_view::npos ? MajorCategory::other : static_cast<MajorCategory>(at);
}

std::optional<std::size_t> first_space_or_control(std::string_view text) noexcept {
    for (std::size_t i = 0; i < text.size();) {
        const auto d = decode(text.substr(i));
        if (!d) {
            return i;  // not UTF-8: not a label either
        }
        const auto category = utf8proc_category(to_int(d->code_point));
        if (category == UTF8PROC_CATEGORY_CC || category == UTF8PROC_CATEGORY_ZS ||
            category == UTF8PROC_CATEGORY_ZL || category == UTF8PROC_CATEGORY_ZP) {
            return i;
        }
        i += d->length;
    }
    return std::nullopt;
}

std::optional<Decoded> decode(std::string_view text) noexcept {
    if (text.empty()) {
        return std::nullopt;
    }
    utf8proc_int32_t cp = -1;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): utf8proc reads bytes
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
    // utf8proc_iterate rejects what RFC 3629 does: stray continuation bytes, truncated and
    // overlong sequences, surrogates, and values above U+10FFFF
    const utf8proc_ssize_t length =
        utf8proc_iterate(bytes, static_cast<utf8proc_ssize_t>(text.size()), &cp);
    if (length <= 0 || cp < 0) {
        return std::nullopt;
    }
    return Decoded{static_cast<char32_t>(cp), static_cast<std::size_t>(length)};
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
    std::array<utf8proc_uint8_t, 4> bytes{};
    const utf8proc_ssize_t n = utf8proc_encode_char(to_int(cp), bytes.data());
    for (utf8proc_ssize_t i = 0; i < n; ++i) {
        out += static_cast<char>(bytes.at(static_cast<std::size_t>(i)));
    }
}

std::size_t grapheme_length(std::string_view text) noexcept {
    const auto first = decode(text);
    if (!first) {
        return text.empty() ? 0 : 1;
    }
    utf8proc_int32_t state = 0;
    char32_t previous = first->code_point;
    std::size_t length = first->length;
    while (length < text.size()) {
        const auto next = decode(text.substr(length));
        if (!next ||
            utf8proc_grapheme_break_stateful(to_int(previous), to_int(next->code_point), &state)) {
            break;
        }
        previous = next->code_point;
        length += next->length;
    }
    return length;
}

int code_point_width(char32_t cp) noexcept {
    return utf8proc_charwidth(to_int(cp));
}

std::size_t display_width(std::string_view text) noexcept {
    std::size_t width = 0;
    while (!text.empty()) {
        const std::size_t length = grapheme_length(text);
        width += cluster_width(text.substr(0, length));
        text.remove_prefix(length);
    }
    return width;
}

std::string_view unicode_version() noexcept {
    return utf8proc_unicode_version();
}

std::string_view utf8proc_version() noexcept {
    return ::utf8proc_version();
}

// Whether a code point would act on a terminal or a page, or hide, rather than show: C0 and
// C1 controls, DEL, line and paragraph separators, and format characters (bidirectional
// overrides and isolates, zero-width spaces, the byte order mark, tags). The zero-width
// joiner and non-joiner stay: emoji sequences and many scripts need them.
bool hidden(char32_t code_point) noexcept {
    const utf8proc_int32_t cp = to_int(code_point);
    if (cp == 0x200C || cp == 0x200D) {
        return false;  // the zero-width (non-)joiners of emoji sequences and of Indic scripts
    }
    // invisible although not format characters: the combining grapheme joiner and the Hangul
    // fillers (blank letters, which make one token look like another)
    if (cp == 0x034F || cp == 0x115F || cp == 0x1160 || cp == 0x3164 || cp == 0xFFA0) {
        return true;
    }
    switch (utf8proc_category(cp)) {
        case UTF8PROC_CATEGORY_CC:  // C0 and C1 controls and DEL
        case UTF8PROC_CATEGORY_CF:  // bidi controls, zero-width space, BOM, soft hyphen, ...
        case UTF8PROC_CATEGORY_ZL:  // line and paragraph separators
        case UTF8PROC_CATEGORY_ZP:
        case UTF8PROC_CATEGORY_CO:  // private use: no glyph anyone agrees on
        case UTF8PROC_CATEGORY_CN:  // unassigned (in attn's Unicode) and noncharacters
            return true;
        default:
            return false;
    }
}

}  // namespace attn::utf8
