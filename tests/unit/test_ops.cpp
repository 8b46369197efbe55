#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/pages.hpp"

using attn::Matrix;

TEST_CASE("matmul by hand", "[ops]") {
    const Matrix a{{1, 2, 3}, {4, 5, 6}};
    const Matrix b{{7, 8}, {9, 10}, {11, 12}};
    // [1·7+2·9+3·11, 1·8+2·10+3·12] = [58, 64]; [4·7+5·9+6·11, ...] = [139, 154]
    CHECK(attn::matmul(a, b) == Matrix{{58, 64}, {139, 154}});
    CHECK(attn::transpose(a) == Matrix{{1, 4}, {2, 5}, {3, 6}});
    CHECK(attn::matmul_transposed(a, a) == attn::matmul(a, attn::transpose(a)));
    CHECK(attn::scaled(a, 0.5) == Matrix{{0.5, 1, 1.5}, {2, 2.5, 3}});
}

TEST_CASE("matmul with shapes that do not fit is an error naming both", "[ops]") {
    const Matrix a(2, 3);
    const Matrix b(2, 3);
    try {
        (void)attn::matmul(a, b);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("2×3") && Catch::Contains("expected"));
    }
    CHECK_THROWS_AS(attn::matmul_transposed(Matrix(2, 3), Matrix(2, 4)), attn::Error);
}

TEST_CASE("softmax rows sum to 1 and match the hand-computed values", "[ops]") {
    const Matrix s{{0, 0}, {0, std::log(3.0)}, {1, 2}};
    const auto r = attn::softmax_rows(s);
    CHECK(r.weights(0, 0) == Approx(0.5));
    CHECK(r.weights(1, 0) == Approx(0.25));
    CHECK(r.weights(1, 1) == Approx(0.75));
    // e/(e+e²) = 1/(1+e)
    CHECK(r.weights(2, 0) == Approx(1.0 / (1.0 + std::exp(1.0))));
    for (double sum : attn::row_sums(r.weights)) {
        CHECK(sum == Approx(1.0).epsilon(1e-15));
    }
    CHECK(r.empty_rows.empty());
}

TEST_CASE("softmax of huge scores does not overflow", "[ops]") {
    const Matrix s{{1000, 999, 0}, {-1000, -1001, -2000}};
    const auto r = attn::softmax_rows(s);
    for (double w : r.weights.data()) {
        CHECK(std::isfinite(w));
    }
    // 1 / (1 + e^-1) and e^-1 / (1 + e^-1); shifting every score keeps the weights
    CHECK(r.weights(0, 0) == Approx(1.0 / (1.0 + std::exp(-1.0))));
    CHECK(r.weights(1, 0) == Approx(r.weights(0, 0)));
    CHECK(r.weights(0, 2) == 0.0);
}

TEST_CASE("causal mask: zero weight above the diagonal, -inf in the scores", "[ops]") {
    const auto mask = attn::causal_mask(4);
    const Matrix s(4, 4, 1.0);
    const auto masked = attn::apply_mask(s, mask);
    const auto r = attn::softmax_rows(masked);
    for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t j = 0; j < 4; ++j) {
            CHECK(mask.allowed(i, j) == (j <= i));
            if (j > i) {
                CHECK(masked(i, j) == -std::numeric_limits<double>::infinity());
                CHECK(r.weights(i, j) == 0.0);
            } else {
                // equal scores: equal weights over the i + 1 visible keys
                CHECK(r.weights(i, j) == Approx(1.0 / static_cast<double>(i + 1)));
            }
        }
    }
}

TEST_CASE("a row with every key masked gets zero weights and is reported", "[ops]") {
    attn::Mask mask(2, 2, true);
    mask.set(1, 0, false);
    mask.set(1, 1, false);
    const auto r = attn::softmax_rows(attn::apply_mask(Matrix{{1, 2}, {3, 4}}, mask));
    CHECK(r.empty_rows == std::vector<std::size_t>{1});
    CHECK(r.weights(1, 0) == 0.0);
    CHECK(r.weights(1, 1) == 0.0);
    CHECK(r.weights(0, 0) + r.weights(0, 1) == Approx(1.0));
}

TEST_CASE("variance of all finite entries", "[ops]") {
    CHECK(attn::variance_of(Matrix{{1, 2}, {3, 4}}).value() == Approx(1.25));
    CHECK(attn::variance_of(Matrix{{5}}).value() == 0.0);
    CHECK(
        attn::variance_of(Matrix{{1, -std::numeric_limits<double>::infinity()}, {3, 5}}).value() ==
        Approx(8.0 / 3.0));
}

TEST_CASE("a variance is computed scaled: finite entries never give an infinite variance",
          "[ops]") {
    // one entry a, eight zeros: the variance is 8a²/81. With a = 2e154 the plain way squares
    // 8a/9 ≈ 1.8e154 past the largest double (inf), although the variance is 3.95e307
    const double a = 2e154;
    const Matrix one_large{{a, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    const auto v = attn::variance_of(one_large);
    CHECK(std::isfinite(v.value()));
    CHECK(v.value() == Approx(8.0 / 81.0 * a * a).epsilon(1e-12));  // (8/81·a)·a: no overflow
    // entries near the largest double: the plain sum overflows; the variance of equal ones is 0
    const double big = 1.5e308;
    CHECK(attn::variance_of(Matrix{{big, big}, {big, big}}).value() == 0.0);
    // past the largest double: kept as scaled · 2^exponent; 1e400 / 2^1300 = (1e200 / 2^650)²
    const auto huge = attn::variance_of(Matrix{{1e200, -1e200}});
    CHECK(std::isinf(huge.value()));
    const double root = 1e200 / std::pow(2.0, 650);
    CHECK(std::ldexp(huge.scaled, huge.exponent - 1300) == Approx(root * root).epsilon(1e-12));
    // the same bits as the plain computation wherever that does not overflow
    const Matrix m{{0.1, -2.5, 3.25}, {7.0, 1e-3, -0.75}};
    double mean = 0.0;
    for (double x : m.data()) {
        mean += x;
    }
    mean /= 6.0;
    double ss = 0.0;
    for (double x : m.data()) {
        ss += (x - mean) * (x - mean);
    }
    CHECK(attn::variance_of(m).value() == ss / 6.0);
}

TEST_CASE("row lengths of huge vectors are finite", "[ops]") {
    const auto n = attn::row_norms(Matrix{{3e200, 4e200}, {3, 4}});
    CHECK(n[0] == Approx(5e200).epsilon(1e-15));
    CHECK(n[1] == 5.0);
}

TEST_CASE("a large matrix lives in memory of its own, at a huge-page boundary", "[ops]") {
    const std::size_t before = attn::mapped_bytes();
    {
        const Matrix small(16, 16, 1.5);  // 2 KiB: from malloc
        CHECK(attn::mapped_bytes() == before);
        // 512 × 513 doubles: a huge page and a little more
        Matrix large(512, 513, 0.25);
        const auto at = reinterpret_cast<std::uintptr_t>(large.data().data());
        if constexpr (attn::map_large_blocks) {
            CHECK(at % attn::huge_page_bytes == 0);
            CHECK(attn::mapped_bytes() ==
                  before + (512 * 513 * sizeof(double) + 4095) / 4096 * 4096);
        } else {  // under AddressSanitizer, malloc's, so that reads past the end are caught
            CHECK(attn::mapped_bytes() == before);
        }
        CHECK(large(511, 512) == 0.25);
        large(511, 512) = 2.0;
        const Matrix copy = large;
        CHECK(copy == large);
        CHECK(copy(511, 512) == 2.0);
        Matrix moved = std::move(large);
        CHECK(moved(0, 0) == 0.25);
        CHECK(small(15, 15) == 1.5);
    }
    CHECK(attn::mapped_bytes() == before);
}

TEST_CASE("freed large blocks are kept for the next of the same length when asked", "[ops]") {
    const std::size_t before = attn::mapped_bytes();
    const std::size_t length = 512 * 512 * sizeof(double);  // 2 MiB: one huge page
    attn::keep_freed_blocks(4 * length);
    const double* first = nullptr;
    {
        const Matrix a(512, 512, 1.0);
        first = a.data().data();
    }
    if constexpr (attn::map_large_blocks) {
        CHECK(attn::mapped_bytes() == before + length);  // kept, and still counted
        const Matrix b(512, 512, 2.0);
        CHECK(b.data().data() == first);  // the same block again
        CHECK(b(511, 511) == 2.0);        // filled anew
        const Matrix c(256, 1024, 3.0);   // the same length, another shape
        CHECK(c.data().data() != first);
        CHECK(attn::mapped_bytes() == before + 2 * length);
    }
    attn::release_freed_blocks();
    CHECK(attn::mapped_bytes() == before);
    attn::keep_freed_blocks(0);
    { const Matrix d(512, 512); }
    CHECK(attn::mapped_bytes() == before);  // none kept
}

namespace {
std::size_t hooked = 0;
void note_mapping(std::size_t bytes) noexcept {
    hooked += bytes;
}
}  // namespace

TEST_CASE("before a block is mapped afresh, the hook hears of it", "[ops]") {
    hooked = 0;
    attn::before_mapping(note_mapping);
    attn::keep_freed_blocks(std::size_t{8} << 20U);
    { const Matrix a(512, 512, 1.0); }
    { const Matrix b(512, 512, 2.0); }  // the kept block again: not mapped afresh
    attn::release_freed_blocks();
    attn::keep_freed_blocks(0);
    attn::before_mapping(nullptr);
    { const Matrix c(512, 512, 3.0); }
    CHECK(hooked == (attn::map_large_blocks ? std::size_t{512 * 512 * sizeof(double)} : 0));
}
