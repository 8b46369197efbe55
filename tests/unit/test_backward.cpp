// The backward pass against central finite differences: for every parameter kind (W_Q, W_K,
// W_V, W_O, every bias, the embeddings, the positions) with and without masks, several heads,
// biases and positions, every cell of the analytic gradient is compared with
// (L(p + h) − L(p − h)) / 2h.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>

#include "attn/core/attention.hpp"
#include "attn/core/backward.hpp"
#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/random.hpp"

using attn::Backward;
using attn::Config;
using attn::Input;
using attn::Matrix;

namespace {

struct Case {
    std::string name;
    std::size_t heads = 1;
    attn::MaskKind mask = attn::MaskKind::none;
    bool biases = false;
    bool positions = false;
    attn::ScaleBy scale_by = attn::ScaleBy::d_k;
    std::size_t pad = 0;
};

// A matrix of small numbers that vary cell by cell, from the seed: not rounded, so that no
// two cells are equal by accident.
Matrix filled(std::size_t rows, std::size_t cols, double seed) {
    Matrix m(rows, cols);
    for (std::size_t i = 0; i < m.size(); ++i) {
        m.data()[i] = 0.6 * std::sin(seed * 1.7 + static_cast<double>(i) * 0.93) +
                      0.1 * std::cos(static_cast<double>(i * i) * 0.37 + seed);
    }
    return m;
}

struct Setup {
    Config config;
    Input input;
    Matrix target;
};

Setup setup(const Case& c) {
    Setup s;
    s.config.d_model = 4;
    s.config.n_heads = c.heads;
    s.config.d_k = 3;
    s.config.d_v = c.heads > 1 ? 2 : 3;
    s.config.mask = c.mask;
    s.config.scale_by = c.scale_by;
    s.config.n_pad = c.pad;
    s.config.positions = c.positions ? attn::PositionKind::sinusoidal : attn::PositionKind::none;
    s.input = attn::seeded_input("the cat saw the dog", s.config);
    // not rounded, so that a difference quotient is not a lucky tie
    s.input.x = filled(s.input.x.rows(), s.input.x.cols(), 1.0);
    auto& w = s.input.weights;
    w.w_q = filled(w.w_q.rows(), w.w_q.cols(), 2.0);
    w.w_k = filled(w.w_k.rows(), w.w_k.cols(), 3.0);
    w.w_v = filled(w.w_v.rows(), w.w_v.cols(), 4.0);
    if (c.heads > 1) {
        w.w_o = filled(w.w_o.rows(), w.w_o.cols(), 5.0);
    }
    if (c.biases) {
        w.b_q = filled(1, w.w_q.cols(), 6.0);
        w.b_k = filled(1, w.w_k.cols(), 7.0);
        w.b_v = filled(1, w.w_v.cols(), 8.0);
        if (c.heads > 1) {
            w.b_o = filled(1, w.w_o.cols(), 9.0);
        }
    }
    const std::size_t out_cols = c.heads > 1 ? s.config.d_model : s.config.d_v;
    s.target = filled(s.input.tokens.size(), out_cols, 10.0);
    return s;
}

double loss_of(const Setup& s) {
    const auto trace = attn::explain(s.input, s.config);
    return attn::mse_loss(trace.output, s.target);
}

// (L(p + h) − L(p − h)) / 2h for every cell of `parameter`, a member of `s` changed in place
// and restored.
Matrix numeric_gradient(const Setup& s, Matrix& parameter) {
    constexpr double h = 1e-5;
    Matrix out(parameter.rows(), parameter.cols());
    for (std::size_t i = 0; i < parameter.size(); ++i) {
        const double saved = parameter.data()[i];
        parameter.data()[i] = saved + h;
        const double up = loss_of(s);
        parameter.data()[i] = saved - h;
        const double down = loss_of(s);
        parameter.data()[i] = saved;
        out.data()[i] = (up - down) / (2 * h);
    }
    return out;
}

double max_abs(const Matrix& m) {
    double out = 0.0;
    for (double x : m.data()) {
        out = std::max(out, std::abs(x));
    }
    return out;
}

// The largest difference between the analytic gradient and the central difference, relative
// to the largest analytic entry (so that a gradient of 1e-9 next to one of 1 does not decide).
// `parameter` is a member of `s`, changed in place and restored.
double relative_error(const Setup& s, Matrix& parameter, const Matrix& analytic) {
    REQUIRE(parameter.rows() == analytic.rows());
    REQUIRE(parameter.cols() == analytic.cols());
    const Matrix numeric = numeric_gradient(s, parameter);
    double worst = 0.0;
    double scale = 0.0;
    for (std::size_t i = 0; i < parameter.size(); ++i) {
        worst = std::max(worst, std::abs(numeric.data()[i] - analytic.data()[i]));
        scale = std::max(scale, std::abs(analytic.data()[i]));
    }
    REQUIRE(scale > 1e-6);  // a gradient of zeros would prove nothing
    return worst / scale;
}

}  // namespace

TEST_CASE("backward: every gradient matches central finite differences", "[backward]") {
    const std::vector<Case> cases{
        {"one head", 1},
        {"causal mask", 1, attn::MaskKind::causal},
        {"biases", 1, attn::MaskKind::none, true},
        {"positions", 1, attn::MaskKind::none, false, true},
        {"no scaling", 1, attn::MaskKind::none, false, false, attn::ScaleBy::none},
        {"scaled by d_model", 1, attn::MaskKind::none, false, false, attn::ScaleBy::d_model},
        {"padding", 1, attn::MaskKind::causal, false, false, attn::ScaleBy::d_k, 2},
        {"two heads", 2},
        {"two heads, causal, biases, positions", 2, attn::MaskKind::causal, true, true},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            Setup s = setup(c);
            const auto trace = attn::explain(s.input, s.config);
            const Backward b = attn::backward(trace, s.target, "target.json", std::nullopt);
            CHECK(b.loss(0, 0) == Approx(attn::mse_loss(trace.output, s.target)));
            auto& w = s.input.weights;
            CHECK(relative_error(s, w.w_q, b.d_w_q) <= 1e-6);
            CHECK(relative_error(s, w.w_k, b.d_w_k) <= 1e-6);
            CHECK(relative_error(s, w.w_v, b.d_w_v) <= 1e-6);
            if (c.heads > 1) {
                CHECK(relative_error(s, w.w_o, b.d_w_o) <= 1e-6);
            }
            if (c.biases) {
                CHECK(relative_error(s, w.b_q, b.d_b_q) <= 1e-6);
                // b_K adds q_i·b_K to every score of row i alike, and softmax ignores a shift
                // of a whole row: its gradient is 0, up to rounding, and so is the difference
                CHECK(max_abs(b.d_b_k) <= 1e-12);
                CHECK(max_abs(numeric_gradient(s, w.b_k)) <= 1e-9);
                CHECK(relative_error(s, w.b_v, b.d_b_v) <= 1e-6);
                if (c.heads > 1) {
                    CHECK(relative_error(s, w.b_o, b.d_b_o) <= 1e-6);
                }
            }
            if (c.pad == 0) {  // <pad> rows of X are zeros by design, and still have a gradient
                CHECK(relative_error(s, s.input.x, b.d_x) <= 1e-6);
            }
            if (c.positions) {  // X′ = X + P: the positions get the same gradient
                CHECK(relative_error(s, s.input.positions, b.d_x) <= 1e-6);
            }
        }
    }
}

TEST_CASE("backward: masked cells and fully masked rows get exactly zero", "[backward]") {
    Setup s = setup({"padding", 1, attn::MaskKind::causal, false, false, attn::ScaleBy::d_k, 2});
    const auto trace = attn::explain(s.input, s.config);
    const Backward b = attn::backward(trace, s.target, "target.json", std::nullopt);
    const auto& g = b.heads.front();
    for (std::size_t i = 0; i < trace.mask->rows(); ++i) {
        double row_sum = 0.0;
        for (std::size_t j = 0; j < trace.mask->cols(); ++j) {
            if (!trace.mask->allowed(i, j)) {
                CHECK(g.d_scaled(i, j) == 0.0);
                CHECK(g.d_scores(i, j) == 0.0);
            }
            row_sum += g.d_scaled(i, j);
        }
        CHECK(std::abs(row_sum) < 1e-12);  // softmax's gradient sums to 0 along a row
    }
}

TEST_CASE("backward: the update lowers the loss for a small learning rate", "[backward]") {
    Setup s = setup({"one head", 1});
    const auto trace = attn::explain(s.input, s.config);
    const Backward b = attn::backward(trace, s.target, "target.json", 0.01);
    CHECK(b.loss_after < b.loss(0, 0));
    for (std::size_t i = 0; i < b.updated.w_q.size(); ++i) {
        CHECK(b.updated.w_q.data()[i] == trace.w_q.data()[i] - 0.01 * b.d_w_q.data()[i]);
    }
    const auto steps = attn::with_backward(trace, s.target, "t.json", 0.01).steps;
    CHECK(steps.back().id == "update.W_V");
}

TEST_CASE("backward: a bad target or rule is refused with a precise error", "[backward]") {
    Setup s = setup({"one head", 1});
    const auto trace = attn::explain(s.input, s.config);
    const auto message = [&](const Matrix& target) {
        try {
            (void)attn::backward(trace, target, "t.json", std::nullopt);
        } catch (const attn::Error& e) {
            CHECK(e.exit_code() == 2);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message(Matrix(5, 2)) ==
          "t.json: \"target\" is 5×2, expected 5×3: one row per token and one column per "
          "column of the output Z (d_v)");
    Matrix bad = s.target;
    bad(1, 2) = std::numeric_limits<double>::infinity();
    CHECK(message(bad) == "t.json: \"target\"[1][2] is inf, expected a finite number");
    bad(1, 2) = std::nan("");
    CHECK(message(bad) == "t.json: \"target\"[1][2] is nan, expected a finite number");

    Config hand = s.config;
    hand.arith = attn::Arith::hand;
    const auto by_hand = attn::explain(attn::seeded_input("the cat saw the dog", hand), hand);
    CHECK_THROWS_WITH(attn::backward(by_hand, s.target, "t.json", std::nullopt),
                      Catch::Contains("needs --arith exact"));
}
