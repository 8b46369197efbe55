#pragma once
/// Answer checking: a student's answers against the right values, and the likely mistakes.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/core/input.hpp"
#include "attn/core/trace.hpp"

namespace attn {

/// One student answer: a number, −∞ (written "-inf"), or left blank (null).
struct Answer {
    enum class Kind { blank, number, minus_infinity } kind = Kind::blank;
    double value = 0.0;
};

/// A student's filled-in answers file (schema attn.answers).
struct AnswerSheet {
    std::string path;
    InputSpec worksheet;  ///< what the worksheet was made from: sentence, seed, sizes, rules
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

/// The verdict on one answered step.
struct StepVerdict {
    std::string step_id;
    std::string title;  ///< "6 · Scaled scores S′"
    std::size_t n_cells = 0;
    std::vector<WrongCell> wrong;  ///< wrong or blank cells
    std::string shape_problem;     ///< set when the answer has the wrong shape
    std::string diagnosis;         ///< the likely mistake, when one is recognised
};

/// Checks `sheet` against `trace` (made from sheet.worksheet). `tolerance` is absolute.
std::vector<StepVerdict> check_answers(const Trace& trace, const AnswerSheet& sheet,
                                       double tolerance);

/// The ids a worksheet leaves blank by default: everything computed.
std::vector<std::string> default_blank_steps(const Trace& trace);

}  // namespace attn
