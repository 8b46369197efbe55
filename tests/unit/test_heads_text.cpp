// Several heads at once on the terminal (heads_text.cpp): side by side when they fit the
// width, stacked when they do not, and each head's most attended token with ties named.
#include <catch2/catch.hpp>

#include "attn/core/matrix.hpp"
#include "heads_text.hpp"
#include "text_writer.hpp"

namespace {
using Lines = std::vector<std::string>;
}

TEST_CASE("heads: blocks fit side by side when their widths and gaps fit the width",
          "[heads][render]") {
    using attn::text::fits_side_by_side;
    CHECK(fits_side_by_side({30, 30}, 3, 63));
    CHECK_FALSE(fits_side_by_side({30, 30}, 3, 62));
    CHECK(fits_side_by_side({20, 20, 20}, 3, 66));
    CHECK_FALSE(fits_side_by_side({20, 20, 20}, 3, 65));
    CHECK(fits_side_by_side({80}, 3, 80));
    CHECK_FALSE(fits_side_by_side({81}, 3, 80));
    CHECK(fits_side_by_side({}, 3, 10));
}

TEST_CASE("heads: blocks that fit are laid side by side, each padded to its widest line",
          "[heads][render]") {
    const std::vector<Lines> blocks{{"head 1", "ab", "abcdefg"}, {"head 2", "xyz"}};
    // widest lines 7 and 6, a gap of 3: 16 columns
    const auto side = attn::text::lay_out_blocks(blocks, 16);
    CHECK(side == Lines{"head 1    head 2", "ab        xyz", "abcdefg"});
    // colour codes take no columns
    const std::vector<Lines> painted{{"\x1b[1mhead 1\x1b[0m", "ab"}, {"head 2"}};
    CHECK(attn::text::lay_out_blocks(painted, 15) == Lines{"\x1b[1mhead 1\x1b[0m   head 2", "ab"});
}

TEST_CASE("heads: blocks too wide for the width are stacked, a blank line between",
          "[heads][render]") {
    const std::vector<Lines> blocks{{"head 1", "ab", "abcdefg"}, {"head 2", "xyz"}};
    const auto stacked = attn::text::lay_out_blocks(blocks, 15);
    CHECK(stacked == Lines{"head 1", "ab", "abcdefg", "", "head 2", "xyz"});
}

TEST_CASE("heads: the most attended token per query, ties named and counted", "[heads][render]") {
    attn::TextStyle style;
    style.width = 80;
    attn::text::Writer w(style);
    // head 1: query 0 ties two copies of 'a', query 1 ties 'a'[0] and 'b', query 2 is clear;
    // head 2: a uniform row (three keys tie)
    const attn::Matrix a1{{0.4, 0.2, 0.4}, {0.4, 0.4, 0.2}, {0.1, 0.7, 0.2}};
    const attn::Matrix a2{{0.25, 0.5, 0.25}, {1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.6, 0.3, 0.1}};
    attn::text::print_most_attended(w, {"a", "b", "a"}, {&a1, &a2}, 1, 2);
    const std::string out = w.take();
    CHECK(out ==
          "\n"
          "  │         head 1         head 2\n"
          "a │ a[0]=a[2] 0.40         b 0.50\n"
          "b │    a[0]=b 0.40    3 keys 0.33\n"
          "a │         b 0.70      a[0] 0.60\n");
}

TEST_CASE("heads: blocks that do not all fit go in rows of equal counts", "[heads][render]") {
    const std::vector<Lines> four{{"h1", "aaaa"}, {"h2", "bb"}, {"h3", "c"}, {"h4", "dddddd"}};
    // all four: 4 + 2 + 2 + 6 and 3 gaps of 3 = 23 columns
    CHECK(attn::text::lay_out_blocks(four, 23).size() == 2);
    // three would fit in 20, but rows of 2 + 2 (not 3 + 1): places 4 and 6 wide, 13 columns
    const auto two_rows = attn::text::lay_out_blocks(four, 20);
    CHECK(two_rows == Lines{"h1     h2", "aaaa   bb", "", "h3     h4", "c      dddddd"});
    CHECK(attn::text::lay_out_blocks(four, 13) == two_rows);
    // narrower: one under the other
    const auto stacked = attn::text::lay_out_blocks(four, 12);
    CHECK(stacked == Lines{"h1", "aaaa", "", "h2", "bb", "", "h3", "c", "", "h4", "dddddd"});
}

TEST_CASE("heads: three blocks that do not all fit are stacked, never 2 + 1", "[heads][render]") {
    const std::vector<Lines> three{{"h1", "aaaa"}, {"h2", "bb"}, {"h3", "c"}};
    CHECK(attn::text::lay_out_blocks(three, 14).size() == 2);  // 4 + 2 + 2 and 2 gaps of 3
    CHECK(attn::text::lay_out_blocks(three, 13) ==
          Lines{"h1", "aaaa", "", "h2", "bb", "", "h3", "c"});
}
