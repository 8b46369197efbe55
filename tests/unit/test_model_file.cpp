#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "attn/core/error.hpp"
#include "attn/io/model_file.hpp"
#include "attn/render/render.hpp"
#include "plan.hpp"

namespace fs = std::filesystem;

namespace {

const std::string inputs = ATTN_SOURCE_DIR "/tests/inputs/";
const std::string examples = ATTN_SOURCE_DIR "/data/examples/";

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::Error& e) {
        return e.what();
    }
    FAIL("no error");
    return {};
}

std::string temp_file(const std::string& name, const std::string& text) {
    const auto path =
        fs::temp_directory_path() / ("attn-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(path) << text;
    return path.string();
}

}  // namespace

TEST_CASE("model files: embeddings, weights and a commented model", "[files]") {
    const auto table = attn::read_embeddings(inputs + "good/vectors5.json");
    CHECK(table.tokens == std::vector<std::string>{"This", "is", "book"});
    CHECK(table.vectors.rows() == 3);
    CHECK(table.vectors(0, 4) == 0.7);
    CHECK_FALSE(table.case_insensitive);
    const auto w = attn::read_weights(inputs + "good/weights5x3.json");
    CHECK(w.w_q.rows() == 5);
    CHECK(w.w_q.cols() == 3);
    CHECK(w.w_v.cols() == 2);
    CHECK(w.w_k(4, 2) == 0.3);
    const auto m = attn::read_model(inputs + "good/commented.json");
    CHECK(m.sentence == "This is book");
    REQUIRE(m.embeddings.has_value());
    CHECK(m.embeddings->case_insensitive);
    CHECK_FALSE(m.weights.has_value());
}

TEST_CASE("load_input: files decide the sizes, seeds fill the rest", "[files]") {
    attn::InputSpec spec;
    spec.sentence = "This is book";
    spec.embeddings_path = inputs + "good/vectors5.json";
    auto loaded = attn::load_input(spec);
    CHECK(loaded.config.d_model == 5);
    CHECK(loaded.config.d_k == 3);
    CHECK(loaded.input.x(2, 0) == 0.8);
    CHECK(loaded.input.embeddings_source.kind == attn::Source::Kind::file);
    CHECK(loaded.input.weights_source.kind == attn::Source::Kind::seeded);
    CHECK(loaded.input.weights.w_q.rows() == 5);

    spec.weights_path = inputs + "good/weights5x3.json";
    loaded = attn::load_input(spec);
    CHECK(loaded.config.d_v == 2);
    CHECK(loaded.input.weights_source.path == inputs + "good/weights5x3.json");

    // case-insensitive lookup finds "This" under "this"; the model gives the sentence
    attn::InputSpec commented;
    commented.model_path = inputs + "good/commented.json";
    loaded = attn::load_input(commented);
    CHECK(loaded.input.tokens == std::vector<std::string>{"This", "is", "book"});
    CHECK(loaded.input.x(0, 0) == 1.0);
    CHECK(loaded.config.d_model == 2);
}

TEST_CASE("load_input: missing tokens are listed with the nearest spellings", "[files]") {
    attn::InputSpec spec;
    spec.sentence = "This iz a bok, a";
    spec.embeddings_path = inputs + "good/vectors5.json";
    const auto message = error_of([&] { (void)attn::load_input(spec); });
    CHECK_THAT(message, Catch::Contains("4 tokens of the sentence are not in the embeddings"));
    CHECK_THAT(message, Catch::Contains("'iz' (token 1): did you mean 'is'?"));
    CHECK_THAT(message, Catch::Contains("'a' (tokens 2 and 5): no similar token in the file"));
    CHECK_THAT(message, Catch::Contains("'bok' (token 3): did you mean 'book'?"));
    CHECK_THAT(message, Catch::Contains("--unknown random"));

    spec.sentence = "this is BOOK";
    CHECK_THAT(error_of([&] { (void)attn::load_input(spec); }),
               Catch::Contains("did you mean 'This'?") &&
                   Catch::Contains("\"case_insensitive\": true when only the case differs"));

    spec.sentence = "This iz book iz";
    spec.unknown = attn::UnknownTokens::random;
    const auto loaded = attn::load_input(spec);
    CHECK(loaded.input.embeddings_source.seeded_tokens == std::vector<std::string>{"iz"});
    CHECK(std::ranges::equal(loaded.input.x.row(1), loaded.input.x.row(3)));
    CHECK(loaded.input.x(2, 0) == 0.8);
}

TEST_CASE("load_input: sizes that disagree are errors naming both sides", "[files]") {
    attn::InputSpec spec;
    spec.sentence = "This is book";
    spec.embeddings_path = inputs + "good/vectors5.json";
    spec.weights_path = inputs + "bad/rows-4.json";
    CHECK_THAT(error_of([&] { (void)attn::load_input(spec); }),
               Catch::Contains("W_Q has 4 rows, expected d_model = 5 (the width of the vectors "
                               "in") &&
                   Catch::Contains("vectors5.json"));
    spec.weights_path.reset();
    spec.d_model = 8;
    CHECK_THAT(error_of([&] { (void)attn::load_input(spec); }),
               Catch::Contains("--d-model is 8, but the vectors in") &&
                   Catch::Contains("have 5 numbers; expected --d-model 5 or no --d-model"));
    attn::InputSpec no_sentence;
    no_sentence.embeddings_path = inputs + "good/vectors5.json";
    CHECK_THAT(error_of([&] { (void)attn::load_input(no_sentence); }),
               Catch::Contains("the sentence is empty or missing"));
}

TEST_CASE("every example in data/examples loads and runs", "[files][examples]") {
    std::size_t models = 0;
    std::size_t qkv = 0;
    for (const auto& entry : fs::directory_iterator(examples)) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        INFO(entry.path());
        attn::InputSpec spec;
        // a lesson that starts from Q, K and V is named NAME-qkv.json
        const bool starts_from_qkv = entry.path().stem().string().ends_with("-qkv");
        (starts_from_qkv ? spec.qkv_path : spec.model_path) = entry.path().string();
        const auto loaded = attn::load_input(spec);
        const auto trace = attn::explain(loaded.input, loaded.config);
        CHECK_FALSE(trace.description.empty());
        if (starts_from_qkv) {
            CHECK(trace.qkv_given);
            CHECK(trace.x.empty());
            ++qkv;
        } else {
            CHECK(trace.embeddings_source.kind == attn::Source::Kind::file);
            CHECK(trace.weights_source.kind == attn::Source::Kind::file);
            ++models;
        }
    }
    CHECK(models == 9);
    CHECK(qkv == 4);
}

TEST_CASE("the worked examples teach what their README says", "[files][examples]") {
    attn::InputSpec spec;
    spec.model_path = examples + "he-took-the-hat.json";
    auto loaded = attn::load_input(spec);
    const auto hat = attn::explain(loaded.input, loaded.config);
    // "it" (token 6) attends most to "hat" (token 3)
    const auto it_row = hat.heads[0].attention.row(6);
    CHECK(std::max_element(it_row.begin(), it_row.end()) - it_row.begin() == 3);

    spec.model_path = examples + "integer-3x4.json";
    loaded = attn::load_input(spec);
    const auto integer = attn::explain(loaded.input, loaded.config);
    CHECK(integer.heads[0].scores == attn::Matrix{{2, 4, 4}, {4, 16, 12}, {4, 12, 10}});

    spec.model_path = examples + "the-cat-sat.json";
    loaded = attn::load_input(spec);
    const auto cat = attn::explain(loaded.input, loaded.config);
    CHECK(cat.config.mask == attn::MaskKind::causal);
    CHECK(cat.config.d_model == 8);
    CHECK(cat.identical_embeddings == std::vector<std::vector<std::size_t>>{{0, 4}});
    CHECK(cat.identical_outputs.empty());
}

TEST_CASE("a dump read back reproduces the run exactly", "[files][dump]") {
    attn::InputSpec spec;
    spec.sentence = "The cat sat on the mat";
    spec.lowercase = true;
    spec.mask = attn::MaskKind::causal;
    spec.seed = 18446744073709551615ULL;  // above 2^53: must survive the round trip exactly
    spec.embeddings_path = inputs + "good/vectors5.json";
    spec.unknown = attn::UnknownTokens::random;
    const auto loaded = attn::load_input(spec);
    const auto trace = attn::explain(loaded.input, loaded.config);
    const std::string dump = attn::render_json(trace);
    const auto path = temp_file("dump.json", dump);
    const auto replayed = attn::read_dump(path);
    fs::remove(path);
    const auto again = attn::explain(replayed.input, replayed.config);
    CHECK(again.config.seed == 18446744073709551615ULL);
    CHECK(attn::render_json(again) == dump);
    attn::TextStyle style;
    CHECK(attn::render_text(again, style) == attn::render_text(trace, style));
}

TEST_CASE("a dump of another schema version is refused", "[files][dump]") {
    const auto path = temp_file("v2.json", R"({"schema": "attn.trace", "schema_version": 2})");
    CHECK_THAT(error_of([&] { (void)attn::read_dump(path); }),
               Catch::Contains("schema version 2, expected 1"));
    fs::remove(path);
}

TEST_CASE("attn init's file reads back to the same numbers", "[files][init]") {
    attn::InputSpec spec;
    spec.sentence = "The cat sat on the mat";
    spec.lowercase = true;
    spec.d_model = 6;
    const auto seeded = attn::load_input(spec);
    const auto text = attn::render_model_file(seeded.input, seeded.config, "attn init ...");
    CHECK_THAT(text, Catch::StartsWith("// An attn model file"));
    const auto path = temp_file("init.json", text);
    attn::InputSpec from_file;
    from_file.model_path = path;
    const auto loaded = attn::load_input(from_file);
    fs::remove(path);
    CHECK(loaded.input.x == seeded.input.x);
    CHECK(loaded.input.weights.w_q == seeded.input.weights.w_q);
    CHECK(loaded.input.weights.w_v == seeded.input.weights.w_v);
    CHECK(loaded.input.tokens == seeded.input.tokens);
    CHECK(loaded.config.tokenizer.lowercase);
}

TEST_CASE("nearest spellings", "[files]") {
    const std::vector<std::string> known{"book", "books", "cook", "This", "is"};
    CHECK(attn::nearest("bok", known) == std::vector<std::string>{"book"});
    CHECK(attn::nearest("boook", known) == std::vector<std::string>{"book"});
    CHECK(attn::nearest("bookz", known) == std::vector<std::string>{"book", "books"});
    CHECK(attn::nearest("this", known) == std::vector<std::string>{"This"});
    CHECK(attn::nearest("zebra", known).empty());
    CHECK(attn::nearest("\xC3\xA9t\xC3\xA9", {"\xC3\x89T\xC3\x89", "ete"}) ==
          std::vector<std::string>{"\xC3\x89T\xC3\x89"});  // été: the case folded, É
}

namespace {

// The suggestions as attn made them before Spellings (each known spelling's whole edit
// distance, stable-sorted, the first three): for ASCII words, the reference Spellings must
// agree with.
std::vector<std::string> nearest_by_every_pair(const std::string& word,
                                               const std::vector<std::string>& known) {
    const auto lower = [](std::string s) {
        for (char& c : s) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        return s;
    };
    const auto distance = [](const std::string& a, const std::string& b) {
        std::vector<std::size_t> prev(b.size() + 1);
        std::vector<std::size_t> cur(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j) {
            prev[j] = j;
        }
        for (std::size_t i = 1; i <= a.size(); ++i) {
            cur[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                cur[j] = std::min(
                    {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0U : 1U)});
            }
            std::swap(prev, cur);
        }
        return prev[b.size()];
    };
    const std::string w = lower(word);
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& k : known) {
        const auto d = distance(w, lower(k));
        if (d <= std::max<std::size_t>(1, w.size() / 3)) {
            scored.emplace_back(d, k);
        }
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i) {
        out.push_back(scored[i].second);
    }
    return out;
}

}  // namespace

TEST_CASE("Spellings gives the suggestions that comparing every pair gave", "[files]") {
    // words from a small alphabet, so that many are near one another: ties, equal lengths,
    // the same letters in another order; typos of known words and words of no table
    std::uint64_t state = 12345;
    const auto next = [&state](std::uint64_t n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 33U) % n;
    };
    const auto word = [&](std::size_t length) {
        std::string w;
        for (std::size_t i = 0; i < length; ++i) {
            w += static_cast<char>((next(3) == 0 ? 'A' : 'a') + static_cast<char>(next(6)));
        }
        return w;
    };
    std::vector<std::string> known;
    for (int i = 0; i < 2000; ++i) {
        known.push_back(word(1 + next(12)));
    }
    const attn::Spellings spellings(known);
    std::size_t suggested = 0;
    for (int i = 0; i < 300; ++i) {
        std::string w = i % 2 == 0 ? known[next(known.size())] : word(1 + next(14));
        if (i % 2 == 0 && !w.empty()) {  // a typo: a letter changed, dropped or doubled
            const std::size_t at = next(w.size());
            const auto kind = next(3);
            if (kind == 0) {
                w[at] = static_cast<char>('a' + next(6));
            } else if (kind == 1) {
                w.erase(at, 1);
            } else {
                w.insert(at, 1, w[at]);
            }
        }
        const auto expected = nearest_by_every_pair(w, known);
        INFO("word: " << w);
        CHECK(spellings.nearest(w) == expected);
        suggested += expected.empty() ? 0U : 1U;
    }
    CHECK(suggested > 150);  // the comparison is not of empty answers
}

TEST_CASE("Spellings agrees with every pair on a table of many letters and lengths", "[files]") {
    // 26 letters, 5 to 9 of them, upper and lower case: the letter and length rules rule out
    // most of the table, and the typos (one edit) are near a few; the same answers
    std::uint64_t state = 777;
    const auto next = [&state](std::uint64_t n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 33U) % n;
    };
    const auto letter = [&] { return static_cast<char>((next(8) == 0 ? 'A' : 'a') + next(26)); };
    std::vector<std::string> known(2000);
    for (auto& k : known) {
        for (std::size_t i = 0, n = 5 + next(5); i < n; ++i) {
            k += letter();
        }
    }
    const attn::Spellings spellings(known);
    for (int i = 0; i < 200; ++i) {
        std::string w = known[next(known.size())];
        const std::size_t at = next(w.size());
        const auto kind = next(3);
        if (kind == 0) {
            w[at] = letter();
        } else if (kind == 1) {
            w.erase(at, 1);
        } else {
            w.insert(at, 1, letter());
        }
        INFO("word: " << w);
        CHECK(spellings.nearest(w) == nearest_by_every_pair(w, known));
    }
}

TEST_CASE("Spellings bounds the work for one word, and its answers stay near", "[files]") {
    // 3,000 spellings of 60 letters, all of the same letters: no length or letter rules any
    // out, so the bound on the work decides; what is suggested is still near enough
    std::vector<std::string> known;
    std::string base(60, 'a');
    for (std::size_t i = 0; i < 3000; ++i) {
        std::string w = base;
        w[i % 60] = 'b';
        w[(i * 7 + 3) % 60] = 'c';
        w[(i * 13 + 5) % 60] = static_cast<char>('a' + i % 3);
        known.push_back(w);
    }
    const attn::Spellings spellings(known);
    std::string probe(60, 'a');
    probe[10] = 'c';
    const auto near = spellings.nearest(probe);
    REQUIRE(near.size() == 3);
    for (const auto& n : near) {
        CHECK(nearest_by_every_pair(probe, {n}) == std::vector<std::string>{n});  // within a third
    }
}

TEST_CASE("Q, K, V files: tokens optional, shapes checked, the walk-through from the scores",
          "[files][qkv]") {
    const auto path = temp_file("qkv.json", R"({
  // a comment, as in attn's other files
  "description": "two tokens",
  "Q": [[1, 0], [0, 1]],
  "K": [[2, 0], [0, 3]],
  "V": [[1, 2, 3], [4, 5, 6]]
})");
    const attn::QkvFile f = attn::read_qkv(path);
    CHECK(f.description == "two tokens");
    CHECK_FALSE(f.tokens.has_value());
    CHECK(f.qkv.q.cols() == 2);
    CHECK(f.qkv.v.cols() == 3);

    attn::InputSpec spec;
    spec.qkv_path = path;
    auto loaded = attn::load_input(spec);
    CHECK(loaded.input.tokens == std::vector<std::string>{"t0", "t1"});
    CHECK(loaded.input.tokens_named);
    CHECK(loaded.config.d_k == 2);
    CHECK(loaded.config.d_v == 3);
    const auto trace = attn::explain(loaded.input, loaded.config);
    // scores = Q Kᵀ = [[2, 0], [0, 3]], divided by √2
    CHECK(trace.heads[0].scores(0, 0) == 2.0);
    CHECK(trace.heads[0].scores(1, 1) == 3.0);
    CHECK(trace.heads[0].scaled_scores(1, 1) == 3.0 / std::sqrt(2.0));
    CHECK(attn::find_step(trace, "embeddings") == nullptr);
    CHECK(attn::find_step(trace, "W_Q") == nullptr);
    REQUIRE(attn::find_step(trace, "Q") != nullptr);
    CHECK(attn::find_step(trace, "Q")->number == "2a");

    // a sentence names the rows, and must have one token per row
    spec.sentence = "hello world";
    loaded = attn::load_input(spec);
    CHECK(loaded.input.tokens == std::vector<std::string>{"hello", "world"});
    CHECK_FALSE(loaded.input.tokens_named);
    spec.sentence = "one two three";
    CHECK_THAT(error_of([&] { attn::load_input(spec); }),
               Catch::Contains("the sentence has 3 tokens, but Q, K and V in") &&
                   Catch::Contains("have 2 rows, expected one token per row"));
    spec.sentence.reset();
    spec.n_heads = 2;
    CHECK_THAT(error_of([&] { attn::load_input(spec); }),
               Catch::Contains("so --heads has nothing to change"));
    spec.n_heads.reset();
    spec.d_k = 5;
    CHECK_THAT(error_of([&] { attn::load_input(spec); }), Catch::Contains("--d-k is 5, but Q in"));

    // every row count and width is checked, each error at its place
    CHECK_THAT(error_of([] {
                   attn::read_qkv(temp_file("qkv-bad.json",
                                            R"({"Q": [[1], [2]], "K": [[1], [2]], "V": [[1]]})"));
               }),
               Catch::Contains(":1:41: V: V has 1 row, expected 2 like Q (one row per token)"));
    CHECK_THAT(error_of([] {
                   attn::read_qkv(temp_file(
                       "qkv-tab.json",
                       "{\"tokens\": [\"a\\tb\"], \"Q\": [[1]], \"K\": [[1]], \"V\": [[1]]}"));
               }),
               Catch::Contains("the token \"a\\tb\" has U+0009"));
    CHECK_THAT(error_of([] {
                   attn::read_qkv(temp_file("qkv-nbsp.json",
                                            "{\"tokens\": [\"a\xC2\xA0"
                                            "b\"], \"Q\": [[1]], \"K\": [[1]], \"V\": [[1]]}"));
               }),
               Catch::Contains("has U+00A0 (white space"));
}

TEST_CASE("a dump of a Q, K, V run replays from the same Q, K and V", "[files][qkv][dump]") {
    attn::InputSpec spec;
    spec.qkv_path = examples + "random-4x8-qkv.json";
    spec.mask = attn::MaskKind::causal;
    const auto loaded = attn::load_input(spec);
    const auto trace = attn::explain(loaded.input, loaded.config);
    const auto dump = temp_file("qkv-dump.json", attn::render_json(trace));
    const auto again = attn::read_dump(dump);
    REQUIRE(again.input.qkv.has_value());
    CHECK(again.input.qkv->q.data() == loaded.input.qkv->q.data());
    CHECK(again.input.qkv->v.data() == loaded.input.qkv->v.data());
    CHECK(again.input.tokens_named);
    CHECK(attn::render_json(attn::explain(again.input, again.config)) == attn::render_json(trace));
}
