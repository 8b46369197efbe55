// The overview of attention weights too many to print (long inputs): one character per token
// pair, or per block of pairs averaged when there are more pairs than characters, shaded
// against each query's largest weight so that a long row, whose weights are all near 1/T,
// still shows where it looks most.
#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "matrix_text.hpp"
#include "toolkit.hpp"

namespace attn::text {
namespace {

constexpr std::size_t token_label_width = 10;  // the token beside its index, cut to this
constexpr std::size_t ruler_every = 10;        // a key's index above every tenth character

std::size_t ceil_div(std::size_t a, std::size_t b) {
    return (a + b - 1) / b;
}

// A shade's glyph for a fraction of the query's largest weight: as the table's shades (from
// 1/8, 3/8, 5/8 and 7/8), in ASCII . : * #.
std::string_view glyph(double fraction, bool unicode) {
    static constexpr std::array<std::string_view, 5> shades{" ", "░", "▒", "▓", "█"};
    static constexpr std::array<std::string_view, 5> ascii{" ", ".", ":", "*", "#"};
    const std::size_t level = fraction < 0.125   ? 0
                              : fraction < 0.375 ? 1
                              : fraction < 0.625 ? 2
                              : fraction < 0.875 ? 3
                                                 : 4;
    return unicode ? shades.at(level) : ascii.at(level);
}

}  // namespace

void print_overview(Writer& w, const Step& step) {
    const auto& style = w.style();
    // the query's axis: rows in the row layout, columns in the column layout
    const bool by_column = step.transposed;
    const std::size_t n_rows = step.shape.rows;
    const std::size_t n_cols = step.shape.cols;
    const std::size_t max_lines = std::max<std::size_t>(16, 2 * style.max_rows);
    const std::size_t row_block = ceil_div(n_rows, max_lines);
    const std::size_t n_lines = ceil_div(n_rows, row_block);

    // the labels of the lines: a token and its index, or a range of indices
    const std::size_t index_w = fmt::format("{}", n_rows - 1).size();
    std::vector<std::string> labels;
    labels.reserve(n_lines);
    std::size_t token_w = 0;
    if (row_block == 1) {
        for (std::size_t r = 0; r < n_rows; ++r) {
            token_w = std::max(
                token_w, toolkit::width_of(toolkit::truncate(toolkit::terminal(step.row_labels[r]),
                                                             token_label_width, style.unicode)));
        }
    }
    for (std::size_t l = 0; l < n_lines; ++l) {
        const std::size_t first = l * row_block;
        const std::size_t last = std::min(n_rows, first + row_block) - 1;
        labels.push_back(
            row_block == 1
                ? toolkit::pad_right(toolkit::truncate(toolkit::terminal(step.row_labels[first]),
                                                       token_label_width, style.unicode),
                                     token_w) +
                      " " + toolkit::pad_left(fmt::format("{}", first), index_w)
                : toolkit::pad_left(fmt::format("{}{}{}", first, style.unicode ? "–" : "-", last),
                                    2 * index_w + 1));
    }
    const std::size_t label_w = labels.empty() ? 1 : toolkit::width_of(labels.front());
    const std::size_t fixed = 2 + label_w + 2 + 1;  // "  label │" and the closing "│"
    const std::size_t avail = style.width > fixed + 8 ? style.width - fixed : 8;
    const std::size_t col_block = ceil_div(n_cols, avail);
    const std::size_t n_cells = ceil_div(n_cols, col_block);

    // each block's mean, then each query's (or group of queries') largest, for the scale
    std::vector<double> mean(n_lines * n_cells, 0.0);
    for (std::size_t l = 0; l < n_lines; ++l) {
        const std::size_t r0 = l * row_block;
        const std::size_t r1 = std::min(n_rows, r0 + row_block);
        for (std::size_t k = 0; k < n_cells; ++k) {
            const std::size_t c0 = k * col_block;
            const std::size_t c1 = std::min(n_cols, c0 + col_block);
            double sum = 0.0;
            for (std::size_t r = r0; r < r1; ++r) {
                for (std::size_t c = c0; c < c1; ++c) {
                    sum += step.value(r, c);
                }
            }
            mean[l * n_cells + k] = sum / static_cast<double>((r1 - r0) * (c1 - c0));
        }
    }
    std::vector<double> largest(by_column ? n_cells : n_lines, 0.0);
    for (std::size_t l = 0; l < n_lines; ++l) {
        for (std::size_t k = 0; k < n_cells; ++k) {
            double& top = largest[by_column ? k : l];
            top = std::max(top, mean[l * n_cells + k]);
        }
    }

    // what a line and a character stand for, in words
    const bool single = row_block * col_block == 1;
    const std::string unit = row_block == 1 || by_column ? (by_column ? "column" : "row") : "line";
    const auto count = [](std::size_t n, const char* one, const char* many) {
        return fmt::format("{} {}", n, n == 1 ? one : many);
    };
    const std::string row_items =
        by_column ? count(row_block, "key", "keys") : count(row_block, "query", "queries");
    const std::string col_items =
        by_column ? count(col_block, "query", "queries") : count(col_block, "key", "keys");
    w.line();
    w.paragraph(
        fmt::format("Overview of all {} × {} weights, {}; each {} is shaded against its own "
                    "largest {}, so that a query whose attention is spread thin over many keys "
                    "still shows where it looks most.",
                    n_rows, n_cols,
                    single ? std::string("one character per token pair")
                           : fmt::format("one character per block of {} × {}, the mean of its "
                                         "weights",
                                         row_items, col_items),
                    unit, single ? "weight" : "block"),
        "  ", "", "  ");

    // the ruler: a key's index above every tenth character
    std::string ruler;
    for (std::size_t k = 0; k < n_cells; k += ruler_every) {
        const std::string tick = fmt::format("{}", k * col_block);
        if (toolkit::width_of(ruler) <= k) {
            ruler += std::string(k - toolkit::width_of(ruler), ' ') + tick;
        }
    }
    const std::string bar = style.unicode ? "│" : "|";
    w.line(w.paint(std::string(2 + label_w + 2, ' ') + ruler, "2"));
    for (std::size_t l = 0; l < n_lines; ++l) {
        std::string line = "  " + labels[l] + " " + bar;
        for (std::size_t k = 0; k < n_cells; ++k) {
            const double top = largest[by_column ? k : l];
            const double fraction = top > 0.0 ? mean[l * n_cells + k] / top : 0.0;
            line += style.color
                        ? w.paint(" ", toolkit::heat_sgr(fraction, style.color_depth, style.theme))
                        : std::string(glyph(fraction, style.unicode));
        }
        w.line(line + bar);
    }
    if (style.color) {
        std::string key = "  shade, of the " + unit + "'s largest:";
        for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
            key += " " + w.paint(fmt::format(" {:.2f} ", v),
                                 toolkit::heat_sgr(v, style.color_depth, style.theme));
        }
        w.line(key);
    } else {
        w.paragraph(fmt::format("shade, of the {}'s largest: {} from 1/8, {} from 3/8, {} from "
                                "5/8, {} from 7/8",
                                unit, glyph(0.2, style.unicode), glyph(0.5, style.unicode),
                                glyph(0.7, style.unicode), glyph(0.9, style.unicode)),
                    "  ", "", "  ");
    }
}

}  // namespace attn::text
