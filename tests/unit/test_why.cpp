#include <catch2/catch.hpp>
#include <cmath>

#include "attn/core/attention.hpp"
#include "attn/core/backward.hpp"
#include "attn/core/cell.hpp"
#include "attn/core/error.hpp"
#include "attn/render/render.hpp"
#include "examples.hpp"

using attn::Matrix;

namespace {

// The 3×4 integer example: Q = [[1,0,2],[2,2,2],[2,1,3]], K = [[0,1,1],[4,4,0],[2,3,1]],
// V = [[1,2,3],[2,8,0],[2,6,3]], scores [[2,4,4],[4,16,12],[4,12,10]].
attn::Trace integer(attn::MaskKind mask = attn::MaskKind::none) {
    return attn::explain(attn_test::integer_input(), attn_test::integer_config(mask));
}

std::string why(const attn::Trace& t, const std::string& cell) {
    attn::TextStyle style;
    style.precision = 4;
    style.width = 100;
    return attn::render_why(t, attn::parse_cell(cell, t), style);
}

std::string error_of(const attn::Trace& t, const std::string& cell) {
    try {
        (void)attn::parse_cell(cell, t);
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 2);
        return e.what();
    }
    FAIL("no error for " << cell);
    return {};
}

}  // namespace

TEST_CASE("cell names: labels, indices, heads", "[why]") {
    const auto t = integer();
    const auto c = attn::parse_cell("scores[x2,x3]", t);
    CHECK(c.step_id == "scores");
    CHECK(c.row == 1);
    CHECK(c.col == 2);
    const auto d = attn::parse_cell(" weights[ 2 , 0 ] ", t);
    CHECK(d.step_id == "weights");
    CHECK(d.row == 2);
    CHECK(d.col == 0);
    CHECK(attn::parse_cell("Q[x1,q2]", t).col == 2);
    CHECK(attn::parse_cell("output[x3,z1]", t).col == 1);

    attn::Config two;
    two.n_heads = 2;
    two.d_model = 4;
    two.d_k = 2;
    two.d_v = 2;
    const auto m = attn::explain(attn::seeded_input("a b c", two), two);
    const auto h = attn::parse_cell("head2.weights[b,c]", m);
    CHECK(h.step_id == "head2.weights");
    CHECK(h.row == 1);
}

TEST_CASE("bad cell names list what is valid", "[why]") {
    const auto t = integer();
    CHECK_THAT(error_of(t, "score[x1,x2]"), Catch::Contains("no matrix 'score' (did you mean "
                                                            "'scores'?)") &&
                                                Catch::Contains("e.g. scores[0,1]"));
    CHECK_THAT(error_of(t, "scores"), Catch::Contains("is not a cell name"));
    CHECK_THAT(
        error_of(t, "scores[x1,x9]"),
        Catch::Contains("no column 'x9' (did you mean 'x1'?), expected an index from 0 to 2 or "
                        "one of: x1, x2, x3"));
    CHECK_THAT(error_of(t, "scores[x1,book]"),
               Catch::Contains("no column 'book', expected") && !Catch::Contains("did you mean"));
    CHECK_THAT(error_of(t, "scores[7,x1]"), Catch::Contains("row 7 is out of range"));
    attn::Config c;
    const auto repeated = attn::explain(attn::seeded_input("the cat the", c), c);
    CHECK_THAT(error_of(repeated, "scores[the,cat]"),
               Catch::Contains("'the' is ambiguous: rows 0 and 2 are all 'the'") &&
                   Catch::Contains("e.g. 0 or 'the#0' instead of 'the'"));
    CHECK(attn::parse_cell("scores[2,cat]", repeated).row == 2);
}

TEST_CASE("why: every kind of cell, term by term, by hand", "[why]") {
    const auto t = integer();
    // q_x2 = [2, 2, 2], k_x3 = [2, 3, 1]: 2·2 + 2·3 + 2·1 = 12
    CHECK_THAT(why(t, "scores[x2,x3]"), Catch::Contains("S[x2, x3] = q_x2 · k_x3") &&
                                            Catch::Contains("= 2·2 + 2·3 + 2·1\n  = 12\n"));
    // 12 / √3 = 6.9282, but 12 / 1.7321 = 6.9280: √3 is shown with the decimals that give
    // the quotient as shown
    CHECK_THAT(why(t, "scaled_scores[x2,x3]"),
               Catch::Contains("S′[x2, x3] = S[x2, x3] / √d_k = 12 / 1.73205 = 6.9282"));
    // row x1 of X = [1, 0, 1, 0], column q0 of W_Q = [1, 1, 0, 0]: 1
    CHECK_THAT(why(t, "Q[x1,q0]"),
               Catch::Contains("= 1·1 + 0·1 + 1·0 + 0·0") && Catch::Contains("= 1\n"));
    // softmax of [2, 4, 4]/√3: the max is 4/√3 = 2.3094
    CHECK_THAT(why(t, "weights[x1,x2]"),
               Catch::Contains("max = 2.3094") &&
                   Catch::Contains("e^(1.1547 − 2.3094) = 0.3152 [x1]") &&
                   Catch::Contains("Σ = 2.3152, so A[x1, x2] = 1 / 2.3152 = 0.4319"));
    // Z[x1, z0] = 1.8639, but 0.1361·1 + 0.4319·2 + 0.4319·2 = 1.8637: the weights are shown
    // with five decimals, which add up to the value shown
    CHECK_THAT(
        why(t, "output[x1,z0]"),
        Catch::Contains("= 0.13613·1 [x1] + 0.43194·2 [x2] + 0.43194·2 [x3]\n  = 1.8639\n") &&
            Catch::Contains("column v0 of V"));
    CHECK_THAT(why(t, "W_Q[0,0]"), Catch::Contains("is an input of the walk-through"));

    const auto causal = integer(attn::MaskKind::causal);
    CHECK_THAT(why(causal, "masked_scores[x1,x3]"),
               Catch::Contains("M[x1, x3] = 0: 'x1' may not attend to 'x3' (the causal mask: it "
                               "comes later in the sentence)"));
    CHECK_THAT(why(causal, "masked_scores[x3,x1]"), Catch::Contains("passes unchanged"));
    CHECK_THAT(why(causal, "weights[x1,x2]"), Catch::Contains("e^−∞ = 0 [x2]"));
}

TEST_CASE("why: ASCII mode writes only ASCII", "[why]") {
    const auto t = integer(attn::MaskKind::causal);
    attn::TextStyle style;
    style.unicode = false;
    for (const char* cell : {"weights[x3,x1]", "masked_scores[x1,x2]", "scaled_scores[x1,x1]"}) {
        const auto text = attn::render_why(t, attn::parse_cell(cell, t), style);
        for (char ch : text) {
            REQUIRE(static_cast<unsigned char>(ch) < 0x80);
        }
    }
}

TEST_CASE("hand arithmetic: floor(x/2) and 3^x on the integer example", "[why][hand]") {
    const auto c = attn_test::integer_config(attn::MaskKind::none, attn::Arith::hand);
    const auto in = attn_test::integer_input();
    const auto t = attn::explain(in, c);
    const auto& h = t.heads[0];
    CHECK(h.scaled_scores == Matrix{{1, 2, 2}, {2, 8, 6}, {2, 6, 5}});
    CHECK(h.attention(0, 0) == Approx(1.0 / 7.0).epsilon(1e-15));
    CHECK(h.attention(0, 1) == Approx(3.0 / 7.0).epsilon(1e-15));
    CHECK(h.attention(0, 2) == Approx(3.0 / 7.0).epsilon(1e-15));
    // the exact first row is [0.136126, 0.431937, 0.431937]: 1/7 is 0.0067 away
    CHECK(h.hand_difference >= 0.0067);
    CHECK(h.hand_difference < 0.02);
    attn::TextStyle style;
    style.steps = {"weights"};
    CHECK_THAT(attn::render_text(t, style), Catch::Contains("'x1': 1/7, 3/7, 3/7"));
    CHECK_THAT(why(t, "scaled_scores[x2,x3]"), Catch::Contains("⌊S[x2, x3] / 2⌋ = ⌊12 / 2⌋ = 6"));
    CHECK_THAT(why(t, "weights[x1,x2]"), Catch::Contains("3^(1 − 2) = 0.3333 [x1]"));
}

TEST_CASE("hand arithmetic: seeded numbers are small whole numbers", "[hand]") {
    attn::Config c;
    c.arith = attn::Arith::hand;
    const auto in = attn::seeded_input("The cat sat on the mat", c);
    for (double x : in.x.data()) {
        CHECK(x == std::round(x));
        CHECK(std::abs(x) <= 2.0);
    }
    for (double w : in.weights.w_q.data()) {
        CHECK(w == std::round(w));
        CHECK(std::abs(w) <= 1.0);
    }
    const auto t = attn::explain(in, c);
    for (double s : t.heads[0].scaled_scores.data()) {
        CHECK(s == std::round(s));
    }
}

TEST_CASE("cell names: a gradient by the name its header shows, the loss without [0,0]", "[why]") {
    // each name and the step id it must name, in a run of `heads` heads
    const auto check = [](std::size_t heads,
                          std::initializer_list<std::pair<const char*, const char*>> names) {
        attn::Config c;
        c.d_model = 4;
        c.d_k = 2;
        c.d_v = 2;
        c.n_heads = heads;
        const std::size_t cols = heads > 1 ? 4 : 2;  // d_model with W_O, else d_v
        const attn::Trace t = attn::with_backward(attn::explain(attn::seeded_input("a b c", c), c),
                                                  Matrix(3, cols, 0.5), "t.json", std::nullopt);
        for (const auto& [name, id] : names) {
            INFO(name);
            CHECK(attn::parse_cell(name, t).step_id == id);
        }
        return t;
    };
    const attn::Trace t = check(1, {{"dW_Q[2,1]", "grad.W_Q"},
                                    {"dS′[a,b]", "grad.scaled_scores"},
                                    {"dS'[a,b]", "grad.scaled_scores"},
                                    {"dS[a,b]", "grad.scores"},
                                    {"dX[0,0]", "grad.X"},
                                    {"dZ[0,0]", "grad.output"},
                                    {" loss ", "loss"},
                                    {"L", "loss"},
                                    {"L[0,0]", "loss"}});
    const auto loss = attn::parse_cell("loss", t);
    CHECK((loss.row == 0 && loss.col == 0));
    // a matrix of more than one cell still needs its [ROW,COL]
    CHECK_THAT(error_of(t, "dW_Q"), Catch::Contains("is not a cell name"));
    // the error lists the names the headers show
    CHECK_THAT(error_of(t, "dW_X[0,0]"),
               Catch::Contains("grad.W_Q (dW_Q)") && Catch::Contains("grad.scaled_scores (dS′)"));
    (void)check(2, {{"head2.dW_Q[0,0]", "head2.grad.W_Q"},
                    {"dW_Q_2[0,0]", "head2.grad.W_Q"},
                    {"dW_Q[0,0]", "grad.W_Q"},
                    {"dW_O[0,0]", "grad.W_O"}});
}
