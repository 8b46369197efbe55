// Reader: parsing one of attn's files and checking its values, shared by the reader of each
// kind. Every check says where (FILE:LINE:COLUMN: json.path), what was found and what was
// expected.
#include "reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/error.hpp"

namespace attn::reader {
namespace {

bool is_identifier(std::string_view key) {
    if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front())) != 0) {
        return false;
    }
    return std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    });
}

// What kind of attn file a JSON object looks like, for hints when the wrong one is given.
std::string_view looks_like(const Value& v) {
    if (const auto* schema = v.find("schema"); schema != nullptr && schema->is(Type::string)) {
        return schema->text;
    }
    if (v.find("steps") != nullptr) {
        return "attn.trace";
    }
    if (v.find("embeddings") != nullptr || v.find("weights") != nullptr) {
        return "attn.model";
    }
    if (v.find("vectors") != nullptr) {
        return "attn.embeddings";
    }
    if (v.find("W_Q") != nullptr) {
        return "attn.weights";
    }
    if (v.find("Q") != nullptr && v.find("K") != nullptr) {
        return "attn.qkv";
    }
    return "";
}

std::string option_for(std::string_view schema) {
    if (schema == "attn.trace") {
        return "a JSON dump: replay it with --from";
    }
    if (schema == "attn.model") {
        return "a model file: give it with --model";
    }
    if (schema == "attn.embeddings") {
        return "an embeddings file: give it with --embeddings";
    }
    if (schema == "attn.weights") {
        return "a weights file: give it with --weights";
    }
    if (schema == "attn.qkv") {
        return "a Q, K, V file: give it with --qkv";
    }
    return "";
}

// A short quote of a wrong value, so the message shows what was found.
std::string sample(const Value& v) {
    if (v.is(Type::string)) {
        const std::string quote = v.text.size() > 20 ? v.text.substr(0, 20) + "..." : v.text;
        return fmt::format(" \"{}\"", attn::shown(quote));
    }
    if (v.is(Type::number)) {
        return " " + format_plain(v);
    }
    if (v.is(Type::boolean)) {
        return v.boolean ? " (true)" : " (false)";
    }
    return "";
}

}  // namespace

std::string format_plain(const Value& v) {
    return v.text.empty() ? fmt::format("{}", v.number) : v.text;
}

std::string child(const std::string& path, std::string_view key) {
    if (is_identifier(key)) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }
    std::string quoted;
    for (char c : key) {
        quoted += c == '"' ? "\\\"" : std::string(1, c);
    }
    return (path.empty() ? std::string("") : path) + "[\"" + quoted + "\"]";
}

std::string index(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

void Reader::fail(const Value& at, const std::string& where, const std::string& what) const {
    const auto place = json::line_column(text_, at.position.offset);
    // the path and the JSON path (its keys are the file's) with their controls made visible
    throw Error(ErrorKind::input,
                fmt::format("{}:{}:{}: {}{}{}", shown(path_), place.line, place.column,
                            shown(where), where.empty() ? "" : ": ", what));
}

std::size_t Reader::line_of(const Value& v) const {
    return json::line_column(text_, v.position.offset).line;
}

Value Reader::document(std::string_view schema, std::string_view expected) {
    // one budget for the run: what attn holds already (the files read before, their numbers)
    // is counted, and this file's text and values may take the rest
    const auto budget = budget_now(max_memory_);
    text_ = json::read_file(path_, budget);
    Value root = json::parse(text_, path_, budget);
    if (!root.is(Type::object)) {
        fail(root, "",
             fmt::format("the file holds {}, expected a JSON object ({})",
                         json::describe(root.type), expected));
    }
    const auto kind = looks_like(root);
    if (!kind.empty() && kind != schema) {
        const auto hint = option_for(kind);
        fail(root, "",
             fmt::format("this looks like {}, expected {}",
                         hint.empty() ? fmt::format("a file of schema \"{}\"", kind) : hint,
                         expected));
    }
    return root;
}

void Reader::check_keys(const Value& obj, const std::string& where,
                        const std::vector<std::string>& allowed) const {
    for (const auto& [key, value] : obj.members) {
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
            const auto near = nearest(key, allowed);
            fail(value, child(where, key),
                 fmt::format(
                     "unknown key \"{}\", expected one of: {}{}", key, listed(allowed, ", "),
                     near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near.front())));
        }
    }
}

const Value& Reader::require(const Value& obj, const std::string& where, std::string_view key,
                             std::string_view expected) const {
    return require_member(*this, obj, where, key, expected);
}

void Reader::expect_type(const Value& v, const std::string& where, Type type,
                         std::string_view expected) const {
    if (!v.is(type)) {
        fail(v, where,
             fmt::format("found {}{}, expected {}", json::describe(v.type), sample(v), expected));
    }
}

std::string Reader::string_value(const Value& v, const std::string& where) const {
    expect_type(v, where, Type::string, "a string");
    return v.text;
}

bool Reader::bool_value(const Value& v, const std::string& where) const {
    expect_type(v, where, Type::boolean, "true or false");
    return v.boolean;
}

std::size_t Reader::size_value(const Value& v, const std::string& where, Field field) const {
    expect_type(v, where, Type::number, "a whole number");
    const Limit range = limit(field);
    long long n = 0;
    const auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
    if (v.text.empty() || ec != std::errc() || ptr != v.text.data() + v.text.size() ||
        n < range.min || n > range.max) {
        // only an integer literal keeps its text: 5.0 and 5e0 are whole but not written so
        const bool whole_decimal = v.text.empty() && std::floor(v.number) == v.number;
        fail(v, where,
             whole_decimal
                 ? fmt::format("found {} written with a decimal point or an exponent, expected a "
                               "whole number written without them ({}, not {}.0), from {} to {} "
                               "({})",
                               format_plain(v), format_plain(v), format_plain(v), range.min,
                               range.max, range.meaning)
                 : fmt::format("found {}, expected a whole number from {} to {} ({})",
                               format_plain(v), range.min, range.max, range.meaning));
    }
    return static_cast<std::size_t>(n);
}

std::vector<double> Reader::numbers(const Value& v, const std::string& where) const {
    expect_type(v, where, Type::array, "an array of numbers");
    if (v.items.empty()) {
        fail(v, where, "found an empty array, expected at least one number");
    }
    if (const auto* values = v.items.numbers()) {
        return *values;  // held compactly by the reader: no Value per number
    }
    std::vector<double> out;
    out.reserve(v.items.size());
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        const Value& item = v.items[i];
        if (!item.is(Type::number)) {
            fail(item, index(where, i),
                 fmt::format("found {}{}, expected a number{}", json::describe(item.type),
                             sample(item),
                             item.is(Type::string) ? " (write numbers without quotes)" : ""));
        }
        out.push_back(item.number);
    }
    return out;
}

Matrix Reader::matrix(const Value& v, const std::string& where) const {
    expect_type(v, where, Type::array, "an array of rows, e.g. [[1, 0], [0, 1]]");
    if (v.items.empty()) {
        fail(v, where, "the matrix is empty, expected at least one row");
    }
    const auto first = numbers(v.items[0], index(where, 0));
    Matrix m(v.items.size(), first.size());
    std::copy(first.begin(), first.end(), m.row(0).begin());
    for (std::size_t r = 1; r < v.items.size(); ++r) {
        const auto row = numbers(v.items[r], index(where, r));
        if (row.size() != first.size()) {
            fail(v.items[r], index(where, r),
                 fmt::format("row {} has {} number{}, expected {} like row 0 (every row of a "
                             "matrix has the same length)",
                             r, row.size(), row.size() == 1 ? "" : "s", first.size()));
        }
        std::copy(row.begin(), row.end(), m.row(r).begin());
    }
    return m;
}

std::uint64_t seed_of(const Reader& r, const Value& seed, const std::string& where) {
    std::uint64_t value = 0;
    const auto [ptr, ec] =
        std::from_chars(seed.text.data(), seed.text.data() + seed.text.size(), value);
    if (!seed.is(Type::number) || seed.text.empty() || ec != std::errc() ||
        ptr != seed.text.data() + seed.text.size()) {
        // only an integer literal keeps its text: 42.0 and 42e0 are decimals, whole or not
        const bool literal = seed.is(Type::number) && !seed.text.empty();
        const bool whole_decimal =
            seed.is(Type::number) && !literal && std::floor(seed.number) == seed.number;
        r.fail(seed, where,
               whole_decimal ? "the seed is written with a decimal point or an exponent, "
                               "expected a whole number written without them (42, not 42.0), "
                               "0 to 2^64 - 1"
               : !seed.is(Type::number)
                   ? fmt::format("found {}, expected the seed, a whole number from 0 to 2^64 - 1",
                                 json::describe(seed.type))
               : !literal                   ? "the seed is not a whole number, expected 0 to "
                                              "2^64 - 1"
               : seed.text.starts_with('-') ? "the seed is negative, expected 0 to 2^64 - 1"
                                            : "the seed is larger than 2^64 - 1, expected 0 to "
                                              "2^64 - 1");
    }
    return value;
}

MaskKind mask_value(const Reader& r, const Value& v, const std::string& where, bool allow_file) {
    if (allow_file) {
        return enum_value(r, v, where, {MaskKind::none, MaskKind::causal, MaskKind::file}, "mask");
    }
    return enum_value(r, v, where, {MaskKind::none, MaskKind::causal}, "mask");
}

TokenizerOptions tokenizer_value(const Reader& r, const Value& v, const std::string& where) {
    r.expect_type(v, where, Type::object,
                  "{\"mode\": \"words\" or \"chars\", \"lowercase\": bool}");
    r.check_keys(v, where, {"mode", "lowercase"});
    TokenizerOptions t;
    if (const Value* mode = v.find("mode")) {
        t.mode = enum_value(r, *mode, child(where, "mode"), {TokenMode::words, TokenMode::chars},
                            "mode");
    }
    if (const Value* lower = v.find("lowercase")) {
        t.lowercase = r.bool_value(*lower, child(where, "lowercase"));
    }
    return t;
}

}  // namespace attn::reader
