#pragma once
/// Naming one cell of a walk-through, as `--why 'scores[is,book]'` does.

#include <cstddef>
#include <string>
#include <string_view>

#include "attn/core/trace.hpp"

namespace attn {

/// One cell of one step, as shown: the step's id ("scores", "head2.weights") and the row and
/// column on screen in `layout`. In the column layout the shown (row, col) is the matrix's
/// (col, row).
struct CellRef {
    std::string step_id;
    std::size_t row = 0;  ///< as shown
    std::size_t col = 0;  ///< as shown
    Layout layout = Layout::row;

    /// The cell's row and column in the step's matrix (row layout: a row per token).
    [[nodiscard]] std::size_t matrix_row() const noexcept {
        return layout == Layout::col ? col : row;
    }
    [[nodiscard]] std::size_t matrix_col() const noexcept {
        return layout == Layout::col ? row : col;
    }
};

/// Parses "NAME[ROW,COL]" against the steps of `trace` as shown in `layout`: NAME is a step id
/// (Q, K, V, scores, scaled_scores, masked_scores, weights, output, ..., with a head prefix
/// such as head2.scores when there are several heads), or the name a gradient step shows in
/// its header (dW_Q for grad.W_Q, dS′ or dS' for grad.scaled_scores, head2.dQ); ROW and COL are the row and the column
/// as shown, each an index or a label (a token, or q0, k1, ...). A token that appears more
/// than once must be given by index. Throws attn::Error (usage, Field::why) that lists the
/// valid names, or the indices to use for an ambiguous token. A step of one cell (the loss)
/// may be named without [ROW,COL].
///
///     parse_cell("scores[is,book]", trace);   // {"scores", 1, 2} for "This is book"
///     parse_cell("weights[2,0]", trace);      // by index
///     parse_cell("dW_Q[2,1]", trace);         // grad.W_Q, as its header names it
///     parse_cell("loss", trace);              // the loss, a 1×1 step
CellRef parse_cell(std::string_view raw, const Trace& trace, Layout layout = Layout::row);

}  // namespace attn
