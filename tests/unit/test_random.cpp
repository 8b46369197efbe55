#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attn/core/model.hpp"
#include "attn/core/random.hpp"

TEST_CASE("splitmix64 gives the published sequence", "[random]") {
    // reference values of splitmix64 from seed 0 (Vigna's splitmix64.c)
    attn::Rng zero(0);
    CHECK(zero.next_u64() == 0xE220A8397B1DCDAFULL);
    CHECK(zero.next_u64() == 0x6E789E6AA1B965F4ULL);
    CHECK(zero.next_u64() == 0x06C45D188009454FULL);
}

TEST_CASE("the generator's golden values for seed 42 never change", "[random]") {
    // If one of these changes, every seeded lesson changes: bump the JSON schema version
    // and say so in the changelog, never update these numbers silently.
    attn::Rng rng(42);
    CHECK(rng.next_u64() == 0xBDD732262FEB6E95ULL);
    CHECK(rng.next_u64() == 0x28EFE333B266F103ULL);
    CHECK(rng.next_u64() == 0x47526757130F9F52ULL);
    attn::Rng normal(42);
    CHECK(normal.normal() == 0.49295065581737485);
    CHECK(normal.normal() == -0.69400566721601742);
    CHECK(normal.normal() == -1.2810773478777024);
    CHECK(normal.normal() == -0.901557193497174);
    CHECK(attn::stream_seed(42, "embedding", "book") == 0x17E3C082C865AA18ULL);
}

TEST_CASE("uniform numbers lie between 0 and 1, normals look standard", "[random]") {
    attn::Rng rng(7);
    double sum = 0.0;
    double sum_sq = 0.0;
    int out_of_range = 0;
    constexpr int n = 200000;
    for (int i = 0; i < n; ++i) {
        const double u = rng.uniform();
        out_of_range += (u < 0.0 || u >= 1.0) ? 1 : 0;
        const double z = rng.normal();
        sum += z;
        sum_sq += z * z;
    }
    CHECK(out_of_range == 0);
    const double mean = sum / n;
    const double var = sum_sq / n - mean * mean;
    CHECK(std::abs(mean) < 0.01);
    CHECK(std::abs(var - 1.0) < 0.02);
}

TEST_CASE("portable_log agrees with std::log to a few ulps", "[random]") {
    for (double x : {1e-300, 1e-10, 0.001, 0.1, 0.5, 0.7071, 0.9999, 1.0, 1.5, 2.0, 10.0, 1e10}) {
        INFO("x = " << x);
        CHECK(attn::portable_log(x) == Approx(std::log(x)).epsilon(1e-15).margin(1e-300));
    }
    CHECK(attn::portable_log(1.0) == 0.0);
}

TEST_CASE("portable_exp is e^x correctly rounded, with the same bits everywhere", "[random]") {
    using attn::portable_exp;
    constexpr double inf = std::numeric_limits<double>::infinity();
    CHECK(portable_exp(0.0) == 1.0);
    CHECK(portable_exp(-0.0) == 1.0);
    CHECK(portable_exp(-inf) == 0.0);
    CHECK(portable_exp(inf) == inf);
    CHECK(portable_exp(710.0) == inf);
    CHECK(portable_exp(-746.0) == 0.0);
    CHECK(std::isnan(portable_exp(std::nan(""))));
    CHECK(portable_exp(1.0) == 0x1.5bf0a8b145769p+1);  // e
    // pinned bits: if one changes, every softmax changes (and every learned example)
    CHECK(portable_exp(-1.5) == 0x1.c8f87724b5c1dp-3);
    CHECK(portable_exp(-0.25) == 0x1.8ebef9eac820bp-1);
    CHECK(portable_exp(3.7) == 0x1.4394144eeec81p+5);
    CHECK(portable_exp(-709.5) == 0x0.54e90c99fb878p-1022);  // subnormal
    // 1 + 2^-53 + 2^-107 + ...: a tie in double-double that only the tail breaks
    CHECK(portable_exp(0x1p-53) == 0x1.0000000000001p+0);
    CHECK(portable_exp(-0x1p-54) == 1.0);
    // against long double: the nearest double, on seeded inputs across the whole range
    attn::Rng rng(2024);
    int not_nearest = 0;
    int off_by_more_than_one_ulp_from_libm = 0;
    for (int i = 0; i < 100000; ++i) {
        const double x = i % 2 == 0 ? -40.0 * rng.uniform() : -745.0 + 1454.0 * rng.uniform();
        const double mine = portable_exp(x);
        const long double exact = std::exp(static_cast<long double>(x));
        const auto distance = [exact](double y) {
            return std::fabs(static_cast<long double>(y) - exact);
        };
        if (distance(std::nextafter(mine, inf)) < distance(mine) ||
            distance(std::nextafter(mine, 0.0)) < distance(mine)) {
            ++not_nearest;
        }
        const double libm = std::exp(x);
        if (mine != libm && std::nextafter(mine, libm) != libm) {
            ++off_by_more_than_one_ulp_from_libm;
        }
    }
    CHECK(not_nearest == 0);
    CHECK(off_by_more_than_one_ulp_from_libm == 0);
}

TEST_CASE("portable_exp's fast way (a table) gives the same bits as its slow way (squaring)",
          "[random]") {
    using attn::detail::exp_by_squaring;
    using attn::detail::exp_by_table;
    constexpr double inf = std::numeric_limits<double>::infinity();
    constexpr double ln2 = 0.69314718055994530942;
    std::vector<double> inputs{0.0,
                               -0.0,
                               5e-324,
                               -5e-324,
                               1e-300,
                               -1e-300,
                               0x1p-53,
                               -0x1p-53,
                               0x1p-54,
                               -0x1p-54,
                               0x1.0000000000001p-53,
                               1e-10,
                               1.0,
                               -1.0,
                               -708.0,
                               -708.2999,
                               -708.3,
                               -708.39,
                               -708.4,
                               -709.0,
                               -709.5,  // subnormal
                               -740.0,
                               -745.1,
                               -745.2,
                               -746.0,
                               708.0,
                               709.0,
                               709.6999,
                               709.7,
                               709.78,
                               709.79,  // overflows
                               std::numeric_limits<double>::max(),
                               -std::numeric_limits<double>::max(),
                               inf,
                               -inf,
                               std::nan("")};
    // every entry of the table, from both sides of its reduction interval
    for (int n = -640; n < 640; ++n) {
        inputs.push_back(n * ln2 / 128);
        inputs.push_back((n + 0.499) * ln2 / 128);
    }
    // seeded inputs: the whole range, the range softmax uses, near 0, and tiny ones
    attn::Rng rng(77);
    for (int i = 0; i < 40000; ++i) {
        const double u = rng.uniform();
        switch (i % 4) {
            case 0:
                inputs.push_back(-746.0 + 1456.0 * u);
                break;
            case 1:
                inputs.push_back(-30.0 * u);
                break;
            case 2:
                inputs.push_back((u - 0.5) * 1e-3);
                break;
            default:
                inputs.push_back(std::ldexp(u - 0.5, -static_cast<int>(70 * rng.uniform())));
                break;
        }
    }
    int fast = 0;
    int differ = 0;
    for (const double x : inputs) {
        const double slow = exp_by_squaring(x);
        const double both = attn::portable_exp(x);
        if (std::bit_cast<std::uint64_t>(both) != std::bit_cast<std::uint64_t>(slow)) {
            ++differ;
            UNSCOPED_INFO("portable_exp(" << x << ") differs from exp_by_squaring");
        }
        if (const auto table = exp_by_table(x)) {
            ++fast;
            CHECK(x > -708.3);
            CHECK(x < 709.7);
            if (std::bit_cast<std::uint64_t>(*table) != std::bit_cast<std::uint64_t>(slow)) {
                ++differ;
                UNSCOPED_INFO("exp_by_table(" << x << ") differs from exp_by_squaring");
            }
        }
    }
    CHECK(differ == 0);
    // the fast way decides nearly everywhere in its range (it is what makes the softmax fast)
    CHECK(fast > 0.95 * static_cast<double>(inputs.size()));
    CHECK_FALSE(exp_by_table(std::nan("")).has_value());
    CHECK_FALSE(exp_by_table(-709.5).has_value());
    CHECK_FALSE(exp_by_table(709.79).has_value());
    CHECK(std::isnan(exp_by_squaring(std::nan(""))));
    CHECK(exp_by_squaring(-inf) == 0.0);
    CHECK(exp_by_squaring(inf) == inf);
}

TEST_CASE("seeded embeddings depend on the token's text, not its position", "[random]") {
    const std::vector<std::string> tokens{"the", "cat", "the"};
    const auto x = attn::seeded_embeddings(tokens, 6, 42);
    REQUIRE(x.rows() == 3);
    REQUIRE(x.cols() == 6);
    CHECK(std::ranges::equal(x.row(0), x.row(2)));
    CHECK_FALSE(std::ranges::equal(x.row(0), x.row(1)));
    // a token's first numbers do not depend on d_model
    const auto wider = attn::seeded_embeddings(tokens, 9, 42);
    for (std::size_t c = 0; c < 6; ++c) {
        CHECK(wider(1, c) == x(1, c));
    }
    // another seed, other numbers
    CHECK_FALSE(attn::seeded_embeddings(tokens, 6, 43) == x);
    // two decimals exactly: what is printed is what is used
    for (double v : x.data()) {
        CHECK(std::round(v * 100.0) / 100.0 == v);
    }
}

TEST_CASE("seeded weights have the right shapes and scale", "[random]") {
    attn::Config c;
    c.d_model = 64;
    c.d_k = 8;
    c.d_v = 5;
    c.seed = 1;
    const auto w = attn::seeded_weights(c);
    CHECK(w.w_q.rows() == 64);
    CHECK(w.w_q.cols() == 8);
    CHECK(w.w_k.cols() == 8);
    CHECK(w.w_v.cols() == 5);
    CHECK_FALSE(w.w_q == w.w_k);
    double sum_sq = 0.0;
    for (double v : w.w_q.data()) {
        sum_sq += v * v;
    }
    // variance about 1/d_model = 0.0156 (with 512 samples, within 30 %)
    CHECK(sum_sq / static_cast<double>(w.w_q.size()) == Approx(1.0 / 64).epsilon(0.3));
}
