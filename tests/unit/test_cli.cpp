#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/trace.hpp"
#include "cli.hpp"
#include "declare.hpp"

namespace {

struct Run {
    int code;
    std::string out;
    std::string err;
};

Run run(std::vector<std::string> args, bool terminal = false,
        std::map<std::string, std::string> env = {}) {
    std::ostringstream out;
    std::ostringstream err;
    attn::cli::Io io{out, err};
    io.stdout_is_terminal = terminal;
    io.getenv = [env](const std::string& name) -> std::optional<std::string> {
        const auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    const int code = attn::cli::run(args, io);
    return {code, out.str(), err.str()};
}

attn::cli::Io io_with(bool terminal, std::map<std::string, std::string> env, std::ostream& out) {
    attn::cli::Io io{out, out};
    io.stdout_is_terminal = terminal;
    io.getenv = [env](const std::string& name) -> std::optional<std::string> {
        const auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    return io;
}

}  // namespace

TEST_CASE("cli: the sentence as one argument or several words", "[cli]") {
    const auto one = run({"explain", "This is book", "--color", "never"});
    const auto many = run({"explain", "This", "is", "book", "--color", "never"});
    CHECK(one.code == 0);
    CHECK(one.err.empty());
    CHECK(one.out == many.out);
    CHECK_THAT(one.out, Catch::Contains("[0] This   [1] is   [2] book"));
}

TEST_CASE("cli: options reach the walk-through", "[cli]") {
    const auto r = run({"explain", "The cat sat on the mat", "--lowercase", "--mask", "causal",
                        "--seed", "7", "--d-model", "6", "--d-k", "2", "--d-v", "4", "--precision",
                        "2", "--ascii", "--width", "100"});
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("d_model = 6, d_k = 2, d_v = 4; mask: causal"));
    CHECK_THAT(r.out, Catch::Contains("--seed 7"));
    CHECK_THAT(r.out, Catch::Contains("7a * Causal mask M"));
    CHECK_THAT(r.out, Catch::Contains("-inf"));
    CHECK_THAT(r.out, Catch::Contains("A repeated token, 'the' (tokens 0 and 4)"));
    CHECK_THAT(r.out, Catch::Contains(" 1.00"));
    // the tables at two decimals (sentences quote at least four)
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("│") != std::string::npos || line.find('|') != std::string::npos) {
            CHECK(line.find("1.0000") == std::string::npos);
        }
    }
}

TEST_CASE("cli: --chars keeps Devanagari whole, --lowercase lowercases every letter", "[cli]") {
    const auto chars = run({"explain", "नमस्ते", "--chars", "--steps", "1", "--color", "never"});
    REQUIRE(chars.code == 0);
    CHECK_THAT(chars.out, Catch::Contains("[0] न   [1] म   [2] स्"));
    CHECK(chars.out.find("] \u094D") == std::string::npos);  // no lone virama
    const auto lower =
        run({"explain", "ÇAĞ ΟΔΟΣ", "--lowercase", "--steps", "1", "--color", "never"});
    REQUIRE(lower.code == 0);
    CHECK_THAT(lower.out, Catch::Contains("[0] çağ   [1] οδος"));
}

TEST_CASE("cli: --json - writes the dump to stdout instead of the text", "[cli]") {
    const auto r = run({"explain", "This is book", "--json", "-"});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j.at("tokens").size() == 3);
    CHECK(r.out.find("Step") == std::string::npos);
}

TEST_CASE("cli: --help, --version and no subcommand", "[cli]") {
    const auto help = run({"explain", "--help"});
    CHECK(help.code == 0);
    CHECK_THAT(help.out, Catch::Contains("--d-model") && Catch::Contains("Examples:") &&
                             Catch::Contains("attn explain \"This is book\"") &&
                             Catch::Contains("--mask"));
    const auto top = run({"--help"});
    CHECK(top.code == 0);
    CHECK_THAT(top.out, Catch::Contains("explain"));
    const auto version = run({"--version"});
    CHECK(version.code == 0);
    CHECK_THAT(version.out, Catch::StartsWith("attn 0.") && Catch::Contains("CLI11") &&
                                Catch::Contains("fmt") && Catch::Contains("\nUnicode 1") &&
                                Catch::Contains(" (utf8proc 2."));
    CHECK(run({}).code == 2);
}

TEST_CASE("cli: a run declares only the options its arguments name (Wanted)", "[cli]") {
    using attn::cli::OptionSpec;
    using attn::cli::Wanted;
    const std::vector<std::string> args{"This is book",  "--seed", "7",  "-q",
                                        "--json=a.json", "-",      "--", "--heads"};
    const Wanted wanted = Wanted::named_in(args);
    CHECK_FALSE(wanted.every());
    CHECK(wanted(OptionSpec{.names = "--seed"}));
    CHECK(wanted(OptionSpec{.names = "-q,--quiet-text"}));
    CHECK(wanted(OptionSpec{.names = "--json"}));
    CHECK(wanted(OptionSpec{.names = "sentence"}));                       // a positional
    CHECK(wanted(OptionSpec{.names = "-o,--output", .required = true}));  // a required one
    CHECK_FALSE(wanted(OptionSpec{.names = "--heads"}));  // after "--": a word of the sentence
    CHECK_FALSE(wanted(OptionSpec{.names = "--seeds"}));
    CHECK_FALSE(wanted(OptionSpec{.names = "--present,--pause"}));
    CHECK(Wanted::named_in(std::vector<std::string>{"--present"})(
        OptionSpec{.names = "--present,--pause"}));
    CHECK(Wanted::named_in(std::vector<std::string>{"--pause"})(
        OptionSpec{.names = "--present,--pause"}));
    // not plainly a name: every option
    CHECK(Wanted::named_in(std::vector<std::string>{"-qo", "x"}).every());
    CHECK(Wanted::named_in(std::vector<std::string>{"--lr", "-1"}).every());
    CHECK(Wanted::all()(OptionSpec{.names = "--heads"}));

    // what a run does is the same: values, errors with their suggestions, and --help
    const auto dump = [](std::vector<std::string> options) {
        options.insert(options.begin(), {"explain", "This is book", "--json", "-"});
        const auto r = run(options);
        REQUIRE(r.code == 0);
        return r.out;
    };
    CHECK(dump({"--seed", "7", "--d-model", "4"}) == dump({"--seed=7", "--d-model=4"}));
    CHECK(dump({"--seed", "7"}) != dump({"--seed", "8"}));
    CHECK(dump({"--seed", "7", "--mask", "causal"}) == dump({"--mask=causal", "--seed", "7"}));
    const auto typo = run({"explain", "This is book", "--seed", "7", "--d-modle", "4"});
    CHECK(typo.code == 2);
    CHECK_THAT(typo.err, Catch::Contains("has no option --d-modle; did you mean --d-model?"));
    const auto missing = run({"explain", "This is book", "--seed"});
    CHECK(missing.code == 2);
    CHECK_THAT(missing.err, Catch::Contains("--seed"));
    const auto help = run({"explain", "This is book", "--seed", "7", "--help"});
    CHECK(help.code == 0);
    CHECK_THAT(help.out, Catch::Contains("--d-model") && Catch::Contains("--heads") &&
                             Catch::Contains("--max-memory"));
    const auto train = run({"train", "copy"});  // its required --output, although not named
    CHECK(train.code == 2);
    CHECK_THAT(train.err, Catch::Contains("attn train needs --output MODEL.json"));
}

TEST_CASE("cli: every field a user sets has the flag that sets it (options.json's \"field\")",
          "[cli]") {
    using attn::Field;
    for (std::size_t i = 0; i < attn::field_count; ++i) {
        const auto field = static_cast<Field>(i);
        const auto flag = attn::cli::flag_of(field);
        INFO("field " << attn::field_name(field));
        if (field == Field::none || field == Field::sentence || field == Field::tokens) {
            CHECK(flag.empty());  // no flag: the positional sentence, or none at all
        } else {
            CHECK(flag.starts_with("--"));
        }
    }
    CHECK(attn::cli::flag_of(Field::n_heads) == "--heads");
    CHECK(attn::cli::flag_of(Field::tolerance) == "--tolerance");
}

TEST_CASE("cli: every documented usage error exits 2 with a clear message", "[cli]") {
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const std::vector<Case> cases{
        {{"explain", "a b", "--d-model", "0"},
         "attn: error: --d-model is 0, expected a whole number from 1 to 4096"},
        {{"explain", "a b", "--d-k", "-3"}, "attn: error: --d-k is -3, expected"},
        {{"explain", "a b", "--d-v", "5000"}, "attn: error: --d-v is 5000, expected"},
        {{"explain", "a b", "--d-model", "five"},
         "attn: error: --d-model is 'five', expected a whole number"},
        {{"explain", "a b", "--seed", "-1"},
         "attn: error: --seed is '-1', expected a whole number from 0 to 18446744073709551615"},
        {{"explain", "a b", "--seed", "99999999999999999999"}, "attn: error: --seed is '9999"},
        {{"explain", "a b", "--seed", "12abc"}, "attn: error: --seed is '12abc'"},
        {{"explain", "a b", "--mask", "future"},
         "attn: error: --mask is 'future', expected one of: none, causal"},
        {{"explain", "a b", "--color", "sometimes"},
         "attn: error: --color is 'sometimes', expected one of: auto, always, never"},
        {{"explain", "a b", "--precision", "40"}, "attn: error: --precision is 40, expected"},
        {{"explain", "a b", "--width", "10"}, "attn: error: --width is 10, expected"},
        {{"explain", "a b", "--steps", "nope"},
         "attn: error: --steps: 'nope' is not a step of this run"},
        {{"explain", "a b", "--steps", "mask"}, "(it needs --mask causal)"},
        {{"explain", ""}, "attn: error: the sentence has no tokens"},
        {{"explain", "   "}, "attn: error: the sentence has no tokens"},
        {{"explain"}, "attn: error: the sentence is empty or missing"},
        {{"explain", "a", "--frobnicate"}, "attn: error: attn explain has no option --frobnicate"},
        {{"explain", "bad \xFF byte"}, "attn: error: the sentence is not valid UTF-8"},
    };
    for (const auto& c : cases) {
        INFO("args: " << c.args.size() << " last: " << c.args.back());
        const auto r = run(c.args);
        CHECK(r.code == 2);
        CHECK(r.out.empty());
        CHECK_THAT(r.err, Catch::Contains(c.message));
    }
}

TEST_CASE("cli: colour decision rules", "[cli][color]") {
    std::ostringstream sink;
    using Env = std::map<std::string, std::string>;
    const auto decide = [&](const std::string& flag, bool terminal, const Env& env) {
        auto io = io_with(terminal, env, sink);
        return attn::cli::use_color(flag, io);
    };
    CHECK(decide("auto", true, {}));
    CHECK_FALSE(decide("auto", false, {}));
    CHECK_FALSE(decide("auto", true, {{"NO_COLOR", "1"}}));
    CHECK(decide("auto", true, {{"NO_COLOR", ""}}));  // empty NO_COLOR does not count
    CHECK_FALSE(decide("auto", true, {{"TERM", "dumb"}}));
    CHECK(decide("auto", false, {{"FORCE_COLOR", "1"}}));
    CHECK_FALSE(decide("auto", false, {{"FORCE_COLOR", "0"}}));
    CHECK_FALSE(decide("auto", true, {{"NO_COLOR", "1"}, {"FORCE_COLOR", "1"}}));
    CHECK(decide("always", false, {{"NO_COLOR", "1"}}));
    CHECK_FALSE(decide("never", true, {{"FORCE_COLOR", "1"}}));
}

TEST_CASE("cli: text width from the flag, the terminal, COLUMNS or 80", "[cli]") {
    std::ostringstream sink;
    auto io = io_with(false, {{"COLUMNS", "120"}}, sink);
    CHECK(attn::cli::text_width(90, io) == 90);
    CHECK(attn::cli::text_width(0, io) == 120);
    io.terminal_columns = 100;
    CHECK(attn::cli::text_width(0, io) == 100);
    auto plain = io_with(false, {{"COLUMNS", "junk"}}, sink);
    CHECK(attn::cli::text_width(0, plain) == 80);
}

TEST_CASE("cli: --steps takes ids in any case, numbers and group numbers", "[cli]") {
    attn::Config c;
    c.mask = attn::MaskKind::causal;
    const auto t = attn::explain(attn::seeded_input("a b", c), c);
    const auto steps = attn::teaching_steps(t);
    using V = std::vector<std::string>;
    CHECK(attn::cli::select_steps("weights,scores", steps).ids == V{"scores", "weights"});
    CHECK(attn::cli::select_steps("3", steps).ids == V{"W_Q", "W_K", "W_V"});
    CHECK(attn::cli::select_steps(" 7b , q ", steps).ids == V{"Q", "masked_scores"});
    CHECK(attn::cli::select_steps("MASK,9", steps).ids == V{"mask", "output"});
    CHECK_THROWS_AS(attn::cli::select_steps(",", steps), attn::Error);
    // one head: nothing to show side by side
    CHECK(attn::cli::select_steps("weights", steps).heads_together.empty());
}

TEST_CASE("cli: --steps without a head selects that step of every head", "[cli][heads]") {
    attn::Config c;
    c.d_model = 6;
    c.n_heads = 3;
    c.d_k = 2;
    c.d_v = 2;
    const auto t = attn::explain(attn::seeded_input("a b c", c), c);
    const auto steps = attn::teaching_steps(t);
    using V = std::vector<std::string>;
    const auto weights = attn::cli::select_steps("weights", steps);
    CHECK(weights.ids == V{"head1.weights", "head2.weights", "head3.weights"});
    CHECK(weights.heads_together == V{"weights"});
    const auto two = attn::cli::select_steps("WEIGHTS,q", steps);
    CHECK(two.ids ==
          V{"head1.Q", "head1.weights", "head2.Q", "head2.weights", "head3.Q", "head3.weights"});
    CHECK(two.heads_together == V{"weights", "Q"});  // in the order named
    // a per-head step by its number: every head's, together (the heads' outputs Z_h so)
    const auto head_output = std::find_if(
        steps.begin(), steps.end(), [](const attn::Step& s) { return s.id == "head1.output"; });
    REQUIRE(head_output != steps.end());
    const auto by_number = attn::cli::select_steps(head_output->number, steps);
    CHECK(by_number.ids == V{"head1.output", "head2.output", "head3.output"});
    CHECK(by_number.heads_together == V{"output"});
    // "output" is the layer's output, a step of its own, not every head's
    CHECK(attn::cli::select_steps("output", steps).ids == V{"output"});
    CHECK(attn::cli::select_steps("output", steps).heads_together.empty());
    // a head's own step or a whole head stays one head's, in sequence
    const auto one = attn::cli::select_steps("head2.weights,head3", steps);
    CHECK(one.ids.front() == "head2.weights");
    CHECK(one.heads_together.empty());
    // an unknown step names the form that selects every head
    try {
        (void)attn::cli::select_steps("weight", steps);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("'weight' is not a step of this run") &&
                                 Catch::Contains("such as weights, for every head's side by side"));
    }
    // several unknown ids: every one named, each with the id it is nearest to
    try {
        (void)attn::cli::select_steps("wieghts,Q,sofmax,scors", steps);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(),
                   Catch::Contains("'wieghts', 'sofmax' and 'scors' are not steps of this run") &&
                       Catch::Contains("did you mean 'weights' for 'wieghts', 'scores' for "
                                       "'scors'?"));
    }
    // the start of an id, a number past the last, a head the run does not have
    try {
        (void)attn::cli::select_steps("scaled,42,head4.weights", steps);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("this run has heads 1 to 3") &&
                                 Catch::Contains("the steps are numbered 1 to ") &&
                                 Catch::Contains("did you mean 'scaled_scores' for 'scaled'?"));
    }
    try {
        (void)attn::cli::select_steps("nope,mask", steps);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("'nope' and 'mask' are not steps of this run "
                                             "('mask' needs --mask causal)"));
    }
}

TEST_CASE("cli: colour depth from COLORTERM", "[cli][color]") {
    std::ostringstream sink;
    CHECK(attn::cli::color_depth(io_with(true, {{"COLORTERM", "truecolor"}}, sink)) == 24);
    CHECK(attn::cli::color_depth(io_with(true, {{"COLORTERM", "24bit"}}, sink)) == 24);
    CHECK(attn::cli::color_depth(io_with(true, {{"COLORTERM", "yes"}}, sink)) == 256);
    CHECK(attn::cli::color_depth(io_with(true, {}, sink)) == 256);
    const auto truecolor =
        run({"explain", "This is book", "--steps", "weights", "--color", "always"}, true,
            {{"COLORTERM", "truecolor"}});
    CHECK_THAT(truecolor.out, Catch::Contains("\x1b[48;2;"));
    const auto palette =
        run({"explain", "This is book", "--steps", "weights", "--color", "always"});
    CHECK_THAT(palette.out, Catch::Contains("\x1b[48;5;"));
    // colour off, Unicode on: shades; ASCII: neither
    const auto shaded = run({"explain", "This is book", "--steps", "weights", "--color", "never"});
    CHECK_THAT(shaded.out, Catch::Contains("0.8370▓") && Catch::Contains("shade: ░ from 0.125"));
    const auto ascii =
        run({"explain", "This is book", "--steps", "weights", "--color", "never", "--ascii"});
    CHECK(ascii.out.find("shade") == std::string::npos);
    CHECK(ascii.out.find("\x1b[") == std::string::npos);
}

TEST_CASE("cli: --format none prints no walk-through but still writes the files", "[cli]") {
    const auto r = run({"explain", "This is book", "--format", "none", "--json", "-"});
    REQUIRE(r.code == 0);
    CHECK(nlohmann::json::parse(r.out).at("tokens").size() == 3);
    const auto quiet = run({"explain", "This is book", "--format", "none"});
    CHECK(quiet.code == 0);
    CHECK(quiet.out.empty());
    CHECK(quiet.err.empty());
    const auto why = run({"explain", "This is book", "--format", "none", "--why", "scores[0,0]"});
    CHECK(why.code == 2);
    CHECK_THAT(why.err, Catch::Contains("--format none prints nothing, expected one of them"));
}

TEST_CASE("cli: --stats reports each phase, the numbers held and the peak memory", "[cli]") {
    const auto r =
        run({"explain", "This is book", "--format", "none", "--stats", "--threads", "2"});
    REQUIRE(r.code == 0);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("attn: stats for 3 tokens, d_model 5, 1 head (d_k 3, d_v "
                                        "3), 2 threads\n"));
    for (const char* line : {"  read input ", "  compute ", "  total ", "  peak memory "}) {
        CHECK_THAT(r.err, Catch::Contains(line));
    }
    // X and X′ 3×5, W_Q, W_K, W_V 5×3 and the head's slices of them, Q, K, V, S, S′, A 3×3,
    // Z 3×3 and the output 3×3 (a copy of Z): (2·15 + 6·15 + 3·9 + 3·9 + 9 + 9) · 8 bytes
    CHECK(attn::trace_bytes(
              attn::explain(attn::seeded_input("This is book", attn::Config{}), attn::Config{})) ==
          (15 + 15 + 6 * 15 + 3 * 9 + 3 * 9 + 9 + 9) * 8);
    CHECK_THAT(r.err, Catch::Contains("numbers held (the trace)"));
    const auto one =
        run({"explain", "This is book", "--format", "none", "--stats", "--threads", "1"});
    CHECK_THAT(one.err, Catch::Contains("(d_k 3, d_v 3), 1 thread\n"));
    attn::set_worker_threads(0);
}

TEST_CASE("cli: --threads must be from 1 to 256", "[cli]") {
    const auto r = run({"explain", "This is book", "--threads", "0"});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--threads is 0, expected a whole number from 1 to 256"));
}

TEST_CASE("cli: a 2000-token walk-through stays readable: long lists and matrices are elided",
          "[cli]") {
    std::string sentence;
    for (int i = 0; i < 2000; ++i) {
        sentence += "w" + std::to_string(i % 37) + " ";
    }
    const auto r = run({"explain", sentence, "--color", "never"});
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("2000 tokens"));
    CHECK_THAT(r.out, Catch::Contains("(tokens 50 to 1989 of 2000 not shown)"));
    CHECK_THAT(r.out, Catch::Contains("(rows 10 to 1989 of 2000 not shown)"));
    // the weights too many to print, in an overview of blocks of token pairs that fits
    CHECK_THAT(r.out, Catch::Contains("Overview of all 2000 × 2000 weights, one character per "
                                      "block of 42 queries ×\n  31 keys, the mean of its weights"));
    CHECK_THAT(r.out, Catch::Contains("\n  1974–1999 │"));
    // a screenful or so per step, not 2000 lines per matrix
    const auto lines = std::count(r.out.begin(), r.out.end(), '\n');
    CHECK(lines < 460);
}

TEST_CASE("cli: attn init refuses a --description that is not UTF-8", "[cli][init]") {
    const auto r = run({"init", "This is book", "--description", "caf\xe9 lesson"});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("--description is not valid UTF-8: byte 0xE9 at byte "
                                      "offset 3"));
    const auto ok = run({"init", "This is book", "--description", "café lesson"});
    CHECK(ok.code == 0);
    CHECK_THAT(ok.out, Catch::Contains("\"description\": \"café lesson\",\n"));
}

TEST_CASE("cli: --why says where an input's cell came from", "[cli][why]") {
    const std::string data = std::string(ATTN_SOURCE_DIR) + "/data/examples/";
    // a --qkv lesson's Q is read from its file: no embeddings or weights, no empty sum
    const auto qkv = run({"explain", "--qkv", data + "chapter-2x3-qkv.json", "--why", "Q[t0,q0]",
                          "--color", "never", "--width", "200"});
    REQUIRE(qkv.code == 0);
    CHECK_THAT(qkv.out, Catch::Contains("Q[t0, q0] is an input of the walk-through, read from") &&
                            Catch::Contains("chapter-2x3-qkv.json (--qkv)"));
    CHECK(qkv.out.find("W_Q") == std::string::npos);
    CHECK(qkv.out.find("  = \n") == std::string::npos);
    // a padding row is zeros, not "seeded from --seed 42"
    const auto pad = run({"explain", "This is book", "--pad-to", "4", "--why", "embeddings[3,d0]",
                          "--color", "never", "--width", "200"});
    REQUIRE(pad.code == 0);
    CHECK_THAT(pad.out, Catch::Contains("row '<pad>' is padding (--pad-to)") &&
                            Catch::Contains("all zeros"));
    // a token missing from the embeddings file was seeded by --unknown random
    const auto unknown =
        run({"explain", "He took the zebra", "--model", data + "he-took-the-hat.json", "--unknown",
             "random", "--why", "embeddings[zebra,d0]", "--color", "never", "--width", "200"});
    REQUIRE(unknown.code == 0);
    CHECK_THAT(unknown.out, Catch::Contains("'zebra' is not in") &&
                                Catch::Contains("--unknown random gave it a vector seeded"));
    const auto known =
        run({"explain", "He took the zebra", "--model", data + "he-took-the-hat.json", "--unknown",
             "random", "--why", "embeddings[took,d0]", "--color", "never", "--width", "200"});
    REQUIRE(known.code == 0);
    const std::string known_why = known.out.substr(known.out.find("Why is"));
    CHECK_THAT(known_why, Catch::Contains("read from") && Catch::Contains("he-took-the-hat.json"));
    CHECK(known_why.find("--unknown random") == std::string::npos);
}

TEST_CASE("cli: --why works out the right weights shown beside a mistake", "[cli][why]") {
    // --scale-by d_model: A_right is the softmax of S / √d_k over the row, from the scores
    const auto r = run({"explain", "This is book", "--scale-by", "d_model", "--why",
                        "correct_weights[is,This]", "--color", "never", "--width", "300"});
    REQUIRE(r.code == 0);
    CHECK(r.out.substr(r.out.find("Why is")).find("seeded") == std::string::npos);
    CHECK_THAT(r.out, Catch::Contains("is a weight of the right rule") &&
                          Catch::Contains("scores divided by √d_model") &&
                          Catch::Contains("The scores of query 'is', scaled by the right rule"));
    // the weight it ends on is the one the table shows
    const auto table = run({"explain", "This is book", "--scale-by", "d_model", "--steps",
                            "correct_weights", "--color", "never"});
    REQUIRE(table.code == 0);
    const auto title = r.out.find("Why is A_right[is, This] = ");
    REQUIRE(title != std::string::npos);
    const std::string value = r.out.substr(title + 27, 6);
    CHECK_THAT(table.out, Catch::Contains("is   │  " + value));
    CHECK_THAT(r.out, Catch::Contains("= " + value + ".\n"));
    // --softmax-over all: the same, and it names the mistake
    const auto all = run({"explain", "This is book", "--softmax-over", "all", "--why",
                          "correct_weights[book,is]", "--color", "never", "--width", "300"});
    REQUIRE(all.code == 0);
    CHECK_THAT(all.out, Catch::Contains("came from one softmax over the whole matrix") &&
                            Catch::Contains("takes one softmax per query"));
}

TEST_CASE("cli: with --precision 0 or 1 the sentences and --why still quote four decimals",
          "[cli][why]") {
    for (const std::string p : {"0", "1"}) {
        const auto r = run(
            {"explain", "This is book", "--precision", p, "--color", "never", "--width", "200"});
        REQUIRE(r.code == 0);
        // √3 = 1.7321: the sentence says so, never "√d_k = 2"
        CHECK_THAT(r.out, Catch::Contains("so √d_k = 1.7321."));
        const auto why = run({"explain", "This is book", "--precision", p, "--why",
                              "scaled_scores[is,This]", "--color", "never", "--width", "200"});
        REQUIRE(why.code == 0);
        // S / √3 = 2.0051, which 3.4729 / 1.7321 (2.0050) would not give: more decimals
        CHECK_THAT(why.out, Catch::Contains("3.47287 / 1.73205 = 2.0051."));
    }
}

TEST_CASE("cli: numbers too small for a double's full precision are shown and said as they are",
          "[cli][sentences]") {
    const std::string good = std::string(ATTN_SOURCE_DIR) + "/tests/inputs/good/";
    const auto under = run(
        {"explain", "--qkv", good + "qkv-underflow.json", "--color", "never", "--width", "200"});
    REQUIRE(under.code == 0);
    // Q of 1e-200 is no table of 0.0000: every entry prints as 0 at 4 decimals, so the table
    // is in scientific notation
    CHECK_THAT(under.out, Catch::Contains("1.0000e-200  2.0000e-200"));
    // every score underflows to 0: four scores tie, and none is "the largest"
    CHECK_THAT(under.out, Catch::Contains("query 'a' against key 'a', one of 4 scores tied for "
                                          "the largest: 0 here"));
    CHECK_THAT(under.out, !Catch::Contains("the largest score is"));
    // one decision for every format's tables
    const auto md = run({"explain", "--qkv", good + "qkv-underflow.json", "--format", "markdown"});
    CHECK_THAT(md.out, Catch::Contains("| **a** | 1.0000e-200 | 2.0000e-200 |"));
    const auto tex = run({"explain", "--qkv", good + "qkv-underflow.json", "--format", "latex"});
    CHECK_THAT(tex.out, Catch::Contains("1.0000e-200 & 2.0000e-200"));
    // the --why title writes the cell as its table does
    const auto why = run(
        {"explain", "--qkv", good + "qkv-underflow.json", "--why", "Q[b,q0]", "--color", "never"});
    REQUIRE(why.code == 0);
    CHECK_THAT(why.out, Catch::Contains("Why is Q[b, q0] = 3.0000e-200?"));

    // subnormal scores: S′ = S / √2 rounds, so the variance is not exactly halved, and the
    // sentence does not say "exactly"; the exact figure is given beside it
    const auto sub = run(
        {"explain", "--qkv", good + "qkv-subnormal.json", "--color", "never", "--width", "200"});
    REQUIRE(sub.code == 0);
    CHECK_THAT(sub.out, Catch::Contains("Scaling divides the variance of the scores by d_k: from "
                                        "2.1998e-643 (S) to 1.0948e-643 (S′)"));
    CHECK_THAT(sub.out, Catch::Contains("(Exactly, the variance would fall to 1.0999e-643: "
                                        "scores this small, below about 2.2e-308"));
    // ordinary scores whose halved variance is halfway at four decimals (0.34375): the
    // rounding of each division tips it, and that is the reason given, not small scores
    const auto half = run(
        {"explain", "--qkv", good + "qkv-zero-query.json", "--color", "never", "--width", "200"});
    REQUIRE(half.code == 0);
    CHECK_THAT(half.out, Catch::Contains("(Exactly, the variance would fall to 0.3438: each score "
                                         "divided by √d_k is rounded to the nearest double, and "
                                         "the variance of S′ comes out a hair under 0.34375, "
                                         "which shows as 0.3437.)"));
    CHECK_THAT(half.out, !Catch::Contains("below about 2.2e-308"));
    // with ordinary numbers the division is exact, and said so
    const auto book = run({"explain", "This is book", "--color", "never", "--width", "200"});
    CHECK_THAT(book.out, Catch::Contains("by d_k exactly: from 7.4438 (S) to 2.4813 (S′)"));
    CHECK_THAT(book.out, !Catch::Contains("(Exactly, the variance would fall"));
}

TEST_CASE("cli: --why names a repeated token by its index, everywhere in the explanation",
          "[cli][why]") {
    const auto r = run({"explain", "the cat saw the dog", "--why", "weights[cat,the#3]", "--color",
                        "never", "--width", "200"});
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("Why is A[cat, the#3] = 0.2190?"));
    // the terms with the decimals their sum, Σ = 3.1775, takes (to four they add up to 3.1774)
    CHECK_THAT(r.out, Catch::Contains("= 0.69592 [the#0]"));
    CHECK_THAT(r.out, Catch::Contains("= 0.69592 [the#3]"));
    CHECK_THAT(r.out, Catch::Contains("= 0.48961 [cat]"));
    // a table of decimals: the title says 1.0000 as the table does, not 1
    const std::string data = std::string(ATTN_SOURCE_DIR) + "/data/examples/";
    const auto x = run({"explain", "--model", data + "he-took-the-hat.json", "--why",
                        "embeddings[He,d0]", "--color", "never"});
    REQUIRE(x.code == 0);
    CHECK_THAT(x.out, Catch::Contains("Why is X[He, d0] = 1.0000?"));
    // a whole factor in a lesson of decimals keeps the decimals its table shows
    const auto q = run(
        {"explain", "This is book", "--why", "Q[is,q0]", "--color", "never", "--width", "1000"});
    CHECK_THAT(q.out, Catch::Contains(" + 0.2500·0.0000 + "));
}

TEST_CASE("cli: the scaling sentences name the cause the numbers show", "[cli][sentences]") {
    // --pad-to: the padding's zeros turn the verdict round; the real tokens' own is beside it
    const auto pad = run({"explain", "This is book", "--pad-to", "5", "--mask", "causal", "--color",
                          "never", "--width", "1000"});
    REQUIRE(pad.code == 0);
    CHECK_THAT(pad.out, Catch::Contains("from 2.7167 (S) to 0.9056 (S′), which is close to 1"));
    CHECK_THAT(pad.out, Catch::Contains("Over the 9 scores between the 3 real tokens alone, the "
                                        "variance falls from 7.4438 (S) to 2.4813 (S′), which is "
                                        "not close to 1"));
    // not chance but underflow, or entries whose mean is not 0
    const std::string good = std::string(ATTN_SOURCE_DIR) + "/tests/inputs/good/";
    const auto under = run(
        {"explain", "--qkv", good + "qkv-subnormal.json", "--color", "never", "--width", "1000"});
    // subnormal scores keep few digits, but their variance is within 1% of the true
    // products': not the cause; the file's numbers are named instead
    CHECK_THAT(under.out, !Catch::Contains("scores are products too small for a double"));
    CHECK_THAT(under.out, Catch::Contains("Q and K were read from a file, so nothing here says "
                                          "they are independent draws of mean 0"));
    // scores that underflow to 0: that is the cause, with the true products' variance
    const auto zero = run(
        {"explain", "--qkv", good + "qkv-underflow.json", "--color", "never", "--width", "1000"});
    CHECK_THAT(zero.out, Catch::Contains("4 of the 4 scores are products too small for a double "
                                         "(see the warning), stored as 0 or with few correct "
                                         "digits, so their variance (0.0000) is not that of the "
                                         "true products"));
    const auto ones =
        run({"explain", "--qkv",
             std::string(ATTN_SOURCE_DIR) + "/data/examples/weather-word-lengths-qkv.json",
             "--color", "never", "--width", "1000"});
    REQUIRE(ones.code == 0);
    CHECK_THAT(ones.out,
               Catch::Contains("the entries of Q have mean 1 and those of K 1.4907, not 0"));
    // random entries of mean near 0: chance, as before
    const auto book = run({"explain", "This is book", "--color", "never", "--width", "1000"});
    CHECK_THAT(book.out, Catch::Contains("with 9 scores, one run can stray far from the average"));
}

TEST_CASE("cli: repeated tokens and tiny weights are named as they are", "[cli][sentences]") {
    const auto text = [](std::vector<std::string> args) {
        args.insert(args.end(), {"--color", "never", "--width", "1000"});
        const auto r = run(args);
        REQUIRE(r.code == 0);
        return r.out;
    };
    // every copy ends identical (their outputs equal other tokens' too): the plain sentence
    const auto hand = text({"explain", "the cat the", "--arith", "hand", "--softmax-over",
                            "columns", "--pad-to", "5"});
    CHECK_THAT(hand, Catch::Contains("Identical outputs for 'the' (tokens 0 and 2) and '<pad>' "
                                     "(tokens 3 and 4)"));
    CHECK_THAT(hand, !Catch::Contains("and tokens end with"));
    // each group with its own reasons: the mask lets the two pads see the same tokens
    const auto pads = text({"explain", "the cat the", "--mask", "causal", "--positions",
                            "sinusoidal", "--pad-to", "5"});
    CHECK_THAT(pads, Catch::Contains("Different outputs for '<pad>' (tokens 3 and 4), although "
                                     "the copies start from identical embeddings: the positional "
                                     "encodings gave each copy its own row of X′."));
    CHECK_THAT(pads, Catch::Contains("Different outputs for 'the' (tokens 0 and 2), although the "
                                     "copies start from identical embeddings: the positional "
                                     "encodings gave each copy its own row of X′ and the mask"));
    // a repeated token in the largest score and in "alone takes"
    CHECK_THAT(text({"explain", "the cat the", "--mask", "causal"}),
               Catch::Contains("the largest score the mask allows is query 'the' (token 2) "
                               "against key 'cat'"));
    // softmax over the whole matrix: sums and largest weights far below 0.0001 are not 0.0000
    const std::string good = std::string(ATTN_SOURCE_DIR) + "/tests/inputs/good/";
    const auto all =
        text({"explain", "--qkv", good + "qkv-saturated.json", "--softmax-over", "all"});
    CHECK_THAT(all, Catch::Contains("(their sums: between 2.0101e-31 and 1.0000)"));
    CHECK_THAT(all, Catch::Contains("'t1' → 't0' (1.9532e-31)"));
    CHECK_THAT(all, !Catch::Contains("instead of 1"));
}
