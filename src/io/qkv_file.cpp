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
std::vector<std::string> tokens_value(const Reader& r, const Value& v) {
    r.expect_type(v, "tokens", Type::array, "an array of strings, one per row of Q, K and V");
    if (v.items.empty()) {
        r.fail(v, "tokens", "there are no tokens, expected one per row of Q, K and V");
    }
    std::vector<std::string> tokens;
    tokens.reserve(v.items.size());
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        const std::string where = index("tokens", i);
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

QkvFile read_qkv(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    const Value root = r.document(
        "attn.qkv", "a Q, K, V file: {\"Q\": [[numbers], ...], \"K\": [[...]], \"V\": [[...]]}");
    r.check_keys(root, "", {"schema", "description", "tokens", "mask", "Q", "K", "V"});
    QkvFile f;
    f.path = path;
    f.qkv.path = path;
    if (const Value* v = root.find("description")) {
        f.description = r.string_value(*v, "description");
    }
    if (const Value* v = root.find("mask")) {
        f.mask = reader::mask_value(r, *v, "mask");
    }
    const Value& q = r.require(root, "", "Q", "\"Q\": the queries, one row per token");
    const Value& k = r.require(root, "", "K", "\"K\": the keys, one row per token");
    const Value& v = r.require(root, "", "V", "\"V\": the values, one row per token");
    f.qkv.q = r.matrix(q, "Q");
    f.qkv.k = r.matrix(k, "K");
    f.qkv.v = r.matrix(v, "V");
    const std::size_t n = f.qkv.q.rows();
    const auto check_width = [&](const Value& at, std::string_view name, std::size_t cols,
                                 Field field) {
        const Limit range = limit(field);
        if (static_cast<long long>(cols) > range.max) {
            r.fail(at, std::string(name),
                   fmt::format("each row has {} numbers, expected at most {} ({})", cols, range.max,
                               range.meaning));
        }
    };
    check_width(q, "Q", f.qkv.q.cols(), Field::d_k);
    check_width(v, "V", f.qkv.v.cols(), Field::d_v);
    if (static_cast<long long>(n) > limit(Field::tokens).max) {
        r.fail(q, "Q",
               fmt::format("Q has {} rows, expected at most {} ({})", n, limit(Field::tokens).max,
                           limit(Field::tokens).meaning));
    }
    if (f.qkv.k.rows() != n) {
        r.fail(k, "K",
               fmt::format("K has {}, expected {} like Q (one row per token)",
                           count(f.qkv.k.rows(), "row", "rows"), n));
    }
    if (f.qkv.k.cols() != f.qkv.q.cols()) {
        r.fail(k, "K",
               fmt::format("each row of K has {}, expected {} like Q's (a query and a key meet "
                           "in a dot product, so both have d_k numbers)",
                           count(f.qkv.k.cols(), "number", "numbers"), f.qkv.q.cols()));
    }
    if (f.qkv.v.rows() != n) {
        r.fail(v, "V",
               fmt::format("V has {}, expected {} like Q (one row per token)",
                           count(f.qkv.v.rows(), "row", "rows"), n));
    }
    if (const Value* t = root.find("tokens")) {
        f.tokens = tokens_value(r, *t);
        if (f.tokens->size() != n) {
            r.fail(*t, "tokens",
                   fmt::format("{} {}, expected {}, one per row of Q, K and V",
                               f.tokens->size() == 1 ? "there is" : "there are",
                               count(f.tokens->size(), "token", "tokens"), n));
        }
    }
    return f;
}

}  // namespace attn
