// Checking a dump against what its inputs give: the seeded numbers against the seed
// (provenance, as the dump is read) and, with verify_dump(), every value of the dump against
// the same run recomputed from the dump's inputs, as it is written (docs/hardening.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attn/core/model.hpp"
#include "attn/core/trace.hpp"
#include "attn/io/model_file.hpp"
#include "dump_checks.hpp"
#include "piece_stream.hpp"
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

// Compares a dump (`stored`, read whole) with its recomputation as nlohmann's SAX parser reads
// the recomputation, value by value in the recomputation's order, so that the recomputed dump
// is never held: neither as text nor as a tree. The first difference is an error at its place
// in the dump.
class DumpWalk {
  public:
    DumpWalk(const Reader& r, const Value& stored) : r_(r), root_(stored) {}

    // ---- nlohmann's SAX interface, for the recomputed dump
    bool null() {
        if (const Place p = next(); p.stored != nullptr) {
            expect(p, Type::null, "null");
        }
        return true;
    }
    bool boolean(bool b) {
        if (const Place p = next(); p.stored != nullptr) {
            expect(p, Type::boolean, b ? "true" : "false");
            if (p.stored->boolean != b) {
                differ(*p.stored, p.where(), b ? "true" : "false");
            }
        }
        return true;
    }
    bool number_unsigned(std::uint64_t n) {
        number(static_cast<double>(n), std::to_string(n));
        return true;
    }
    bool number_integer(std::int64_t n) {  // a negative integer, or -0
        number(n == 0 ? -0.0 : static_cast<double>(n), n == 0 ? "-0" : std::to_string(n));
        return true;
    }
    bool number_float(double x, const std::string& literal) {
        // a literal without point or exponent is an integer too long for 64 bits
        const bool integer = literal.find_first_of(".eE") == std::string::npos;
        number(x, integer ? literal : std::string());
        return true;
    }
    bool string(std::string& text) {
        if (const Place p = next(); p.stored != nullptr) {
            expect(p, Type::string, quoted(text));
            // attn_version names the attn that wrote the dump, which may be another version:
            // it claims nothing about the numbers (docs/json-format.md)
            const bool version = frames_.size() == 1 && frames_.back().key == "attn_version";
            if (p.stored->text != text && !version) {
                differ(*p.stored, p.where(), quoted(text));
            }
        }
        return true;
    }
    static bool binary(nlohmann::json::binary_t& /*unused*/) { return true; }  // not in JSON
    bool start_object(std::size_t /*unknown*/) {
        open(Type::object);
        return true;
    }
    bool key(std::string& k) {
        if (skip_ > 0) {
            return true;
        }
        Frame& f = frames_.back();
        const auto& members = f.stored->members;
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (members[i].first == k) {
                f.seen[i] = true;
                f.key = k;
                f.member = &members[i].second;
                return true;
            }
        }
        r_.fail(*f.stored, f.where,
                fmt::format("the dump has no \"{}\"{}, but recomputing the run from the dump's "
                            "inputs gives one, expected every member attn writes",
                            shown(k), in_step()));
    }
    bool end_object() {
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        const Frame& f = frames_.back();
        const auto& members = f.stored->members;
        for (std::size_t i = 0; i < members.size(); ++i) {
            // attn_version says which attn wrote the dump: not a claim about the numbers
            if (!f.seen[i] && !(frames_.size() == 1 && members[i].first == "attn_version")) {
                r_.fail(members[i].second, child(f.where, members[i].first),
                        fmt::format("the dump has \"{}\"{}, but recomputing the run from the "
                                    "dump's inputs gives no such member, expected only what "
                                    "attn writes",
                                    shown(members[i].first), in_step()));
            }
        }
        close();
        return true;
    }
    bool start_array(std::size_t /*unknown*/) {
        open(Type::array);
        return true;
    }
    bool end_array() {
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        const Frame& f = frames_.back();
        if (f.index != f.stored->items.size()) {
            r_.fail(*f.stored, f.where,
                    fmt::format("the dump has {} items here{}, but recomputing the run from the "
                                "dump's inputs gives {}, expected the same (was the dump changed "
                                "after attn wrote it?)",
                                f.stored->items.size(), in_step(), f.index));
        }
        close();
        return true;
    }
    [[noreturn]] static bool parse_error(std::size_t at, const std::string& /*token*/,
                                         const nlohmann::detail::exception& e) {
        throw Error(ErrorKind::internal,
                    fmt::format("the recomputed dump is not JSON at byte {}: {}", at, e.what()));
    }

  private:
    // An array or object of the recomputation being read, and the dump's value at its place.
    struct Frame {
        const Value* stored = nullptr;
        std::string where;              // its JSON path
        std::size_t index = 0;          // an array: the elements read so far
        const Value* member = nullptr;  // an object: the dump's value of the key just read
        std::string key;                // that key
        std::vector<bool> seen;         // an object: the dump's members the recomputation has
    };
    // Where the next value of the recomputation goes: the dump's value there (nullptr past the
    // end of one of its arrays), and the way to its path, made only for a message.
    struct Place {
        const Value* stored = nullptr;
        const Frame* in = nullptr;  // the array or object it is in; nullptr: the document
        std::size_t i = 0;          // its index in an array
        const std::vector<double>* numbers = nullptr;  // the dump's array of numbers it is in

        [[nodiscard]] std::string where() const {
            if (in == nullptr) {
                return "";
            }
            return in->stored->is(Type::array) ? index(in->where, i) : child(in->where, in->key);
        }
    };

    Place next() {
        if (skip_ > 0) {
            return {};
        }
        if (frames_.empty()) {
            return {.stored = &root_};
        }
        Frame& f = frames_.back();
        if (f.stored->is(Type::object)) {
            return {.stored = f.member, .in = &f};
        }
        const std::size_t i = f.index++;
        if (i >= f.stored->items.size()) {
            return {};  // counted, and named when the array ends
        }
        const auto* numbers = f.stored->items.numbers();
        // an element of an array of numbers has no Value until a message needs one
        return {.stored = numbers != nullptr ? &root_ : &f.stored->items[i],
                .in = &f,
                .i = i,
                .numbers = numbers};
    }

    void open(Type type) {
        if (skip_ > 0) {
            ++skip_;
            return;
        }
        const Place p = next();
        if (p.stored == nullptr) {
            skip_ = 1;  // an element the dump does not have: its insides are not compared
            return;
        }
        const Value& stored = p.numbers != nullptr ? p.in->stored->items[p.i] : *p.stored;
        const std::string where = p.where();
        if (!stored.is(type)) {
            differ(stored, where, type == Type::object ? "an object" : "an array");
        }
        if (frames_.size() == 2 && frames_[1].where == "steps" && stored.is(Type::object)) {
            const Value* id = stored.find("id");  // messages name the step being compared
            step_ = id != nullptr && id->is(Type::string) ? id->text : "";
        }
        frames_.push_back({.stored = &stored,
                           .where = where,
                           .index = 0,
                           .member = nullptr,
                           .key = {},
                           .seen = std::vector<bool>(stored.members.size(), false)});
    }

    void close() {
        frames_.pop_back();
        if (frames_.size() == 2 && frames_[1].where == "steps") {
            step_.clear();
        }
    }

    // A number of the recomputation, with its text when it is an integer (compared exactly:
    // a seed goes up to 2^64 - 1).
    void number(double x, const std::string& integer) {
        const Place p = next();
        if (p.stored == nullptr) {
            return;
        }
        if (p.numbers != nullptr) {
            if (!same_number((*p.numbers)[p.i], x)) {
                differ(p.in->stored->items[p.i], p.where(),
                       integer.empty() ? number_text(x) : integer);
            }
            return;
        }
        const Value& stored = *p.stored;
        expect(p, Type::number, "a number");
        if (!stored.text.empty() && !integer.empty() ? stored.text != integer
                                                     : !same_number(stored.number, x)) {
            differ(stored, p.where(), integer.empty() ? number_text(x) : integer);
        }
    }

    // The dump's value at `p` has the type the recomputation has there (`fresh` describes it).
    void expect(const Place& p, Type type, const std::string& fresh) const {
        const Value& stored = p.numbers != nullptr ? p.in->stored->items[p.i] : *p.stored;
        if (!stored.is(type)) {
            differ(stored, p.where(),
                   type == Type::number ? "a number"
                                        : fmt::format("{}{}", json::describe(type),
                                                      type == Type::string ? " " + fresh : ""));
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

    static std::string quoted(const std::string& text) {
        const std::string cut = text.size() > 40 ? text.substr(0, 40) + "..." : text;
        return "\"" + shown(cut) + "\"";
    }
    static std::string describe(const Value& v) {
        switch (v.type) {
            case Type::number:
                return v.text.empty() ? number_text(v.number) : v.text;
            case Type::boolean:
                return v.boolean ? "true" : "false";
            case Type::string:
                return quoted(v.text);
            default:
                return std::string(json::describe(v.type));
        }
    }

    const Reader& r_;
    const Value& root_;
    std::vector<Frame> frames_;  // the open arrays and objects, innermost last
    std::size_t skip_ = 0;       // > 0: inside an element the dump does not have, this deep
    std::string step_;           // the id of the step being compared
};

}  // namespace

void verify_dump(const std::string& path, const RecomputedDump& recomputed,
                 std::size_t max_memory) {
    // the dump is read again (its tree was let go after read_dump, before the run was
    // computed), within what --max-memory leaves beside the run
    Reader r(path, max_memory);
    const Value stored = r.document("attn.trace", "a JSON dump written by attn explain --json");
    DumpWalk comparison(r, stored);
    io_detail::PieceStream fresh(recomputed);
    try {
        (void)nlohmann::json::sax_parse(fresh.stream(), &comparison,
                                        nlohmann::json::input_format_t::json, /*strict=*/true);
    } catch (...) {
        fresh.rethrow_writer_error();  // a writer's failure first: the rest follows from it
        throw;
    }
    fresh.rethrow_writer_error();
}

}  // namespace attn
