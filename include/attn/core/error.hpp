#pragma once
/// attn::Error: every failure the library reports, with the kind deciding the exit code.
///
/// The core never prints and never exits; it throws an Error built by one of the named
/// factories below, so that every message says what was found, what was expected and,
/// where it helps, what to do about it. The core knows no command-line flags: an error about
/// one value the user chose names it by a Field, and the message leaves a place for the
/// name (`subject`), which the command line fills with the flag (`--d-model`) and everything
/// else with the plain name (`d_model`).

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

/// What went wrong, which decides the exit code (see docs/cli.md).
enum class ErrorKind {
    usage,    ///< a bad option or argument on the command line (exit 2)
    input,    ///< bad input data: a sentence, a file's contents (exit 2)
    output,   ///< an output file could not be written (exit 1)
    internal  ///< a broken invariant: a bug in attn (exit 1)
};

/// The values a user chooses, by which an error names what it is about.
enum class Field {
    none,
    sentence,
    seed,
    d_model,
    n_heads,
    d_k,
    d_v,
    mask,
    positions,
    pad_to,
    arith,
    scale_by,
    softmax_over,
    unknown,
    tokens,
    head,
    layer,
    precision,
    width,
    threads,
    max_memory,
    layout,
    format,
    color,
    theme,
    steps,
    why,
    set,          ///< a what-if's CELL=VALUE
    train_steps,  ///< attn train --steps
    epochs,
    tolerance,  ///< the last: tables indexed by Field have field_count rows
};

/// How many fields there are.
inline constexpr std::size_t field_count = static_cast<std::size_t>(Field::tolerance) + 1;

/// The plain name of a field in messages: "d_model", "the number of heads", ...
std::string_view field_name(Field field) noexcept;

/// The mark in a message where the field's name goes (a character no shown text contains:
/// user strings reach messages through shown(), which makes control characters visible).
inline constexpr char subject = '\x1F';

/// The one exception type of attn. `what()` is the whole message with the plain name of its
/// field, without the `attn: error:` prefix, which only the command line adds.
class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& message)
        : std::runtime_error(message), kind_(kind), text_(message) {}
    /// `text` names the field with `subject`, e.g. "\x1F is 0, expected ...".
    Error(ErrorKind kind, Field field, const std::string& text);

    [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }
    [[nodiscard]] Field field() const noexcept { return field_; }
    /// The message with `name` for the field: the command line passes the flag.
    [[nodiscard]] std::string message(std::string_view name) const;
    /// 2 for usage and input errors, 1 for everything else.
    [[nodiscard]] int exit_code() const noexcept {
        return kind_ == ErrorKind::usage || kind_ == ErrorKind::input ? 2 : 1;
    }

  private:
    ErrorKind kind_;
    Field field_ = Field::none;
    std::string text_;
};

/// A string that came from outside attn (a token, a file name, a JSON key), made safe to show
/// in a message or on a terminal: C0 and C1 controls, DEL, bidirectional overrides and other
/// invisible format characters (Unicode categories Cc, Cf, Zl, Zp), private-use and unassigned
/// code points (Co, Cn), the combining grapheme joiner and the Hangul fillers become visible
/// escapes such as \x1b, \u202e or \U000e0001 (the zero-width joiner and non-joiner of emoji
/// and Indic scripts stay); bytes that are not UTF-8 become \xNN. Everything else is kept. With
/// `keep_newlines`, a line feed stays a line feed (for a whole message of several lines, whose user
/// strings were shown() already: shown() of shown text changes nothing).
std::string shown(std::string_view text, bool keep_newlines = false);

/// Items as a sentence lists them: "a, b and c", with `last` before the last item (" or ",
/// or ", " for a plain list).
std::string listed(const std::vector<std::string>& items, std::string_view last = " and ");
/// Indices listed the same way: "0, 4 and 9".
std::string listed(const std::vector<std::size_t>& indices, std::string_view last = " and ");

namespace errors {

/// A size out of range: "d_model is 0, expected a whole number from 1 to 4096 (the width of
/// each token's embedding vector)".
Error bad_size(Field field, long long found, long long min, long long max,
               std::string_view meaning);
/// The sentence has no tokens.
Error empty_sentence(std::string_view mode);
/// The sentence has bytes that are not UTF-8, at a byte offset.
Error invalid_utf8(std::string_view what, std::size_t byte_offset, unsigned char byte);
/// Two matrices whose shapes do not fit together: names both sides and their sizes.
Error shape_mismatch(std::string_view what, std::string_view left, std::size_t left_rows,
                     std::size_t left_cols, std::string_view right, std::size_t right_rows,
                     std::size_t right_cols);
/// A value the user chose is not one of the allowed ones.
Error bad_choice(Field field, std::string_view found, std::string_view allowed);
/// An output file could not be written.
Error cannot_write(std::string_view path, std::string_view reason);

}  // namespace errors
}  // namespace attn
