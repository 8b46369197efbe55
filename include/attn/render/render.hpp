#pragma once
/// Renderers: pure functions of a Trace. Each output format is one source file in src/render/.

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/cell.hpp"
#include "attn/core/check.hpp"
#include "attn/core/trace.hpp"
#include "attn/core/train.hpp"

namespace attn {

/// The terminal's background, as far as attn knows (--theme, or $COLORFGBG): the colours
/// are chosen to be readable on it, and on both kinds when it is unknown.
enum class Theme { unknown, light, dark };

/// How the terminal walk-through looks.
struct TextStyle {
    int precision = 4;               ///< digits after the decimal point
    std::size_t width = 80;          ///< columns available; wider matrices are split or elided
    bool unicode = true;             ///< false: ASCII only (-inf, sqrt, ->, ...)
    bool color = false;              ///< ANSI colours and the attention heatmap
    int color_depth = 256;           ///< 256 colours, or 24 for 24-bit colour (COLORTERM=truecolor)
    Theme theme = Theme::unknown;    ///< the background the colours must be readable on
    bool explanations = true;        ///< false: headings, formulas and matrices only
    std::vector<std::string> steps;  ///< ids of the steps to show; empty: all
    /// Per-head steps (ids without "headN.", e.g. "weights") shown for every head at once: the
    /// heads' matrices side by side or stacked. --steps fills it when a step is named without
    /// a head in a run of several heads.
    std::vector<std::string> heads_together;
    std::size_t head = 0;         ///< show this head (1-based) in full, the others in brief; 0: all
    Layout layout = Layout::row;  ///< col: the column layout of the by-hand exercises
    std::size_t max_rows = 24;    ///< more rows than this are elided to the first and last 10
    /// false: --why writes each sentence on one line, for a reader that wraps it itself (the
    /// HTML page's tooltips); its worked arithmetic still breaks at the width
    bool wrap_sentences = true;
};

/// Receives an output piece by piece, so that a large one is never held whole.
using Sink = std::function<void(std::string_view)>;

/// The header of the walk-through: sentence, sizes, where the numbers came from.
std::string render_summary(const Trace& trace, const TextStyle& style);

/// One piece of the walk-through: the header (title empty), or one step with its title.
struct TextPage {
    std::string title;   ///< e.g. "5 · Scores S"
    std::string number;  ///< the step's number, e.g. "5" or "3a"; empty for the header
    std::string text;
};

/// The walk-through in pieces, for --present: the header first, then one page per step.
std::vector<TextPage> render_text_pages(const Trace& trace, const TextStyle& style);

/// One screen of the presenter (--present).
struct ScreenView {
    std::size_t page = 0;    ///< into render_text_pages(): 0 the overview, then the steps
    std::size_t scroll = 0;  ///< lines of the page scrolled past below its heading
    std::size_t rows = 24;   ///< the terminal's size
    std::size_t cols = 80;
    bool help = false;     ///< the keys instead of the page
    std::string prompt{};  ///< shown in the footer while a step number is typed ("go to step: 1")
    std::string note{};    ///< shown in the footer for one screen ("no step 12: ...")
};

/// The presenter's screen: exactly view.rows lines, none wider than view.cols columns: the
/// page's heading on the first line, its body from view.scroll, and on the last line where
/// the lesson is ("step 3 of 9"), the next step's title and the keys.
std::vector<std::string> render_screen(const std::vector<TextPage>& pages, const ScreenView& view,
                                       const TextStyle& style);

/// How many lines `page`'s body can scroll on a screen of `rows` lines (0 when it fits).
std::size_t screen_scroll_limit(const TextPage& page, std::size_t rows);

/// The whole walk-through as text, in teaching order.
std::string render_text(const Trace& trace, const TextStyle& style);
/// The same text written to `sink` a step at a time, never held whole.
void render_text(const Trace& trace, const TextStyle& style, const Sink& sink);

/// The walk-through as Markdown (--format markdown): headings, formulas and tables.
std::string render_markdown(const Trace& trace, const TextStyle& style);
/// The same Markdown written to `sink` in pieces of about 64 KiB.
void render_markdown(const Trace& trace, const TextStyle& style, const Sink& sink);

/// The walk-through as a LaTeX document (--format latex), one bmatrix per step.
std::string render_latex(const Trace& trace, const TextStyle& style);
/// The same document written to `sink` in pieces of about 64 KiB.
void render_latex(const Trace& trace, const TextStyle& style, const Sink& sink);

/// The whole walk-through as one self-contained HTML page (--html): heatmap tables, the
/// explanations, hover and focus interaction, the worked arithmetic of each cell; no network.
std::string render_html(const Trace& trace, const TextStyle& style);
/// The same page written to `sink` in pieces of about 64 KiB: a page of 1,000 tokens is
/// hundreds of MiB, which --max-memory may not allow to be held.
void render_html(const Trace& trace, const TextStyle& style, const Sink& sink);

/// Every step's matrix as numpy arrays in one .npz (a stored zip of .npy files), named by step
/// id: doubles ('<f8'), the mask as booleans, and for a GPT-2 checkpoint token_ids ('<i8').
/// Throws attn::Error (usage) past the zip format's limits without zip64 (4 GiB, 65535 files).
std::string render_npz(const Trace& trace);
/// The same archive written to `sink` an array and a row at a time, never held whole.
void render_npz(const Trace& trace, const Sink& sink);

/// The attention weights as a standalone SVG heatmap (--svg), one panel per head.
std::string render_svg(const Trace& trace);
/// The same SVG written to `sink` in pieces of about 64 KiB.
void render_svg(const Trace& trace, const Sink& sink);

/// Writes the JSON dump of `trace` (format: docs/json-format.md) to `sink`.
void render_json(const Trace& trace, const Sink& sink);

/// The JSON dump as one string (for tests and small traces).
std::string render_json(const Trace& trace);

/// A starter model file for `attn init`: JSON with // comments that explain each part, the
/// input's numbers filled in (each distinct token once), ready to edit and to read back with
/// --model. `command` is the command line that made it, quoted in the header comment.
std::string render_model_file(const Input& input, const Config& config, std::string_view command);

/// The worked arithmetic behind one cell (--why): the computation term by term with the
/// trace's own numbers, e.g. "S[is, book] = q_is · k_book = 0.12·(-0.40) + ... = 1.234".
std::string render_why(const Trace& trace, const CellRef& cell, const TextStyle& style);

/// Warnings about a trace's numbers (a row with every key masked), one sentence each, for
/// stderr; the text and JSON outputs carry them too.
std::vector<std::string> trace_warnings(const Trace& trace);

/// The most significant digits attn prints of a number: a double holds 15 to 17, and past the
/// 15th they are the rounding of the computation, not the number's (−7.116554649999999 for
/// the exact −7.11655465).
inline constexpr int significant_digits = 15;

/// A number as the text walk-through prints it: fixed `precision` digits (fewer where more
/// would pass significant_digits), no "-0.0000", and "−∞" / "-inf" for a masked cell.
std::string format_number(double value, int precision, bool unicode);

/// A variance as the walk-through prints it: format_number of its value; in scientific
/// notation when it is too small for the precision but not 0 ("3.2000e-09", not "0.0000"),
/// and past the range of a double with an exponent beyond it ("1.0000e+400", good to about 12
/// significant digits), since a variance of finite numbers is finite.
std::string format_number(const Variance& value, int precision, bool unicode);

/// The fewest decimals a sentence or a worked arithmetic line quotes a number with, whatever
/// --precision the tables use: with 0 or 1, "3 / 2 = 2" is no arithmetic a student can check,
/// and with 2, e^(0.04 − 0.28) = 0.78 rounds differently from its own rounded inputs.
inline constexpr int prose_digits = 4;

/// Whether x is a whole number that prints exactly without decimals.
bool is_whole(double x) noexcept;

/// format_number, but a whole number without decimals ("12", not "12.0000"), as the worked
/// arithmetic and the worksheets print the integer examples.
std::string format_tidy(double value, int precision, bool unicode);

/// How the table of a matrix step writes its numbers, decided here once for the terminal,
/// Markdown, LaTeX and HTML: a matrix of whole numbers without decimals (the integer
/// examples, --arith hand); in scientific notation when some entry is not 0 but every one
/// prints as 0 at the precision and at prose_digits (Q of 1e-200 is not a table of 0.0000, as
/// 1e+200 is not one of digits); otherwise `precision` decimals, but never more than make
/// significant_digits significant digits of the table's largest entry (format_number).
/// `capped` says that precision was cut.
struct TableNumbers {
    int precision = 4;
    bool scientific = false;
    bool capped = false;
    [[nodiscard]] std::string format(double value, bool unicode) const;
};
TableNumbers table_numbers(const Step& step, int precision);

/// format_tidy, but a number too small for the precision and not 0 in scientific notation
/// ("2.0000e-13", not "0.0000"), so that worked arithmetic stays checkable: 1e-12 · 1e-12 is
/// not 0.0000 · 0.0000.
std::string format_checkable(double value, int precision, bool unicode);

/// attn's own Unicode glyphs spelled in ASCII: "·" → "*", "ᵀ" → "^T", "√" → "sqrt",
/// "−∞" → "-inf"... (for attn's prose; formulas have their own ASCII notation).
std::string to_ascii(std::string_view text);

// attn train's report and files (src/render/training.cpp)

/// Before training: the task in a sentence (from its showcase example), the examples, the
/// model's sizes, what is trained and what keeps its seeded numbers, the steps and η.
std::string render_training_plan(const TaskData& data, const TrainSettings& settings);
/// The progress line of one step: "  step 120/600  loss 0.0312".
std::string render_training_progress(const Progress& progress);
/// After training: the loss sparkline with its range, the held-out accuracy and focus, and
/// where the showcase sentence's graded token attends under the trained parameters
/// (`showcase`: forward() of showcase_example(data) with them).
std::string render_training_result(const TaskData& data, const TrainSettings& settings,
                                   const TrainResult& result, const Trace& showcase);
/// `values` as at most `columns` marks (▁ to █, or _.-~=+*# in ASCII), each the mean of its
/// share of the values, scaled from the lowest mark to the highest.
std::string render_sparkline(std::span<const double> values, std::size_t columns, bool unicode);
/// The model file's description: the task, seed, steps, η, what was trained, the held-out
/// accuracy, and where the showcase's graded token attends (`showcase` as above).
std::string training_description(const TaskData& data, const TrainSettings& settings,
                                 const TrainResult& result, const Trace& showcase);
/// The loss curve as an SVG line plot (--svg); with `scaled` (attn train --no-scale), that
/// run's curve beside it, with a legend.
std::string render_loss_svg(const TaskData& data, const TrainResult& result,
                            const TrainResult* scaled = nullptr);
/// attn train --no-scale: the run without scaling (`unscaled`, as `settings` say) beside the
/// same run with the scores divided by √d_k: both sparklines on one scale, the loss a quarter
/// of the way, half way and at the end, the held-out accuracies, and what that shows here.
std::string render_scaling_comparison(const TrainSettings& settings, const TrainResult& unscaled,
                                      const TrainResult& scaled);

/// One worked example for `attn examples`: its name, its description and the command that
/// runs it.
struct ExampleEntry {
    std::string name;
    std::string description;  ///< from the file: shown safely
    std::string command;      ///< "attn explain --model NAME"
    std::string made_by;      ///< a learned example's attn train command (its "training"), or ""
};

/// The list of worked examples in `dir`, each description wrapped to the style's width.
std::string render_examples(std::string_view dir, const std::vector<ExampleEntry>& examples,
                            const TextStyle& style);

/// A printable worksheet in Markdown: the given steps filled in, the `blank` steps' cells left
/// empty (or filled in, for the answer key).
std::string render_worksheet(const Trace& trace, const std::vector<std::string>& blank,
                             bool answer_key, const TextStyle& style);
/// The same worksheet written to `sink` in pieces of about 64 KiB: its tables grow with the
/// square of the sentence.
void render_worksheet(const Trace& trace, const std::vector<std::string>& blank, bool answer_key,
                      const TextStyle& style, const Sink& sink);

/// The same worksheet (or answer key) as a printable HTML page.
std::string render_worksheet_html(const Trace& trace, const std::vector<std::string>& blank,
                                  bool answer_key, const TextStyle& style);
/// The same page written to `sink` in pieces of about 64 KiB.
void render_worksheet_html(const Trace& trace, const std::vector<std::string>& blank,
                           bool answer_key, const TextStyle& style, const Sink& sink);

/// What the hand rules do to scores that are not whole numbers, when `trace` is by hand and
/// its scores are not whole (scores_whole): "⌊S / 2⌋ drops their fractions (...), so the hand
/// weights are as much as 0.4167 away from the exact ones (softmax with e^x of S / √3)", the
/// numbers this trace's. Empty otherwise. The worksheet's caveat and attn worksheet's warning.
std::string hand_rules_misfit(const Trace& trace);

/// The answers template: the worksheet's settings (and the numbers a file gave it) and a
/// null for every blank cell, each step's cells as `layout` shows them.
std::string render_answers_template(const Trace& trace, const std::vector<std::string>& blank,
                                    Layout layout = Layout::row);
/// About how many bytes render_answers_template takes while it builds the template (its
/// tree of values and its text), to check against --max-memory first.
std::size_t answers_template_bytes(const Trace& trace, const std::vector<std::string>& blank);

/// The report of attn check, for people.
std::string render_check_report(const Trace& trace, const std::vector<StepVerdict>& verdicts,
                                const Tolerance& tolerance, const TextStyle& style);
/// The same report written to `sink` in pieces of about 64 KiB, never held whole.
void render_check_report(const Trace& trace, const std::vector<StepVerdict>& verdicts,
                         const Tolerance& tolerance, const TextStyle& style, const Sink& sink);

}  // namespace attn
