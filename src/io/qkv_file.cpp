// Q, K, V files: {"tokens": [...], "Q": [[...]], "K": [[...]], "V": [[...]]}, for the lessons
// that start from queries, keys and values (--qkv FILE).
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "attn/core/utf8.hpp"
#include "attn/io/model_file.hpp"
#include "reader.hpp"

namespace attn {
namespace {

// "1 number", "2 numbers"
std::string count(std::size_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

using reader::index;
using reader::Reader;
using reader::Type;
using reader::Value;

// The tokens that name the rows: non-empty, without white space or control characters
// (each is a label of a table, on one line), at most one per row of the matrices.
std::vector<std::string> tokens_value(const Reader& r, const Value& v, const std::string& place) {
    r.expect_type(v, place, Type::array, "an array of strings, one per row of Q, K and V");
    if (v.items.empty()) {
        r.fail(v, place, "there are no tokens, expected one per row of Q, K and V");
    }
    std::vector<std::string> tokens;
    tokens.reserve(v.items.size());
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        const std::string where = index(place, i);
        std::string token = r.string_value(v.items[i], where);
        if (token.empty()) {
            r.fail(v.items[i], where, "the token is empty, expected at least one character");
        }
        if (token.size() > max_token_bytes) {
            r.fail(v.items[i], where,
                   fmt::format("the token \"{}\" is {} bytes long, expected at most {} (it "
                               "names a row)",
                               shown(token_preview(token)), token.size(), max_token_bytes));
        }
        if (const auto at = utf8::first_space_or_control(token)) {
            const auto d = utf8::decode(std::string_view(token).substr(*at));
            r.fail(
                v.items[i], where,
                fmt::format("the token \"{}\" has U+{:04X} (white space or a control "
                            "character) at byte {}, expected a token without them (each "
                            "names a row on one line)",
                            shown(token), d ? static_cast<std::uint32_t>(d->code_point) : 0U, *at));
        }
        tokens.push_back(std::move(token));
    }
    return tokens;
}

}  // namespace

namespace reader {

QkvFile qkv(const Reader& r, const Value& root, const std::string& at) {
    r.expect_type(root, at.empty() ? "the top level" : at, Type::object,
                  "an object: {\"Q\": [[...]], \"K\": [[...]], \"V\": [[...]]}");
    r.check_keys(root, at, {"schema", "description", "tokens", "mask", "Q", "K", "V"});
    QkvFile f;
    f.path = r.path();
    f.qkv.path = r.path();
    if (const Value* v = root.find("description")) {
        f.description = r.string_value(*v, child(at, "description"));
    }
    if (const Value* v = root.find("mask")) {
        f.mask = reader::mask_value(r, *v, child(at, "mask"));
    }
    const Value& q = r.require(root, at, "Q", "\"Q\": the queries, one row per token");
    const Value& k = r.require(root, at, "K", "\"K\": the keys, one row per token");
    const Value& v = r.require(root, at, "V", "\"V\": the values, one row per token");
    const std::string q_at = child(at, "Q");
    const std::string k_at = child(at, "K");
    const std::string v_at = child(at, "V");
    f.qkv.q = r.matrix(q, q_at);
    f.qkv.k = r.matrix(k, k_at);
    f.qkv.v = r.matrix(v, v_at);
    const std::size_t n = f.qkv.q.rows();
    const auto check_width = [&](const Value& matrix, const std::string& name, std::size_t cols,
                                 Field field) {
        const Limit range = limit(field);
        if (static_cast<long long>(cols) > range.max) {
            r.fail(matrix, name,
                   fmt::format("each row has {} numbers, expected at most {} ({})", cols, range.max,
                               range.meaning));
        }
    };
    check_width(q, q_at, f.qkv.q.cols(), Field::d_k);
    check_width(v, v_at, f.qkv.v.cols(), Field::d_v);
    if (static_cast<long long>(n) > limit(Field::tokens).max) {
        r.fail(q, q_at,
               fmt::format("Q has {} rows, expected at most {} ({})", n, limit(Field::tokens).max,
                           limit(Field::tokens).meaning));
    }
    if (f.qkv.k.rows() != n) {
        r.fail(k, k_at,
               fmt::format("K has {}, expected {} like Q (one row per token)",
                           count(f.qkv.k.rows(), "row", "rows"), n));
    }
    if (f.qkv.k.cols() != f.qkv.q.cols()) {
        r.fail(k, k_at,
               fmt::format("each row of K has {}, expected {} like Q's (a query and a key meet "
                           "in a dot product, so both have d_k numbers)",
                           count(f.qkv.k.cols(), "number", "numbers"), f.qkv.q.cols()));
    }
    if (f.qkv.v.rows() != n) {
        r.fail(v, v_at,
               fmt::format("V has {}, expected {} like Q (one row per token)",
                           count(f.qkv.v.rows(), "row", "rows"), n));
    }
    if (const Value* t = root.find("tokens")) {
        f.tokens = tokens_value(r, *t, child(at, "tokens"));
        if (f.tokens->size() != n) {
            r.fail(*t, child(at, "tokens"),
                   fmt::format("{} {}, expected {}, one per row of Q, K and V",
                               f.tokens->size() == 1 ? "there is" : "there are",
                               count(f.tokens->size(), "token", "tokens"), n));
        }
    }
    return f;
}

}  // namespace reader

QkvFile read_qkv(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    return reader::qkv(
        r,
        r.document("attn.qkv",
                   "a Q, K, V file: {\"Q\": [[numbers], ...], \"K\": [[...]], \"V\": [[...]]}"),
        "");
}

}  // namespace attn
