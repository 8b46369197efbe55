#pragma once
/// Naming one cell of a walk-through, as `--why 'scores[is,book]'` does.

#include <cstddef>
#include <string>
#include <string_view>

#include "attn/core/trace.hpp"

namespace attn {

/// One cell of one step: the step's id ("scores", "head2.weights") and the row and column.
struct CellRef {
    std::string step_id;
    std::size_t row = 0;
    std::size_t col = 0;
};

/// Parses "NAME[ROW,COL]" against `trace`: NAME is a step id (Q, K, V, scores, scaled_scores,
/// masked_scores, weights, output, ..., with a head prefix such as head2.scores when there are
/// several heads); ROW and COL are indices or labels (a token, or q0, k1, ...). A token that
/// appears more than once must be given by index. Throws attn::Error (usage) that lists the
/// valid names, or the indices to use for an ambiguous token.
///
///     parse_cell("scores[is,book]", trace);   // {"scores", 1, 2} for "This is book"
///     parse_cell("weights[2,0]", trace);      // by index
CellRef parse_cell(std::string_view raw, const Trace& trace);

}  // namespace attn
