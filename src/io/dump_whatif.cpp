// A what-if's dump (--set --json): its "what_if" record read and checked against the dump,
// so that --from remakes the run before the changes from numbers that hold together.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/model.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/utf8.hpp"
#include "dump_checks.hpp"

namespace attn {
namespace {

using reader::child;
using reader::index;
using reader::Reader;
using reader::Type;
using reader::Value;

// The steps whose cells --set may change, as a dump names them.
constexpr std::array settable{"embeddings", "W_Q", "W_K", "W_V", "W_O", "b_Q",  "b_K",
                              "b_V",        "b_O", "Q",   "K",   "V",   "mask", "tokens"};

const Value& change_value(const Value& root, std::size_t i) {
    return root.find("what_if")->find("changes")->items[i];
}

std::string where_of(std::size_t i) {
    return index("what_if.changes", i);
}

// A whole number that indexes a row or a column.
std::size_t index_value(const Reader& r, const Value& v, const std::string& where) {
    std::size_t n = 0;
    const auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
    if (!v.is(Type::number) || v.text.empty() || ec != std::errc() ||
        ptr != v.text.data() + v.text.size() || n > (std::size_t{1} << 32U)) {
        r.fail(v, where,
               fmt::format("found {}, expected a whole number from 0 (a row or column)",
                           v.is(Type::number) ? v.text : std::string(json::describe(v.type))));
    }
    return n;
}

double number_value(const Reader& r, const Value& v, const std::string& where) {
    if (!v.is(Type::number)) {
        r.fail(v, where, fmt::format("found {}, expected a number", json::describe(v.type)));
    }
    return v.number;
}

std::string token_value(const Reader& r, const Value& v, const std::string& where) {
    std::string token = r.string_value(v, where);
    if (token.empty() || utf8::first_space_or_control(token)) {
        r.fail(v, where,
               fmt::format("the token \"{}\" is empty or has white space or a control character, "
                           "expected a token as the tokenizer makes them",
                           shown(token)));
    }
    return token;
}

// The matrix of the dump's inputs that step `id` changes, or nullptr.
const Matrix* input_matrix(const Input& in, std::string_view id) {
    if (id == "embeddings") {
        return &in.x;
    }
    if (in.qkv) {
        return id == "Q" ? &in.qkv->q : id == "K" ? &in.qkv->k : id == "V" ? &in.qkv->v : nullptr;
    }
    const Weights& w = in.weights;
    for (const auto& [name, m] :
         {std::pair{"W_Q", &w.w_q}, std::pair{"W_K", &w.w_k}, std::pair{"W_V", &w.w_v},
          std::pair{"W_O", &w.w_o}, std::pair{"b_Q", &w.b_q}, std::pair{"b_K", &w.b_k},
          std::pair{"b_V", &w.b_v}, std::pair{"b_O", &w.b_o}}) {
        if (id == name) {
            return m->empty() ? nullptr : m;
        }
    }
    return nullptr;
}

}  // namespace

WhatIfRecord dump::read_what_if(const Reader& r, const Value& root) {
    WhatIfRecord record;
    const Value* w = root.find("what_if");
    if (w == nullptr) {
        return record;
    }
    r.expect_type(*w, "what_if", Type::object, "an object {\"changes\": [...]}");
    r.check_keys(*w, "what_if", {"changes", "mask_before"});
    const Value& changes = r.require(*w, "what_if", "changes", "the changes the run was made with");
    r.expect_type(changes, "what_if.changes", Type::array, "an array of changes");
    if (changes.items.empty()) {
        r.fail(changes, "what_if.changes",
               "there are no changes, expected at least one (a dump of a run without --set has "
               "no \"what_if\")");
    }
    bool mask = false;
    for (std::size_t i = 0; i < changes.items.size(); ++i) {
        const Value& c = changes.items[i];
        const std::string at = where_of(i);
        r.expect_type(c, at, Type::object, "an object {\"cell\", \"step\", \"row\", ...}");
        Change change;
        const Value& step = r.require(c, at, "step", "the step the change is in");
        change.step_id = r.string_value(step, child(at, "step"));
        if (std::find(settable.begin(), settable.end(), change.step_id) == settable.end()) {
            r.fail(step, child(at, "step"),
                   fmt::format(
                       "\"{}\" is not an input --set can change, expected one of: {}",
                       shown(change.step_id),
                       listed(std::vector<std::string>(settable.begin(), settable.end()), ", ")));
        }
        (void)r.string_value(r.require(c, at, "cell", "the cell's name"), child(at, "cell"));
        change.row = index_value(r, r.require(c, at, "row", "a row"), child(at, "row"));
        const Value& before = r.require(c, at, "before", "the value before");
        const Value& after = r.require(c, at, "after", "the value after");
        if (change.is_token()) {
            r.check_keys(c, at, {"cell", "step", "row", "before", "after", "embedding_before"});
            change.token_before = token_value(r, before, child(at, "before"));
            change.token_after = token_value(r, after, child(at, "after"));
            change.embedding_before =
                r.numbers(r.require(c, at, "embedding_before", "the token's row of X before"),
                          child(at, "embedding_before"));
        } else {
            r.check_keys(c, at, {"cell", "step", "row", "col", "before", "after"});
            change.col = index_value(r, r.require(c, at, "col", "a column"), child(at, "col"));
            if (change.step_id == "mask") {
                mask = true;
                change.before = r.bool_value(before, child(at, "before")) ? 1.0 : 0.0;
                change.after = r.bool_value(after, child(at, "after")) ? 1.0 : 0.0;
            } else {
                change.before = number_value(r, before, child(at, "before"));
                change.after = number_value(r, after, child(at, "after"));
            }
        }
        for (std::size_t k = 0; k < record.changes.size(); ++k) {
            const Change& other = record.changes[k];
            if (other.step_id == change.step_id && other.row == change.row &&
                other.col == change.col) {
                r.fail(c, at,
                       fmt::format("the same cell as what_if.changes[{}], expected each cell "
                                   "once",
                                   k));
            }
        }
        record.changes.push_back(std::move(change));
    }
    const Value* kind = w->find("mask_before");
    if (mask && kind == nullptr) {
        r.fail(*w, "what_if",
               "\"mask_before\" is missing, expected the mask's kind before its cells were set");
    }
    if (kind != nullptr) {
        record.mask_before =
            reader::enum_value(r, *kind, "what_if.mask_before",
                               {MaskKind::none, MaskKind::causal, MaskKind::file}, "mask");
    }
    return record;
}

void dump::swap_tokens(const Reader& r, const Value& root, const WhatIfRecord& what_if,
                       std::vector<std::string>& expected) {
    for (std::size_t i = 0; i < what_if.changes.size(); ++i) {
        const Change& c = what_if.changes[i];
        if (!c.is_token()) {
            continue;
        }
        const Value& at = change_value(root, i);
        if (c.row >= expected.size() || expected[c.row] != c.token_before) {
            r.fail(*at.find("before"), child(where_of(i), "before"),
                   fmt::format("token {} was \"{}\", but the sentence cut by the recorded "
                               "tokenizer gives {}, expected its own token",
                               c.row, shown(c.token_before),
                               c.row < expected.size() ? "\"" + shown(expected[c.row]) + "\""
                                                       : "no such token"));
        }
        expected[c.row] = c.token_after;
    }
}

void dump::check_what_if(const Reader& r, const Value& root, const Loaded& loaded,
                         const WhatIfRecord& what_if) {
    const Input& in = loaded.input;
    const Config& c = loaded.config;
    bool mask_changed = false;
    for (std::size_t i = 0; i < what_if.changes.size(); ++i) {
        const Change& change = what_if.changes[i];
        const Value& at = change_value(root, i);
        const std::string where = where_of(i);
        if (change.is_token()) {
            if (change.embedding_before.size() != c.d_model) {
                r.fail(*at.find("embedding_before"), child(where, "embedding_before"),
                       fmt::format("there are {} numbers, expected d_model = {}",
                                   change.embedding_before.size(), c.d_model));
            }
            continue;
        }
        std::size_t rows = 0;
        std::size_t cols = 0;
        double now = 0.0;
        if (change.step_id == "mask") {
            mask_changed = true;
            if (!in.mask || c.mask != MaskKind::file) {
                r.fail(at, where,
                       "a mask cell changed, but config.mask is not \"file\", expected the mask "
                       "a --set gives (\"file\", with sources.mask \"set\")");
            }
            rows = in.mask->rows();
            cols = in.mask->cols();
        } else {
            const Matrix* m = input_matrix(in, change.step_id);
            if (m == nullptr) {
                r.fail(at, where,
                       fmt::format("the dump has no input \"{}\", expected a change of one of its "
                                   "inputs",
                                   shown(change.step_id)));
            }
            rows = m->rows();
            cols = m->cols();
        }
        if (change.row >= rows || change.col >= cols) {
            r.fail(at, where,
                   fmt::format("the cell [{}, {}] is outside {}, which is {}×{}, expected a cell "
                               "of it",
                               change.row, change.col, change.step_id, rows, cols));
        }
        now = change.step_id == "mask"
                  ? (in.mask->allowed(change.row, change.col) ? 1.0 : 0.0)
                  : (*input_matrix(in, change.step_id))(change.row, change.col);
        if (now != change.after) {
            r.fail(*at.find("after"), child(where, "after"),
                   fmt::format("the change says {}, but the dump's step \"{}\" holds {} there, "
                               "expected the same",
                               change.after, change.step_id, now));
        }
    }
    if (mask_changed && in.mask_source.kind != Source::Kind::set) {
        r.fail(*root.find("what_if"), "what_if",
               "a mask cell changed, but sources.mask is not \"set\", expected \"set\"");
    }
    if (!mask_changed || what_if.mask_before == MaskKind::file) {
        return;  // a file's mask before cannot be checked: the file is not in the dump
    }
    // a causal or padding mask before: the dump's mask is it, but for the changed cells
    const std::size_t n = in.tokens.size();
    Mask before = what_if.mask_before == MaskKind::causal ? causal_mask(n) : Mask(n, n, true);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = n - std::min(c.n_pad, n); j < n; ++j) {
            before.set(i, j, false);
        }
    }
    Mask expected = before;
    for (std::size_t i = 0; i < what_if.changes.size(); ++i) {
        const Change& change = what_if.changes[i];
        if (change.step_id != "mask") {
            continue;
        }
        if ((change.before != 0.0) != before.allowed(change.row, change.col)) {
            r.fail(*change_value(root, i).find("before"), child(where_of(i), "before"),
                   fmt::format("the change says the cell was {}, but the {} mask has {} there, "
                               "expected the same",
                               change.before != 0.0, to_string(what_if.mask_before),
                               before.allowed(change.row, change.col)));
        }
        expected.set(change.row, change.col, change.after != 0.0);
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            if (expected.allowed(i, j) != in.mask->allowed(i, j)) {
                const auto [step, k] = find_step(*root.find("steps"), "mask");
                r.fail(*step, index("steps", k),
                       fmt::format("the mask's cell [{}, {}] is {}, but the {} mask with the "
                                   "changes of what_if gives {}, expected the same",
                                   i, j, in.mask->allowed(i, j), to_string(what_if.mask_before),
                                   expected.allowed(i, j)));
            }
        }
    }
}

void dump::set_recorded(const Reader& r, const Value& root, const WhatIfRecord& what_if,
                        std::string_view id, Matrix& fresh,
                        const std::function<bool(std::size_t)>& seeded, std::string_view claim) {
    for (std::size_t i = 0; i < what_if.changes.size(); ++i) {
        const Change& change = what_if.changes[i];
        if (change.step_id != id || change.row >= fresh.rows() || change.col >= fresh.cols()) {
            continue;  // (out of range: check_what_if has said so)
        }
        if (seeded(change.row)) {
            // the value before is the seed's: of the token before, when it was swapped
            double was = fresh(change.row, change.col);
            for (const Change& swap : what_if.changes) {
                if (swap.is_token() && swap.row == change.row && id == "embeddings") {
                    was = swap.embedding_before[change.col];
                }
            }
            if (was != change.before) {
                r.fail(*change_value(root, i).find("before"), child(where_of(i), "before"),
                       fmt::format("the change says the cell was {}, but {} {}, expected the same",
                                   change.before, claim, was));
            }
        }
        fresh(change.row, change.col) = change.after;
    }
}

}  // namespace attn
