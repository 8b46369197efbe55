#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/utf8.hpp"
#include "attn/render/render.hpp"
#include "toolkit.hpp"

namespace {

attn::Trace seeded(const std::string& sentence, attn::Config c = {}) {
    return attn::explain(attn::seeded_input(sentence, c), c);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST_CASE("numbers print with fixed precision, no negative zero, −∞ for masked", "[render]") {
    CHECK(attn::format_number(0.12345, 4, true) == "0.1235");
    CHECK(attn::format_number(-1.5, 2, true) == "-1.50");
    CHECK(attn::format_number(-0.00004, 4, true) == "0.0000");
    CHECK(attn::format_number(-0.0, 2, true) == "0.00");
    CHECK(attn::format_number(2.0, 0, true) == "2");
    // too wide for fixed notation: scientific
    CHECK(attn::format_number(123456789.0, 4, true) == "1.2346e+08");
    CHECK(attn::format_number(-1e7, 2, true) == "-1.00e+07");
    CHECK(attn::format_number(9999999.0, 1, true) == "9999999.0");
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(attn::format_number(-inf, 4, true) == "−∞");
    CHECK(attn::format_number(-inf, 4, false) == "-inf");
    CHECK(attn::format_number(std::nan(""), 4, false) == "nan");
}

TEST_CASE("worked arithmetic never rests on a halfway result", "[render]") {
    // at five decimals the terms show as 0.29016 + 1 + 0.74797 + 0.17935 + 0.33287 = 2.55035
    // exactly: a reader rounds it to 2.5504, a double (2.5503499...) may round it to 2.5503;
    // the terms need a decimal more
    const std::vector<double> terms{0.290161, 1.0, 0.747971, 0.179351, 0.332871};
    double total = 0.0;
    for (const double x : terms) {
        total += x;
    }
    const auto add = [](const std::vector<double>& v) {
        double s = 0.0;
        for (const double x : v) {
            s += x;
        }
        return s;
    };
    CHECK(attn::toolkit::halfway(2.55035, 4));
    CHECK_FALSE(attn::toolkit::halfway(2.550344, 4));
    CHECK(attn::toolkit::operand_decimals(terms, total, 4, 5, add) == 6);
}

TEST_CASE("numbers never print more than 15 significant digits", "[render]") {
    // −0.0401·−0.5525 + −0.9159·2.2613 + −2.8183·1.7981 is −7.11655465 exactly; the double
    // computed for it is −7.1165546499999991...: its 16th and 17th digits are rounding
    const double score = -0.0401 * -0.5525 + -0.9159 * 2.2613 + -2.8183 * 1.7981;
    REQUIRE(fmt::format("{:.15f}", score) == "-7.116554649999999");
    CHECK(attn::format_number(score, 15, true) == "-7.11655465000000");
    CHECK(attn::format_number(score, 4, true) == "-7.1166");
    CHECK(attn::format_number(0.155662793901231, 17, true) == "0.155662793901231");
    CHECK(attn::format_number(0.000123456789012345678, 20, true) == "0.000123456789012346");
    CHECK(attn::format_number(1234567.0, 15, true) == "1234567.00000000");
    // a sum of weights just under 1 rounds up to 1: 15 digits of it, not 16
    CHECK(attn::format_number(0.99999999999999989, 15, true) == "1.00000000000000");
    CHECK(attn::format_number(-9.9999999999999991, 15, true) == "-10.0000000000000");
    CHECK(attn::format_number(0.9999, 15, true) == "0.999900000000000");
    CHECK(attn::format_number(123456789.0, 15, true) == "1.23456789000000e+08");
    CHECK(attn::format_checkable(1.234e-30, 15, true) == "1.23400000000000e-30");
    // a table: every entry at the decimals of its largest, and the cut said
    const attn::Matrix m{{score, 0.5}, {0.25, 0.125}};
    attn::Step step;
    step.kind = attn::StepKind::matrix;
    step.matrix = &m;
    const auto table = attn::table_numbers(step, 15);
    CHECK(table.precision == 14);
    CHECK(table.capped);
    CHECK_FALSE(attn::table_numbers(step, 14).capped);
    CHECK(table.format(0.125, true) == "0.12500000000000");
}

TEST_CASE("a variance prints finite however large or small it is", "[render]") {
    // in the range of a double: as format_number prints it
    CHECK(attn::format_number(attn::Variance{0.75, 2}, 4, true) == "3.0000");
    CHECK(attn::format_number(attn::Variance{}, 4, true) == "0.0000");
    // 1e400 is past the largest double, 1e-400 below the smallest: still their own numbers
    const auto wide = attn::variance_of(attn::Matrix{{1e200, -1e200}});
    CHECK(std::isinf(wide.value()));
    CHECK(attn::format_number(wide, 4, true) == "1.0000e+400");
    CHECK(attn::format_number(wide, 2, false) == "1.00e+400");
    const auto narrow = attn::variance_of(attn::Matrix{{1e-200, -1e-200}});
    CHECK(narrow.value() == 0.0);
    CHECK(attn::format_number(narrow, 4, true) == "1.0000e-400");
    // a subnormal double (6.8774e-321 as a double) keeps few digits: from scaled · 2^e
    CHECK(attn::format_number(attn::variance_of(attn::Matrix{{1e-160, 3e-160}, {2e-160, 1e-160}}),
                              8, true) == "6.87500000e-321");
    // too small for four decimals but a double: scientific, not 0.0000
    CHECK(attn::format_number(attn::variance_of(attn::Matrix{{1e-5, -1e-5}}), 4, true) ==
          "1.0000e-10");
    // 3.95e307 is a double: the plain way of computing it overflows, the scaled one does not
    CHECK(attn::format_number(attn::variance_of(attn::Matrix{{2e154, 0, 0}, {0, 0, 0}, {0, 0, 0}}),
                              4, true) == "3.9506e+307");
}

TEST_CASE("ASCII spelling of our glyphs", "[render]") {
    CHECK(attn::to_ascii("S = Q · Kᵀ") == "S = Q * K^T");
    CHECK(attn::to_ascii("S′ = S / √d_k") == "S' = S / sqrt(d_k)");
    CHECK(attn::to_ascii("√d_k = 1.7321.") == "sqrt(d_k) = 1.7321.");
    CHECK(attn::to_ascii("(3×5)·(5×3) → (3×3)") == "(3x5)*(5x3) -> (3x3)");
    CHECK(attn::to_ascii("−∞ and e^(s − max)") == "-inf and e^(s - max)");
    CHECK(attn::to_ascii("plain") == "plain");
}

TEST_CASE("text: every step in order with formula, shapes and labels", "[render][text]") {
    attn::TextStyle style;
    style.color = false;
    const auto text = attn::render_text(seeded("This is book"), style);
    const std::vector<std::string> headings{
        "1 · Tokens",           "2 · Embeddings X",        "3a · Query weights W_Q",
        "3b · Key weights W_K", "3c · Value weights W_V",  "4a · Queries Q",
        "4b · Keys K",          "4c · Values V",           "5 · Scores S",
        "6 · Scaled scores S′", "7 · Attention weights A", "8 · Output Z"};
    std::size_t pos = 0;
    for (const auto& h : headings) {
        INFO(h);
        const auto at = text.find("━━ " + h + " ━", pos);
        REQUIRE(at != std::string::npos);
        pos = at;
    }
    CHECK_THAT(text, Catch::Contains("Q = X · W_Q    (3×5)·(5×3) → (3×3)"));
    CHECK_THAT(text, Catch::Contains("S = Q · Kᵀ    (3×3)·(3×3) → (3×3)"));
    CHECK_THAT(text, Catch::Contains("[0] This   [1] is   [2] book"));
    CHECK_THAT(text, Catch::Contains("--seed 42"));
    CHECK_THAT(text, Catch::Contains("√d_k = 1.7321"));
    CHECK_THAT(text, Catch::Contains("The new vector for 'book' is"));
    CHECK(text.find("Causal mask") == std::string::npos);
    CHECK(text.find("\x1b[") == std::string::npos);
    for (const auto& line : lines_of(text)) {
        INFO(line);
        CHECK(attn::utf8::display_width(line) <= 80);
    }
}

TEST_CASE("text: ASCII mode writes only ASCII", "[render][text]") {
    attn::TextStyle style;
    style.unicode = false;
    attn::Config c;
    c.mask = attn::MaskKind::causal;
    const auto text = attn::render_text(seeded("This is book", c), style);
    for (char ch : text) {
        REQUIRE(static_cast<unsigned char>(ch) < 0x80);
    }
    CHECK_THAT(text, Catch::Contains("-inf"));
    CHECK_THAT(text, Catch::Contains("S = Q * K^T"));
    CHECK_THAT(text, Catch::Contains("|     sum"));
}

TEST_CASE("text: colour paints the attention heatmap", "[render][text]") {
    attn::TextStyle style;
    style.color = true;
    const auto text = attn::render_text(seeded("This is book"), style);
    CHECK_THAT(text, Catch::Contains("\x1b[48;5;"));
    CHECK_THAT(text, Catch::Contains("\x1b[0m"));
}

TEST_CASE("text: --steps and --quiet-text", "[render][text]") {
    attn::TextStyle style;
    style.steps = {"scores", "weights"};
    style.explanations = false;
    const auto text = attn::render_text(seeded("This is book"), style);
    CHECK_THAT(text, Catch::Contains("5 · Scores S"));
    CHECK_THAT(text, Catch::Contains("7 · Attention weights A"));
    CHECK(text.find("Embeddings") == std::string::npos);
    CHECK(text.find("dot product") == std::string::npos);
    CHECK(text.find("sums to 1") == std::string::npos);
}

TEST_CASE("text: large inputs are elided to fit and say so", "[render][text]") {
    attn::Config c;
    c.d_model = 64;
    std::string sentence;
    for (int i = 0; i < 40; ++i) {
        sentence += "w" + std::to_string(i) + " ";
    }
    attn::TextStyle style;
    style.width = 72;
    const auto text = attn::render_text(seeded(sentence, c), style);
    for (const auto& line : lines_of(text)) {
        INFO(line);
        CHECK(attn::utf8::display_width(line) <= 72);
    }
    CHECK_THAT(text, Catch::Contains("(rows 10 to 29 of 40 not shown)"));
    CHECK_THAT(text, Catch::Contains("of 64 not shown)"));
    CHECK_THAT(text, Catch::Contains("⋮"));
    CHECK_THAT(text, Catch::Contains("The JSON dump (--json FILE) has every value."));
}

TEST_CASE("text: long labels and sentences are cut between whole characters", "[render][text]") {
    // a row label is cut to 16 columns: 15 and the ellipsis, never within स्
    std::string word;
    for (int i = 0; i < 5; ++i) {
        word += "नमस्ते";
    }
    attn::TextStyle style;
    style.color = false;
    const auto text = attn::render_text(seeded(word + " ok"), style);
    CHECK_THAT(text, Catch::Contains("  नमस्तेनमस्तेनमस्तेनमस्… │"));
    // the sentence in the header is cut after 120 columns (11 words of 10 columns and the
    // spaces between them) and counts its characters, not its columns
    std::string sentence;
    std::string shown;
    for (int i = 0; i < 30; ++i) {
        sentence += "日本語の文 ";
        if (i < 11) {
            shown += i < 10 ? "日本語の文 " : "日本語の文";
        }
    }
    style.width = 200;  // the header line unwrapped
    const auto cut = attn::render_text(seeded(sentence), style);
    CHECK_THAT(cut, Catch::Contains("sentence  \"" + shown + " … (180 characters in all)\": 30"));
}

TEST_CASE("text: a few more columns than fit are split into blocks", "[render][text]") {
    attn::Config c;
    c.d_model = 12;
    attn::TextStyle style;
    style.width = 60;
    const auto text = attn::render_text(seeded("This is book", c), style);
    CHECK_THAT(text, Catch::Contains("12 columns, in blocks of"));
    CHECK_THAT(text, Catch::Contains("columns 0–"));
    CHECK(text.find("not shown") == std::string::npos);
}

TEST_CASE("text: a matrix whose rows are cut has its columns cut too, not in blocks",
          "[render][text]") {
    // 30 tokens: 30 rows (more than fit) and 30 columns, which would make 3 blocks of cut rows
    // at 120 columns; instead the first and last columns and rows, as at 80 columns
    std::string sentence;
    for (int i = 0; i < 30; ++i) {
        sentence += "w" + std::to_string(i) + " ";
    }
    attn::TextStyle style;
    style.color = false;
    style.steps = {"weights"};
    for (const std::size_t width : {80U, 100U, 120U, 150U}) {
        style.width = width;
        INFO(width);
        const auto text = attn::render_text(seeded(sentence), style);
        CHECK(text.find("in blocks of") == std::string::npos);
        CHECK_THAT(text, Catch::Contains("of 30 not shown)") && Catch::Contains("(rows 10 to 19"));
    }
}

TEST_CASE("text: at the narrowest width every line fits", "[render][text]") {
    attn::TextStyle style;
    style.width = 40;
    style.color = false;
    attn::Config c;
    c.n_heads = 2;
    c.mask = attn::MaskKind::causal;
    c.positions = attn::PositionKind::sinusoidal;
    for (const auto& trace : {seeded("This is book"), seeded("The cat sat on the mat", c)}) {
        const auto text = attn::render_text(trace, style);
        CHECK_THAT(text, Catch::Contains("attn explain · self-attention\n"));
        for (const auto& line : lines_of(text)) {
            INFO(line);
            CHECK(attn::utf8::display_width(line) <= 40);
        }
    }
}

TEST_CASE("json: a complete, exact and parseable dump", "[render][json]") {
    attn::Config c;
    c.mask = attn::MaskKind::causal;
    c.tokenizer.lowercase = true;
    const auto t = seeded("The cat \"sat\"", c);
    const auto j = nlohmann::json::parse(attn::render_json(t));
    CHECK(j.at("schema") == "attn.trace");
    CHECK(j.at("schema_version") == 1);
    CHECK(j.at("config").at("seed") == 42);
    CHECK(j.at("config").at("mask") == "causal");
    CHECK(j.at("config").at("tokenizer").at("lowercase") == true);
    CHECK(j.at("tokens") == nlohmann::json::array({"the", "cat", "\"", "sat", "\""}));
    CHECK(j.at("sources").at("embeddings").at("kind") == "seeded");
    std::vector<std::string> ids;
    for (const auto& s : j.at("steps")) {
        ids.push_back(s.at("id"));
    }
    CHECK(ids == std::vector<std::string>{"tokens", "embeddings", "W_Q", "W_K", "W_V", "Q", "K",
                                          "V", "scores", "scaled_scores", "mask", "masked_scores",
                                          "weights", "output"});
    const auto& steps = j.at("steps");
    // full precision: every value reads back as the same double
    const auto& q = steps[5];
    CHECK(q.at("shape") == nlohmann::json::array({5, 3}));
    for (std::size_t r = 0; r < 5; ++r) {
        for (std::size_t col = 0; col < 3; ++col) {
            CHECK(q.at("values")[r][col].get<double>() == t.heads[0].q(r, col));
        }
    }
    // the mask is booleans, masked cells the string "-inf", never null
    const auto& mask = steps[10];
    CHECK(mask.at("values")[0][1] == false);
    CHECK(mask.at("values")[1][0] == true);
    CHECK(mask.at("convention") == "true = may attend, false = blocked");
    const auto& masked = steps[11];
    CHECK(masked.at("values")[0][1] == "-inf");
    CHECK(masked.at("values")[1][1].is_number());
    const auto& weights = steps[12];
    for (const auto& sum : weights.at("row_sums")) {
        CHECK(sum.get<double>() == Approx(1.0));
    }
    CHECK(steps[9].at("sqrt_d_k").get<double>() == t.rule.sqrt_width());
    CHECK(j.at("warnings").empty());
    CHECK(attn::render_json(t).find("null") == std::string::npos);
}

TEST_CASE("json: streamed in pieces that add up to the whole", "[render][json]") {
    attn::Config c;
    c.d_model = 256;
    const auto t = seeded("a b c d e f g h i j k l m n o p q r s t u v w x y z", c);
    std::size_t pieces = 0;
    std::string joined;
    attn::render_json(t, [&](std::string_view piece) {
        ++pieces;
        joined += piece;
    });
    CHECK(pieces > 1);
    CHECK(joined == attn::render_json(t));
    CHECK_NOTHROW(nlohmann::json::parse(joined));
}
