// The dump's number writer: std::to_chars's shortest text, valid JSON, and it reads back as the
// same double, bit for bit, through strtod, std::from_chars, attn's own JSON reader and
// nlohmann/json.
#include <fmt/format.h>
#include <array>
#include <catch2/catch.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/random.hpp"
#include "attn/io/json_reader.hpp"
#include "json_text.hpp"

namespace {

std::string written(double x) {
    std::array<char, attn::json_text::max_number_chars> text{};
    char* end = attn::json_text::write_number(text.data(), x);
    return {text.data(), static_cast<std::size_t>(end - text.data())};
}

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Whether `text` follows JSON's grammar for a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool json_number(std::string_view text) {
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t from = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            ++i;
        }
        return i - from;
    };
    if (i < text.size() && text[i] == '-') {
        ++i;
    }
    const std::size_t int_begin = i;
    const std::size_t n_int = digits();
    if (n_int == 0 || (n_int > 1 && text[int_begin] == '0')) {
        return false;
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (digits() == 0) {
            return false;
        }
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            ++i;
        }
        if (digits() == 0) {
            return false;
        }
    }
    return i == text.size();
}

// x in scientific notation with `n` significant digits, as printf's %e writes it.
std::string scientific(double x, int n) {
    std::array<char, 64> text{};
    const int length = std::snprintf(text.data(), text.size(), "%.*e", n - 1, x);
    return {text.data(), static_cast<std::size_t>(length)};
}

// The fewest significant digits that read back as x (x finite, not zero).
int shortest_digits(double x) {
    int low = 1;
    int high = 17;  // 17 always suffice for a double
    while (low < high) {
        const int mid = (low + high) / 2;
        if (same_bits(std::strtod(scientific(x, mid).c_str(), nullptr), x)) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    return low;
}

// Whether `text` is as short as text for x can be: its significant digits are the fewest
// that read back as x (a whole number in fixed notation is exact, so its digits may go on
// past those, as printf's %.0f writes it), and it is no longer than x in scientific notation
// with those digits.
bool shortest(double x, std::string_view text) {
    if (x == 0.0) {
        return text == "0" || text == "-0.0";
    }
    const auto e = text.find_first_of("eE");
    const auto mantissa = text.substr(0, e);
    const bool whole = e == std::string_view::npos && mantissa.find('.') == std::string_view::npos;
    int n = 0;
    if (!whole) {
        std::string digits;
        for (char c : mantissa) {
            if (c >= '0' && c <= '9') {
                digits += c;
            }
        }
        n = static_cast<int>(digits.size() - digits.find_first_not_of('0'));
        if (n > 1 && same_bits(std::strtod(scientific(x, n - 1).c_str(), nullptr), x)) {
            return false;  // one digit fewer would do
        }
    } else {
        n = shortest_digits(x);
    }
    // (%e writes "1e+05" for one digit, with no point, as to_chars does)
    return text.size() <= scientific(x, n).size();
}

// Checks the text of x: a JSON number of at most max_number_chars characters, the shortest,
// and read back bit for bit by strtod and std::from_chars; false, with the reason in `why`,
// on a difference (millions of values checked without millions of assertions).
bool round_trips(double x, std::string& why) {
    const std::string text = written(x);
    if (text.size() > attn::json_text::max_number_chars) {
        why = fmt::format("{:a}: '{}' is longer than max_number_chars", x, text);
        return false;
    }
    if (!json_number(text)) {
        why = fmt::format("{:a}: '{}' is not a JSON number", x, text);
        return false;
    }
    const double back = std::strtod(text.c_str(), nullptr);
    if (!same_bits(back, x)) {
        why = fmt::format("{:a}: '{}' reads back through strtod as {:a}", x, text, back);
        return false;
    }
    double parsed = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error != std::errc() || end != text.data() + text.size() || !same_bits(parsed, x)) {
        why = fmt::format("{:a}: '{}' reads back through from_chars as {:a}", x, text, parsed);
        return false;
    }
    if (!shortest(x, text)) {
        why = fmt::format("{:a}: '{}' is not the shortest text", x, text);
        return false;
    }
    return true;
}

// Every value of a list of doubles written as a JSON array, as the dump writes a row.
std::string row_text(const std::vector<double>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        out += i > 0 ? ", " : "";
        attn::json_text::append_number(out, values[i]);
    }
    return out + "]";
}

// Powers of ten, both sides of each, subnormals, integers around 2^53 and beyond, -0.0.
std::vector<double> edges() {
    const double tiny = std::numeric_limits<double>::denorm_min();
    std::vector<double> out{0.0,
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
                            2 * tiny,
                            std::numeric_limits<double>::min(),
                            std::nextafter(std::numeric_limits<double>::min(), 0.0),
                            std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::max(),
                            123456789012345680.0,
                            0.30000000000000004,
                            100.0,
                            1234.5,
                            0.001234};
    for (int e = -323; e <= 308; ++e) {
        const double p = std::pow(10.0, e);
        out.push_back(p);
        out.push_back(std::nextafter(p, 0.0));
        out.push_back(std::nextafter(p, std::numeric_limits<double>::infinity()));
        out.push_back(-3.7 * p);  // -inf for e = 308: skipped by the callers
    }
    // subnormals: every power of two, and random ones
    for (double x = std::numeric_limits<double>::min(); x > 0; x /= 2) {
        out.push_back(x);
        out.push_back(-3 * x);
    }
    attn::Rng rng(5);
    for (int i = 0; i < 10000; ++i) {
        const std::uint64_t bits = rng.next_u64() & ((std::uint64_t{1} << 52U) - 1);
        double x = 0.0;
        std::memcpy(&x, &bits, sizeof x);
        out.push_back(x);
    }
    // integers: every one up to 2^12, then around each power of two up to 2^53 and beyond,
    // where doubles are no longer every integer
    for (int i = 0; i <= 4096; ++i) {
        out.push_back(i);
        out.push_back(-i);
    }
    for (int b = 12; b <= 80; ++b) {
        const double p = std::ldexp(1.0, b);
        for (double d = -3; d <= 3; ++d) {
            out.push_back(p + d * std::ldexp(1.0, std::max(0, b - 52)));
        }
        out.push_back(std::nextafter(p, 0.0));
    }
    out.push_back(9007199254740993.0);  // 2^53 + 1, which is 2^53 as a double
    out.push_back(18014398509481984.0);
    out.push_back(1e21 + 65536);
    return out;
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
constexpr int random_numbers = 100000;
#else
constexpr int random_numbers = 1000000;
#endif

TEST_CASE("numbers are written shortest and read back bit for bit", "[numbers]") {
    std::string why;
    std::vector<double> values = edges();
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
                values.push_back(std::strtod(fmt::format("0.{}e{}", text, point).c_str(), nullptr));
            }
        }
    }
    for (double x : values) {
        if (std::isfinite(x) && !round_trips(x, why)) {
            FAIL(why);
        }
    }
    // a million random bit patterns (every exponent) and a million numbers like attn's; a
    // tenth of that under the sanitizers, which run it ten times slower and look for memory
    // errors, not for a rarer number (the dev preset runs the million)
    attn::Rng rng(2026);
    for (int i = 0; i < random_numbers; ++i) {
        const std::uint64_t bits = rng.next_u64();
        double x = 0.0;
        std::memcpy(&x, &bits, sizeof x);
        if (std::isfinite(x) && !round_trips(x, why)) {
            FAIL(why);
        }
        const double y = rng.normal() * std::pow(10.0, static_cast<double>(i % 9) - 4.0);
        if (!round_trips(y, why)) {
            FAIL(why);
        }
    }
}

TEST_CASE("JSON readers read every written number back bit for bit", "[numbers]") {
    // attn's own reader (which --from and --model use) and nlohmann/json, on rows as the dump
    // writes them
    std::vector<double> values = edges();
    attn::Rng rng(99);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t bits = rng.next_u64();
        double x = 0.0;
        std::memcpy(&x, &bits, sizeof x);
        values.push_back(x);
        values.push_back(rng.normal());
    }
    std::erase_if(values, [](double x) { return !std::isfinite(x); });
    const std::string text = row_text(values);
    const auto ours = attn::json::parse(text, "row.json");
    REQUIRE(ours.items.size() == values.size());
    const auto theirs = nlohmann::json::parse(text);
    REQUIRE(theirs.size() == values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double x = values[i];
        if (!same_bits(ours.items[i].number, x)) {
            FAIL(fmt::format("{:a}: written '{}', attn's reader reads {:a}", x, written(x),
                             ours.items[i].number));
        }
        const double n = theirs[i].get<double>();
        if (!same_bits(n, x)) {
            FAIL(fmt::format("{:a}: written '{}', nlohmann/json reads {:a}", x, written(x), n));
        }
    }
}

TEST_CASE("numbers are spelled as std::to_chars spells them, -0.0 kept", "[numbers]") {
    CHECK(written(0.0) == "0");
    CHECK(written(-0.0) == "-0.0");  // "-0" would be the integer 0 to Python's json module
    CHECK(std::signbit(std::strtod(written(-0.0).c_str(), nullptr)));
    CHECK(written(1.0) == "1");
    CHECK(written(-2.5) == "-2.5");
    CHECK(written(0.1) == "0.1");
    CHECK(written(0.30000000000000004) == "0.30000000000000004");
    CHECK(written(-0.0007626450645834362) == "-0.0007626450645834362");
    CHECK(written(1e-4) == "1e-04");  // shorter than 0.0001
    CHECK(written(0.00012) == "0.00012");
    CHECK(written(1e-5) == "1e-05");
    CHECK(written(123456.0) == "123456");
    CHECK(written(1e5) == "1e+05");  // shorter than 100000
    CHECK(written(9007199254740992.0) == "9007199254740992");
    CHECK(written(1e16) == "1e+16");
    CHECK(written(std::numeric_limits<double>::denorm_min()) == "5e-324");
    CHECK(written(-std::numeric_limits<double>::min()) == "-2.2250738585072014e-308");
    CHECK(written(std::numeric_limits<double>::max()) == "1.7976931348623157e+308");
}

TEST_CASE("infinities and NaN are written as strings", "[numbers]") {
    CHECK(written(std::numeric_limits<double>::infinity()) == "\"inf\"");
    CHECK(written(-std::numeric_limits<double>::infinity()) == "\"-inf\"");
    CHECK(written(std::numeric_limits<double>::quiet_NaN()) == "\"nan\"");
}
