#pragma once
// attn's rules for the text between JSON tokens (white space and comments) and its messages
// for syntax errors, private to the JSON reader. nlohmann/json's parser finds that a text is
// not JSON; Syntax says where and how, in attn's words, starting from where the reader's
// handler stood (json_reader.cpp).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "attn/core/memory.hpp"

namespace attn::json::detail {

/// The deepest nesting of arrays and objects a file may have: the outermost value is at
/// depth 0, its elements at depth 1, ...
inline constexpr std::size_t max_depth = 64;

/// Thrown where nlohmann's lexer and attn's rules part: a // comment ends at a carriage
/// return or a NUL byte for nlohmann, at the line's end for attn, and a /* */ comment
/// holding a NUL byte is an error for nlohmann. The text is then parsed again with its
/// comments blanked out (without_comments).
struct CommentsDiffer {};

/// `text` with every comment, by attn's rules, overwritten by spaces: the same length, so
/// that offsets stay the same.
std::string without_comments(std::string_view text);

/// What the handler expected next when nlohmann's parser stopped.
enum class Expect {
    document,      // the file's value
    value,         // a value: the first element of an array, or after a key and its ':'
    next_element,  // ',' or ']' after an element of an array
    first_key,     // a key or '}' after '{'
    colon,         // ':' after a key
    next_member,   // ',' or '}' after a member of an object
    end,           // nothing more after the file's value
};

/// The double that the JSON number `literal` stands for, as attn reads it: std::from_chars;
/// out of a double's range, 0 if its exponent is negative or its integer part 0 (too small),
/// else infinity (too large, which the reader rejects). Nothing if `literal` is not wholly a
/// number.
std::optional<double> to_double(std::string_view literal) noexcept;

class Syntax {
  public:
    /// `text` is the file's text, `file` names it in messages. `blanked`: nlohmann's parser
    /// reads it without its comments (without_comments), so none can read differently there.
    Syntax(std::string_view text, std::string_view file, bool blanked) noexcept
        : text_(text), file_(file), blanked_(blanked) {}

    /// The end of the comment starting at `at` (a '/' followed by '/' or '*'); throws an
    /// Error for a /* comment that is never closed, and CommentsDiffer where nlohmann's lexer
    /// reads the comment otherwise (unless `blanked`).
    [[nodiscard]] std::size_t skip_comment(std::size_t at) const;
    /// The first offset at or after `at` that is not white space or a comment.
    [[nodiscard]] std::size_t skip_space(std::size_t at) const;

    /// "FILE:LINE:COLUMN: not JSON: FOUND, expected EXPECTED".
    [[noreturn]] void fail(std::size_t at, std::string_view found, std::string_view expected) const;
    /// A value at `at` nested more than max_depth levels deep.
    [[noreturn]] void too_deep(std::size_t at) const;
    /// Reading the value at `at` would take the text and its values to `need` bytes, more than
    /// `budget` leaves (--max-memory); `text_bytes` of them are the text's, which does not
    /// grow with the part read, `read` the bytes of the text read so far (`at` and beyond, in
    /// a long string).
    [[noreturn]] void too_much_memory(std::size_t at, std::size_t need, const MemoryBudget& budget,
                                      std::size_t text_bytes, std::size_t read) const;
    /// The key at `at`, `key`, is already a member of its object.
    [[noreturn]] void duplicate_key(std::size_t at, std::string_view key) const;

    /// Names the first error from `at` on, where the handler expected `expect` at nesting
    /// `depth`. `last_number` is where the token just before `at` starts if it is a number
    /// (nlohmann reads "01" as 0 and then 1), else npos. `stopped` is nlohmann's byte offset of
    /// the error, used only if attn's rules find none (a bug).
    [[noreturn]] void explain(std::size_t at, Expect expect, std::size_t depth,
                              std::size_t last_number, std::size_t stopped) const;
    /// Throws if anything but white space and comments follows the value that ends at `at`.
    void expect_end(std::size_t at) const;

  private:
    [[nodiscard]] bool at_end(std::size_t at) const noexcept { return at >= text_.size(); }
    [[noreturn]] void value(std::size_t at, std::size_t depth, std::size_t stopped) const;
    [[noreturn]] void key(std::size_t at, std::size_t stopped) const;
    void string(std::size_t at) const;
    void number(std::size_t at) const;
    [[noreturn]] void disagree(std::size_t stopped) const;

    std::string_view text_;
    std::string_view file_;
    bool blanked_;
};

}  // namespace attn::json::detail
