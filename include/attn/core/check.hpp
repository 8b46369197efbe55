#pragma once
/// Answer checking: a student's answers against the right values, and the likely mistakes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/core/input.hpp"
#include "attn/core/model.hpp"
#include "attn/core/trace.hpp"

namespace attn {

/// One student answer: a number, −∞ (written "-inf"), or left blank (null).
struct Answer {
    enum class Kind { blank, number, minus_infinity } kind = Kind::blank;
    double value = 0.0;
};

/// What a worksheet was made from, as its answers file records it: the sentence and the
/// seed and sizes that seed its numbers, or the numbers themselves (a model's embeddings and
/// weights, or Q, K and V), written into the answers file so that it stays checkable when
/// the file they came from is gone or changed (docs/design.md, "Worksheets").
struct WorksheetSettings {
    std::string sentence;
    std::uint64_t seed = 42;
    std::size_t d_model = 4;
    std::size_t d_k = 3;
    std::size_t d_v = 3;
    MaskKind mask = MaskKind::none;
    Arith arith = Arith::exact;
    TokenizerOptions tokenizer;
    /// The layout the worksheet shows and the answers' cells follow: with col, a step's
    /// answer is the matrix transposed (tokens are columns).
    Layout layout = Layout::row;
    std::optional<ModelFile> model;  ///< the embeddings (X's rows) and weights; no seed or sizes
    std::optional<QkvFile> qkv;      ///< Q, K and V given; no seed, sizes or embeddings
};

/// A student's filled-in answers file (schema attn.answers).
struct AnswerSheet {
    std::string path;
    WorksheetSettings worksheet;                            ///< what the worksheet was made from
    std::vector<std::string> step_ids;                      ///< the answered steps, in file order
    std::vector<std::vector<std::vector<Answer>>> answers;  ///< per step: rows of cells
};

/// One wrong (or blank) cell.
struct WrongCell {
    std::size_t row = 0;
    std::size_t col = 0;
    Answer given;
    double expected = 0.0;
};

/// The mistakes attn check recognises, each by recomputing the step with the mistake made.
enum class Mistake {
    none,
    swapped_scores,        ///< K · Qᵀ instead of Q · Kᵀ
    k_not_transposed,      ///< the scores are d_k × d_k (Qᵀ · K), not T × T
    masked_not_infinite,   ///< a masked score written as a number, not −∞
    not_scaled,            ///< the scaled scores are the scores
    softmax_of_unscaled,   ///< the weights are the softmax of the unscaled scores
    softmax_over_columns,  ///< each column sums to 1 instead of each row
    mask_not_applied,      ///< the weights ignore the mask
    e_instead_of_3,        ///< by hand, e^x used in place of 3^x
    columns_of_weights,    ///< Aᵀ · V instead of A · V
    softmax_over_all,      ///< one softmax over the whole matrix instead of each row
    scaled_by_d_model,     ///< divided by √d_model instead of √d_k; the last: tables indexed
                           ///< by Mistake have mistake_count rows
};

/// How many kinds of Mistake there are.
inline constexpr std::size_t mistake_count =
    static_cast<std::size_t>(Mistake::scaled_by_d_model) + 1;

/// How far an answer may be from the right value: within `absolute`, or within `relative`
/// times the right value's size, whichever allows more; and always within `rounding` times
/// it, the rounding of doubles (so --tolerance 0 means exact up to that).
struct Tolerance {
    static constexpr double rounding = 1e-9;
    double absolute = 0.05;
    double relative = 0.0;
    [[nodiscard]] bool allows(double given, double expected) const noexcept;
};

/// The verdict on one answered step.
struct StepVerdict {
    std::string step_id;
    std::size_t n_cells = 0;
    std::vector<WrongCell> wrong;  ///< wrong or blank cells
    /// The shape of the answer, when it is not the step's.
    std::optional<std::pair<std::size_t, std::size_t>> wrong_shape;
    Mistake mistake = Mistake::none;  ///< the likely mistake, when one is recognised
    /// Cells that hold the right value of their mirror cell (j, i): transposed one by one.
    std::vector<std::pair<std::size_t, std::size_t>> swapped_cells;
    /// Cells that hold the whole-number value of their mirror cell while the mirror holds its
    /// own: perhaps transposed, perhaps chance (small whole numbers repeat), said as such.
    std::vector<std::pair<std::size_t, std::size_t>> maybe_swapped_cells;
    /// The step whose answers this step was recomputed from, when the student answered it
    /// wrongly and this step follows from those wrong answers correctly: "only the scores are
    /// wrong". Empty otherwise.
    std::string follows_from;
    /// When only some wrong cells follow from the student's own answers to an earlier step
    /// (follows_from is then empty): those cells, and that step. A causal mask's open cells
    /// copied from a wrong S′ follow from it; its blocked cells written as numbers do not.
    std::vector<std::pair<std::size_t, std::size_t>> own_cells;
    std::string own_from;
    /// A mistake the answers show although no cell is outside the tolerance: by hand, e^x in
    /// place of 3^x gives weights that may differ by less than the tolerance. Named when the
    /// answers are at least twice as near the mistake's values as the right ones (the
    /// largest difference over the answered cells); Mistake::none otherwise.
    Mistake within_tolerance = Mistake::none;
    /// With within_tolerance: the largest difference of the answers from the mistake's values
    /// and from the right ones.
    double mistake_distance = 0.0;
    double right_distance = 0.0;

    /// Whether some answer given is wrong (a wrong shape, or a wrong cell that is not blank):
    /// blanks alone are missing answers, not mistakes.
    [[nodiscard]] bool answered_wrong() const {
        return wrong_shape.has_value() ||
               std::any_of(wrong.begin(), wrong.end(),
                           [](const WrongCell& w) { return w.given.kind != Answer::Kind::blank; });
    }
};

/// Checks `sheet` against `trace` (made from sheet.worksheet), each step twice: against the
/// right values, and against the values that follow from the student's own answers to the
/// steps before it.
std::vector<StepVerdict> check_answers(const Trace& trace, const AnswerSheet& sheet,
                                       const Tolerance& tolerance);

/// About how many bytes check_answers takes for `sheet` beyond the trace and the sheet: every
/// answered cell may be wrong (a WrongCell each, in a vector that grows by doubling, and
/// perhaps a swapped pair), and diagnosing a step recomputes it a few ways (a few matrices
/// of its size at once). Checked against --max-memory before checking.
std::size_t check_bytes(const Trace& trace, const AnswerSheet& sheet);

/// The steps that `id` is computed from, nearest first: scores from Q and K, weights from the
/// masked or scaled scores, ... (one head's steps; ids as in the worksheet).
std::vector<std::string> inputs_of(const Trace& trace, const std::string& id);

/// The ids a worksheet leaves blank by default: everything computed (not Q, K and V when
/// they are given).
std::vector<std::string> default_blank_steps(const Trace& trace);

}  // namespace attn
