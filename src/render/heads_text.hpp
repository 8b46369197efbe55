#pragma once
// Several heads at once on the terminal (heads_text.cpp): one step of every head side by side
// or stacked, and each head's most attended token per query.

#include <cstddef>
#include <string>
#include <vector>

#include "attn/core/trace.hpp"
#include "text_writer.hpp"

namespace attn::text {

/// Columns between two blocks laid side by side.
inline constexpr std::size_t block_gap = 3;

/// Whether blocks `widths` columns wide fit on one line of `width` columns, `gap` apart.
bool fits_side_by_side(const std::vector<std::size_t>& widths, std::size_t gap, std::size_t width);

/// The blocks (each a list of lines, colour codes allowed) side by side when they fit the
/// width, each padded to its widest line; else in full rows of as many as fit, of equal counts
/// (2 + 2 for 4, never 3 + 1), a blank line between rows; else one under the other.
std::vector<std::string> lay_out_blocks(const std::vector<std::vector<std::string>>& blocks,
                                        std::size_t width);

/// For each query (a row) and each head (a column) the key it attends to most and that weight,
/// `precision` decimals; exactly equal largest weights are a tie and every key of it is named
/// ("is=book"), or counted when more than two. `weights[i]` is head `first_head + i`'s A in the
/// row layout (a query per row).
void print_most_attended(Writer& w, const std::vector<std::string>& tokens,
                         const std::vector<const Matrix*>& weights, std::size_t first_head,
                         int precision);

/// One step of several heads (`steps`, the same step of heads 1, 2, ...): each head's matrix
/// under "head N", side by side or stacked, the heatmap's legend once, and for the attention
/// weights each head's most attended token per query. The heading is the caller's (text.cpp).
void print_heads_matrices(Writer& w, const Trace& trace, const std::vector<const Step*>& steps);

}  // namespace attn::text
