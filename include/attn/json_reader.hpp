#pragma once
/// attn's reader for JSON input files: every value keeps its line and column, so that an
/// error can point at the exact place in the file (nlohmann/json 3.11 cannot say where a
/// value was; see docs/design.md).
///
/// Accepts standard JSON (RFC 8259) plus // and /* */ comments, which `attn init` writes to
/// explain its starter files. Rejects duplicate keys, nesting deeper than 64 levels,
/// invalid UTF-8, and numbers too large for a double.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::json {

/// Where a value starts in its file: 1-based line and column (in characters), byte offset.
struct Position {
    std::size_t line = 1;
    std::size_t column = 1;
    std::size_t offset = 0;
};

struct Member;

/// A parsed JSON value and where it was.
struct Value {
    enum class Type { null, boolean, number, string, array, object };

    Type type = Type::null;
    Position position;
    bool boolean = false;
    double number = 0.0;
    std::string text;             ///< a string's contents, or an integer number as written (exact)
    std::vector<Value> items;     ///< an array's elements
    std::vector<Member> members;  ///< an object's members, in order

    /// The member called `key`, or nullptr.
    [[nodiscard]] const Value* find(std::string_view key) const noexcept;
    [[nodiscard]] bool is(Type t) const noexcept { return type == t; }
};

/// One member of an object: its key (`first`) and value (`second`), named as in a
/// std::pair, which cannot hold the still incomplete Value portably.
struct Member {
    std::string first;
    Value second;
};

/// "a number", "an array", ... for messages.
std::string_view describe(Value::Type type) noexcept;

/// Parses `text`, read from `file` (used in messages). Throws attn::Error (input) as
/// "FILE:LINE:COLUMN: not JSON: ..., expected ..." for a syntax error.
Value parse(std::string_view text, std::string_view file);

/// Reads a whole file for parsing. Throws attn::Error (input) naming the file when it does
/// not exist, is a directory, cannot be read, is empty, or is larger than `max_bytes`.
/// A UTF-8 byte order mark at the start is dropped.
std::string read_file(const std::string& path, std::size_t max_bytes);

/// The largest input file attn reads: 256 MiB.
inline constexpr std::size_t max_input_bytes = std::size_t{256} << 20U;

}  // namespace attn::json
