#pragma once
/// Worksheets and answer checking: exercises done by hand, checked by attn.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/model_file.hpp"
#include "attn/render.hpp"
#include "attn/trace.hpp"

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

/// Reads an answers file. Throws attn::Error (input) with the place for a malformed one.
AnswerSheet read_answers(const std::string& path);

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

/// A printable worksheet in Markdown: the given steps filled in, the `blank` steps' cells left
/// empty (or filled in, for the answer key).
std::string render_worksheet(const Trace& trace, const std::vector<std::string>& blank,
                             bool answer_key, const TextStyle& style);

/// The same worksheet (or answer key) as a printable HTML page.
std::string render_worksheet_html(const Trace& trace, const std::vector<std::string>& blank,
                                  bool answer_key, const TextStyle& style);

/// The answers template: the worksheet's settings and a null for every blank cell.
std::string render_answers_template(const Trace& trace, const std::vector<std::string>& blank);

/// The report of attn check, for people.
std::string render_check_report(const Trace& trace, const std::vector<StepVerdict>& verdicts,
                                double tolerance, const TextStyle& style);

}  // namespace attn
