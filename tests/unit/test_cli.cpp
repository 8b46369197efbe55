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
    CHECK(r.out.find("1.0000") == std::string::npos);
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
    CHECK(attn::cli::select_steps("weights,scores", steps) == V{"scores", "weights"});
    CHECK(attn::cli::select_steps("3", steps) == V{"W_Q", "W_K", "W_V"});
    CHECK(attn::cli::select_steps(" 7b , q ", steps) == V{"Q", "masked_scores"});
    CHECK(attn::cli::select_steps("MASK,9", steps) == V{"mask", "output"});
    CHECK_THROWS_AS(attn::cli::select_steps(",", steps), attn::Error);
}

TEST_CASE("cli: --pause waits between steps on a terminal, q ends", "[cli][pause]") {
    std::ostringstream out;
    std::ostringstream err;
    std::istringstream in("\n\nq\n");
    attn::cli::Io io{out, err};
    io.in = &in;
    io.stdin_is_terminal = true;
    io.stdout_is_terminal = true;
    const int code = attn::cli::run({"explain", "This is book", "--pause", "--color", "never"}, io);
    CHECK(code == 0);
    CHECK_THAT(out.str(), Catch::Contains("── next: 2 · Embeddings X · Enter: go on, q: quit ──"));
    CHECK_THAT(out.str(), Catch::Contains("━━ 3a · Query weights W_Q"));
    CHECK_THAT(out.str(), Catch::Contains("── next: 3b · Key weights W_K"));
    CHECK(out.str().find("━━ 3b · Key weights W_K") == std::string::npos);
    CHECK(err.str().empty());
}

TEST_CASE("cli: --pause without a terminal prints everything and says so", "[cli][pause]") {
    std::ostringstream out;
    std::ostringstream err;
    std::istringstream in("");
    attn::cli::Io io{out, err};
    io.in = &in;
    const int code = attn::cli::run({"explain", "This is book", "--pause"}, io);
    CHECK(code == 0);
    CHECK_THAT(err.str(), Catch::Contains("attn: note: --pause needs a terminal"));
    CHECK_THAT(out.str(), Catch::Contains("Output Z"));
    CHECK(out.str().find("next:") == std::string::npos);
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
    // a screenful or so per step, not 2000 lines per matrix
    const auto lines = std::count(r.out.begin(), r.out.end(), '\n');
    CHECK(lines < 400);
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
