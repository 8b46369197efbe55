#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"

#include <array>
#include <string>

#include <fmt/format.h>
#include <utf8proc.h>

namespace attn {
namespace {

std::string str(std::string_view s) {
    return std::string(s);
}

std::string shape(std::size_t rows, std::size_t cols) {
    return std::to_string(rows) + "×" + std::to_string(cols);
}

}  // namespace

// The plain name of each field, in the order of the enum (error.hpp).
constexpr auto field_names = std::to_array<std::string_view>({
    "the value",                     // none
    "the sentence",                  // sentence
    "the seed",                      // seed
    "d_model",                       // d_model
    "the number of heads",           // n_heads
    "d_k",                           // d_k
    "d_v",                           // d_v
    "the mask",                      // mask
    "the positions",                 // positions
    "the padded length",             // pad_to
    "the arithmetic",                // arith
    "the scaling",                   // scale_by
    "the softmax axis",              // softmax_over
    "the rule for unknown tokens",   // unknown
    "the number of tokens",          // tokens
    "the head",                      // head
    "the layer",                     // layer
    "the precision",                 // precision
    "the width",                     // width
    "the number of threads",         // threads
    "the memory limit",              // max_memory
    "the layout",                    // layout
    "the format",                    // format
    "the colour setting",            // color
    "the theme",                     // theme
    "the steps",                     // steps
    "the cell",                      // why
    "the change",                    // set
    "the number of training steps",  // train_steps
    "the number of epochs",          // epochs
    "the tolerance",                 // tolerance
});
static_assert(field_names.size() == field_count);

std::string_view field_name(Field field) noexcept {
    const auto i = static_cast<std::size_t>(field);
    return i < field_names.size() ? field_names[i] : field_names.front();
}

namespace {

// `text` with each subject mark replaced by `name`.
std::string with_subject(std::string_view text, std::string_view name) {
    std::string out;
    out.reserve(text.size() + 16);
    for (char c : text) {
        if (c == subject) {
            out += name;
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

Error::Error(ErrorKind kind, Field field, const std::string& text)
    : std::runtime_error(with_subject(text, field_name(field))),
      kind_(kind),
      field_(field),
      text_(text) {}

std::string Error::message(std::string_view name) const {
    return with_subject(text_, name);
}

std::string shown(std::string_view text, bool keep_newlines) {
    std::string out;
    out.reserve(text.size());
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());  // NOLINT
    std::size_t i = 0;
    while (i < text.size()) {
        utf8proc_int32_t cp = 0;
        const auto n =
            utf8proc_iterate(bytes + i, static_cast<utf8proc_ssize_t>(text.size() - i), &cp);
        if (n <= 0) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
            ++i;
            continue;
        }
        const auto len = static_cast<std::size_t>(n);
        if (!utf8::hidden(static_cast<char32_t>(cp)) || (keep_newlines && cp == '\n')) {
            out.append(text.substr(i, len));
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp < 0x80) {
            out += fmt::format("\\x{:02x}", cp);
        } else if (cp <= 0xFFFF) {
            out += fmt::format("\\u{:04x}", cp);
        } else {
            out += fmt::format("\\U{:08x}", cp);
        }
        i += len;
    }
    return out;
}

std::string listed(const std::vector<std::string>& items, std::string_view last) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            out += i + 1 == items.size() ? last : ", ";
        }
        out += items[i];
    }
    return out;
}

std::string listed(const std::vector<std::size_t>& indices, std::string_view last) {
    std::vector<std::string> items;
    items.reserve(indices.size());
    for (std::size_t i : indices) {
        items.push_back(std::to_string(i));
    }
    return listed(items, last);
}

namespace errors {

Error bad_size(Field field, long long found, long long min, long long max,
               std::string_view meaning) {
    return {ErrorKind::usage, field,
            fmt::format("{} is {}, expected a whole number from {} to {} ({})", subject, found, min,
                        max, meaning)};
}

Error empty_sentence(std::string_view mode) {
    const bool chars = mode == "chars";
    return {ErrorKind::input,
            std::string("the sentence has no tokens, expected at least one ") +
                (chars ? "character that is not white space" : "word, number or punctuation mark") +
                "\n  hint: give it in quotes, e.g. attn explain \"This is book\""};
}

Error invalid_utf8(std::string_view what, std::size_t byte_offset, unsigned char byte) {
    return {ErrorKind::input,
            fmt::format("{} is not valid UTF-8: byte 0x{:02X} at byte offset {} does not start or "
                        "continue a UTF-8 character, expected UTF-8 text\n  hint: convert it "
                        "first, e.g. with iconv -f latin1 -t utf-8",
                        what, byte, byte_offset)};
}

Error shape_mismatch(std::string_view what, std::string_view left, std::size_t left_rows,
                     std::size_t left_cols, std::string_view right, std::size_t right_rows,
                     std::size_t right_cols) {
    return {ErrorKind::input, str(what) + ": " + str(left) + " is " + shape(left_rows, left_cols) +
                                  ", expected " + str(right) + " = " +
                                  shape(right_rows, right_cols)};
}

Error bad_choice(Field field, std::string_view found, std::string_view allowed) {
    return {ErrorKind::usage, field,
            fmt::format("{} is '{}', expected one of: {}", subject, shown(found), allowed)};
}

Error cannot_write(std::string_view path, std::string_view reason) {
    return {ErrorKind::output, "cannot write " + shown(path) + ": " + str(reason) +
                                   " (nothing was written; any existing file is unchanged)"};
}

}  // namespace errors
}  // namespace attn
