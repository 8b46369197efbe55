// The fast kernels against the readable reference kernels, and the parallel loop.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/random.hpp"
#include "attn/render/render.hpp"

using attn::Matrix;

namespace {

// Numbers with many significant bits and both signs, so that any change in the order of
// the additions shows in the last bits.
Matrix noise(std::size_t rows, std::size_t cols, std::uint64_t seed) {
    attn::Rng rng(seed);
    Matrix m(rows, cols);
    for (double& x : m.data()) {
        x = rng.normal() * 3.7;
    }
    return m;
}

// Sets the worker threads for a scope and puts back the default after.
struct Threads {
    explicit Threads(std::size_t n) { attn::set_worker_threads(n); }
    Threads(const Threads&) = delete;
    Threads& operator=(const Threads&) = delete;
    Threads(Threads&&) = delete;
    Threads& operator=(Threads&&) = delete;
    ~Threads() { attn::set_worker_threads(0); }
};

}  // namespace

TEST_CASE("the fast matmul equals the reference bit for bit, edges and threads included",
          "[kernels]") {
    const std::size_t threads = GENERATE(1U, 2U, 3U);
    const Threads use(threads);
    std::uint64_t seed = 1;
    // every remainder of the 4-row and 16-column blocks, an empty inner size, and products
    // large enough to be split across threads
    for (const std::size_t n : {1U, 3U, 4U, 5U, 9U, 130U}) {
        for (const std::size_t p : {0U, 1U, 7U, 64U}) {
            for (const std::size_t m : {1U, 15U, 16U, 17U, 40U, 300U}) {
                const Matrix a = noise(n, p, seed++);
                const Matrix b = noise(p, m, seed++);
                INFO(n << "×" << p << " · " << p << "×" << m << ", " << threads << " threads");
                CHECK(attn::matmul(a, b) == attn::matmul_reference(a, b));
                const Matrix bt = noise(m, p, seed++);
                CHECK(attn::matmul_transposed(a, bt) == attn::matmul_transposed_reference(a, bt));
            }
        }
    }
    const Matrix big_a = noise(517, 129, 99);
    const Matrix big_b = noise(129, 61, 100);
    CHECK(attn::matmul(big_a, big_b) == attn::matmul_reference(big_a, big_b));
}

TEST_CASE("the streamed product equals the reference bit for bit, edges and threads included",
          "[kernels]") {
    const std::size_t threads = GENERATE(1U, 2U, 3U);
    const Threads use(threads);
    std::uint64_t seed = 500;
    // rows of x past the 4-row blocks, columns past the 16-column blocks and past the
    // 128-column slices, inner sizes past the 64-row chunks, and an empty inner size
    for (const std::size_t n : {1U, 4U, 6U, 8U}) {
        for (const std::size_t p : {0U, 1U, 63U, 64U, 130U}) {
            for (const std::size_t m : {1U, 16U, 17U, 128U, 129U, 300U}) {
                const Matrix x = noise(n, p, seed++);
                const Matrix w = noise(p, m, seed++);
                std::atomic<std::size_t> cells{0};
                const Matrix y =
                    attn::matmul_streamed(x, m,
                                          [&](std::size_t row, std::size_t rows, std::size_t col,
                                              std::size_t cols, double* out) {
                                              REQUIRE(row + rows <= p);
                                              REQUIRE(col + cols <= m);
                                              for (std::size_t r = 0; r < rows; ++r) {
                                                  for (std::size_t c = 0; c < cols; ++c) {
                                                      out[r * cols + c] = w(row + r, col + c);
                                                  }
                                              }
                                              cells += rows * cols;
                                          });
                INFO(n << "×" << p << " · " << p << "×" << m << ", " << threads << " threads");
                CHECK(y == attn::matmul_reference(x, w));
                CHECK(cells.load() == p * m);  // every number of w read once, none twice
            }
        }
    }
}

TEST_CASE("the fast matmul keeps infinities, NaN and signed zeros as the reference does",
          "[kernels]") {
    const double inf = std::numeric_limits<double>::infinity();
    Matrix a = noise(8, 5, 7);
    Matrix b = noise(5, 33, 8);
    a(0, 0) = inf;
    a(5, 1) = -0.0;
    b(2, 3) = std::numeric_limits<double>::quiet_NaN();
    b(4, 17) = 1e308;
    a(6, 4) = 1e308;
    const Matrix fast = attn::matmul(a, b);
    const Matrix ref = attn::matmul_reference(a, b);
    for (std::size_t i = 0; i < fast.size(); ++i) {
        const double f = fast.data()[i];
        const double r = ref.data()[i];
        INFO("cell " << i);
        CHECK((std::isnan(f) ? std::isnan(r) : f == r && std::signbit(f) == std::signbit(r)));
    }
}

TEST_CASE("the whole trace is the same with 1, 2 or 5 threads", "[kernels]") {
    // 70 tokens: every step of the dump is one block of rows; 190 tokens: the T×T steps
    // (36100 numbers) are two blocks each, formatted by different workers
    for (const int tokens : {70, 190}) {
        attn::Config c;
        c.d_model = 48;
        c.n_heads = tokens < 100 ? 4 : 2;
        c.d_k = 12;
        c.d_v = 12;
        c.mask = attn::MaskKind::causal;
        std::string sentence;
        for (int i = 0; i < tokens; ++i) {
            sentence += "w" + std::to_string(i % 23) + " ";
        }
        const auto in = attn::seeded_input(sentence, c);
        std::vector<std::string> dumps;
        for (const std::size_t n : {1U, 2U, 5U}) {
            const Threads use(n);
            dumps.push_back(attn::render_json(attn::explain(in, c)));
        }
        INFO(tokens << " tokens");
        CHECK(dumps[0] == dumps[1]);
        CHECK(dumps[0] == dumps[2]);
    }
}

TEST_CASE("parallel_for visits every index once and passes on the first error", "[kernels]") {
    const Threads use(3);
    std::vector<std::atomic<int>> visits(1000);
    attn::parallel_for(visits.size(), [&](std::size_t i) { ++visits[i]; });
    for (const auto& v : visits) {
        CHECK(v.load() == 1);
    }
    CHECK_THROWS_WITH(attn::parallel_for(100,
                                         [](std::size_t i) {
                                             if (i == 42) {
                                                 throw std::runtime_error("item 42 failed");
                                             }
                                         }),
                      "item 42 failed");
    // nested: the inner loop runs on the outer item's thread, every index still once
    std::atomic<int> inner{0};
    attn::parallel_for(8,
                       [&](std::size_t) { attn::parallel_for(10, [&](std::size_t) { ++inner; }); });
    CHECK(inner.load() == 80);
    CHECK(attn::worker_threads() == 3);
}

TEST_CASE("worker_threads defaults to the cores and can be set", "[kernels]") {
    attn::set_worker_threads(0);
    const std::size_t cores = attn::worker_threads();
    CHECK(cores >= 1);
    attn::set_worker_threads(7);
    CHECK(attn::worker_threads() == 7);
    attn::set_worker_threads(0);
    CHECK(attn::worker_threads() == cores);
}

TEST_CASE("an error in one head is the lowest-numbered head's, whatever the threads", "[kernels]") {
    attn::Config c;
    c.d_model = 8;
    c.n_heads = 4;
    c.d_k = 2;
    c.d_v = 2;
    auto in = attn::seeded_input("a b c d e", c);
    // the scores of heads 2 and 4 overflow: a column of their W_Q and W_K is huge
    for (std::size_t r = 0; r < c.d_model; ++r) {
        for (const std::size_t col : {2U, 6U}) {
            in.weights.w_q(r, col) = 1e300;
            in.weights.w_k(r, col) = 1e300;
        }
    }
    for (const std::size_t n : {1U, 4U}) {
        const Threads use(n);
        CHECK_THROWS_WITH(attn::explain(in, c), Catch::StartsWith("head 2: "));
    }
}

TEST_CASE("a sink that fails in the middle of a large matrix stops the dump's workers",
          "[kernels]") {
    const Threads use(2);
    attn::Config c;
    c.d_model = 4;
    std::string sentence;
    for (int i = 0; i < 600; ++i) {
        sentence += "w" + std::to_string(i % 50) + " ";
    }
    const auto trace = attn::explain(attn::seeded_input(sentence, c), c);
    // the scores (600×600) are formatted in several blocks on two workers; fail inside them
    for (const std::size_t limit : {std::size_t{200000}, std::size_t{2000000}}) {
        std::size_t written = 0;
        const attn::Sink failing = [&](std::string_view piece) {
            written += piece.size();
            if (written > limit) {
                throw std::runtime_error("disk full");
            }
        };
        CHECK_THROWS_WITH(attn::render_json(trace, failing), "disk full");
    }
    // and the same trace still dumps whole afterwards, the same as with one thread
    const std::string two = attn::render_json(trace);
    attn::set_worker_threads(1);
    CHECK(attn::render_json(trace) == two);
}
