// The overview of attention weights too many for the table (long inputs): one character per
// token pair, or the mean of a block of them, each query shaded against its own largest.
#include <catch2/catch.hpp>
#include <sstream>

#include "attn/core/matrix.hpp"
#include "attn/core/trace.hpp"
#include "matrix_text.hpp"
#include "text_writer.hpp"

namespace {

struct Weights {
    attn::Matrix a;
    std::vector<std::string> labels;
    attn::Step step;

    explicit Weights(attn::Matrix m) : a(std::move(m)) {
        for (std::size_t i = 0; i < a.rows(); ++i) {
            labels.push_back("t" + std::to_string(i));
        }
        step.id = "weights";
        step.kind = attn::StepKind::attention;
        step.shape = {a.rows(), a.cols()};
        step.matrix = &a;
        step.row_labels = labels;
        step.col_labels = labels;
    }
};

std::vector<std::string> overview(const attn::Step& step, attn::TextStyle style) {
    attn::text::Writer w(style);
    attn::text::print_overview(w, step);
    std::vector<std::string> lines;
    std::istringstream in(w.take());
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST_CASE("overview: one character per pair, each row against its largest weight",
          "[render][overview]") {
    const Weights w(attn::Matrix{{1.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.2, 0.3, 0.5}});
    attn::TextStyle style;
    const auto lines = overview(w.step, style);
    REQUIRE(lines.size() == 9);
    CHECK(lines[0].empty());
    CHECK(lines[1] == "  Overview of all 3 × 3 weights, one character per token pair; each row is");
    CHECK(lines[4] == "        0");  // the ruler: key 0 above the first character
    // 0.2 and 0.3 of the row's 0.5 are 2/5 and 3/5 of it: ▒ (from 3/8); 0.5 is all of it: █
    CHECK(lines[5] == "  t0 0 │█  │");
    CHECK(lines[6] == "  t1 1 │██ │");
    CHECK(lines[7] == "  t2 2 │▒▒█│");
    CHECK(lines[8] ==
          "  shade, of the row's largest: ░ from 1/8, ▒ from 3/8, ▓ from 5/8, █ from 7/8");

    style.unicode = false;
    const auto ascii = overview(w.step, style);
    CHECK(ascii[7] == "  t2 2 |::#|");
    CHECK(ascii[8] ==
          "  shade, of the row's largest: . from 1/8, : from 3/8, * from 5/8, # from 7/8");

    style.unicode = true;
    style.color = true;
    const auto colour = overview(w.step, style);
    // a coloured space per pair, on the heatmap's ramp: white for 0, the deepest for the largest
    CHECK(colour[7].find("\x1b[48;5;17;38;5;231m \x1b[0m│") != std::string::npos);
    CHECK(colour[5].find("│\x1b[48;5;17;38;5;231m \x1b[0m\x1b[48;5;231;38;5;16m \x1b[0m") !=
          std::string::npos);
}

TEST_CASE("overview: blocks averaged when the pairs are more than the characters",
          "[render][overview]") {
    // the identity: each query attends only to itself
    attn::Matrix identity(100, 100, 0.0);
    for (std::size_t i = 0; i < 100; ++i) {
        identity(i, i) = 1.0;
    }
    const Weights w(identity);
    attn::TextStyle style;
    style.width = 40;
    const auto lines = overview(w.step, style);
    // 100 rows in at most 48 lines: 3 queries a line; "  99–99 │" leaves 30 columns for 100
    // keys: 4 keys a character
    std::string words;
    for (std::size_t i = 1; i < 7; ++i) {
        std::istringstream in(lines[i]);
        for (std::string word; in >> word;) {
            words += word + " ";
        }
    }
    CHECK_THAT(words, Catch::Contains("one character per block of 3 queries × 4 keys, the mean of "
                                      "its weights; each line is shaded against its own largest "
                                      "block"));
    std::size_t first = 0;
    while (lines[first].find("0–2 │") == std::string::npos) {
        ++first;
    }
    REQUIRE(first + 33 < lines.size());
    // rows 0–2 × keys 0–3 hold 3 ones among 12: a mean of 1/4, the line's largest: █
    CHECK(lines[first] == "    0–2 │█                        │");
    // rows 3–5: 1 one among keys 0–3 (1/12), 2 among keys 4–7 (1/6, the largest): ▒ then █
    CHECK(lines[first + 1] == "    3–5 │▒█                       │");
    CHECK(lines[first + 33] == "  99–99 │                        █│");
    // 34 lines, then the legend, wrapped to the width
    CHECK(lines[first + 34].starts_with("  shade, of the line's largest:"));
    CHECK(lines[first + 33 + 1].find("│") == std::string::npos);
}
