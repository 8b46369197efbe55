#include <unistd.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "attn/io/model_file.hpp"
#include "attn/render/render.hpp"
#include "notation.hpp"
#include "plan.hpp"

using attn::Matrix;

namespace {

const std::string torch_dir = ATTN_SOURCE_DIR "/tests/reference/torch/";

Matrix to_matrix(const nlohmann::json& rows) {
    Matrix m(rows.size(), rows.at(0).size());
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            m(r, c) = rows[r][c].get<double>();
        }
    }
    return m;
}

double max_difference(const Matrix& a, const Matrix& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
    }
    return worst;
}

attn::Trace load(const std::string& path) {
    attn::InputSpec spec;
    spec.model_path = path;
    const auto loaded = attn::load_input(spec);
    return attn::explain(loaded.input, loaded.config);
}

}  // namespace

TEST_CASE("multi-head attention matches PyTorch's nn.MultiheadAttention to 1e-12",
          "[multihead][reference]") {
    std::ifstream in(torch_dir + "expected.json");
    REQUIRE(in.good());
    const auto expected = nlohmann::json::parse(in);
    REQUIRE(expected.size() == 6);
    for (const auto& [name, e] : expected.items()) {
        SECTION(name) {
            const auto t = load(torch_dir + name + ".json");
            CHECK(t.projected);
            CHECK(t.heads.size() == e.at("weights").size());
            CHECK(max_difference(t.output, to_matrix(e.at("output"))) < 1e-12);
            for (std::size_t h = 0; h < t.heads.size(); ++h) {
                INFO("head " << h + 1);
                CHECK(max_difference(t.heads[h].attention, to_matrix(e.at("weights")[h])) < 1e-12);
            }
            CHECK(t.weights_source.layout ==
                  (name == "two_heads_attn_layout" ? "attn" : "pytorch"));
        }
    }
}

TEST_CASE("multi-head invariants", "[multihead]") {
    attn::Config c;
    c.n_heads = 3;
    c.d_model = 9;
    c.d_k = 3;
    c.d_v = 3;
    c.mask = attn::MaskKind::causal;
    const auto t = attn::explain(attn::seeded_input("The cat sat on the mat", c), c);
    REQUIRE(t.heads.size() == 3);
    CHECK(t.projected);
    CHECK(t.concat.cols() == c.d_model);  // concatenation width is d_model here
    CHECK(t.output.cols() == c.d_model);
    for (const auto& head : t.heads) {
        for (double sum : attn::row_sums(head.attention)) {
            CHECK(sum == Approx(1.0).epsilon(1e-14));
        }
        for (std::size_t i = 0; i < 6; ++i) {
            for (std::size_t j = i + 1; j < 6; ++j) {
                CHECK(head.attention(i, j) == 0.0);
            }
        }
        // each head's slice is its own block of columns
        CHECK(head.w_q(2, 1) == t.w_q(2, head.k_begin + 1));
        // the concatenation holds the heads' outputs side by side
        CHECK(t.concat(4, head.v_begin + 2) == head.output(4, 2));
    }
    CHECK(max_difference(t.output, attn::matmul(t.concat, t.w_o)) == 0.0);
}

TEST_CASE("one head with W_O = I is plain single-head attention", "[multihead]") {
    attn::Config c;
    auto in = attn::seeded_input("This is book", c);
    const auto plain = attn::explain(in, c);
    CHECK_FALSE(plain.projected);
    // W_O must be (H·d_v) × d_model = 3 × 5; with d_v = 3 and d_model = 5 use d_model = 3
    c.d_model = 3;
    in = attn::seeded_input("This is book", c);
    const auto single = attn::explain(in, c);
    in.weights.w_o = Matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const auto projected = attn::explain(in, c);
    CHECK(projected.projected);
    CHECK(projected.output == single.output);
    CHECK(projected.heads[0].attention == single.heads[0].attention);
}

TEST_CASE("multi-head steps: shared, per head, then concatenation and W_O", "[multihead]") {
    attn::Config c;
    c.n_heads = 2;
    c.d_model = 4;
    c.d_k = 2;
    c.d_v = 2;
    const auto t = attn::explain(attn::seeded_input("a b c", c), c);
    std::vector<std::string> ids;
    for (const auto& s : attn::teaching_steps(t)) {
        ids.push_back(s.id);
        if (s.id == "head2.scores") {
            CHECK(s.head == 2);
            CHECK(s.number == "6");
            CHECK(attn::notation::formula(s.formula, attn::notation::Style::unicode) ==
                  "S_2 = Q_2 · K_2ᵀ");
        }
        if (s.id == "W_Q") {
            CHECK(s.col_breaks == std::vector<std::size_t>{2});
            CHECK(s.col_labels[2] == "2.q0");
        }
        if (s.id == "concat") {
            CHECK(attn::notation::formula(s.formula, attn::notation::Style::unicode) ==
                  "Z = [Z_1 | Z_2]");
            CHECK(s.joiner == attn::Joiner::concat);
        }
    }
    const std::vector<std::string> head1{
        "head1.W_Q", "head1.W_K",    "head1.W_V",           "head1.Q",       "head1.K",
        "head1.V",   "head1.scores", "head1.scaled_scores", "head1.weights", "head1.output"};
    CHECK(std::search(ids.begin(), ids.end(), head1.begin(), head1.end()) != ids.end());
    CHECK(ids.back() == "output");
    CHECK(ids[ids.size() - 2] == "W_O");
    CHECK(ids[ids.size() - 3] == "concat");
}

TEST_CASE("multi-head sizes: divisible d_model, W_O required, clear errors", "[multihead]") {
    attn::InputSpec spec;
    spec.sentence = "a b";
    spec.n_heads = 2;
    auto loaded = attn::load_input(spec);
    CHECK(loaded.config.d_model == 6);  // three columns per head by default
    CHECK(loaded.config.d_k == 3);
    CHECK(loaded.config.d_v == 3);
    CHECK(loaded.input.weights.w_o.rows() == 6);
    spec.d_model = 5;
    try {
        (void)attn::load_input(spec);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK_THAT(e.what(), Catch::Contains("d_model = 5 is not divisible by --heads 2") &&
                                 Catch::Contains("e.g. --d-model 6"));
    }
    // with the width of a head given (--d-k), d_model need not divide: W_Q is 5 × (2·3)
    spec.d_k = 3;
    loaded = attn::load_input(spec);
    CHECK(loaded.config.d_k == 3);
    CHECK(loaded.config.d_v == 3);
    CHECK(loaded.input.weights.w_q.cols() == 6);
    spec.d_k.reset();
    spec.d_model = 8;
    loaded = attn::load_input(spec);
    CHECK(loaded.config.d_k == 4);
    // a PyTorch file says how many heads it has; a conflicting --heads is an error
    attn::InputSpec file;
    file.model_path = torch_dir + "two_heads.json";
    file.n_heads = 3;
    try {
        (void)attn::load_input(file);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(),
                   Catch::Contains("--heads is 3, but") && Catch::Contains("says \"heads\": 2"));
    }
}

TEST_CASE("multi-head dumps replay exactly", "[multihead][dump]") {
    const auto t = load(torch_dir + "three_heads_causal.json");
    const std::string dump = attn::render_json(t);
    const auto path = (std::filesystem::temp_directory_path() /
                       ("attn-multihead-" + std::to_string(::getpid()) + ".json"))
                          .string();
    std::ofstream(path) << dump;
    const auto replayed = attn::read_dump(path);
    std::remove(path.c_str());
    const auto again = attn::explain(replayed.input, replayed.config);
    CHECK(attn::render_json(again) == dump);
    attn::TextStyle style;
    CHECK(attn::render_text(again, style) == attn::render_text(t, style));
}

TEST_CASE("sinusoidal positions, by hand", "[positions]") {
    const auto p = attn::sinusoidal_positions(3, 4);
    // position 0: sin(0) = 0 and cos(0) = 1 in every pair of columns
    CHECK(p(0, 0) == 0.0);
    CHECK(p(0, 1) == 1.0);
    CHECK(p(0, 3) == 1.0);
    // position 1: frequency 1 in columns 0 and 1, 1/10000^(2/4) = 0.01 in columns 2 and 3
    CHECK(p(1, 0) == Approx(std::sin(1.0)));
    CHECK(p(1, 1) == Approx(std::cos(1.0)));
    CHECK(p(1, 2) == Approx(std::sin(0.01)));
    CHECK(p(2, 3) == Approx(std::cos(0.02)));
}

TEST_CASE("with positions the repeated 'the' gets two different outputs", "[positions]") {
    attn::Config c;
    c.tokenizer.lowercase = true;
    const auto plain = attn::explain(attn::seeded_input("The cat sat on the mat", c), c);
    CHECK(plain.identical_outputs == std::vector<std::vector<std::size_t>>{{0, 4}});
    c.positions = attn::PositionKind::sinusoidal;
    const auto t = attn::explain(attn::seeded_input("The cat sat on the mat", c), c);
    CHECK(t.identical_embeddings == std::vector<std::vector<std::size_t>>{{0, 4}});
    CHECK(t.identical_inputs.empty());
    CHECK(t.identical_outputs.empty());
    CHECK(t.x_in(1, 0) == t.x(1, 0) + std::sin(1.0));
    bool says_why = false;
    for (const auto& s : attn::teaching_steps(t)) {
        if (s.id == "output") {
            attn::TextStyle style;
            style.steps = {"output"};
            says_why = attn::render_text(t, style).find(
                           "the positional encodings gave each copy its own row of X′") !=
                       std::string::npos;
        }
    }
    CHECK(says_why);
}

TEST_CASE("padding: zero vectors that no token attends to", "[masks]") {
    attn::InputSpec spec;
    spec.sentence = "This is book";
    spec.pad_to = 5;
    spec.mask = attn::MaskKind::causal;
    const auto loaded = attn::load_input(spec);
    CHECK(loaded.config.n_pad == 2);
    CHECK(loaded.input.tokens.back() == "<pad>");
    const auto t = attn::explain(loaded.input, loaded.config);
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(t.x(3, 0) == 0.0);
        CHECK(t.heads[0].attention(i, 3) == 0.0);
        CHECK(t.heads[0].attention(i, 4) == 0.0);
        // the real tokens still follow the causal mask
        if (i < 3) {
            for (std::size_t j = i + 1; j < 5; ++j) {
                CHECK(t.heads[0].attention(i, j) == 0.0);
            }
        }
    }
    CHECK(attn::trace_warnings(t).empty());
}

TEST_CASE("a mask file, and a row with every key masked", "[masks]") {
    attn::InputSpec spec;
    spec.sentence = "This is book";
    spec.mask_path = ATTN_SOURCE_DIR "/tests/inputs/good/mask-row-blocked.json";
    const auto loaded = attn::load_input(spec);
    CHECK(loaded.config.mask == attn::MaskKind::file);
    const auto t = attn::explain(loaded.input, loaded.config);
    CHECK(t.heads[0].empty_rows == std::vector<std::size_t>{1});
    CHECK(t.output(1, 0) == 0.0);
    CHECK(t.heads[0].attention(0, 0) == 1.0);
    const auto warnings = attn::trace_warnings(t);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("token 1 ('is') may attend to no token") &&
                                Catch::Contains("PyTorch's nn.MultiheadAttention gives NaN"));
    CHECK_THROWS_AS(attn::read_mask(ATTN_SOURCE_DIR "/tests/inputs/bad/mask-not-square.json"),
                    attn::Error);
}

TEST_CASE("no-scale: unscaled scores saturate softmax more than scaled ones", "[no-scale]") {
    attn::Config c;
    c.d_k = 64;
    c.scale_by = attn::ScaleBy::none;
    const auto t = attn::explain(attn::seeded_input("This is a book about attention", c), c);
    const auto& h = t.heads[0];
    CHECK(h.scaled_scores == h.scores);  // not divided
    REQUIRE(h.max_weight.size() == 6);
    double mean = 0.0;
    double mean_scaled = 0.0;
    for (std::size_t r = 0; r < 6; ++r) {
        mean += h.max_weight[r];
        mean_scaled += h.scaled_max_weight[r];
        CHECK(h.entropy[r] >= 0.0);
        CHECK(h.entropy[r] <= std::log(6.0) + 1e-12);
    }
    CHECK(mean > mean_scaled);
    c.scale_by = attn::ScaleBy::d_k;
    const auto scaled = attn::explain(attn::seeded_input("This is a book about attention", c), c);
    CHECK(scaled.heads[0].max_weight.empty());
    // the weights scaling would have given are the ones a scaled run gives
    for (std::size_t r = 0; r < 6; ++r) {
        const auto row = scaled.heads[0].attention.row(r);
        CHECK(h.scaled_max_weight[r] == Approx(*std::max_element(row.begin(), row.end())));
    }
}
