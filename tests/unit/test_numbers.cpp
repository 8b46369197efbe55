// The dump's number writer: fmt's "{}" text, byte for byte, and it reads back exactly.
#include <fmt/format.h>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attn/core/random.hpp"
#include "json_text.hpp"

namespace {

std::string written(double x) {
    std::array<char, attn::json_text::max_number_chars> text{};
    char* end = attn::json_text::write_number(text.data(), x);
    return {text.data(), static_cast<std::size_t>(end - text.data())};
}

// Compares with fmt and reads the text back; false, with the reason in `why`, on a
// difference (a million values checked without a million assertions).
bool same_as_fmt(double x, std::string& why) {
    const std::string ours = written(x);
    const std::string theirs = fmt::format("{}", x);
    if (ours != theirs) {
        why = fmt::format("{:a}: wrote '{}', fmt writes '{}'", x, ours, theirs);
        return false;
    }
    const double back = std::strtod(ours.c_str(), nullptr);
    if (std::memcmp(&back, &x, sizeof x) != 0) {
        why = fmt::format("{:a}: '{}' reads back as {:a}", x, ours, back);
        return false;
    }
    return true;
}

}  // namespace

TEST_CASE("numbers are written as fmt writes them, shortest and round-trip", "[numbers]") {
    std::string why;
    const double tiny = std::numeric_limits<double>::denorm_min();
    std::vector<double> edges{0.0,
                              -0.0,
                              1.0,
                              -1.0,
                              0.1,
                              0.5,
                              1e-4,
                              1e-5,
                              9.99e-5,
                              1e15,
                              1e16,
                              9999999999999998.0,
                              1e22,
                              1e23,
                              1e-300,
                              tiny,
                              -tiny,
                              std::numeric_limits<double>::min(),
                              std::numeric_limits<double>::max(),
                              123456789012345680.0,
                              0.30000000000000004,
                              9007199254740993.0,
                              100.0,
                              1234.5,
                              0.001234};
    // both sides of every power of ten a double can hold
    for (int e = -323; e <= 308; ++e) {
        const double p = std::pow(10.0, e);
        edges.push_back(p);
        edges.push_back(std::nextafter(p, 0.0));
        edges.push_back(std::nextafter(p, std::numeric_limits<double>::infinity()));
        edges.push_back(-3.7 * p);  // -inf for e = 308: not a number to write, left out
    }
    // every count of digits (1 to 17) at every place of the decimal point, in each notation
    attn::Rng digits_rng(17);
    for (int n = 1; n <= 17; ++n) {
        for (int point = -8; point <= 20; ++point) {
            for (int sample = 0; sample < 20; ++sample) {
                std::string text;
                for (int d = 0; d < n; ++d) {
                    const auto digit = digits_rng.next_u64() % 10;
                    text +=
                        static_cast<char>('0' + ((d == 0 || d == n - 1) && digit == 0 ? 7 : digit));
                }
                edges.push_back(std::strtod(fmt::format("0.{}e{}", text, point).c_str(), nullptr));
            }
        }
    }
    for (double x : edges) {
        if (std::isfinite(x) && !same_as_fmt(x, why)) {
            FAIL(why);
        }
    }
    // a million random bit patterns (every exponent) and a million numbers like attn's
    attn::Rng rng(2026);
    for (int i = 0; i < 1000000; ++i) {
        const std::uint64_t bits = rng.next_u64();
        double x = 0.0;
        std::memcpy(&x, &bits, sizeof x);
        if (std::isfinite(x) && !same_as_fmt(x, why)) {
            FAIL(why);
        }
        const double y = rng.normal() * std::pow(10.0, static_cast<double>(i % 9) - 4.0);
        if (!same_as_fmt(y, why)) {
            FAIL(why);
        }
    }
}

TEST_CASE("infinities and NaN are written as strings", "[numbers]") {
    CHECK(written(std::numeric_limits<double>::infinity()) == "\"inf\"");
    CHECK(written(-std::numeric_limits<double>::infinity()) == "\"-inf\"");
    CHECK(written(std::numeric_limits<double>::quiet_NaN()) == "\"nan\"");
}
