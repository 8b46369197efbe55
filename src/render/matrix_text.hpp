#pragma once
// A step's matrix on the terminal (matrix_text.cpp), for the walk-through (text.cpp).

#include "attn/core/trace.hpp"
#include "text_writer.hpp"

namespace attn::text {

/// The matrix (or mask) of `step` with its labels, split into blocks of columns or elided to
/// fit the width; attention weights as a heatmap with their sums and, unless `legend` is false
/// (several heads printed together, heads_text.cpp), its legend. With `before` (the same step
/// of the run compared with, a what-if's or attn diff's), the cells that differ are marked *
/// and a line 'was' under each such row holds their old values.
void print_matrix(Writer& w, const Step& step, const Step* before = nullptr, bool legend = true);

/// The key to the heatmap of attention weights: the colours or the shades, from 0 to 1.
void print_legend(Writer& w);

/// Attention weights too many for the table (overview_text.cpp): every weight as one shaded
/// character, or blocks of them averaged to fit the width, each query shaded against its own
/// largest weight, with a ruler of key indices and the legend.
void print_overview(Writer& w, const Step& step);

}  // namespace attn::text
