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
/// ("-2.2250738585072014e-308") but copies digits in fixed-size pieces, which may scribble
/// on up to this many bytes.
inline constexpr std::size_t max_number_chars = 48;

/// Writes the shortest text that reads back as the same double at `p` (room for
/// max_number_chars) and returns the end: exactly what fmt::format("{}", x) writes, which
/// the tests check. JSON has no infinities or NaN: those become the strings "-inf", "inf"
/// and "nan" (documented, never a silent null).
///
/// The digits come from fmt's Dragonbox (the shortest decimal that rounds back to x); laying
/// them out here, with fixed-size copies rather than fmt's general float writer, makes a
/// dump of millions of numbers much faster (docs/performance.md).
inline char* write_number(char* p, double x) {
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
    // The significand (< 10^17) as exactly 17 digits, leading zeros included, in
    // digits[15, 32): eight groups of two digits and one digit, each found with a short chain
    // of multiplications rather than one long chain of divisions. The bytes after them are
    // there so that the fixed-size copies below stay inside.
    static constexpr std::string_view pairs =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    const auto put_eight = [](char* to, std::uint32_t v) {  // v < 10^8, as 8 digits
        const std::uint32_t high = v / 10000;
        const std::uint32_t low = v % 10000;
        std::memcpy(to, pairs.data() + static_cast<std::size_t>(high / 100) * 2, 2);
        std::memcpy(to + 2, pairs.data() + static_cast<std::size_t>(high % 100) * 2, 2);
        std::memcpy(to + 4, pairs.data() + static_cast<std::size_t>(low / 100) * 2, 2);
        std::memcpy(to + 6, pairs.data() + static_cast<std::size_t>(low % 100) * 2, 2);
    };
    std::array<char, 64> digits{};
    char* const end = digits.data() + 32;
    const std::uint64_t sig = decimal.significand;
    const std::uint64_t top9 = sig / 100000000;  // < 10^9
    end[-17] = static_cast<char>('0' + top9 / 100000000);
    put_eight(end - 16, static_cast<std::uint32_t>(top9 % 100000000));
    put_eight(end - 8, static_cast<std::uint32_t>(sig % 100000000));
    // its number of digits: about log10 from the bit length, then one comparison
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
    const std::size_t bits = std::bit_width(sig);    // sig >= 1
    const std::size_t guess = (bits * 1233) >> 12U;  // floor(bits · log10 2)
    const std::size_t count = guess + (sig >= powers[guess] ? 1 : 0);
    const char* first = end - count;
    const int n = static_cast<int>(end - first);
    const int exponent = decimal.exponent;    // x = significand · 10^exponent
    const int output_exp = exponent + n - 1;  // x = d.ddd · 10^output_exp
    // fmt's rule for "{}": fixed notation for 10^-4 <= x < 10^16, else d.ddde±XX
    if (output_exp < -4 || output_exp >= 16) {
        p[0] = first[0];
        p[1] = '.';
        std::memcpy(p + 2, first + 1, 16);
        p += n > 1 ? n + 1 : 1;
        *p++ = 'e';
        *p++ = output_exp < 0 ? '-' : '+';
        const int e = output_exp < 0 ? -output_exp : output_exp;
        if (e >= 100) {
            *p++ = static_cast<char>('0' + e / 100);
        }
        std::memcpy(p, pairs.data() + static_cast<std::size_t>(e % 100) * 2, 2);
        return p + 2;
    }
    if (exponent >= 0) {  // 1234e2 -> 123400 (at most 16 characters)
        std::memcpy(p, first, 17);
        p += n;
        for (int i = 0; i < exponent; ++i) {
            *p++ = '0';
        }
        return p;
    }
    const int integer_digits = n + exponent;
    if (integer_digits > 0) {  // 1234e-2 -> 12.34
        std::memcpy(p, first, 16);
        p[integer_digits] = '.';
        std::memcpy(p + integer_digits + 1, first + integer_digits, 16);
        return p + n + 1;
    }
    // 1234e-6 -> 0.001234: at most three zeros after the point (x >= 10^-4)
    constexpr std::string_view zeros = "0.000";
    std::copy(zeros.begin(), zeros.end(), p);
    p += 2 - integer_digits;
    std::memcpy(p, first, 17);
    return p + n;
}

/// Appends the shortest text that reads back as the same double (see write_number).
inline void append_number(std::string& out, double x) {
    std::array<char, max_number_chars> text{};
    const char* end = write_number(text.data(), x);
    out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

}  // namespace attn::json_text
