// What-if and attn diff: the comparison of two runs, checked on cases small enough to work by
// hand (two tokens, d_k = d_v = 1, Q, K and V given).
#include <catch2/catch.hpp>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/whatif.hpp"
#include "attn/render/render.hpp"

using attn::Matrix;

namespace {

// Two tokens with Q, K and V given: Q = [1, 0], K = [0, 0], V = [1, 3]. Every score is 0, so
// each token gives both weight 0.5 and Z = [2, 2].
attn::Loaded hand_run() {
    attn::Loaded out;
    attn::Config& c = out.config;
    c.d_model = 1;
    c.d_k = 1;
    c.d_v = 1;
    attn::Input& in = out.input;
    in.sentence = "a b";
    in.tokens = {"a", "b"};
    in.tokens_named = true;
    in.qkv = attn::GivenQkv{Matrix{{1}, {0}}, Matrix{{0}, {0}}, Matrix{{1}, {3}}, "by hand"};
    return out;
}

// The run of `loaded` with the settings made, compared with the run before them.
attn::Trace what_if(const attn::Loaded& loaded, const std::vector<std::string>& settings) {
    const attn::Trace before = attn::explain(loaded.input, loaded.config);
    std::vector<attn::Change> changes;
    for (const auto& s : settings) {
        changes = attn::merge_changes(changes, {attn::parse_setting(s, before).change});
    }
    const attn::Loaded after = attn::with_changes(loaded, before, changes);
    attn::Trace trace = attn::explain(after.input, after.config);
    trace.comparison = attn::compare(before, trace, changes);
    return trace;
}

std::vector<std::string> ids_of(const std::vector<attn::Hop>& path) {
    std::vector<std::string> out;
    for (const auto& hop : path) {
        out.push_back(hop.id);
    }
    return out;
}

}  // namespace

TEST_CASE("what-if: a row of V changes the output through V alone", "[whatif]") {
    // V[b] from 3 to 5: Z = 0.5·1 + 0.5·5 = 3 in both rows (was 2); no weight moves
    const attn::Trace t = what_if(hand_run(), {"V[1,0]=5"});
    const attn::Comparison& cmp = *t.comparison;
    REQUIRE(cmp.changes.size() == 1);
    CHECK(cmp.changes[0].before == 3.0);
    CHECK(cmp.changes[0].after == 5.0);

    const attn::StepDelta* v = cmp.delta("V");
    REQUIRE(v != nullptr);
    CHECK(v->changed == 1);
    CHECK(v->cells == 2);
    CHECK(v->largest == 2.0);
    CHECK(v->row == 1);
    CHECK(v->full_rows == std::vector<std::size_t>{1});
    for (const char* same : {"Q", "K", "scores", "weights"}) {
        REQUIRE(cmp.delta(same) != nullptr);
        CHECK(cmp.delta(same)->changed == 0);
    }
    const attn::StepDelta* z = cmp.delta("output");
    REQUIRE(z != nullptr);
    CHECK(z->changed == 2);
    CHECK(z->largest == 1.0);
    CHECK(z->row == 0);  // ties go to the first cell

    CHECK(cmp.weights_changed == 0);
    CHECK(cmp.moved.empty());
    CHECK(cmp.focus.empty());
    REQUIRE(cmp.output_rows.size() == 2);
    CHECK(cmp.output_rows_total == 2);
    for (const auto& row : cmp.output_rows) {
        CHECK(row.distance == 1.0);
        CHECK(row.weights_moved == 0.0);
        // each row gives V[b] the weight 0.5
        REQUIRE(row.values_changed.size() == 1);
        CHECK(row.values_changed[0] == std::pair<std::size_t, double>{1, 0.5});
    }
    // V is an input here (given): the difference enters at Z
    REQUIRE(cmp.path.size() == 1);
    CHECK(cmp.path[0].id == "output");
    CHECK(cmp.path[0].from == std::vector<std::string>{"V"});

    const std::string words = attn::render_text(t, attn::TextStyle{});
    CHECK_THAT(words, Catch::Contains("The way the change went, from step to step: V → Z."));
    CHECK_THAT(words, Catch::Contains("No attention weight changed"));
    CHECK_THAT(words, !Catch::Contains("no value vector it gives weight to changed"));
}

TEST_CASE("what-if: a key moves the weights, the focus and one row of the output", "[whatif]") {
    // K[b] from 0 to ln 3: token a's scores are [0, ln 3] (its query is 1), softmax [1/4, 3/4];
    // token b's query is 0, so its scores stay 0 and its weights 1/2. Z[a] = 1/4 + 9/4 = 2.5
    const attn::Trace t =
        what_if(hand_run(), {"K[1,0]=1", fmt::format("K[1,0]={}", std::log(3.0))});
    const attn::Comparison& cmp = *t.comparison;
    // set twice: the value before is the first one's, after the last one's
    REQUIRE(cmp.changes.size() == 1);
    CHECK(cmp.changes[0].before == 0.0);
    CHECK(cmp.changes[0].after == std::log(3.0));

    const attn::StepDelta* s = cmp.delta("scores");
    REQUIRE(s != nullptr);
    CHECK(s->changed == 1);  // a's query against b's key; b's query is 0
    CHECK(s->row == 0);
    CHECK(s->col == 1);

    CHECK(cmp.weights_changed == 2);
    REQUIRE(cmp.moved.size() == 2);
    CHECK(cmp.moved[0].row == 0);
    CHECK(cmp.moved[0].col == 0);  // |−1/4| and |+1/4| tie: the first cell first
    CHECK(cmp.moved[0].before == 0.5);
    CHECK(cmp.moved[0].after == Approx(0.25).epsilon(1e-15));
    CHECK(cmp.moved[1].after == Approx(0.75).epsilon(1e-15));
    // a attended most to a (a tie, to the earlier key) and now to b
    REQUIRE(cmp.focus.size() == 1);
    CHECK(cmp.focus[0].row == 0);
    CHECK(cmp.focus[0].key_before == 0);
    CHECK(cmp.focus[0].key_after == 1);

    REQUIRE(cmp.output_rows.size() == 1);
    CHECK(cmp.output_rows[0].row == 0);
    CHECK(cmp.output_rows[0].distance == Approx(0.5).epsilon(1e-15));
    CHECK(cmp.output_rows[0].weights_moved == Approx(0.25).epsilon(1e-15));
    CHECK(cmp.output_rows[0].values_changed.empty());

    // the way it went: K → S, then each step from the one before, to Z
    const auto ids = ids_of(cmp.path);
    REQUIRE(ids.size() >= 3);
    CHECK(ids.front() == "scores");
    CHECK(cmp.path.front().from == std::vector<std::string>{"K"});
    CHECK(ids.back() == "output");
    CHECK(cmp.path.back().from == std::vector<std::string>{"weights"});
    for (std::size_t i = 1; i < cmp.path.size(); ++i) {
        CHECK(cmp.path[i].from == std::vector<std::string>{ids[i - 1]});
    }
}

TEST_CASE("attn diff: the inputs that differ, and runs that cannot be compared", "[whatif]") {
    attn::Loaded a = hand_run();
    attn::Loaded b = hand_run();
    b.input.qkv->q(1, 0) = 2.0;
    b.input.qkv->v(0, 0) = -1.0;
    const attn::Trace ta = attn::explain(a.input, a.config);
    const attn::Trace tb = attn::explain(b.input, b.config);
    CHECK(attn::incomparable(ta, tb).empty());
    const auto changes = attn::input_differences(ta, tb);
    REQUIRE(changes.size() == 2);  // in teaching order: Q, then V
    CHECK(changes[0].step_id == "Q");
    CHECK(changes[0].row == 1);
    CHECK(changes[0].before == 0.0);
    CHECK(changes[0].after == 2.0);
    CHECK(changes[1].step_id == "V");
    CHECK(changes[1].before == 1.0);
    CHECK(changes[1].after == -1.0);
    // the same run: nothing differs, nothing travels
    const auto same = attn::compare(ta, ta, attn::input_differences(ta, ta));
    CHECK(same->changes.empty());
    CHECK(same->path.empty());
    CHECK(same->output_rows.empty());

    attn::Loaded three = hand_run();
    three.input.tokens.emplace_back("c");
    three.input.qkv = attn::GivenQkv{Matrix{{1}, {0}, {0}}, Matrix{{0}, {0}, {0}},
                                     Matrix{{1}, {3}, {0}}, "by hand"};
    const attn::Trace t3 = attn::explain(three.input, three.config);
    CHECK(attn::incomparable(ta, t3) == std::vector<std::string>{"2 tokens against 3"});
}

TEST_CASE("what-if: a bad setting names what was found and what was expected", "[whatif]") {
    const attn::Loaded loaded = hand_run();
    const attn::Trace t = attn::explain(loaded.input, loaded.config);
    const auto error_of = [&t](const std::string& setting) -> std::string {
        try {
            (void)attn::parse_setting(setting, t);
        } catch (const attn::Error& e) {
            CHECK(e.exit_code() == 2);
            return e.what();
        }
        FAIL("no error for " << setting);
        return {};
    };
    CHECK_THAT(error_of("V[1,0]=inf"),
               Catch::Contains("'inf' is not finite, expected a finite number"));
    CHECK_THAT(error_of("V[1,0]=nan"),
               Catch::Contains("'nan' is not a number, expected a finite number"));
    CHECK_THAT(error_of("V[1,0]=x"), Catch::Contains("'x' is not a number"));
    CHECK_THAT(error_of("V[1,0]=1e400"), Catch::Contains("'1e400' is too large for a double"));
    CHECK_THAT(error_of("V[1,0]=-1e400"), Catch::Contains("is too large for a double"));
    CHECK_THAT(error_of("V[1,0]=1e-400"),
               Catch::Contains("'1e-400' is too close to 0 for a double"));
    CHECK_THAT(error_of("V[2,0]=1"), Catch::Contains("row 2 is out of range, expected 0 to 1"));
    CHECK_THAT(error_of("scores[0,0]=1"), Catch::Contains("computed by the walk-through"));
    // Q, K and V given: no embeddings to swap a token's with
    CHECK_THAT(error_of("tokens[0]=c"), Catch::Contains("tokens"));
}

TEST_CASE("what-if: a head's slice names its columns without the head's number", "[whatif]") {
    attn::Config c;
    c.n_heads = 2;
    const attn::Trace t = attn::explain(attn::seeded_input("This is book", c), c);
    // head2.W_Q[d0,q1] is column 2.q1 of the slice, column 4 of W_Q (head 2 starts at d_k = 3)
    const attn::Change short_name = attn::parse_setting("head2.W_Q[d0,q1]=0.5", t).change;
    const attn::Change full_name = attn::parse_setting("head2.W_Q[d0,2.q1]=0.5", t).change;
    CHECK(short_name.step_id == "W_Q");
    CHECK(short_name.col == c.d_k + 1);
    CHECK(short_name.col == full_name.col);
    CHECK(short_name.row == full_name.row);
    // in the whole W_Q, where 1.q1 and 2.q1 both end in q1, "q1" names no one column
    try {
        (void)attn::parse_setting("W_Q[d0,q1]=0.5", t);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("no column 'q1'") && Catch::Contains("1.q1, 1.q2"));
    }
}
