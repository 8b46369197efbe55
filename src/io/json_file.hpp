#pragma once
// JsonFile: a JSON text that is not one of attn's own files (Hugging Face's config.json,
// vocab.json and tokenizer.json, a safetensors header), parsed by attn's JSON reader so that
// every error says where: "FILE:LINE:COLUMN: json.path: what was found, expected what".
// (reader.hpp's Reader also guesses which of attn's files a document looks like, which a
// vocabulary with the token "steps" would fool.)

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/io/json_reader.hpp"
#include "reader.hpp"

namespace attn::reader {

class JsonFile {
  public:
    /// Parses `text`, named `name` in messages; keeps the text, where the values point.
    JsonFile(std::string name, std::string text)
        : name_(std::move(name)), text_(std::move(text)), root_(json::parse(text_, name_)) {}

    /// Reads and parses the file at `path`, which must hold an object (`expected` says what
    /// kind of file in the message).
    static JsonFile read(const std::string& path, std::string_view expected) {
        JsonFile file(path, json::read_file(path, MemoryBudget{json::max_input_bytes, 0}));
        file.expect_type(file.root(), "", Type::object, expected);
        return file;
    }

    [[nodiscard]] const Value& root() const noexcept { return root_; }

    /// Throws attn::Error (input): "NAME:LINE:COLUMN: WHERE: WHAT", at the value `at`.
    [[noreturn]] void fail(const Value& at, const std::string& where,
                           const std::string& what) const {
        const auto place = json::line_column(text_, at.position.offset);
        throw Error(ErrorKind::input,
                    fmt::format("{}:{}:{}: {}{}{}", name_, place.line, place.column, where,
                                where.empty() ? "" : ": ", what));
    }

    /// The member `key` of `obj`, which must be there.
    const Value& require(const Value& obj, const std::string& where, std::string_view key,
                         std::string_view expected) const {
        return require_member(*this, obj, where, key, expected);
    }

    void expect_type(const Value& v, const std::string& where, Type type,
                     std::string_view expected) const {
        if (!v.is(type)) {
            fail(
                v, where,
                fmt::format("found {}{}, expected {}", json::describe(v.type), quote(v), expected));
        }
    }

    /// A whole number from `min` to `max`, read exactly from its text.
    std::uint64_t whole(const Value& v, const std::string& where, std::uint64_t min,
                        std::uint64_t max, std::string_view expected) const {
        std::uint64_t n = 0;
        const char* first = v.text.data();
        const char* last = first + v.text.size();
        const auto [ptr, ec] = std::from_chars(first, last, n);
        if (!v.is(Type::number) || v.text.empty() || ec != std::errc() || ptr != last || n < min ||
            n > max) {
            fail(
                v, where,
                fmt::format("found {}{}, expected {}", json::describe(v.type), quote(v), expected));
        }
        return n;
    }

    /// A short quote of a value for a message: ` "F12"`, ` -2`, ` (true)`, or nothing.
    static std::string quote(const Value& v) {
        if (v.is(Type::string)) {
            return " \"" + shown(v.text.size() > 40 ? v.text.substr(0, 40) + "..." : v.text) + "\"";
        }
        if (v.is(Type::number)) {
            return " " + (v.text.empty() ? fmt::format("{}", v.number) : v.text);
        }
        if (v.is(Type::boolean)) {
            return v.boolean ? " (true)" : " (false)";
        }
        return "";
    }

  private:
    std::string name_;
    std::string text_;
    Value root_;
};

}  // namespace attn::reader
