// A small strict JSON parser that records the position of every value. Recursive descent,
// with an explicit depth limit so that a hostile file cannot overflow the stack.
#include "attn/io/json_reader.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"

namespace attn::json {
namespace {

constexpr std::size_t max_depth = 64;

std::string shown(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) {
        return fmt::format("'{}'", c);
    }
    return fmt::format("byte 0x{:02X}", u);
}

}  // namespace

namespace detail {

class Parser {
  public:
    Parser(std::string_view text, std::string_view file) : text_(text), file_(file) {}

    Value document() {
        skip_space();
        if (at_end()) {
            fail("the file has no JSON value", "a JSON object");
        }
        Value v = value(0);
        skip_space();
        if (!at_end()) {
            fail(fmt::format("{} after the end of the JSON value", shown(peek())),
                 "nothing more (is a comma or a bracket misplaced?)");
        }
        return v;
    }

  private:
    [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
    [[nodiscard]] char peek() const { return text_[pos_]; }

    [[noreturn]] void fail(std::string_view found, std::string_view expected) const {
        fail_at(here(), found, expected);
    }
    [[noreturn]] void fail_at(const Position& p, std::string_view found,
                              std::string_view expected) const {
        throw Error(ErrorKind::input, fmt::format("{}:{}:{}: not JSON: {}, expected {}", file_,
                                                  p.line, p.column, found, expected));
    }

    [[nodiscard]] Position here() const { return {line_, column_, pos_}; }

    void advance() {
        if (text_[pos_] == '\n') {
            ++line_;
            column_ = 1;
        } else if ((static_cast<unsigned char>(text_[pos_]) & 0xC0U) != 0x80U) {
            ++column_;  // count characters, not the continuation bytes of UTF-8
        }
        ++pos_;
    }

    // advance() over a character known to be ASCII and not a newline: a digit, a sign
    void step() {
        ++pos_;
        ++column_;
    }

    void skip_space() {
        while (!at_end()) {
            const char c = peek();
            if (c == ' ' || c == '\t' || c == '\r') {
                step();
            } else if (c == '\n') {
                advance();
            } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
                while (!at_end() && peek() != '\n') {
                    advance();
                }
            } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
                const Position start = here();
                advance();
                advance();
                while (!at_end() &&
                       !(peek() == '*' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/')) {
                    advance();
                }
                if (at_end()) {
                    fail_at(start, "a /* comment that is never closed", "*/ to end it");
                }
                advance();
                advance();
            } else {
                return;
            }
        }
    }

    void expect_literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) {
            fail(fmt::format("{}", shown(peek())),
                 "a value (a number, a string in double quotes, [, {, true, false or null)");
        }
        for (std::size_t i = 0; i < word.size(); ++i) {
            advance();
        }
    }

    Value value(std::size_t depth) {
        if (depth > max_depth) {
            fail(fmt::format("more than {} levels of nested arrays and objects", max_depth),
                 "a flatter file");
        }
        Value v;
        v.position = here();
        if (at_end()) {
            fail("the end of the file", "a value (is the file cut short?)");
        }
        const char c = peek();
        if (c == '{') {
            object(v, depth);
        } else if (c == '[') {
            array(v, depth);
        } else if (c == '"') {
            v.type = Value::Type::string;
            v.text = string();
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.type = Value::Type::number;
            const std::size_t begin = pos_;
            v.number = number();
            const auto literal = text_.substr(begin, pos_ - begin);
            if (literal.find_first_of(".eE") == std::string_view::npos) {
                v.text = std::string(literal);  // an integer, kept exactly (seeds exceed 2^53)
            }
        } else if (c == 't') {
            expect_literal("true");
            v.type = Value::Type::boolean;
            v.boolean = true;
        } else if (c == 'f') {
            expect_literal("false");
            v.type = Value::Type::boolean;
        } else if (c == 'n') {
            expect_literal("null");
        } else if (text_.substr(pos_, 3) == "NaN" || text_.substr(pos_, 8) == "Infinity") {
            // what Python's json.dump writes for nan and inf
            fail(
                c == 'N' ? "NaN, which JSON does not allow" : "Infinity, which JSON does not allow",
                "a finite number (Python writes these for nan and inf: check the data)");
        } else if (pos_ == 0 && (text_.starts_with("\xFF\xFE") || text_.starts_with("\xFE\xFF"))) {
            fail("a UTF-16 byte order mark", "UTF-8 text (save the file as UTF-8)");
        } else {
            fail(shown(c),
                 "a value (a number, a string in double quotes, [, {, true, false or null)");
        }
        return v;
    }

    void object(Value& v, std::size_t depth) {
        v.type = Value::Type::object;
        advance();  // {
        skip_space();
        if (!at_end() && peek() == '}') {
            advance();
            return;
        }
        while (true) {
            skip_space();
            if (at_end()) {
                fail("the end of the file inside an object",
                     "a key and } (is the file cut short?)");
            }
            if (peek() != '"') {
                fail(shown(peek()), peek() == '}' ? "another key after the comma (JSON allows no "
                                                    "trailing comma)"
                                                  : "a key in double quotes");
            }
            const Position key_at = here();
            std::string key = string();
            for (const auto& [existing, _] : v.members) {
                if (existing == key) {
                    fail_at(key_at, fmt::format("the key \"{}\" a second time", key),
                            "each key once per object");
                }
            }
            skip_space();
            if (at_end() || peek() != ':') {
                fail(at_end() ? "the end of the file" : shown(peek()), "':' after the key");
            }
            advance();
            skip_space();
            Value member = value(depth + 1);
            v.members.push_back({std::move(key), std::move(member)});
            skip_space();
            if (at_end()) {
                fail("the end of the file inside an object", "',' or '}' (is the file cut short?)");
            }
            if (peek() == ',') {
                advance();
                continue;
            }
            if (peek() == '}') {
                advance();
                return;
            }
            fail(shown(peek()), "',' or '}' after a member of an object");
        }
    }

    // An array. Its numbers go straight into v.items.numbers_ while all its elements are
    // numbers (a row of a matrix); anything else, or an integer too long to be exact in a
    // double, turns it into Values.
    void array(Value& v, std::size_t depth) {
        v.type = Value::Type::array;
        advance();  // [
        skip_space();
        if (!at_end() && peek() == ']') {
            advance();
            return;
        }
        bool compact = depth + 1 <= max_depth;
        if (compact) {  // rows of a matrix come one after another, all of one length
            v.items.numbers_.reserve(last_numbers_);
            v.items.number_at_.reserve(last_numbers_);
        }
        while (true) {
            skip_space();
            if (!at_end() && peek() == ']') {
                fail("']' after a comma", "another element (JSON allows no trailing comma)");
            }
            const bool is_number = !at_end() && (peek() == '-' || (peek() >= '0' && peek() <= '9'));
            if (compact && is_number) {
                const Position at = here();
                const std::size_t begin = pos_;
                bool integer = false;
                const double x = number(&integer);
                const auto literal = text_.substr(begin, pos_ - begin);
                constexpr std::size_t exact_digits = 15;  // < 2^53: the double holds it exactly
                if (!integer || literal.size() - (literal[0] == '-' ? 1 : 0) <= exact_digits) {
                    v.items.numbers_.push_back(x);
                    v.items.number_at_.push_back({at, integer});
                } else {
                    compact = false;
                    spill(v);
                    Value n;
                    n.type = Value::Type::number;
                    n.position = at;
                    n.number = x;
                    n.text = std::string(literal);  // an integer, kept exactly
                    v.items.values_.push_back(std::move(n));
                }
            } else {
                if (compact) {
                    compact = false;
                    spill(v);
                }
                v.items.values_.push_back(value(depth + 1));
            }
            skip_space();
            if (at_end()) {
                fail("the end of the file inside an array", "',' or ']' (is the file cut short?)");
            }
            if (peek() == ',') {
                advance();
                continue;
            }
            if (peek() == ']') {
                advance();
                last_numbers_ = v.items.numbers_.size();
                return;
            }
            fail(shown(peek()), "',' or ']' after an element of an array");
        }
    }

    // The numbers read so far into an array as Values, when it turns out not to be all
    // numbers.
    static void spill(Value& v) {
        (void)v.items.made();
        v.items.numbers_ = {};
        v.items.number_at_ = {};
    }

    unsigned hex4() {
        unsigned value = 0;
        for (int i = 0; i < 4; ++i) {
            if (at_end() || std::isxdigit(static_cast<unsigned char>(peek())) == 0) {
                fail(at_end() ? "the end of the file" : shown(peek()),
                     "four hexadecimal digits after \\u");
            }
            const char c = peek();
            const unsigned digit = static_cast<unsigned>(
                c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);  // NOLINT(hicpp-signed-bitwise)
            value = value * 16 + digit;
            advance();
        }
        return value;
    }

    std::string string() {
        const Position start = here();
        advance();  // "
        std::string out;
        while (true) {
            if (at_end()) {
                fail_at(start, "a string that is never closed", "a closing \"");
            }
            const char c = peek();
            const auto u = static_cast<unsigned char>(c);
            if (c == '"') {
                advance();
                return out;
            }
            if (u < 0x20) {
                fail(c == '\n' ? "a line break inside a string" : shown(c),
                     "\\n or another escape for a control character");
            }
            if (c == '\\') {
                advance();
                if (at_end()) {
                    fail("the end of the file", "an escape after \\");
                }
                const char e = peek();
                advance();
                switch (e) {
                    case '"':
                        out += '"';
                        break;
                    case '\\':
                        out += '\\';
                        break;
                    case '/':
                        out += '/';
                        break;
                    case 'b':
                        out += '\b';
                        break;
                    case 'f':
                        out += '\f';
                        break;
                    case 'n':
                        out += '\n';
                        break;
                    case 'r':
                        out += '\r';
                        break;
                    case 't':
                        out += '\t';
                        break;
                    case 'u': {
                        unsigned cp = hex4();
                        if (cp >= 0xD800 && cp <= 0xDBFF) {
                            if (text_.substr(pos_, 2) != "\\u") {
                                fail("a lone UTF-16 high surrogate", "a \\uDC00-\\uDFFF after it");
                            }
                            advance();
                            advance();
                            const unsigned low = hex4();
                            if (low < 0xDC00 || low > 0xDFFF) {
                                fail("a UTF-16 high surrogate without its low half",
                                     "a \\uDC00-\\uDFFF after it");
                            }
                            cp = 0x10000 + ((cp - 0xD800) << 10U) + (low - 0xDC00);
                        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                            fail("a lone UTF-16 low surrogate", "a character");
                        }
                        utf8::append(out, static_cast<char32_t>(cp));
                        break;
                    }
                    default:
                        fail(fmt::format("the escape \\{}", e),
                             "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
                }
                continue;
            }
            if (u < 0x80) {
                out += c;
                advance();
                continue;
            }
            const auto d = utf8::decode(text_.substr(pos_));
            if (!d) {
                fail(fmt::format("byte 0x{:02X}, which is not UTF-8", u), "UTF-8 text");
            }
            out.append(text_.substr(pos_, d->length));
            for (std::size_t i = 0; i < d->length; ++i) {
                advance();
            }
        }
    }

    // A number; `integer` (if given) tells whether it has no point and no exponent.
    double number(bool* integer = nullptr) {
        const Position start = here();
        const std::size_t begin = pos_;
        const auto digits = [this] {
            std::size_t n = 0;
            while (!at_end() && peek() >= '0' && peek() <= '9') {
                step();
                ++n;
            }
            return n;
        };
        if (peek() == '-') {
            step();
        }
        const std::size_t int_begin = pos_;
        const std::size_t n_int = digits();
        if (n_int == 0) {
            fail(at_end() ? "the end of the file" : shown(peek()), "a digit");
        }
        if (n_int > 1 && text_[int_begin] == '0') {
            fail_at(start, "a number with a leading zero", "a number such as 0.5 or 7");
        }
        bool negative_exponent = false;
        if (!at_end() && peek() == '.') {
            step();
            if (digits() == 0) {
                fail(at_end() ? "the end of the file" : shown(peek()),
                     "a digit after the decimal point");
            }
        }
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            step();
            if (!at_end() && (peek() == '+' || peek() == '-')) {
                negative_exponent = peek() == '-';
                step();
            }
            if (digits() == 0) {
                fail(at_end() ? "the end of the file" : shown(peek()), "a digit in the exponent");
            }
        }
        const std::string_view literal = text_.substr(begin, pos_ - begin);
        if (integer != nullptr) {
            *integer = literal.size() == n_int + (int_begin - begin);
        }
        double value = 0.0;
        const auto [ptr, ec] =
            std::from_chars(literal.data(), literal.data() + literal.size(), value);
        if (ec == std::errc::result_out_of_range) {
            // too small for a double: it is zero; too large: it would be infinity
            const bool all_zero_int =
                literal.substr(int_begin - begin, n_int).find_first_not_of('0') ==
                std::string_view::npos;
            if (negative_exponent || all_zero_int) {
                return 0.0;
            }
            // a number of hundreds of digits is cut in the message: 9999999999… (400 digits)
            const std::string written =
                literal.size() <= 24
                    ? std::string(literal)
                    : fmt::format("{}… ({} characters)", literal.substr(0, 12), literal.size());
            fail_at(start, fmt::format("the number {} that overflows to infinity", written),
                    "a number of at most about ±1.8e308");
        }
        if (ec != std::errc() || ptr != literal.data() + literal.size()) {
            fail_at(start, fmt::format("the number {}", literal), "a JSON number");
        }
        return value;
    }

    std::string_view text_;
    std::string_view file_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t column_ = 1;
    std::size_t last_numbers_ = 0;  // how many numbers the last array held compactly
};

}  // namespace detail

const std::vector<Value>& Items::made() const {
    if (values_.empty() && !numbers_.empty()) {
        values_.resize(numbers_.size());
        for (std::size_t i = 0; i < numbers_.size(); ++i) {
            Value& item = values_[i];
            item.type = Value::Type::number;
            item.position = number_at_[i].position;
            item.number = numbers_[i];
            if (number_at_[i].integer) {
                // exactly its literal: an integer of at most 15 digits, and no leading zeros
                item.text = std::signbit(item.number) && item.number == 0.0
                                ? "-0"
                                : fmt::format("{}", static_cast<std::int64_t>(item.number));
            }
        }
    }
    return values_;
}

const Value* Value::find(std::string_view key) const noexcept {
    for (const auto& [k, v] : members) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

std::string_view describe(Value::Type type) noexcept {
    switch (type) {
        case Value::Type::null:
            return "null";
        case Value::Type::boolean:
            return "a boolean";
        case Value::Type::number:
            return "a number";
        case Value::Type::string:
            return "a string";
        case Value::Type::array:
            return "an array";
        case Value::Type::object:
            return "an object";
    }
    return "a value";
}

Value parse(std::string_view text, std::string_view file) {
    return detail::Parser(text, file).document();
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        throw Error(
            ErrorKind::input,
            fmt::format("cannot read {}: {}, expected a readable JSON file", path,
                        err == ENOENT ? "no such file"
                                      : std::strerror(err)));  // NOLINT(concurrency-mt-unsafe)
    }
    if (S_ISDIR(st.st_mode)) {
        throw Error(ErrorKind::input,
                    fmt::format("cannot read {}: it is a directory, expected a JSON file", path));
    }
    if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
        throw Error(
            ErrorKind::input,
            fmt::format("{} is {:.1f} MiB, expected at most {} MiB (attn's limit for an "
                        "input file)",
                        path, static_cast<double>(st.st_size) / 1048576.0, max_bytes >> 20U));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(ErrorKind::input,
                    fmt::format("cannot read {}: {}, expected a readable JSON file", path,
                                std::strerror(errno)));  // NOLINT(concurrency-mt-unsafe)
    }
    std::string text;
    std::vector<char> buffer(std::size_t{1} << 16U);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
        text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes) {
            throw Error(ErrorKind::input,
                        fmt::format("{} is larger than {} MiB, expected at most that (attn's "
                                    "limit for an input file)",
                                    path, max_bytes >> 20U));
        }
    }
    if (in.bad()) {
        throw Error(ErrorKind::input, fmt::format("cannot read {}: a read error", path));
    }
    if (text.starts_with("\xEF\xBB\xBF")) {
        text.erase(0, 3);  // a UTF-8 byte order mark, as some Windows editors write
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        throw Error(ErrorKind::input, fmt::format("{} is empty, expected a JSON object", path));
    }
    return text;
}

}  // namespace attn::json
