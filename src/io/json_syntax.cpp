// attn's words for a JSON syntax error. nlohmann/json's parser stops at the error; the handler
// (json_reader.cpp) knows where the last good token ended and what it expected next, and
// these functions read on from there, by the rules attn's messages have always followed,
// to the place and the kind of the error: a quoted character, an unclosed string, a number
// that overflows, a trailing comma, ...
#include "json_syntax.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"
#include "attn/io/json_reader.hpp"

namespace attn::json::detail {
namespace {

constexpr std::string_view a_value =
    "a value (a number, a string in double quotes, [, {, true, false or null)";

std::string shown(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) {
        return fmt::format("'{}'", c);
    }
    return fmt::format("byte 0x{:02X}", u);
}

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

}  // namespace

std::optional<double> to_double(std::string_view literal) noexcept {
    double value = 0.0;
    const char* end = literal.data() + literal.size();
    const auto [ptr, ec] = std::from_chars(literal.data(), end, value);
    if (ptr != end) {
        return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range) {
        // too small for a double: 0; too large: infinity (judged by the exponent's sign and
        // the integer part, as attn always has: 1000…000e-10 with 400 zeros also reads as 0)
        const std::size_t e = literal.find_first_of("eE");
        const bool negative_exponent =
            e != std::string_view::npos && e + 1 < literal.size() && literal[e + 1] == '-';
        const auto integer = literal.substr(0, literal.find_first_of(".eE"));
        const bool zero_integer = integer.find_first_not_of("-0") == std::string_view::npos;
        return negative_exponent || zero_integer ? 0.0 : HUGE_VAL;
    }
    if (ec != std::errc()) {
        return std::nullopt;
    }
    return value;
}

std::string without_comments(std::string_view text) {
    std::string out(text);
    std::size_t i = 0;
    while (i < out.size()) {
        if (out[i] == '"') {  // a string, to its closing quote
            ++i;
            while (i < out.size() && out[i] != '"') {
                i += out[i] == '\\' ? 2U : 1U;
            }
            ++i;
        } else if (out[i] == '/' && i + 1 < out.size() &&
                   (out[i + 1] == '/' || out[i + 1] == '*')) {
            std::size_t end = 0;
            if (out[i + 1] == '/') {
                end = std::min(out.find('\n', i + 2), out.size());
            } else {
                end = out.find("*/", i + 2);
                if (end == std::string_view::npos) {
                    break;  // never closed: left for the message
                }
                end += 2;
            }
            std::fill(out.begin() + static_cast<std::ptrdiff_t>(i),
                      out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
            i = end;
        } else {
            ++i;
        }
    }
    return out;
}

std::size_t Syntax::skip_comment(std::size_t at) const {
    if (text_[at + 1] == '/') {
        const std::size_t end = std::min(text_.find('\n', at + 2), text_.size());
        // nlohmann's lexer ends the comment at a carriage return or a NUL byte too: the same
        // only if nothing but white space follows on the line (as with \r\n line ends)
        const auto comment = text_.substr(at + 2, end - at - 2);
        const std::size_t stop = comment.find_first_of(std::string_view("\r\0", 2));
        if (!blanked_ && stop != std::string_view::npos &&
            comment.find_first_not_of(" \t\r", stop + 1) != std::string_view::npos) {
            throw CommentsDiffer{};
        }
        return end;
    }
    const std::size_t close = text_.find("*/", at + 2);
    if (close == std::string_view::npos) {
        fail(at, "a /* comment that is never closed", "*/ to end it");
    }
    if (!blanked_ && text_.substr(at + 2, close - at - 2).find('\0') != std::string_view::npos) {
        throw CommentsDiffer{};  // nlohmann's lexer takes a NUL byte for the end of the text
    }
    return close + 2;
}

std::size_t Syntax::skip_space(std::size_t at) const {
    while (!at_end(at)) {
        const char c = text_[at];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            ++at;
        } else if (c == '/' && at + 1 < text_.size() &&
                   (text_[at + 1] == '/' || text_[at + 1] == '*')) {
            at = skip_comment(at);
        } else {
            break;
        }
    }
    return at;
}

void Syntax::fail(std::size_t at, std::string_view found, std::string_view expected) const {
    const auto place = line_column(text_, at);
    throw Error(ErrorKind::input, fmt::format("{}:{}:{}: not JSON: {}, expected {}", file_,
                                              place.line, place.column, found, expected));
}

void Syntax::too_deep(std::size_t at) const {
    fail(at, fmt::format("more than {} levels of nested arrays and objects", max_depth),
         "a flatter file");
}

void Syntax::too_much_memory(std::size_t at, std::size_t need, const MemoryBudget& budget,
                             std::size_t text_bytes, std::size_t read) const {
    const auto place = line_column(text_, at);
    // what the whole file would take: its text, and its values at the rate of the part read
    const std::size_t values = need - std::min(need, text_bytes);
    const long double whole = static_cast<long double>(text_bytes) +
                              static_cast<long double>(values) *
                                  static_cast<long double>(text_.size()) /
                                  static_cast<long double>(std::max<std::size_t>(read, 1));
    const auto guess = whole >= static_cast<long double>(std::size_t{1} << 62U)
                           ? std::size_t{1} << 62U
                           : std::max(need, static_cast<std::size_t>(whole));
    throw Error(
        ErrorKind::input, Field::max_memory,
        fmt::format("{}:{}:{}: reading this file needs more memory than {}: {} for its text "
                    "and the values up to here, expected a file whose values fit in it\n  "
                    "hint: at this rate the whole file needs about {}; raise the limit ({} {}) "
                    "or give a smaller file",
                    file_, place.line, place.column, budget.allows(), human_bytes(need),
                    human_bytes(guess), subject, enough_memory(guess + guess / 8 + budget.held)));
}

void Syntax::duplicate_key(std::size_t at, std::string_view key) const {
    fail(at, fmt::format("the key \"{}\" a second time", key), "each key once per object");
}

void Syntax::explain(std::size_t at, Expect expect, std::size_t depth, std::size_t last_number,
                     std::size_t stopped) const {
    if (last_number != std::string_view::npos && !at_end(at) && is_digit(text_[at])) {
        number(last_number);  // nlohmann's "0" and then "1" are attn's "01": a leading zero
    }
    const std::size_t p = skip_space(at);
    const bool end = at_end(p);
    switch (expect) {
        case Expect::document:
            if (end) {
                fail(p, "the file has no JSON value", "a JSON object");
            }
            value(p, 0, stopped);
        case Expect::value:
            value(p, depth, stopped);
        case Expect::next_element:
            if (end) {
                fail(p, "the end of the file inside an array",
                     "',' or ']' (is the file cut short?)");
            }
            if (text_[p] == ',') {
                const std::size_t next = skip_space(p + 1);
                if (!at_end(next) && text_[next] == ']') {
                    fail(next, "']' after a comma",
                         "another element (JSON allows no trailing comma)");
                }
                value(next, depth, stopped);
            }
            if (text_[p] != ']') {
                fail(p, shown(text_[p]), "',' or ']' after an element of an array");
            }
            break;
        case Expect::first_key:
            if (end || text_[p] != '}') {
                key(p, stopped);
            }
            break;
        case Expect::colon:
            if (end || text_[p] != ':') {
                fail(p, end ? "the end of the file" : shown(text_[p]), "':' after the key");
            }
            value(skip_space(p + 1), depth, stopped);
        case Expect::next_member:
            if (end) {
                fail(p, "the end of the file inside an object",
                     "',' or '}' (is the file cut short?)");
            }
            if (text_[p] == ',') {
                key(skip_space(p + 1), stopped);
            }
            if (text_[p] != '}') {
                fail(p, shown(text_[p]), "',' or '}' after a member of an object");
            }
            break;
        case Expect::end:
            expect_end(p);
            break;
    }
    disagree(stopped);
}

void Syntax::expect_end(std::size_t at) const {
    const std::size_t p = skip_space(at);
    if (!at_end(p)) {
        fail(p, fmt::format("{} after the end of the JSON value", shown(text_[p])),
             "nothing more (is a comma or a bracket misplaced?)");
    }
}

void Syntax::value(std::size_t at, std::size_t depth, std::size_t stopped) const {
    if (depth > max_depth) {
        too_deep(at);
    }
    if (at_end(at)) {
        fail(at, "the end of the file", "a value (is the file cut short?)");
    }
    const char c = text_[at];
    if (c == '"') {
        string(at);
    } else if (c == '-' || is_digit(c)) {
        number(at);
    } else if (c == 't' || c == 'f' || c == 'n') {
        const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (text_.substr(at, word.size()) != word) {
            fail(at, shown(c), a_value);
        }
    } else if (c == '[' || c == '{') {
        // the start of a container is no error
    } else if (text_.substr(at, 3) == "NaN" || text_.substr(at, 8) == "Infinity") {
        // what Python's json.dump writes for nan and inf
        fail(at,
             c == 'N' ? "NaN, which JSON does not allow" : "Infinity, which JSON does not allow",
             "a finite number (Python writes these for nan and inf: check the data)");
    } else if (at == 0 && (text_.starts_with("\xFF\xFE") || text_.starts_with("\xFE\xFF"))) {
        fail(at, "a UTF-16 byte order mark", "UTF-8 text (save the file as UTF-8)");
    } else {
        fail(at, shown(c), a_value);
    }
    disagree(stopped);
}

void Syntax::key(std::size_t at, std::size_t stopped) const {
    if (at_end(at)) {
        fail(at, "the end of the file inside an object", "a key and } (is the file cut short?)");
    }
    if (text_[at] != '"') {
        fail(at, shown(text_[at]),
             text_[at] == '}' ? "another key after the comma (JSON allows no trailing comma)"
                              : "a key in double quotes");
    }
    string(at);
    disagree(stopped);
}

// Throws for the first thing wrong in the string that starts at `at`.
void Syntax::string(std::size_t at) const {
    std::size_t p = at + 1;
    const auto hex4 = [&] {
        unsigned value = 0;
        for (int i = 0; i < 4; ++i, ++p) {
            if (at_end(p) || std::isxdigit(static_cast<unsigned char>(text_[p])) == 0) {
                fail(p, at_end(p) ? "the end of the file" : shown(text_[p]),
                     "four hexadecimal digits after \\u");
            }
            const char c = text_[p];
            value =
                value * 16 +
                static_cast<unsigned>(
                    c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);  // NOLINT(hicpp-signed-bitwise)
        }
        return value;
    };
    while (true) {
        if (at_end(p)) {
            fail(at, "a string that is never closed", "a closing \"");
        }
        const char c = text_[p];
        const auto u = static_cast<unsigned char>(c);
        if (c == '"') {
            return;
        }
        if (u < 0x20) {
            fail(p, c == '\n' ? "a line break inside a string" : shown(c),
                 "\\n or another escape for a control character");
        }
        if (c == '\\') {
            ++p;
            if (at_end(p)) {
                fail(p, "the end of the file", "an escape after \\");
            }
            const char e = text_[p++];
            if (e == 'u') {
                const unsigned cp = hex4();
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (text_.substr(p, 2) != "\\u") {
                        fail(p, "a lone UTF-16 high surrogate", "a \\uDC00-\\uDFFF after it");
                    }
                    p += 2;
                    const unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF) {
                        fail(p, "a UTF-16 high surrogate without its low half",
                             "a \\uDC00-\\uDFFF after it");
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    fail(p, "a lone UTF-16 low surrogate", "a character");
                }
            } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                fail(p, fmt::format("the escape \\{}", e),
                     "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
            }
            continue;
        }
        if (u < 0x80) {
            ++p;
            continue;
        }
        const auto d = utf8::decode(text_.substr(p));
        if (!d) {
            fail(p, fmt::format("byte 0x{:02X}, which is not UTF-8", u), "UTF-8 text");
        }
        p += d->length;
    }
}

// Throws for the first thing wrong in the number that starts at `at`.
void Syntax::number(std::size_t at) const {
    std::size_t p = at;
    const auto digits = [&] {
        const std::size_t begin = p;
        while (!at_end(p) && is_digit(text_[p])) {
            ++p;
        }
        return p - begin;
    };
    const auto found = [&] {
        return at_end(p) ? std::string("the end of the file") : shown(text_[p]);
    };
    if (text_[p] == '-') {
        ++p;
    }
    const std::size_t int_begin = p;
    const std::size_t n_int = digits();
    if (n_int == 0) {
        fail(p, found(), "a digit");
    }
    if (n_int > 1 && text_[int_begin] == '0') {
        fail(at, "a number with a leading zero", "a number such as 0.5 or 7");
    }
    if (!at_end(p) && text_[p] == '.') {
        ++p;
        if (digits() == 0) {
            fail(p, found(), "a digit after the decimal point");
        }
    }
    if (!at_end(p) && (text_[p] == 'e' || text_[p] == 'E')) {
        ++p;
        if (!at_end(p) && (text_[p] == '+' || text_[p] == '-')) {
            ++p;
        }
        if (digits() == 0) {
            fail(p, found(), "a digit in the exponent");
        }
    }
    const std::string_view literal = text_.substr(at, p - at);
    const auto value = to_double(literal);
    if (!value) {
        fail(at, fmt::format("the number {}", literal), "a JSON number");
    }
    if (std::isinf(*value)) {
        // a number of hundreds of digits is cut in the message: 9999999999… (400 digits)
        const std::string written =
            literal.size() <= 24
                ? std::string(literal)
                : fmt::format("{}… ({} characters)", literal.substr(0, 12), literal.size());
        fail(at, fmt::format("the number {} that overflows to infinity", written),
             "a number of at most about ±1.8e308");
    }
}

void Syntax::disagree(std::size_t stopped) const {
    const auto place = line_column(text_, std::min(stopped, text_.size()));
    throw Error(
        ErrorKind::internal,
        fmt::format("{}:{}:{}: nlohmann/json finds this file is not JSON, but attn's reader "
                    "finds nothing wrong (a bug in attn)",
                    file_, place.line, place.column));
}

}  // namespace attn::json::detail
