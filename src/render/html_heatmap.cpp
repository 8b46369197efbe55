// The HTML page's compact heatmap (--html) for a T × T step of a long input: a table of
// 500 × 500 cells is hundreds of thousands of elements a browser lays out slowly and a reader
// cannot scan, so the step is drawn on a canvas instead, a few pixels per token pair. The page's
// script (assets/report.js) draws it from the colours decided here (each cell's palette level,
// the palette from the same colours as the tables) and shows each cell's exact value from the
// doubles embedded beside it: hover a cell for its tokens and value, click a row (or move with
// the arrow keys) for the keys that query attends to most.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "html_parts.hpp"
#include "toolkit.hpp"

namespace attn::report {
namespace {

constexpr std::size_t compact_above = 40;  // tokens: more, and a T × T step is a heatmap
constexpr int blocked = 255;               // the level of a −∞ or blocked cell
constexpr int top_level = 254;             // levels 0 to 254 are colours

std::string base64(const std::vector<std::uint8_t>& bytes) {
    static constexpr std::string_view digits =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::uint32_t n = (std::uint32_t{bytes[i]} << 16U) |
                                (i + 1 < bytes.size() ? std::uint32_t{bytes[i + 1]} << 8U : 0U) |
                                (i + 2 < bytes.size() ? std::uint32_t{bytes[i + 2]} : 0U);
        out += digits[(n >> 18U) & 63U];
        out += digits[(n >> 12U) & 63U];
        out += i + 1 < bytes.size() ? digits[(n >> 6U) & 63U] : '=';
        out += i + 2 < bytes.size() ? digits[n & 63U] : '=';
    }
    return out;
}

std::string css(toolkit::Rgb c) {
    return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

}  // namespace

bool compact(const Trace& trace, const Step& step) {
    const std::size_t t = trace.tokens.size();
    return t > compact_above && step.shape.rows == t && step.shape.cols == t &&
           step.kind != StepKind::tokens;
}

std::string heatmap(const Step& step, const TextStyle& style) {
    const bool weights = step.kind == StepKind::attention;
    const bool mask = step.kind == StepKind::mask;
    const std::size_t rows = step.shape.rows;
    const std::size_t cols = step.shape.cols;
    if (mask ? step.mask == nullptr : step.matrix == nullptr) {
        return {};  // a step without its numbers (none is made so)
    }
    double scale = 0.0;
    if (!mask) {
        for (double v : step.matrix->data()) {
            scale = std::isfinite(v) ? std::max(scale, std::abs(v)) : scale;
        }
    }
    // attention weights are shaded against their row's largest: a row spread over 500 keys
    // has weights near 1/500, which on the 0-to-1 scale would all be white
    std::vector<double> row_largest(rows, 0.0);
    if (weights) {
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                row_largest[r] = std::max(row_largest[r], step.value(r, c));
            }
        }
    }
    // each cell's level on the palette, and its value as 8 little-endian bytes
    std::vector<std::uint8_t> levels(rows * cols);
    std::vector<std::uint8_t> values(mask ? 0 : rows * cols * 8);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            const std::size_t i = r * cols + c;
            if (mask) {
                levels[i] = static_cast<std::uint8_t>(step.allowed(r, c) ? 0 : blocked);
                continue;
            }
            const double v = step.value(r, c);
            const double t = weights ? (row_largest[r] > 0 ? v / row_largest[r] : 0.0)
                                     : (scale > 0 ? v / scale : 0.0);  // −1 to 1
            const double unit =
                weights ? std::clamp(t, 0.0, 1.0) : (std::clamp(t, -1.0, 1.0) + 1) / 2;
            levels[i] =
                static_cast<std::uint8_t>(std::isinf(v) ? blocked : std::lround(unit * top_level));
            const auto bits = std::bit_cast<std::uint64_t>(v);
            for (std::size_t b = 0; b < 8; ++b) {
                values[i * 8 + b] = static_cast<std::uint8_t>(bits >> (8 * b));
            }
        }
    }
    // the palette: the tables' colours at each level, then the blocked cells' grey
    nlohmann::json palette = nlohmann::json::array();
    for (int level = 0; level <= top_level; ++level) {
        const double unit = static_cast<double>(level) / top_level;
        palette.push_back(css(weights || mask ? cell_background(unit, 1.0, true)
                                              : cell_background(unit * 2 - 1, 1.0, false)));
    }
    palette.push_back(css(blocked_background));
    if (mask) {
        palette[0] = css(allowed_background);
    }
    // the Σ column of the tables: each row's sum, as a strip at the right, on the 0-to-1 scale
    std::vector<std::uint8_t> sum_levels;
    nlohmann::json sums = nlohmann::json::array();
    if (weights) {
        for (std::size_t r = 0; r < rows; ++r) {
            double sum = 0.0;
            for (std::size_t c = 0; c < cols; ++c) {
                sum += step.value(r, c);
            }
            sum_levels.push_back(
                static_cast<std::uint8_t>(std::lround(std::clamp(sum, 0.0, 1.0) * top_level)));
            sums.push_back(format_number(sum, style.precision, true));
        }
    }
    nlohmann::json data{
        {"step", step.id},
        {"rows", rows},
        {"cols", cols},
        {"precision", style.precision},
        {"weights", weights},
        {"mask", mask},
        {"rowLabels", std::vector<std::string>(step.row_labels.begin(), step.row_labels.end())},
        {"colLabels", std::vector<std::string>(step.col_labels.begin(), step.col_labels.end())},
        {"palette", palette},
        {"levels", base64(levels)},
        {"values", base64(values)},
        {"sums", sums},
        {"sumLevels", base64(sum_levels)}};
    std::string out = fmt::format(
        "<p class=\"note\">{} × {}: too many cells for a table, so each is a small square of "
        "its colour{}. Hover a square for its tokens and value; click a row{} (or focus the "
        "picture and use the arrow keys). The JSON dump (--json) has every value.</p>\n",
        rows, cols,
        weights ? ", each row shaded against its own largest weight (a row spread thin over "
                  "many keys has every weight near 1/T, which would be white on a scale from 0 "
                  "to 1)"
                : "",
        weights ? " to list the keys its query attends to most" : "");
    out += fmt::format(
        "<div class=\"heatmap\" data-step=\"{}\" tabindex=\"0\" role=\"img\" aria-label=\"{}: a "
        "heatmap of {} rows (queries) and {} columns (keys)\"><canvas></canvas><div "
        "class=\"cross row\"></div><div class=\"cross col\"></div></div>\n",
        toolkit::html(step.id), toolkit::html(step.id), rows, cols);
    out += fmt::format("<script type=\"application/json\" class=\"heatmap-data\">{}</script>\n",
                       script_safe(data.dump()));
    if (weights) {
        out +=
            "<div class=\"legend\">0 <span class=\"bar\" style=\"background:"
            "linear-gradient(to right,#fff,#08306b)\"></span> the row's largest weight; the "
            "strip at the right is the Σ column: each row's sum, from 0 to 1 (hover it)</div>\n";
    } else if (!mask) {
        out +=
            "<div class=\"legend\">negative <span class=\"bar\" style=\"background:"
            "linear-gradient(to right,#a50f15,#fff,#08306b)\"></span> positive (colour: the "
            "size against the largest number here)</div>\n";
    }
    return out;
}

}  // namespace attn::report
