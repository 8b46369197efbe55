#pragma once
// The words of the lesson: each step's title and explanation, chosen by what the step
// computes (its op) and the run's configuration; the notes that quote a trace's own numbers;
// the summary of a run and its warnings. Written in Unicode; renderers escape or transliterate.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/trace.hpp"
#include "toolkit.hpp"

namespace attn::lesson {

/// The title of a step: "Scores", "Scaled scores", "Causal mask", ...
std::string title(const Trace& trace, const Step& step);

/// Why the step exists, in plain words.
std::string explanation(const Trace& trace, const Step& step);

/// "5 · Scores S" (with "Head 2 · " for a head's step), in Unicode.
std::string heading(const Trace& trace, const Step& step);

/// In a GPT-2 walk, the tensor a step comes from or belongs to, as the checkpoint names it
/// ("h.5.attn.c_attn.weight", "h.5.attn"); "" otherwise.
std::string gpt2_tensor(const Trace& trace, const Step& step);

/// Sentences for one step that quote its numbers: `before` goes under the explanation,
/// `after` under the matrix.
struct Notes {
    std::vector<std::string> before;
    std::vector<std::string> after;
};

/// The notes of `step` of `trace`, numbers printed with `precision` digits.
Notes notes(const Trace& trace, const Step& step, int precision);

/// One line of the summary of a run: "sentence: ..." and its continuations.
struct SummaryItem {
    std::string key;                ///< "sentence", "sizes", "numbers", "lesson"
    std::string value;              ///< may contain user text: escape it for the format
    std::vector<std::string> more;  ///< further sentences that belong to it
};

/// The summary of a run: the lesson, the sentence, the sizes, where the numbers came from,
/// and a what-if's changes.
std::vector<SummaryItem> summary(const Trace& trace, Layout layout = Layout::row);
/// The summary without the what-if's item.
std::vector<SummaryItem> summary_of_run(const Trace& trace);

/// The summary as a list of a markup: a line `item_start` KEY `key_end` VALUE per item, each
/// further sentence on a line of its own indented by two spaces; all of it through `escape`.
std::string summary_list(const Trace& trace, toolkit::Escape escape, std::string_view item_start,
                         std::string_view key_end);

// A run whose rule is not the right one (--no-scale, --scale-by d_model, --softmax-over
// columns or all; rule_words.cpp): the one description that --why, the SVG and the HTML page use.

/// What made the weights instead of the right rule, in queries' and keys' words (no layout
/// swaps them): "scores that were not scaled", "scores divided by √d_model", "one softmax per
/// key (over its queries)", "one softmax over the whole matrix", or a scaling "and" a softmax;
/// "" under the right rule.
std::string rule_mistake(const Trace& trace);
/// Whether every head's weights are exactly the right rule's (true under the right rule).
bool same_as_right(const Trace& trace);
/// Where the walk-through shows the right rule's weights: "step 7′", "each head's step 8′";
/// "" when it does not.
std::string right_weights_step(const Trace& trace);
/// What a picture or summary of the weights says of them under a rule that is not the right
/// one: `headline` "Not attention's weights: A from …" (empty when the mistake changes
/// nothing) and `detail` (lowercase, no full stop) where the right rule's weights are, or
/// that these are exactly them. Both empty under the right rule.
struct RuleCaveat {
    std::string headline;
    std::string detail;
    /// `detail` as a sentence of its own: "The right rule's weights, … walk-through."
    [[nodiscard]] std::string detail_sentence() const;
};
RuleCaveat not_the_rule(const Trace& trace);

/// Warnings about the numbers (rows with every key masked), for stderr and every output.
std::vector<std::string> warnings(const Trace& trace);

// A what-if (--set) or attn diff (Trace::comparison; whatif_words.cpp).

/// The summary's item about the comparison: what was changed, or the two dumps compared.
std::optional<SummaryItem> comparison_item(const Trace& trace, Layout layout = Layout::row);
/// The note under a step's matrix: how many cells differ from the run compared with, where
/// and by how much.
std::string change_note(const Trace& trace, const Step& step, int precision);
/// The closing section's title, the same in every format: "What changed, and why" for a
/// what-if, "What differs, and why" for attn diff.
std::string what_changed_title(const Trace& trace);
/// The closing section, paragraph by paragraph: what was changed, which steps moved, the
/// attention weights that moved most, the output rows that changed and why. Cells are named
/// as `layout` shows them.
std::vector<std::string> what_changed(const Trace& trace, int precision,
                                      Layout layout = Layout::row);

/// The backward pass's steps (target, loss, gradient, update; backward_words.cpp): the
/// title, the explanation and the notes that quote the numbers.
std::string backward_title(const Step& step);
std::string backward_explanation(const Trace& trace, const Step& step);
Notes backward_notes(const Trace& trace, const Step& step, int precision);

/// The mask's kind as the summary says it: "causal", "file", or "causal, with cells set by
/// --set" for a what-if's mask.
std::string mask_name(const Trace& trace);

/// A token quoted for prose: 'book'.
std::string quoted(const std::string& token);

// Helpers for the prose of lesson.cpp, explanations.cpp and narrative.cpp.

/// A token's vector is a "row" of X, Q, K, V, A, ... or, in the column layout, a "column";
/// the other axis is the dimensions' (or, in A, the keys').
struct Axis {
    bool columns = false;
    [[nodiscard]] std::string_view one() const { return columns ? "column" : "row"; }
    [[nodiscard]] std::string_view One() const { return columns ? "Column" : "Row"; }
    [[nodiscard]] std::string_view many() const { return columns ? "columns" : "rows"; }
    [[nodiscard]] std::string_view Many() const { return columns ? "Columns" : "Rows"; }
    /// The other axis: "column" in the row layout, "row" in the column layout.
    [[nodiscard]] std::string_view other() const { return columns ? "row" : "column"; }
    [[nodiscard]] std::string_view others() const { return columns ? "rows" : "columns"; }
};

/// Where a weight matrix of the run (`part`: W_Q, W_K, W_V or W_O) came from, as its
/// explanation's last sentence: "In a trained model it is learned; here it is read from FILE."
/// When the file is a model that attn train made (its "training"), whether this matrix is one it
/// learned or a seeded one it kept (matrix_origin.cpp).
std::string matrix_origin(const Trace& t, std::string_view part);
/// For a part (W_Q, ..., "embeddings", "positions") this run reads from a model file that attn
/// train made: "Here it was learned: attn train T trained it (N steps from seed S), and F holds
/// the result." or "Here it is read from F, where attn train T kept it as seeded: it trained
/// ... only." (they/them for embeddings and positions); else "".
std::string training_origin(const Trace& t, std::string_view part);

/// "0, 4 and 9"; a long list is cut: "0, 229, 245, 261, 551, … (14 in all)".
std::string join_indices(const std::vector<std::size_t>& indices);
/// "a, b and c"; past six items: "a, b, c, d, e and 12 more".
std::string join_list(const std::vector<std::string>& items);
/// Whether every sum in `sums` is 1 (to the last few bits), leaving out the indices in `skip`
/// (queries with every key masked, which have no weights).
bool all_one(const std::vector<double>& sums, const std::vector<std::size_t>& skip);
/// Whether every token of `group` has the same text.
bool same_text(const Trace& trace, const std::vector<std::size_t>& group);
/// Whether `groups` has `group`.
bool contains(const std::vector<std::vector<std::size_t>>& groups,
              const std::vector<std::size_t>& group);

}  // namespace attn::lesson
