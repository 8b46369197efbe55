#pragma once
/// What-if: a run with some of its inputs changed (--set CELL=VALUE), and what two runs of the
/// same shape differ in, step by step (--set, attn diff). The core changes numbers and
/// measures differences; the words that say them live in render.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/trace.hpp"

namespace attn {

/// One input changed: a cell of X, of a weight matrix or bias, of the mask or of a given Q, K
/// or V, or a token swapped for another (with its embedding).
struct Change {
    std::string step_id;  ///< "embeddings", "W_Q", ..., "mask", "Q" (given), or "tokens"
    std::size_t row = 0;  ///< in the step's matrix (row layout); a token's index
    std::size_t col = 0;  ///< 0 for a token
    double before = 0.0;  ///< the number before; for the mask 1 (may attend) or 0 (blocked)
    double after = 0.0;
    std::string token_before;  ///< a token swap: the token before and after
    std::string token_after;
    std::vector<double> embedding_before;  ///< a token swap: its row of X before and after
    std::vector<double> embedding_after;

    [[nodiscard]] bool is_token() const noexcept { return step_id == "tokens"; }
};

/// The changes a run was made with, as a JSON dump records them (its "what_if"): enough to
/// remake the run before them (without_changes).
struct WhatIfRecord {
    std::vector<Change> changes;            ///< empty: the run is not a what-if
    MaskKind mask_before = MaskKind::none;  ///< the mask's kind before a mask cell was set
};

/// A --set as given, before the new embedding of a swapped token is known.
struct Setting {
    Change change;     ///< step, row, column, before and after (a token's embeddings empty)
    std::string text;  ///< as given, trimmed: "embeddings[is,d1]=0.5"
};

/// The step ids --set may change in `trace`: the inputs (embeddings, W_Q, W_K, W_V, their
/// biases, W_O and b_O; Q, K and V when they were given; the mask when there is one), each
/// head's slices of W_Q, W_K and W_V (head2.W_Q), and "tokens" unless Q, K and V were given.
std::vector<std::string> settable_ids(const Trace& trace);

/// Parses "CELL=VALUE" against `trace` as shown in `layout`: CELL is a cell of an input
/// (parse_cell's syntax; X stands for embeddings) or "tokens[I]" (an index or a token);
/// VALUE a finite number, 1 or 0 (true or false) for the mask, or one token (cut by the run's
/// tokenizer) for a token. A head's slice names the same cell of the whole matrix. Throws
/// attn::Error (usage, Field::set) naming what was found and what was expected: a cell of a
/// computed step, a step the run does not have, a value that is not a number, ...
///
///     parse_setting("W_Q[d0,q1]=0.5", trace)   // W_Q (0, 1): before its value, after 0.5
///     parse_setting("tokens[2]=hat", trace)    // the token 'book' becomes 'hat'
Setting parse_setting(std::string_view raw, const Trace& t, Layout layout = Layout::row);

/// The changes of several settings in order, one per cell: a cell set twice keeps its first
/// value before and its last after. A setting that changes nothing is kept (said so).
std::vector<Change> merge_changes(const std::vector<Change>& earlier,
                                  const std::vector<Change>& later);

/// The run `loaded` with `changes` made (tokens first, then cells): X's row of a swapped
/// token is its embedding_after, a mask cell set makes the mask a given one (MaskKind::file,
/// Source::Kind::set) holding `before`'s whole mask, padding included. `before` is the Trace
/// of `loaded`. Throws attn::Error (usage, Field::set) for a change the run cannot take: a
/// <pad> token, a <pad> key allowed (the padding mask blocks it).
Loaded with_changes(const Loaded& loaded, const Trace& before, const std::vector<Change>& changes);

/// The run before `changes`, from the run after them (a replayed dump): every cell and
/// token put back as it was, the mask's kind `mask_before` when the mask was changed.
Loaded without_changes(const Loaded& after, const std::vector<Change>& changes,
                       MaskKind mask_before);

/// How one step differs between two runs, cell by cell (exactly: any difference counts).
struct StepDelta {
    std::string id;
    std::size_t cells = 0;    ///< cells of the step
    std::size_t changed = 0;  ///< cells that differ
    /// The largest difference (after − before) between two finite values, and where; a cell
    /// that became or stopped being −∞ counts as changed without a size.
    double largest = 0.0;
    std::size_t row = 0, col = 0;
    std::vector<std::size_t> rows;       ///< rows with a changed cell (row layout)
    std::vector<std::size_t> cols;       ///< columns with a changed cell
    std::vector<std::size_t> full_rows;  ///< rows whose every cell changed
    std::vector<std::size_t> full_cols;  ///< columns whose every cell changed
};

/// A weight of one head that moved: query row → key col, before and after.
struct WeightMove {
    std::size_t head = 0;  ///< 0-based
    std::size_t row = 0;
    std::size_t col = 0;
    double before = 0.0;
    double after = 0.0;
};

/// A query whose most attended key changed (ties to the earlier key, as the walk-through says).
/// A query that may attend to no key (every key masked: a row of zero weights) has no_key.
struct FocusChange {
    static constexpr std::size_t no_key = static_cast<std::size_t>(-1);
    std::size_t head = 0;
    std::size_t row = 0;
    std::size_t key_before = 0;
    std::size_t key_after = 0;
    double weight_before = 0.0;  ///< of key_before, before
    double weight_after = 0.0;   ///< of key_after, after
};

/// One row of the final output that changed, and why it could: its own attention weights
/// (in any head) and the rows of V (or the heads' outputs and W_O) it mixes.
struct OutputRowChange {
    std::size_t row = 0;
    double distance = 0.0;         ///< ‖o_after − o_before‖, the length of the change
    double largest = 0.0;          ///< the largest change of one number of the row
    std::size_t col = 0;           ///< where
    double weights_moved = 0.0;    ///< the largest change of a weight in this row, any head
    std::size_t weights_head = 0;  ///< the head of that change (0-based)
    /// Rows of V (any head) that changed and that this row gives a weight above 0, with that
    /// weight (after; the largest over the heads when there are several).
    std::vector<std::pair<std::size_t, double>> values_changed;
};

/// One step of the way a difference travelled: a computed step that changed, and the steps
/// it is computed from that changed too (or that the run before has not). `from` is empty
/// when none did: then the settings of the two runs differ (attn diff: --no-scale, ...).
struct Hop {
    std::string id;
    std::vector<std::string> from;
};

/// Two runs of the same shape compared: the one before (the run as given, or attn diff's
/// first dump) and the one this comparison belongs to.
struct Comparison {
    Trace before;
    std::vector<Change> changes;  ///< --set's changes; for attn diff, the inputs that differ
    MaskKind mask_before = MaskKind::none;  ///< the mask's kind before, when a mask cell changed
    std::string before_name;                ///< attn diff: the first dump's path; --set: empty
    std::string after_name;                 ///< attn diff: the second dump's path
    std::vector<StepDelta> steps;           ///< every step of the run after, in teaching order
    std::vector<std::string> only_before;   ///< ids of steps the run before has and after not
    std::vector<std::string> only_after;    ///< ids of steps only the run after has
    std::vector<WeightMove> moved;    ///< the weights that moved most, largest first (up to 5)
    std::size_t weights_changed = 0;  ///< attention weights (all heads) that changed
    std::vector<FocusChange> focus;   ///< queries that attend most to another key now
    std::vector<OutputRowChange> output_rows;  ///< rows of the output that changed, most first
    std::size_t output_rows_total = 0;
    /// How the differences travelled, in teaching order: Q from X, S from Q and K, ...
    std::vector<Hop> path;

    /// The delta of step `id`, or nullptr when the step is not in both runs.
    [[nodiscard]] const StepDelta* delta(std::string_view id) const;
};

/// What makes two runs comparable: the same tokens count and, for every step both have, the
/// same shape. Empty when they are; else each difference, e.g. "3 tokens against 4", "W_Q is
/// 5×3 against 4×3".
std::vector<std::string> incomparable(const Trace& before, const Trace& after);

/// Compares `after` with `before` (which must be comparable: incomparable() is empty),
/// recording `changes`. The result holds a copy of `before`.
std::shared_ptr<Comparison> compare(const Trace& before, const Trace& after,
                                    std::vector<Change> changes,
                                    MaskKind mask_before = MaskKind::none);

/// The inputs that differ between two comparable runs, as changes (attn diff): tokens, then
/// the cells of the input steps both have, in teaching order.
std::vector<Change> input_differences(const Trace& before, const Trace& after);

/// The name of a change's cell with the labels of `trace` (as shown in the row layout):
/// "embeddings[is,d1]", "mask[is,book]", "tokens[2]".
std::string cell_name(const Change& change, const Trace& trace);

}  // namespace attn
