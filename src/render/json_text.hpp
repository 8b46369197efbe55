#pragma once
// JSON text pieces shared by the writers of JSON (the dump, attn init's model files).

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace attn::json_text {

/// Appends `s` as a JSON string: quotes, backslashes and control characters escaped; UTF-8
/// passes through (attn validates it on input).
inline void append_string(std::string& out, std::string_view s) {
    out += '"';
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20) {
                    fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

/// The room write_number() needs at its output: it writes at most 24 characters
/// ("-2.2250738585072014e-308") but stores digits in 8-byte pieces, which may scribble on up
/// to this many bytes.
inline constexpr std::size_t max_number_chars = 48;

namespace detail {

static_assert(std::endian::native == std::endian::little,
              "write_number lays out digits in 8-byte words, first digit at the lowest address");

/// v < 10^8 as 8 ASCII digits in a word, the first digit in its lowest byte: the digits are
/// split in halves, quarters and eighths in all lanes at once, each division a
/// multiplication and a shift (exact for these ranges), so no digit waits for another.
inline std::uint64_t eight_digits(std::uint32_t v) {
    const std::uint64_t halves = (v / 10000) | (std::uint64_t{v % 10000} << 32U);
    const std::uint64_t hundreds = ((halves * 10486) >> 20U) & 0x0000007F0000007FULL;
    const std::uint64_t quarters = hundreds | ((halves - hundreds * 100) << 16U);
    const std::uint64_t tens = ((quarters * 103) >> 10U) & 0x000F000F000F000FULL;
    const std::uint64_t digits = tens | ((quarters - tens * 10) << 8U);
    return digits + 0x3030303030303030ULL;
}

/// Sixteen characters as two words, the first character in the lowest byte of `low`.
struct Chars16 {
    std::uint64_t low = 0;
    std::uint64_t high = 0;

    /// v < 10^16 as 16 ASCII digits, leading zeros included.
    static Chars16 digits(std::uint64_t v) {
        return {eight_digits(static_cast<std::uint32_t>(v / 100000000)),
                eight_digits(static_cast<std::uint32_t>(v % 100000000))};
    }
    /// The characters from `n` on, moved to the front (none are left for n >= 16).
    [[nodiscard]] Chars16 from(unsigned n) const {
        if (n == 0) {
            return *this;
        }
        if (n < 8) {
            return {(low >> (8 * n)) | (high << (64 - 8 * n)), high >> (8 * n)};
        }
        if (n < 16) {
            return {high >> (8 * (n - 8)), 0};
        }
        return {};
    }
    /// Stores all 16 at `p`.
    void put(char* p) const {
        std::memcpy(p, &low, sizeof low);
        std::memcpy(p + 8, &high, sizeof high);
    }
};

}  // namespace detail

/// Writes the shortest text that reads back as the same double at `p` (room for
/// max_number_chars) and returns the end: exactly what fmt::format("{}", x) writes, which
/// the tests check. JSON has no infinities or NaN: those become the strings "-inf", "inf"
/// and "nan" (documented, never a silent null).
///
/// The digits come from fmt's Dragonbox (the shortest decimal that rounds back to x); laying
/// them out here, in 8-byte words held in registers rather than fmt's general float writer,
/// makes a dump of millions of numbers much faster (docs/performance.md).
inline char* write_number(char* p, double x) {
    using detail::Chars16;
    if (!std::isfinite(x)) {
        const std::string_view text = std::isnan(x) ? "\"nan\"" : x < 0 ? "\"-inf\"" : "\"inf\"";
        return std::copy(text.begin(), text.end(), p);
    }
    if (std::signbit(x)) {
        *p++ = '-';
        x = -x;
    }
    if (x == 0.0) {
        *p++ = '0';
        return p;
    }
    const auto decimal = fmt::detail::dragonbox::to_decimal(x);
    const std::uint64_t sig = decimal.significand;  // < 10^17, no trailing zeros
    // its number of digits n: about log10 from the bit length, then one comparison
    static constexpr std::array<std::uint64_t, 18> powers{1ULL,
                                                          10ULL,
                                                          100ULL,
                                                          1000ULL,
                                                          10000ULL,
                                                          100000ULL,
                                                          1000000ULL,
                                                          10000000ULL,
                                                          100000000ULL,
                                                          1000000000ULL,
                                                          10000000000ULL,
                                                          100000000000ULL,
                                                          1000000000000ULL,
                                                          10000000000000ULL,
                                                          100000000000000ULL,
                                                          1000000000000000ULL,
                                                          10000000000000000ULL,
                                                          100000000000000000ULL};
    const auto bits = static_cast<unsigned>(std::bit_width(sig));  // sig >= 1
    const unsigned guess = (bits * 1233) >> 12U;                   // floor(bits · log10 2)
    const unsigned n = guess + (sig >= powers[guess] ? 1 : 0);
    const int exponent = decimal.exponent;                      // x = significand · 10^exponent
    const int output_exp = exponent + static_cast<int>(n) - 1;  // x = d.ddd · 10^output_exp
    // The digits as `first` and then `rest`, the 16 after it (only n - 1 of them count).
    char first = 0;
    Chars16 rest;
    if (n == 17) {
        first = static_cast<char>('0' + sig / powers[16]);
        rest = Chars16::digits(sig % powers[16]);
    } else {
        const Chars16 all = Chars16::digits(sig).from(16 - n);
        first = static_cast<char>(all.low & 0xFFU);
        rest = all.from(1);
    }
    // fmt's rule for "{}": fixed notation for 10^-4 <= x < 10^16, else d.ddde±XX
    if (output_exp < -4 || output_exp >= 16) {
        p[0] = first;
        p[1] = '.';
        rest.put(p + 2);
        p += n > 1 ? n + 1 : 1;
        *p++ = 'e';
        *p++ = output_exp < 0 ? '-' : '+';
        const int e = output_exp < 0 ? -output_exp : output_exp;
        if (e >= 100) {
            *p++ = static_cast<char>('0' + e / 100);
        }
        *p++ = static_cast<char>('0' + e % 100 / 10);
        *p++ = static_cast<char>('0' + e % 10);
        return p;
    }
    if (exponent >= 0) {  // 1234e2 -> 123400 (n < 17 here: x < 10^16)
        p[0] = first;
        rest.put(p + 1);
        p += n;
        for (int i = 0; i < exponent; ++i) {
            *p++ = '0';
        }
        return p;
    }
    const int integer_digits = output_exp + 1;
    if (integer_digits > 0) {  // 1234e-2 -> 12.34: the point after `integer_digits` digits
        const auto k = static_cast<unsigned>(integer_digits);
        p[0] = first;
        rest.put(p + 1);
        rest.from(k - 1).put(p + k + 1);
        p[k] = '.';
        return p + n + 1;
    }
    // 1234e-6 -> 0.001234: at most three zeros after the point (x >= 10^-4)
    constexpr std::uint64_t zeros = 0x3030303030302E30ULL;  // "0.000000"
    std::memcpy(p, &zeros, sizeof zeros);
    p += 2 - integer_digits;
    p[0] = first;
    rest.put(p + 1);
    return p + n;
}

/// Appends the shortest text that reads back as the same double (see write_number).
inline void append_number(std::string& out, double x) {
    std::array<char, max_number_chars> text{};
    const char* end = write_number(text.data(), x);
    out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

}  // namespace attn::json_text
