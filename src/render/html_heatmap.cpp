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
// cells: more, and any matrix is a heatmap (a checkpoint's 768 × 768 weights as a table are
// 88 MB of page; as a heatmap, 7 MB)
constexpr std::size_t compact_cells = 20000;
constexpr int blocked_level = 255;  // the level of a −∞ or blocked cell
constexpr int top_level = 254;      // levels 0 to 254 are colours

// Base64 written as it is made, a few KiB at a time: the values of a 1,000-token step are 8 MB,
// which as one string, then JSON, then a page would be several copies of (--max-memory).
// Its digits (A-Z a-z 0-9 + / =) need no escape in JSON or in a <script> block.
class Base64Out {
  public:
    explicit Base64Out(toolkit::Spool& out) : out_(out) { buffer_.reserve(chunk + 4); }
    void put(std::uint8_t byte) {
        carry_[n_++] = byte;
        if (n_ == 3) {
            emit();
        }
    }
    void finish() {
        if (n_ > 0) {
            emit();
        }
        out_ += buffer_;
        buffer_.clear();
    }

  private:
    static constexpr std::size_t chunk = 4096;
    static constexpr std::string_view digits =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    void emit() {
        const std::uint32_t n = (std::uint32_t{carry_[0]} << 16U) |
                                (n_ > 1 ? std::uint32_t{carry_[1]} << 8U : 0U) |
                                (n_ > 2 ? std::uint32_t{carry_[2]} : 0U);
        buffer_ += digits[(n >> 18U) & 63U];
        buffer_ += digits[(n >> 12U) & 63U];
        buffer_ += n_ > 1 ? digits[(n >> 6U) & 63U] : '=';
        buffer_ += n_ > 2 ? digits[n & 63U] : '=';
        n_ = 0;
        if (buffer_.size() >= chunk) {
            out_ += buffer_;
            buffer_.clear();
        }
    }
    toolkit::Spool& out_;
    std::string buffer_;
    std::array<std::uint8_t, 3> carry_{};
    std::size_t n_ = 0;
};

std::string css(toolkit::Rgb c) {
    return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

}  // namespace

bool compact(const Trace& trace, const Step& step) {
    const std::size_t t = trace.tokens.size();
    if (step.kind == StepKind::tokens) {
        return false;
    }
    return (t > compact_above && step.shape.rows == t && step.shape.cols == t) ||
           step.shape.rows * step.shape.cols > compact_cells;
}

void heatmap(toolkit::Spool& out, const Step& step, const TextStyle& style, const Step* before) {
    const bool weights = step.kind == StepKind::attention;
    const bool mask = step.kind == StepKind::mask;
    const std::size_t rows = step.shape.rows;
    const std::size_t cols = step.shape.cols;
    if (mask ? step.mask == nullptr : step.matrix == nullptr) {
        return;  // a step without its numbers (none is made so)
    }
    double scale = 0.0;
    if (!mask) {
        for (double v : step.matrix->data()) {
            scale = std::isfinite(v) ? std::max(scale, std::abs(v)) : scale;
        }
    }
    // attention weights are shaded against their row's largest: a row spread over 500 keys
    // has weights near 1/500, which on the 0-to-1 scale would all be white
    const auto row_largest = [&](std::size_t r) {
        double largest = 0.0;
        for (std::size_t c = 0; c < cols; ++c) {
            largest = std::max(largest, step.value(r, c));
        }
        return largest;
    };
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
    std::vector<double> sums;
    if (weights) {
        sums.reserve(rows);
        for (std::size_t r = 0; r < rows; ++r) {
            double sum = 0.0;
            for (std::size_t c = 0; c < cols; ++c) {
                sum += step.value(r, c);
            }
            sums.push_back(sum);
        }
    }
    nlohmann::json sums_shown = nlohmann::json::array();
    for (double sum : sums) {
        sums_shown.push_back(format_number(sum, style.precision, true));
    }
    // the small members as one JSON object, without its closing brace; the large ones (each
    // cell's level and value) follow, streamed
    const nlohmann::json small{
        {"step", step.id},
        {"rows", rows},
        {"cols", cols},
        {"precision", style.precision},
        {"weights", weights},
        {"mask", mask},
        {"rowLabels", std::vector<std::string>(step.row_labels.begin(), step.row_labels.end())},
        {"colLabels", std::vector<std::string>(step.col_labels.begin(), step.col_labels.end())},
        {"palette", palette},
        {"sums", sums_shown}};
    std::string head = script_safe(small.dump());
    head.pop_back();  // the object's '}': the streamed members come next
    // a token × token step, or another large matrix (a checkpoint's weights: d_model × d_k)
    const bool pairs = rows == cols && std::equal(step.row_labels.begin(), step.row_labels.end(),
                                                  step.col_labels.begin(), step.col_labels.end());
    out += fmt::format(
        "<p class=\"note\">{} × {}: too many cells for a table, so each is a small square of "
        "its colour{}. Hover a square for its {} and value{} (or focus the picture and use the "
        "arrow keys). The JSON dump (--json) has every value.</p>\n",
        rows, cols,
        weights ? ", each row shaded against its own largest weight (a row spread thin over "
                  "many keys has every weight near 1/T, which would be white on a scale from 0 "
                  "to 1)"
                : "",
        pairs ? "tokens" : "row, column",
        weights ? "; click a row to list the keys its query attends to most" : "");
    out += fmt::format(
        "<div class=\"heatmap\" data-step=\"{}\" tabindex=\"0\" role=\"img\" aria-label=\"{}: a "
        "heatmap of {} rows{} and {} columns{}\"><canvas></canvas><div "
        "class=\"cross row\"></div><div class=\"cross col\"></div></div>\n",
        toolkit::html(step.id), toolkit::html(step.id), rows, pairs ? " (queries)" : "", cols,
        pairs ? " (keys)" : "");
    out += "<script type=\"application/json\" class=\"heatmap-data\">";
    out += head;
    // each cell's level on the palette
    out += ",\"levels\":\"";
    {
        Base64Out levels(out);
        for (std::size_t r = 0; r < rows; ++r) {
            const double largest = weights ? row_largest(r) : 0.0;
            for (std::size_t c = 0; c < cols; ++c) {
                if (mask) {
                    levels.put(static_cast<std::uint8_t>(step.allowed(r, c) ? 0 : blocked_level));
                    continue;
                }
                const double v = step.value(r, c);
                const double t = weights ? (largest > 0 ? v / largest : 0.0)
                                         : (scale > 0 ? v / scale : 0.0);  // −1 to 1
                const double unit =
                    weights ? std::clamp(t, 0.0, 1.0) : (std::clamp(t, -1.0, 1.0) + 1) / 2;
                levels.put(static_cast<std::uint8_t>(
                    std::isinf(v) ? blocked_level : std::lround(unit * top_level)));
            }
        }
        levels.finish();
    }
    // each cell's value as 8 little-endian bytes (none for a mask)
    out += "\",\"values\":\"";
    if (!mask) {
        Base64Out values(out);
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                const auto bits = std::bit_cast<std::uint64_t>(step.value(r, c));
                for (std::size_t b = 0; b < 8; ++b) {
                    values.put(static_cast<std::uint8_t>(bits >> (8 * b)));
                }
            }
        }
        values.finish();
    }
    out += "\",\"sumLevels\":\"";
    {
        Base64Out sum_levels(out);
        for (double sum : sums) {
            sum_levels.put(
                static_cast<std::uint8_t>(std::lround(std::clamp(sum, 0.0, 1.0) * top_level)));
        }
        sum_levels.finish();
    }
    if (before != nullptr) {  // a what-if's: which cells differ, and their values before
        const auto number = [mask](const Step& s, std::size_t r, std::size_t c) {
            return mask ? (s.allowed(r, c) ? 1.0 : 0.0) : s.value(r, c);
        };
        out += "\",\"changed\":\"";
        Base64Out changed(out);
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                changed.put(number(step, r, c) != number(*before, r, c) ? 1 : 0);
            }
        }
        changed.finish();
        out += "\",\"old\":\"";
        Base64Out old(out);
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                const auto bits = std::bit_cast<std::uint64_t>(number(*before, r, c));
                for (std::size_t b = 0; b < 8; ++b) {
                    old.put(static_cast<std::uint8_t>(bits >> (8 * b)));
                }
            }
        }
        old.finish();
    }
    out += "\"}</script>\n";
    if (before != nullptr) {
        out +=
            "<p class=\"note\">The cells that differ are tinted orange; hover one for its "
            "value before.</p>\n";
    }
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
}

}  // namespace attn::report
