#pragma once
/// Renderers: pure functions of a Trace. Each output format is one source file in src/render/.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/cell.hpp"
#include "attn/core/check.hpp"
#include "attn/core/trace.hpp"

namespace attn {

/// How the terminal walk-through looks.
struct TextStyle {
    int precision = 4;               ///< digits after the decimal point
    std::size_t width = 80;          ///< columns available; wider matrices are split or elided
    bool unicode = true;             ///< false: ASCII only (-inf, sqrt, ->, ...)
    bool color = false;              ///< ANSI colours and the attention heatmap
    int color_depth = 256;           ///< 256 colours, or 24 for 24-bit colour (COLORTERM=truecolor)
    bool explanations = true;        ///< false: headings, formulas and matrices only
    std::vector<std::string> steps;  ///< ids of the steps to show; empty: all
    std::size_t head = 0;         ///< show this head (1-based) in full, the others in brief; 0: all
    Layout layout = Layout::row;  ///< col: the column layout of the by-hand exercises
    std::size_t max_rows = 24;    ///< more rows than this are elided to the first and last 10
};

/// The header of the walk-through: sentence, sizes, where the numbers came from.
std::string render_summary(const Trace& trace, const TextStyle& style);

/// One piece of the walk-through: the header (title empty), or one step with its title.
struct TextPage {
    std::string title;  ///< e.g. "5 · Scores S"
    std::string text;
};

/// The walk-through in pieces, for --pause: the header first, then one page per step.
std::vector<TextPage> render_text_pages(const Trace& trace, const TextStyle& style);

/// The whole walk-through as text, in teaching order.
std::string render_text(const Trace& trace, const TextStyle& style);

/// The walk-through as Markdown (--format markdown): headings, formulas and tables.
std::string render_markdown(const Trace& trace, const TextStyle& style);

/// The walk-through as a LaTeX document (--format latex), one bmatrix per step.
std::string render_latex(const Trace& trace, const TextStyle& style);

/// Receives an output piece by piece, so that a large one is never held whole.
using Sink = std::function<void(std::string_view)>;

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

/// A number as the text walk-through prints it: fixed `precision` digits, no "-0.0000",
/// and "−∞" / "-inf" for a masked cell.
std::string format_number(double value, int precision, bool unicode);

/// Whether x is a whole number that prints exactly without decimals.
bool is_whole(double x) noexcept;

/// format_number, but a whole number without decimals ("12", not "12.0000"), as the worked
/// arithmetic and the worksheets print the integer examples.
std::string format_tidy(double value, int precision, bool unicode);

/// format_tidy, but a number too small for `precision` in scientific notation ("1.2000e-06"),
/// so that a small product or change is never shown as 0: the worked arithmetic and the
/// sizes of a what-if's changes.
std::string format_visible(double value, int precision, bool unicode);

/// attn's own Unicode glyphs spelled in ASCII: "·" → "*", "ᵀ" → "^T", "√" → "sqrt",
/// "−∞" → "-inf"... (for attn's prose; formulas have their own ASCII notation).
std::string to_ascii(std::string_view text);

/// One worked example for `attn examples`: its name, its description and the command that
/// runs it.
struct ExampleEntry {
    std::string name;
    std::string description;  ///< from the file: shown safely
    std::string command;      ///< "attn explain --model NAME"
};

/// The list of worked examples in `dir`, each description wrapped to the style's width.
std::string render_examples(std::string_view dir, const std::vector<ExampleEntry>& examples,
                            const TextStyle& style);

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
                                const Tolerance& tolerance, const TextStyle& style);

}  // namespace attn
