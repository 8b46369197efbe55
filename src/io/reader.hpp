#pragma once
// What the readers of attn's files share (one file per kind: embeddings_file.cpp,
// weights_file.cpp, model_file.cpp, mask_file.cpp, dump_file.cpp, answers_file.cpp): Reader
// parses a file and checks its values, and every error it throws says where
// (FILE:LINE:COLUMN: json.path), what was found and what was expected.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "attn/core/enums.hpp"
#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "attn/core/limits.hpp"
#include "attn/core/matrix.hpp"
#include "attn/core/model.hpp"
#include "attn/core/tokenizer.hpp"
#include "attn/io/heap.hpp"
#include "attn/io/json_reader.hpp"

namespace attn::reader {

using json::Value;
using Type = json::Value::Type;

/// The JSON path of member `key` of `path`, as messages write it: a.b, or a["two words"].
std::string child(const std::string& path, std::string_view key);
/// The JSON path of element `i` of `path`: a[3].
std::string index(const std::string& path, std::size_t i);

/// One file being read: its path and text, and the checks that name a place in it.
/// The member `key` of `obj`, which must be there: else `file.fail` (a Reader's or a
/// JsonFile's) says it is missing and what was expected.
template <typename File>
const Value& require_member(const File& file, const Value& obj, const std::string& where,
                            std::string_view key, std::string_view expected) {
    const Value* v = obj.find(key);
    if (v == nullptr) {
        file.fail(obj, where.empty() ? "the top level" : where,
                  fmt::format("\"{}\" is missing, expected {}", key, expected));
    }
    return *v;
}

class Reader {
  public:
    /// `max_memory`: the most that the file's text and its values may take (--max-memory).
    explicit Reader(std::string path, std::size_t max_memory = default_max_memory)
        : path_(std::move(path)), max_memory_(max_memory) {}

    [[nodiscard]] const std::string& path() const { return path_; }

    /// Reads and parses the file, which must hold an object that does not look like another
    /// kind of attn file than `schema`; `expected` names the kind in messages. Keeps the text,
    /// where the values' offsets point.
    Value document(std::string_view schema, std::string_view expected);

    /// Throws attn::Error (input): "FILE:LINE:COLUMN: WHERE: WHAT", at the value `at`.
    [[noreturn]] void fail(const Value& at, const std::string& where,
                           const std::string& what) const;
    /// The line of the file where `v` starts.
    [[nodiscard]] std::size_t line_of(const Value& v) const;

    /// Every key of `obj` is one of `allowed` (else the nearest is suggested).
    void check_keys(const Value& obj, const std::string& where,
                    const std::vector<std::string>& allowed) const;
    /// The member `key` of `obj`, which must be there.
    const Value& require(const Value& obj, const std::string& where, std::string_view key,
                         std::string_view expected) const;
    void expect_type(const Value& v, const std::string& where, Type type,
                     std::string_view expected) const;

    std::string string_value(const Value& v, const std::string& where) const;
    bool bool_value(const Value& v, const std::string& where) const;
    /// A size within the range of `field` (core/limits.hpp): the same ranges as the command
    /// line's.
    std::size_t size_value(const Value& v, const std::string& where, Field field) const;
    /// A row of numbers: [0.1, -0.3, ...]
    std::vector<double> numbers(const Value& v, const std::string& where) const;
    /// A matrix: an array of rows, all of the same length.
    Matrix matrix(const Value& v, const std::string& where) const;

  private:
    std::string path_;
    std::size_t max_memory_;
    std::string text_;  // the file's text, where the values' offsets point
};

/// A number as the file writes it: its text when the reader kept it, else the value.
std::string format_plain(const Value& v);

/// A seed, read exactly from the number's text: seeds go up to 2^64 - 1, past a double's 2^53.
std::uint64_t seed_of(const Reader& r, const Value& seed, const std::string& where);
/// One of `allowed`, spelled as the enum's table spells it (core/enums.hpp); else
/// "the NOUN is "x", expected "a" or "b"".
template <NamedEnum E>
E enum_value(const Reader& r, const Value& v, const std::string& where,
             std::initializer_list<E> allowed, std::string_view noun) {
    const std::string text = r.string_value(v, where);
    const auto found = parse_enum<E>(text);
    if (found && std::find(allowed.begin(), allowed.end(), *found) != allowed.end()) {
        return *found;
    }
    std::vector<std::string> names;
    for (const E e : allowed) {
        names.push_back("\"" + std::string(to_string(e)) + "\"");
    }
    r.fail(v, where,
           "the " + std::string(noun) + " is \"" + shown(text) + "\", expected " +
               listed(names, " or "));
}

/// "none" or "causal" (or "file", where a dump records a mask file).
MaskKind mask_value(const Reader& r, const Value& v, const std::string& where,
                    bool allow_file = false);
/// {"mode": "words" or "chars", "lowercase": bool}
TokenizerOptions tokenizer_value(const Reader& r, const Value& v, const std::string& where);

/// An embeddings table: an embeddings file's top level, or a model file's "embeddings"
/// (embeddings_file.cpp).
EmbeddingTable embeddings(const Reader& r, const Value& obj, const std::string& where);
/// Weights, in attn's layout or PyTorch's: a weights file's top level, or a model file's
/// "weights" (weights_file.cpp).
Weights weights(const Reader& r, const Value& obj, const std::string& where);

/// "training": how attn train made a model file (training_file.cpp). `file` is the file's path
/// when the object is a model file's own, else the object's own "file" member (a dump's).
Training training(const Reader& r, const Value& obj, const std::string& where, bool in_dump);
/// A model: a model file's top level, or an answers file's "worksheet.model" (model_file.cpp).
ModelFile model(const Reader& r, const Value& root, const std::string& at);
/// Q, K and V: a Q, K, V file's top level, or an answers file's "worksheet.qkv" (qkv_file.cpp).
QkvFile qkv(const Reader& r, const Value& root, const std::string& at);

/// A file that is one part of a model (an embeddings or a weights file): its document, read by
/// that part's reader (`embeddings` or `weights`) from the top level.
template <typename Part>
auto read_part_file(const std::string& path, std::size_t max_memory, std::string_view schema,
                    std::string_view expected, Part part) {
    Reader r(path, max_memory);
    return part(r, r.document(schema, expected), "");
}

}  // namespace attn::reader

namespace attn {

// The names every reader of a kind of file (namespace attn: read_model, read_mask, ...) uses.
using reader::child;
using reader::index;
using reader::mask_value;
using reader::Reader;
using reader::seed_of;
using reader::tokenizer_value;
using reader::Type;
using reader::Value;

}  // namespace attn
