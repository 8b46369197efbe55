// Several heads at once on the terminal: one step of every head side by side when the width
// allows, stacked otherwise, and a table of each head's most attended token per query.
#include "heads_text.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "attn/core/utf8.hpp"
#include "matrix_text.hpp"
#include "toolkit.hpp"

namespace attn::text {
namespace {

// `text` cut to `width` columns between whole characters.
std::string clip(const std::string& text, std::size_t width) {
    std::string out;
    std::size_t used = 0;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8::grapheme_length(std::string_view(text).substr(i));
        const std::size_t shown = utf8::display_width(std::string_view(text).substr(i, length));
        if (used + shown > width) {
            break;
        }
        out += text.substr(i, length);
        used += shown;
        i += length;
    }
    return out;
}

// The lines `w` collected, without the last newline.
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// Who query `r` of `a` attends to most: the key, the two keys of a tie joined by "=", or how
// many keys tie ("3 keys"). A token written more than once gets its position: "the[2]".
std::string most_attended(const Matrix& a, std::size_t r, const std::vector<std::string>& tokens) {
    constexpr std::size_t name_width = 12;
    const auto row = a.row(r);
    const double top = *std::max_element(row.begin(), row.end());
    std::vector<std::size_t> keys;
    for (std::size_t c = 0; c < row.size(); ++c) {
        if (row[c] == top) {
            keys.push_back(c);
        }
    }
    if (keys.size() > 2) {
        return fmt::format("{} keys", keys.size());
    }
    std::string who;
    for (const std::size_t k : keys) {
        const bool repeated = std::count(tokens.begin(), tokens.end(), tokens[k]) > 1;
        const std::string name = clip(toolkit::terminal(tokens[k]), name_width);
        who += (who.empty() ? "" : "=") + (repeated ? fmt::format("{}[{}]", name, k) : name);
    }
    return who;
}

}  // namespace

bool fits_side_by_side(const std::vector<std::size_t>& widths, std::size_t gap, std::size_t width) {
    if (widths.empty()) {
        return true;
    }
    const std::size_t total =
        std::accumulate(widths.begin(), widths.end(), std::size_t{0}) + gap * (widths.size() - 1);
    return total <= width;
}

std::vector<std::string> lay_out_blocks(const std::vector<std::vector<std::string>>& blocks,
                                        std::size_t width) {
    std::vector<std::size_t> widths;
    widths.reserve(blocks.size());
    for (const auto& block : blocks) {
        std::size_t widest = 0;
        for (const auto& line : block) {
            widest = std::max(widest, toolkit::painted_width(line));
        }
        widths.push_back(widest);
    }
    // as many blocks on a line as fit, in full rows of equal counts (4 blocks: 4, else 2 + 2,
    // never 3 + 1), each place in a row as wide as the widest block that takes it, so the
    // heads line up as a grid; else stacked
    const std::size_t n = blocks.size();
    std::size_t per_row = 1;
    std::vector<std::size_t> place_widths;
    for (std::size_t per = n; per > 1; --per) {
        if (n % per != 0) {
            continue;  // a short last row would put its heads where the others' are not
        }
        std::vector<std::size_t> places(per, 0);
        for (std::size_t b = 0; b < n; ++b) {
            places[b % per] = std::max(places[b % per], widths[b]);
        }
        if (fits_side_by_side(places, block_gap, width)) {
            per_row = per;
            place_widths = std::move(places);
            break;
        }
    }
    std::vector<std::string> out;
    for (std::size_t first = 0; first < n; first += per_row) {
        if (first > 0) {
            out.emplace_back();
        }
        const std::size_t last = std::min(n, first + per_row);
        if (per_row == 1) {
            out.insert(out.end(), blocks[first].begin(), blocks[first].end());
            continue;
        }
        std::size_t height = 0;
        for (std::size_t b = first; b < last; ++b) {
            height = std::max(height, blocks[b].size());
        }
        for (std::size_t i = 0; i < height; ++i) {
            std::string line;
            for (std::size_t b = first; b < last; ++b) {
                const std::string cell = i < blocks[b].size() ? blocks[b][i] : std::string();
                if (b > first) {
                    line += std::string(block_gap, ' ');
                }
                line += cell;
                if (b + 1 < last) {
                    line +=
                        std::string(place_widths[b - first] - toolkit::painted_width(cell), ' ');
                }
            }
            while (!line.empty() && line.back() == ' ') {
                line.pop_back();
            }
            out.push_back(std::move(line));
        }
    }
    return out;
}

void print_most_attended(Writer& w, const std::vector<std::string>& tokens,
                         const std::vector<const Matrix*>& weights, std::size_t first_head,
                         int precision) {
    const bool unicode = w.style().unicode;
    std::size_t label_width = 0;
    for (const auto& t : tokens) {
        label_width = std::max(label_width, utf8::display_width(toolkit::terminal(t)));
    }
    // every cell first, so that one width lines them all up
    std::vector<std::vector<std::string>> cells(weights.size());
    std::size_t cell = 0;
    for (std::size_t h = 0; h < weights.size(); ++h) {
        cell = std::max(cell, fmt::format("head {}", first_head + h).size());
        for (std::size_t r = 0; r < tokens.size(); ++r) {
            const Matrix& a = *weights[h];
            const auto row = a.row(r);
            const double top = *std::max_element(row.begin(), row.end());
            cells[h].push_back(fmt::format("{} {}", most_attended(a, r, tokens),
                                           format_number(top, precision, unicode)));
            cell = std::max(cell, toolkit::width_of(cells[h].back()));
        }
    }
    const std::size_t usable =
        w.style().width > label_width + 3 ? w.style().width - label_width - 3 : cell;
    const std::size_t per_line = std::max<std::size_t>(1, usable / (cell + 1));
    const std::string bar = unicode ? " │" : " |";
    for (std::size_t first = 0; first < weights.size(); first += per_line) {
        const std::size_t last = std::min(weights.size(), first + per_line);
        w.line();
        std::string header = toolkit::pad_right("", label_width) + bar;
        for (std::size_t h = first; h < last; ++h) {
            header += " " + toolkit::pad_left(fmt::format("head {}", first_head + h), cell);
        }
        w.line(header);
        for (std::size_t r = 0; r < tokens.size(); ++r) {
            std::string row = toolkit::pad_right(toolkit::terminal(tokens[r]), label_width) + bar;
            for (std::size_t h = first; h < last; ++h) {
                row += " " + toolkit::pad_left(cells[h][r], cell);
            }
            w.line(row);
        }
    }
}

void print_heads_matrices(Writer& w, const Trace& trace, const std::vector<const Step*>& steps) {
    std::vector<std::vector<std::string>> blocks;
    blocks.reserve(steps.size());
    for (const Step* step : steps) {
        Writer one(w.style());
        one.line("  " + one.paint(fmt::format("head {}", step->head), "1"));
        print_matrix(one, *step, nullptr, false);
        blocks.push_back(lines_of(one.take()));
    }
    for (const auto& line : lay_out_blocks(blocks, w.style().width)) {
        w.line(line);
    }
    if (steps.front()->kind == StepKind::attention) {
        print_legend(w);
    }
    if (steps.front()->op != StepOp::weights) {
        return;
    }
    w.line();
    w.paragraph(
        "Each head's most attended token per query (a row), and that weight. A tie (keys with "
        "exactly equal largest weights) names both keys, joined by =, or says how many keys "
        "tie; a token written more than once has its position in brackets.");
    std::vector<const Matrix*> weights;
    weights.reserve(steps.size());
    for (const Step* step : steps) {
        weights.push_back(&trace.heads[step->head - 1].attention);
    }
    print_most_attended(w, trace.tokens, weights, steps.front()->head, w.style().precision);
}

}  // namespace attn::text
