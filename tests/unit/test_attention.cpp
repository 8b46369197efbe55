#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "attn/core/attention.hpp"
#include "attn/core/check.hpp"
#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "cli.hpp"
#include "examples.hpp"
#include "notation.hpp"

using attn::Matrix;

namespace {

using attn_test::integer_config;
using attn_test::integer_input;

Matrix to_matrix(const nlohmann::json& rows) {
    Matrix m(rows.size(), rows.at(0).size());
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            const auto& v = rows[r][c];
            m(r, c) = v.is_string() ? -std::numeric_limits<double>::infinity() : v.get<double>();
        }
    }
    return m;
}

void check_close(const Matrix& actual, const Matrix& expected, double tol) {
    REQUIRE(actual.rows() == expected.rows());
    REQUIRE(actual.cols() == expected.cols());
    for (std::size_t r = 0; r < actual.rows(); ++r) {
        for (std::size_t c = 0; c < actual.cols(); ++c) {
            INFO("cell (" << r << ", " << c << ")");
            if (std::isinf(expected(r, c))) {
                CHECK(actual(r, c) == expected(r, c));
            } else {
                CHECK(std::abs(actual(r, c) - expected(r, c)) <=
                      tol * std::max(1.0, std::abs(expected(r, c))));
            }
        }
    }
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("the 3×4 integer example, by hand", "[attention]") {
    const auto t = attn::explain(integer_input(), integer_config());
    CHECK(t.heads[0].q == Matrix{{1, 0, 2}, {2, 2, 2}, {2, 1, 3}});
    CHECK(t.heads[0].k == Matrix{{0, 1, 1}, {4, 4, 0}, {2, 3, 1}});
    CHECK(t.heads[0].v == Matrix{{1, 2, 3}, {2, 8, 0}, {2, 6, 3}});
    CHECK(t.heads[0].scores == Matrix{{2, 4, 4}, {4, 16, 12}, {4, 12, 10}});
    CHECK(t.rule.sqrt_width() == Approx(std::sqrt(3.0)));
    CHECK(t.rule.divisor() == t.rule.sqrt_width());
    CHECK(t.heads[0].scaled_scores(0, 1) == Approx(4.0 / std::sqrt(3.0)));
    // the first row of the scaled softmax, as the tutorials give it
    CHECK(t.heads[0].attention(0, 0) == Approx(0.136126).margin(5e-7));
    CHECK(t.heads[0].attention(0, 1) == Approx(0.431937).margin(5e-7));
    CHECK(t.heads[0].attention(0, 2) == Approx(0.431937).margin(5e-7));
    // output row 0 = 0.136·[1,2,3] + 0.432·[2,8,0] + 0.432·[2,6,3]
    CHECK(t.output(0, 0) == Approx(0.136126 * 1 + 0.431937 * 2 + 0.431937 * 2).margin(1e-5));
    CHECK_FALSE(t.mask.has_value());
    CHECK(t.heads[0].masked_scores.empty());
    CHECK(t.heads[0].variance_scaled.value() == Approx(t.heads[0].variance_scores.value() / 3.0));
}

TEST_CASE("every intermediate matches numpy's to 1e-12", "[attention][reference]") {
    const auto inputs = read_json(ATTN_SOURCE_DIR "/tests/reference/inputs.json");
    const auto expected = read_json(ATTN_SOURCE_DIR "/tests/reference/expected.json");
    REQUIRE(inputs.size() == 4);
    for (const auto& [name, in_json] : inputs.items()) {
        SECTION(name) {
            attn::Input in;
            in.tokens = in_json.at("tokens").get<std::vector<std::string>>();
            in.x = to_matrix(in_json.at("X"));
            in.weights.w_q = to_matrix(in_json.at("W_Q"));
            in.weights.w_k = to_matrix(in_json.at("W_K"));
            in.weights.w_v = to_matrix(in_json.at("W_V"));
            attn::Config c;
            c.d_model = in.x.cols();
            c.d_k = in.weights.w_q.cols();
            c.d_v = in.weights.w_v.cols();
            c.mask = in_json.at("mask") == "causal" ? attn::MaskKind::causal : attn::MaskKind::none;
            const auto t = attn::explain(in, c);
            const auto& e = expected.at(name);
            constexpr double tol = 1e-12;
            check_close(t.heads[0].q, to_matrix(e.at("Q")), tol);
            check_close(t.heads[0].k, to_matrix(e.at("K")), tol);
            check_close(t.heads[0].v, to_matrix(e.at("V")), tol);
            check_close(t.heads[0].scores, to_matrix(e.at("scores")), tol);
            check_close(t.heads[0].scaled_scores, to_matrix(e.at("scaled_scores")), tol);
            if (c.mask == attn::MaskKind::causal) {
                check_close(t.heads[0].masked_scores, to_matrix(e.at("masked_scores")), tol);
            }
            check_close(t.heads[0].attention, to_matrix(e.at("weights")), tol);
            check_close(t.output, to_matrix(e.at("output")), tol);
            CHECK(t.heads[0].variance_scores.value() ==
                  Approx(e.at("variance_before").get<double>()).epsilon(1e-12));
            CHECK(t.heads[0].variance_scaled.value() ==
                  Approx(e.at("variance_after").get<double>()).epsilon(1e-12));
        }
    }
}

TEST_CASE("the seeded pipeline is reproducible and shaped right", "[attention]") {
    attn::Config c;
    c.d_model = 6;
    c.d_k = 4;
    c.d_v = 2;
    const auto in = attn::seeded_input("The cat sat on the mat.", c);
    CHECK(in.tokens.size() == 7);
    const auto t = attn::explain(in, c);
    const auto again = attn::explain(attn::seeded_input("The cat sat on the mat.", c), c);
    CHECK(t.output == again.output);
    CHECK(t.x.rows() == 7);
    CHECK(t.x.cols() == 6);
    CHECK(t.heads[0].q.cols() == 4);
    CHECK(t.heads[0].v.cols() == 2);
    CHECK(t.heads[0].scores.rows() == 7);
    CHECK(t.heads[0].scores.cols() == 7);
    CHECK(t.output.rows() == 7);
    CHECK(t.output.cols() == 2);
    for (double sum : attn::row_sums(t.heads[0].attention)) {
        CHECK(sum == Approx(1.0).epsilon(1e-14));
    }
    // "The" and "the" differ without --lowercase
    CHECK(t.identical_embeddings.empty());
}

TEST_CASE("repeated tokens: identical rows and outputs, until a mask separates them",
          "[attention]") {
    attn::Config c;
    c.tokenizer.lowercase = true;
    const auto t = attn::explain(attn::seeded_input("The cat sat on the mat", c), c);
    const std::vector<std::vector<std::size_t>> the{{0, 4}};
    CHECK(t.identical_embeddings == the);
    CHECK(t.identical_outputs == the);
    CHECK(std::ranges::equal(t.output.row(0), t.output.row(4)));

    c.mask = attn::MaskKind::causal;
    const auto causal = attn::explain(attn::seeded_input("The cat sat on the mat", c), c);
    CHECK(causal.identical_embeddings == the);
    CHECK(causal.identical_outputs.empty());
    for (std::size_t i = 0; i < 6; ++i) {
        for (std::size_t j = i + 1; j < 6; ++j) {
            CHECK(causal.heads[0].attention(i, j) == 0.0);
        }
    }
    // the first token can only attend to itself
    CHECK(causal.heads[0].attention(0, 0) == 1.0);
}

TEST_CASE("inputs whose shapes do not fit are errors naming both sides", "[attention]") {
    auto in = integer_input();
    in.weights.w_k = Matrix(3, 3);
    try {
        (void)attn::explain(in, integer_config());
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK_THAT(e.what(),
                   Catch::Contains("W_K is 3×3") && Catch::Contains("d_model × (heads·d_k) = 4×3"));
    }
    in = integer_input();
    in.tokens.pop_back();
    CHECK_THROWS_AS(attn::explain(in, integer_config()), attn::Error);
}

TEST_CASE("sizes out of range are usage errors", "[attention]") {
    attn::Config c;
    c.d_k = 0;
    try {
        attn::validate(c);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(e.kind() == attn::ErrorKind::usage);
        CHECK(e.field() == attn::Field::d_k);
        // the core names the field; the command line names its flag
        CHECK(std::string(e.what()) ==
              "d_k is 0, expected a whole number from 1 to 4096 (the width of each query and "
              "key vector)");
        CHECK(attn::cli::message_of(e) ==
              "--d-k is 0, expected a whole number from 1 to 4096 (the width of each query and "
              "key vector)");
    }
    c.d_k = 3;
    c.d_model = 5000;
    CHECK_THROWS_AS(attn::validate(c), attn::Error);
}

TEST_CASE("teaching steps: ids, numbers and labels in order", "[attention][steps]") {
    const auto t = attn::explain(integer_input(), integer_config());
    const auto steps = attn::teaching_steps(t);
    std::vector<std::string> ids;
    std::vector<std::string> numbers;
    for (const auto& s : steps) {
        ids.emplace_back(s.id);
        numbers.push_back(s.number);
    }
    CHECK(ids == std::vector<std::string>{"tokens", "embeddings", "W_Q", "W_K", "W_V", "Q", "K",
                                          "V", "scores", "scaled_scores", "weights", "output"});
    CHECK(numbers == std::vector<std::string>{"1", "2", "3a", "3b", "3c", "4a", "4b", "4c", "5",
                                              "6", "7", "8"});
    const auto& scores = steps[8];
    CHECK(attn::notation::formula(scores.formula, attn::notation::Style::unicode) == "S = Q · Kᵀ");
    CHECK(scores.operands == std::vector<attn::Shape>{{3, 3}, {3, 3}});
    CHECK(scores.shape == attn::Shape{3, 3});
    CHECK(scores.matrix == &t.heads[0].scores);
    CHECK(scores.row_labels.size() == 3);
    CHECK(scores.row_labels[2] == "x3");
    CHECK(steps[5].operands == std::vector<attn::Shape>{{3, 4}, {4, 3}});
    CHECK(steps[2].row_labels[0] == "d0");
    CHECK(steps[2].col_labels[2] == "q2");

    const auto causal = attn::explain(integer_input(), integer_config(attn::MaskKind::causal));
    const auto masked_steps = attn::teaching_steps(causal);
    REQUIRE(masked_steps.size() == 14);
    CHECK(masked_steps[10].id == "mask");
    CHECK(masked_steps[10].number == "7a");
    CHECK(masked_steps[10].kind == attn::StepKind::mask);
    CHECK(masked_steps[11].id == "masked_scores");
    CHECK(masked_steps[12].id == "weights");
    CHECK(masked_steps[12].number == "8");
    CHECK(masked_steps[13].number == "9");
}

TEST_CASE("products that overflow to infinity are an input error, never output", "[attention]") {
    auto in = integer_input();
    in.x(0, 0) = 1e200;
    in.x(0, 2) = 1e200;
    try {
        (void)attn::explain(in, integer_config());
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK_THAT(e.what(), Catch::Contains("[x1, x1] overflows to infinity") &&
                                 Catch::Contains("as large as 1e+200"));
    }
}

TEST_CASE("the memory estimate counts every matrix, and the limit refuses before computing",
          "[attention][memory]") {
    attn::Config c;  // d_model 5, d_k = d_v = 3, one head
    c.d_model = 5;
    c.d_k = 3;
    c.d_v = 3;
    c.n_heads = 1;
    // By hand, in doubles: X, P, X+P 3·3·5 = 45; W_Q, W_K, W_V and their head slices
    // 2·5·(3+3+3) = 90 and W_O 3·5 = 15; per head Q, K, V, Z 3·12 = 36 and six 3×3 steps
    // 54; concat 9 and output 15: 264 doubles.
    CHECK(attn::estimate_bytes(c, 3) == 264 * 8);
    // The T×T steps make it grow with the square of the sentence.
    CHECK(attn::estimate_bytes(c, 2000) > 3 * attn::estimate_bytes(c, 1000));
    // Absurd sizes saturate rather than wrap around.
    c.d_model = std::numeric_limits<std::size_t>::max() / 2;
    CHECK(attn::estimate_bytes(c, 3) == std::numeric_limits<std::size_t>::max());
    c.d_model = 5;
    using attn::MemoryBudget;
    CHECK_NOTHROW(attn::check_memory(c, 3, MemoryBudget{.limit = 264 * 8, .held = 0}));
    try {
        attn::check_memory(c, 3, MemoryBudget{.limit = 264 * 8 - 1, .held = 0});
        FAIL("expected an error");
    } catch (const attn::Error& e) {
        CHECK(e.kind() == attn::ErrorKind::usage);
        CHECK(e.field() == attn::Field::max_memory);
        CHECK_THAT(attn::cli::message_of(e),
                   Catch::Contains("needs about 2112 bytes") &&
                       Catch::Contains("more than --max-memory 2111 bytes allows\n") &&
                       Catch::Contains("(--max-memory 1M)"));
    }
    // One budget for the run: what the process holds already counts. 100 bytes held leave
    // 2112 - 100 for the matrices, too few; the message says so and asks for the sum.
    CHECK_NOTHROW(attn::check_memory(c, 3, MemoryBudget{.limit = 264 * 8 + 100, .held = 100}));
    try {
        attn::check_memory(c, 3, MemoryBudget{.limit = 264 * 8, .held = 100});
        FAIL("expected an error");
    } catch (const attn::Error& e) {
        CHECK_THAT(attn::cli::message_of(e),
                   Catch::Contains("needs about 2112 bytes for its matrices (3 tokens, d_model 5, "
                                   "1 head), more than --max-memory 2112 bytes allows besides the "
                                   "100 bytes attn holds already"));
    }
    // A budget that holds more than its limit leaves nothing.
    CHECK(MemoryBudget{.limit = 10, .held = 20}.left() == 0);
    CHECK(MemoryBudget{.limit = 30, .held = 20}.left() == 10);
}

TEST_CASE(
    "attn check: a cell holding its mirror cell's value is named only when the two "
    "differ by more than twice the tolerance",
    "[check]") {
    const auto t = attn::explain(integer_input(), integer_config());
    const attn::Step& weights = *attn::find_step(t, "weights");
    // the weights of the integer example: row 0 and column 0 differ (softmax over each row)
    const double right = weights.value(0, 1);
    const double mirror = weights.value(1, 0);
    const double gap = std::abs(right - mirror);
    REQUIRE(gap > 0.01);
    attn::AnswerSheet sheet;
    sheet.path = "answers.json";
    sheet.step_ids = {"weights"};
    std::vector<std::vector<attn::Answer>> cells(3, std::vector<attn::Answer>(3));
    for (std::size_t r = 0; r < 3; ++r) {
        for (std::size_t c = 0; c < 3; ++c) {
            cells[r][c] = {attn::Answer::Kind::number, weights.value(r, c)};
        }
    }
    cells[0][1].value = mirror;  // the student wrote the mirror cell's value
    sheet.answers = {cells};
    const auto verdict = [&](double tolerance) {
        const auto v = attn::check_answers(t, sheet, attn::Tolerance{tolerance, 0.0});
        REQUIRE(v.size() == 1);
        REQUIRE(v[0].wrong.size() == 1);  // the one cell, wrong at either tolerance
        return v[0];
    };
    // far apart against the tolerance: a swap is the likely reason
    CHECK(verdict(0.3 * gap).swapped_cells.size() == 1);
    // within twice the tolerance of each other: matching the mirror may be a coincidence
    CHECK(verdict(0.6 * gap).swapped_cells.empty());
}

TEST_CASE(
    "attn check: a whole number matching its mirror cell is named a swap when the mirror cell "
    "holds this cell's value too, else a possible one",
    "[check]") {
    const auto t = attn::explain(integer_input(), integer_config());
    const attn::Step& q = *attn::find_step(t, "Q");
    // Q of the integer example: Q[0, 1] = 0, its mirror Q[1, 0] = 2 (small whole numbers, as
    // in the by-hand exercises, where a wrong 2 matches some other cell by chance)
    REQUIRE(q.value(0, 1) == 0.0);
    REQUIRE(q.value(1, 0) == 2.0);
    attn::AnswerSheet sheet;
    sheet.path = "answers.json";
    sheet.step_ids = {"Q"};
    std::vector<std::vector<attn::Answer>> cells(3, std::vector<attn::Answer>(3));
    for (std::size_t r = 0; r < 3; ++r) {
        for (std::size_t c = 0; c < 3; ++c) {
            cells[r][c] = {attn::Answer::Kind::number, q.value(r, c)};
        }
    }
    const auto verdict = [&] {
        sheet.answers = {cells};
        const auto v = attn::check_answers(t, sheet, attn::Tolerance{0.01, 0.0});
        REQUIRE(v.size() == 1);
        return v[0];
    };
    cells[0][1].value = 2.0;  // the mirror's value, in one cell alone: maybe a slip, maybe chance
    CHECK(verdict().wrong.size() == 1);
    CHECK(verdict().swapped_cells.empty());
    CHECK(verdict().maybe_swapped_cells ==
          std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}});
    cells[1][0].value = 0.0;  // and the mirror holds this one's: the pair is swapped
    const auto both = verdict();
    CHECK(both.wrong.size() == 2);
    CHECK(both.swapped_cells == std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {1, 0}});
    CHECK(both.maybe_swapped_cells.empty());
    // a step that is not square has no mirror cells: a wrong cell is only wrong
    const attn::Step& w_q = *attn::find_step(t, "W_Q");
    REQUIRE(w_q.shape.rows == 4);
    REQUIRE(w_q.shape.cols == 3);
    std::vector<std::vector<attn::Answer>> tall(4, std::vector<attn::Answer>(3));
    for (std::size_t r = 0; r < 4; ++r) {
        for (std::size_t c = 0; c < 3; ++c) {
            tall[r][c] = {attn::Answer::Kind::number, w_q.value(r, c)};
        }
    }
    tall[3][0].value = 7.0;
    sheet.step_ids = {"W_Q"};
    sheet.answers = {tall};
    const auto v = attn::check_answers(t, sheet, attn::Tolerance{0.01, 0.0});
    REQUIRE(v.size() == 1);
    CHECK(v[0].wrong.size() == 1);
    CHECK(v[0].swapped_cells.empty());
}

TEST_CASE("check: --tolerance 0 is exact up to the rounding of doubles, no further", "[check]") {
    const attn::Tolerance exact{0.0, 0.0};
    // the answer key's exact -0.0401 beside attn's -0.0401 computed as a double
    CHECK(exact.allows(-0.0401, -0.040100000000000025));
    CHECK(exact.allows(1.5, 1.5));
    // one digit off in the fourth place is a mistake, however small
    CHECK_FALSE(exact.allows(-0.0402, -0.0401));
    CHECK_FALSE(exact.allows(1e-6, 2e-6));
    // a billionth of the value, and not an absolute amount: 0 is 0
    CHECK_FALSE(exact.allows(1e-300, 0.0));
    CHECK(exact.allows(1000.0000001, 1000.0));
    CHECK_FALSE(exact.allows(1000.00001, 1000.0));
    // the default and the relative tolerance are as before
    CHECK(attn::Tolerance{}.allows(0.54, 0.5));
    CHECK_FALSE(attn::Tolerance{}.allows(0.56, 0.5));
    CHECK(attn::Tolerance{0.0, 0.01}.allows(101.0, 100.0));
}
