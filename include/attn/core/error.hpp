#pragma once
/// attn::Error: every failure the library reports, with the kind deciding the exit code.
///
/// The core never prints and never exits; it throws an Error built by one of the named
/// factories below, so that every message says what was found, what was expected and,
/// where it helps, what to do about it.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn {

/// What went wrong, which decides the exit code (see docs/cli.md).
enum class ErrorKind {
    usage,    ///< a bad option or argument on the command line (exit 2)
    input,    ///< bad input data: a sentence, a file's contents (exit 2)
    output,   ///< an output file could not be written (exit 1)
    internal  ///< a broken invariant: a bug in attn (exit 1)
};

/// The one exception type of attn. `what()` is the whole message, without the `attn: error:`
/// prefix, which only `main` adds.
class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }
    /// 2 for usage and input errors, 1 for everything else.
    [[nodiscard]] int exit_code() const noexcept {
        return kind_ == ErrorKind::usage || kind_ == ErrorKind::input ? 2 : 1;
    }

  private:
    ErrorKind kind_;
};

namespace errors {

/// `--d-model 0`: "--d-model is 0, expected a whole number from 1 to 4096 (the width of each
/// token's embedding vector)".
Error bad_size(std::string_view option, long long found, long long min, long long max,
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
Error bad_choice(std::string_view option, std::string_view found, std::string_view allowed);
/// An output file could not be written.
Error cannot_write(std::string_view path, std::string_view reason);

}  // namespace errors
}  // namespace attn
