#include "attn/core/error.hpp"

#include <string>

namespace attn::errors {
namespace {

std::string str(std::string_view s) {
    return std::string(s);
}

std::string shape(std::size_t rows, std::size_t cols) {
    return std::to_string(rows) + "×" + std::to_string(cols);
}

char hex_digit(unsigned value) {
    return "0123456789ABCDEF"[value & 0xFU];
}

}  // namespace

Error bad_size(std::string_view option, long long found, long long min, long long max,
               std::string_view meaning) {
    return {ErrorKind::usage, str(option) + " is " + std::to_string(found) +
                                  ", expected a whole number from " + std::to_string(min) + " to " +
                                  std::to_string(max) + " (" + str(meaning) + ")"};
}

Error empty_sentence(std::string_view mode) {
    const bool chars = mode == "chars";
    return {ErrorKind::input,
            std::string("the sentence has no tokens, expected at least one ") +
                (chars ? "character that is not white space" : "word, number or punctuation mark") +
                "\n  hint: give it in quotes, e.g. attn explain \"This is book\""};
}

Error invalid_utf8(std::string_view what, std::size_t byte_offset, unsigned char byte) {
    std::string b = "0x";
    b += hex_digit(byte >> 4U);
    b += hex_digit(byte);
    return {ErrorKind::input, str(what) + " is not valid UTF-8: byte " + b + " at byte offset " +
                                  std::to_string(byte_offset) +
                                  " does not start or continue a UTF-8 character, expected "
                                  "UTF-8 text\n  hint: convert it first, e.g. with "
                                  "iconv -f latin1 -t utf-8"};
}

Error shape_mismatch(std::string_view what, std::string_view left, std::size_t left_rows,
                     std::size_t left_cols, std::string_view right, std::size_t right_rows,
                     std::size_t right_cols) {
    return {ErrorKind::input, str(what) + ": " + str(left) + " is " + shape(left_rows, left_cols) +
                                  ", expected " + str(right) + " = " +
                                  shape(right_rows, right_cols)};
}

Error bad_choice(std::string_view option, std::string_view found, std::string_view allowed) {
    return {ErrorKind::usage,
            str(option) + " is '" + str(found) + "', expected one of: " + str(allowed)};
}

Error cannot_write(std::string_view path, std::string_view reason) {
    return {ErrorKind::output, "cannot write " + str(path) + ": " + str(reason) +
                                   " (nothing was written; any existing file is unchanged)"};
}

}  // namespace attn::errors
