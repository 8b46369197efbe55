#pragma once
/// Naming one cell of a walk-through, as `--why 'scores[is,book]'` does.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/core/error.hpp"

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

/// Which steps a cell name may name, and the option it is given to (for the message).
struct CellNames {
    Field field = Field::why;  ///< --why; --set names only inputs
    /// The step ids a name may be; empty: every step with a matrix or a mask. Listed in the
    /// message of a name that is none of them.
    std::vector<std::string> ids;
    /// Other names of steps: {"X", "embeddings"} for --set.
    std::vector<std::pair<std::string, std::string>> aliases;
};

/// `text` without the spaces and tabs at either end, as cell names and --set are read.
std::string trim_blanks(std::string_view text);

/// Parses "NAME[ROW,COL]" against the steps of `trace` as shown in `layout`: NAME is a step id
/// (Q, K, V, scores, scaled_scores, masked_scores, weights, output, ..., with a head prefix
/// such as head2.scores when there are several heads), or the name a gradient step shows in
/// its header (dW_Q for grad.W_Q, dS′ or dS' for grad.scaled_scores, head2.dQ); ROW and COL
/// are the row and the column as shown, each an index or a label (a token, or q0, k1, ...). A token
/// that appears more than once must be given by index (or as 'the#2'). A step of one cell (the
/// loss) may be named without [ROW,COL]. Throws attn::Error (usage, allowed.field) that lists the
/// valid names, or the indices to use for an ambiguous token, with the nearest spelling of a
/// misspelt name or label ("did you mean 'book'?").
///
///     parse_cell("scores[is,book]", trace);   // {"scores", 1, 2} for "This is book"
///     parse_cell("weights[2,0]", trace);      // by index
///     parse_cell("dW_Q[2,1]", trace);         // grad.W_Q, as its header names it
///     parse_cell("loss", trace);              // the loss, a 1×1 step
CellRef parse_cell(std::string_view raw, const Trace& trace, Layout layout = Layout::row,
                   const CellNames& allowed = {});

/// One row or column of a cell name: an index ("2"), a label ("book") or a repeated label with
/// its index ("the#2"), among `labels`; `what` is "row", "column" or "token", `cell` the whole
/// name as given. The rule and the messages of parse_cell.
std::size_t parse_index(const std::string& part, std::span<const std::string> labels,
                        std::string_view what, std::string_view cell, Field field);

}  // namespace attn
