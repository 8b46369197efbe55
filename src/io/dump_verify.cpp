// Checking a dump against what its inputs give: the seeded numbers against the seed
// (provenance, as the dump is read) and, with verify_dump(), every value of the dump against
// the same run recomputed from the dump's inputs (docs/hardening.md).
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "attn/core/model.hpp"
#include "attn/core/trace.hpp"
#include "attn/io/model_file.hpp"
#include "dump_checks.hpp"
#include "reader.hpp"

namespace attn {
namespace {

// Two numbers that a dump and its recomputation may both hold: equal up to the last bits of a
// double (the dump writes the shortest text that reads back as the same double, so a dump that
// attn wrote reads back exactly; the slack is for another build's rounding), far finer than
// any precision attn prints (at most 15 decimals: --precision).
bool same_number(double stored, double fresh) noexcept {
    if (stored == fresh) {
        return true;
    }
    if (!std::isfinite(stored) || !std::isfinite(fresh)) {
        return false;
    }
    return std::abs(stored - fresh) <= 1e-9 * std::max(std::abs(stored), std::abs(fresh)) + 1e-12;
}

std::string number_text(double v) {
    return fmt::format("{}", v);
}

// The numbers of a recorded matrix (`values` of `where`), each compared with `fresh`, which
// `claim` made ("seed 42 gives"): the first that differs is an error at its place.
void expect_numbers(const Reader& r, const Value& values, const std::string& where,
                    const Matrix& fresh, std::string_view claim, std::string_view why) {
    if (values.items.size() != fresh.rows()) {
        r.fail(values, where,
               fmt::format("there are {} rows, but {} {}, expected them ({})", values.items.size(),
                           claim, fresh.rows(), why));
    }
    for (std::size_t i = 0; i < fresh.rows(); ++i) {
        const Value& row = values.items[i];
        const auto* numbers = row.items.numbers();
        if (numbers == nullptr || numbers->size() != fresh.cols()) {
            r.fail(row, index(where, i),
                   fmt::format("row {} is not {} numbers, but {} that many, expected them ({})", i,
                               fresh.cols(), claim, why));
        }
        for (std::size_t j = 0; j < fresh.cols(); ++j) {
            if (!same_number((*numbers)[j], fresh(i, j))) {
                r.fail(
                    row.items[j], index(index(where, i), j),
                    fmt::format("the dump says {}, but {} {}, expected the same number ({})",
                                number_text((*numbers)[j]), claim, number_text(fresh(i, j)), why));
            }
        }
    }
}

}  // namespace

void dump::check_provenance(const Reader& r, const Value& root, const Loaded& loaded,
                            const WhatIfRecord& what_if) {
    const Input& in = loaded.input;
    const Config& c = loaded.config;
    const Value& steps = *root.find("steps");
    const auto values_of = [&](std::string_view id) -> std::pair<const Value*, std::string> {
        const auto [s, i] = find_step(steps, id);
        const std::string where = child(index("steps", i), "values");
        return {s == nullptr ? nullptr : s->find("values"), where};
    };
    const auto& seeded_tokens = in.embeddings_source.seeded_tokens;
    for (std::size_t i = 0; i < seeded_tokens.size(); ++i) {
        const std::string at = index("sources.embeddings.seeded_tokens", i);
        const Value& item =
            root.find("sources")->find("embeddings")->find("seeded_tokens")->items[i];
        if (std::find(in.tokens.begin(), in.tokens.end(), seeded_tokens[i]) == in.tokens.end()) {
            r.fail(item, at,
                   fmt::format("\"{}\" is not one of the tokens, expected a token whose vector "
                               "was seeded",
                               shown(seeded_tokens[i])));
        }
        if (std::find(seeded_tokens.begin(), seeded_tokens.begin() + static_cast<std::ptrdiff_t>(i),
                      seeded_tokens[i]) != seeded_tokens.begin() + static_cast<std::ptrdiff_t>(i)) {
            r.fail(item, at,
                   fmt::format("\"{}\" a second time, expected each token once",
                               shown(seeded_tokens[i])));
        }
    }
    const std::string seed_gives = fmt::format("seed {} gives", c.seed);
    const bool hand = c.arith == Arith::hand;
    if (in.embeddings_source.kind == Source::Kind::seeded) {
        Matrix fresh = seeded_embeddings(in.tokens, c.d_model, c.seed, hand);
        for (std::size_t i = in.tokens.size() - std::min(c.n_pad, in.tokens.size());
             i < in.tokens.size(); ++i) {
            for (double& value : fresh.row(i)) {
                value = 0.0;  // padding: a zero vector
            }
        }
        for (std::size_t i = 0; i < what_if.changes.size(); ++i) {
            const Change& swap = what_if.changes[i];
            if (!swap.is_token()) {
                continue;
            }
            const Value& before =
                *root.find("what_if")->find("changes")->items[i].find("embedding_before");
            const Matrix seeded = seeded_embeddings({swap.token_before}, c.d_model, c.seed, hand);
            for (std::size_t j = 0; j < seeded.cols(); ++j) {
                if (!same_number(swap.embedding_before[j], seeded(0, j))) {
                    r.fail(before.items[j],
                           index(child(index("what_if.changes", i), "embedding_before"), j),
                           fmt::format("the dump says {}, but {} {} for \"{}\", expected the "
                                       "same number (the token before was seeded like the "
                                       "others)",
                                       number_text(swap.embedding_before[j]), seed_gives,
                                       number_text(seeded(0, j)), shown(swap.token_before)));
                }
            }
        }
        dump::set_recorded(
            r, root, what_if, "embeddings", fresh, [](std::size_t) { return true; }, seed_gives);
        const auto [values, where] = values_of("embeddings");
        expect_numbers(r, *values, where, fresh, seed_gives,
                       "sources.embeddings says the embeddings were seeded");
    } else if (!in.embeddings_source.seeded_tokens.empty()) {
        Matrix fresh = in.x;  // the file's rows as recorded, the seeded ones from the seed
        const auto& seeded = in.embeddings_source.seeded_tokens;
        for (std::size_t i = 0; i < in.tokens.size(); ++i) {
            if (std::find(seeded.begin(), seeded.end(), in.tokens[i]) != seeded.end()) {
                const Matrix row = seeded_embeddings({in.tokens[i]}, c.d_model, c.seed);
                std::copy(row.row(0).begin(), row.row(0).end(), fresh.row(i).begin());
            }
        }
        dump::set_recorded(
            r, root, what_if, "embeddings", fresh,
            [&](std::size_t row) {
                return std::find(seeded.begin(), seeded.end(), in.tokens[row]) != seeded.end();
            },
            seed_gives);
        const auto [values, where] = values_of("embeddings");
        expect_numbers(r, *values, where, fresh, seed_gives,
                       "sources.embeddings.seeded_tokens says these tokens' vectors were seeded");
    }
    if (in.weights_source.kind == Source::Kind::seeded) {
        Weights fresh = seeded_weights(c);
        for (const auto& [id, matrix] :
             {std::pair{"W_Q", &fresh.w_q}, std::pair{"W_K", &fresh.w_k},
              std::pair{"W_V", &fresh.w_v}, std::pair{"W_O", &fresh.w_o}}) {
            dump::set_recorded(
                r, root, what_if, id, *matrix, [](std::size_t) { return true; }, seed_gives);
            const auto [values, where] = values_of(id);
            if (values == nullptr && matrix->empty()) {
                continue;
            }
            if (values == nullptr) {
                r.fail(steps, "steps",
                       fmt::format("there is no step \"{}\", but {} one, expected it", id,
                                   seed_gives));
            }
            expect_numbers(r, *values, where, *matrix, seed_gives,
                           "sources.weights says the weights were seeded");
        }
    }
    if (c.positions == PositionKind::sinusoidal) {
        const auto [values, where] = values_of("positions");
        if (values == nullptr) {
            r.fail(steps, "steps",
                   "there is no step \"positions\", expected one (config.positions is "
                   "\"sinusoidal\")");
        }
        expect_numbers(r, *values, where, sinusoidal_positions(in.tokens.size(), c.d_model),
                       "the sinusoidal positions are", "config.positions says \"sinusoidal\"");
    }
}

namespace {

// Walks a dump (`stored`) and its recomputation (`fresh`) together, in the dump's order.
class DumpWalk {
  public:
    explicit DumpWalk(const Reader& r) : r_(r) {}

    void compare(const Value& stored, const Value& fresh, const std::string& where) {
        if (stored.type != fresh.type) {
            differ(stored, where, fmt::format("{}{}", json::describe(fresh.type), quote(fresh)));
        }
        switch (stored.type) {
            case Type::null:
                return;
            case Type::boolean:
                if (stored.boolean != fresh.boolean) {
                    differ(stored, where, fresh.boolean ? "true" : "false");
                }
                return;
            case Type::number:
                if (!stored.text.empty() && !fresh.text.empty()
                        ? stored.text != fresh.text  // integers, exactly (a seed up to 2^64 - 1)
                        : !same_number(stored.number, fresh.number)) {
                    differ(stored, where, number_of(fresh));
                }
                return;
            case Type::string:
                if (stored.text != fresh.text) {
                    differ(stored, where, quote(fresh).substr(1));
                }
                return;
            case Type::array:
                compare_items(stored, fresh, where);
                return;
            case Type::object:
                compare_members(stored, fresh, where);
                return;
        }
    }

  private:
    void compare_items(const Value& stored, const Value& fresh, const std::string& where) {
        if (stored.items.size() != fresh.items.size()) {
            r_.fail(stored, where,
                    fmt::format("the dump has {} items here{}, but recomputing the run from the "
                                "dump's inputs gives {}, expected the same (was the dump changed "
                                "after attn wrote it?)",
                                stored.items.size(), in_step(), fresh.items.size()));
        }
        const auto* a = stored.items.numbers();
        const auto* b = fresh.items.numbers();
        if (a != nullptr && b != nullptr) {  // a row of numbers: no Value made for each
            for (std::size_t i = 0; i < a->size(); ++i) {
                if (!same_number((*a)[i], (*b)[i])) {
                    differ(stored.items[i], index(where, i), number_text((*b)[i]));
                }
            }
            return;
        }
        for (std::size_t i = 0; i < stored.items.size(); ++i) {
            const bool step = where == "steps";
            if (step) {
                const Value* id = stored.items[i].find("id");
                step_ = id != nullptr && id->is(Type::string) ? id->text : "";
            }
            compare(stored.items[i], fresh.items[i], index(where, i));
            if (step) {
                step_.clear();
            }
        }
    }

    void compare_members(const Value& stored, const Value& fresh, const std::string& where) {
        for (const auto& [key, value] : stored.members) {
            if (where.empty() && key == "attn_version") {
                continue;  // which attn wrote it: not a claim about the numbers
            }
            const Value* other = fresh.find(key);
            if (other == nullptr) {
                r_.fail(value, child(where, key),
                        fmt::format("the dump has \"{}\"{}, but recomputing the run from the "
                                    "dump's inputs gives no such member, expected only what attn "
                                    "writes",
                                    shown(key), in_step()));
            }
            compare(value, *other, child(where, key));
        }
        for (const auto& [key, value] : fresh.members) {
            if (stored.find(key) == nullptr) {
                r_.fail(stored, where,
                        fmt::format("the dump has no \"{}\"{}, but recomputing the run from the "
                                    "dump's inputs gives one, expected every member attn writes",
                                    key, in_step()));
            }
        }
    }

    [[noreturn]] void differ(const Value& stored, const std::string& where,
                             const std::string& fresh) const {
        r_.fail(stored, where,
                fmt::format("the dump says {}{}, but recomputing the run from the dump's inputs "
                            "gives {}, expected the same (was the dump changed after attn wrote "
                            "it?)",
                            describe(stored), in_step(), fresh));
    }

    [[nodiscard]] std::string in_step() const {
        return step_.empty() ? "" : fmt::format(" in step \"{}\"", shown(step_));
    }

    static std::string quote(const Value& v) {
        if (v.is(Type::string)) {
            const std::string cut = v.text.size() > 40 ? v.text.substr(0, 40) + "..." : v.text;
            return " \"" + shown(cut) + "\"";
        }
        return "";
    }
    static std::string number_of(const Value& v) {
        return v.text.empty() ? number_text(v.number) : v.text;
    }
    static std::string describe(const Value& v) {
        switch (v.type) {
            case Type::number:
                return number_of(v);
            case Type::boolean:
                return v.boolean ? "true" : "false";
            case Type::string:
                return quote(v).substr(1);
            default:
                return std::string(json::describe(v.type));
        }
    }

    const Reader& r_;
    std::string step_;  // the id of the step being compared
};

}  // namespace

void verify_dump(const std::string& path, std::string_view recomputed) {
    Reader r(path);
    const Value stored = r.document("attn.trace", "a JSON dump written by attn explain --json");
    const Value fresh = json::parse(recomputed, "the recomputed dump");
    DumpWalk(r).compare(stored, fresh, "");
}

}  // namespace attn
