#pragma once
/// attn's reader for JSON input files, built on nlohmann/json's SAX parser. Every value keeps
/// the byte offset where it starts, and line_column() turns that into the line and column that
/// an error names (nlohmann/json 3.11 keeps no position for a value; see docs/design.md).
///
/// Accepts standard JSON (RFC 8259) plus // and /* */ comments, which `attn init` writes to
/// explain its starter files. Rejects duplicate keys, nesting deeper than 64 levels,
/// invalid UTF-8, and numbers too large for a double.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/core/attention.hpp"

namespace attn::json {

/// Where a value starts in its file: a byte offset into the text that was parsed. Lines and
/// columns are only needed for a message, so they are computed then, by line_column().
struct Position {
    std::size_t offset = 0;
};

/// A place in a text as a message names it: 1-based line and column, the column counting
/// characters (not the continuation bytes of UTF-8).
struct LineColumn {
    std::size_t line = 1;
    std::size_t column = 1;
};

/// The line and column of byte `offset` of `text` (at most text.size()).
LineColumn line_column(std::string_view text, std::size_t offset) noexcept;

struct Value;
struct Member;
namespace detail {
class Builder;
}

/// An array's elements, read as from a vector: size(), empty(), [] and a range for.
///
/// An array whose elements are all numbers (a row of a matrix) is held compactly, as its
/// values and their offsets, and numbers() gives the values without a Value made for
/// each: a model file holds hundreds of thousands of them (docs/performance.md). Its
/// elements as Values are made on the first use of [], begin() or end(), so one array is not
/// to be read from two threads at once.
class Items {
  public:
    [[nodiscard]] std::size_t size() const noexcept;
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    /// Element i; i < size().
    [[nodiscard]] const Value& operator[](std::size_t i) const;
    [[nodiscard]] const Value* begin() const;
    [[nodiscard]] const Value* end() const;
    /// The values of a non-empty array of numbers, as held compactly; nullptr for any other
    /// array (then read the elements). An array holding an integer of more than 15 digits,
    /// which a double may not hold exactly, is not held compactly.
    [[nodiscard]] const std::vector<double>* numbers() const noexcept {
        return numbers_.empty() ? nullptr : &numbers_;
    }

  private:
    friend class detail::Builder;
    [[nodiscard]] const std::vector<Value>& made() const;

    mutable std::vector<Value> values_;  // the elements; for a number array, made on first use
    std::vector<double> numbers_;        // a number array's values
    // where each number of a number array starts, shifted left by one; the lowest bit is set
    // when it is written as an integer, so that its Value keeps that text
    std::vector<std::uint64_t> number_at_;
};

/// A parsed JSON value and where it was.
struct Value {
    enum class Type { null, boolean, number, string, array, object };

    Type type = Type::null;
    Position position;
    bool boolean = false;
    double number = 0.0;
    std::string text;             ///< a string's contents, or an integer number as written (exact)
    Items items;                  ///< an array's elements
    std::vector<Member> members;  ///< an object's members, in order

    /// The member called `key`, or nullptr.
    [[nodiscard]] const Value* find(std::string_view key) const noexcept;
    [[nodiscard]] bool is(Type t) const noexcept { return type == t; }
};

inline std::size_t Items::size() const noexcept {
    return numbers_.empty() ? values_.size() : numbers_.size();
}
inline const Value& Items::operator[](std::size_t i) const {
    return made()[i];
}
inline const Value* Items::begin() const {
    return made().data();
}
inline const Value* Items::end() const {
    return made().data() + made().size();
}

/// One member of an object: its key (`first`) and value (`second`), named as in a
/// std::pair, which cannot hold the still incomplete Value portably.
struct Member {
    std::string first;
    Value second;
};

/// "a number", "an array", ... for messages.
std::string_view describe(Value::Type type) noexcept;

/// Parses `text`, read from `file` (used in messages). Throws attn::Error (input) as
/// "FILE:LINE:COLUMN: not JSON: ..., expected ..." for a syntax error. The values' positions
/// are offsets into `text`: keep it to name a value's line and column in a message.
///
/// The text and the tree of Values together may take at most what `budget` leaves
/// (--max-memory less what the run held before): the tree is counted as it grows, and
/// parsing stops with an attn::Error (input, naming Field::max_memory, the place and the
/// bytes) as soon as the limit would be passed.
Value parse(std::string_view text, std::string_view file, const MemoryBudget& budget = {});

/// Reads a whole file for parsing. Throws attn::Error (input) naming the file when it does
/// not exist, is a directory, cannot be read, is empty, or is larger than `budget` leaves.
/// A UTF-8 byte order mark at the start is dropped.
std::string read_file(const std::string& path, const MemoryBudget& budget);

/// The largest file of Hugging Face's (config.json, vocab.json, tokenizer.json, merges.txt)
/// attn reads: 256 MiB. attn's own files follow --max-memory instead.
inline constexpr std::size_t max_input_bytes = std::size_t{256} << 20U;

}  // namespace attn::json
