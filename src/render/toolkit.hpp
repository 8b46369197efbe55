#pragma once
// The renderers' shared toolkit: escaping for each format, word wrap, headings, the heatmap
// palette, elision, and the steps a style shows. One implementation of each, for every format.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/trace.hpp"
#include "attn/render/render.hpp"

namespace attn::toolkit {

// ---- Escaping. Every string that did not come from attn itself (a token, a file name, a
// description) goes through the function of the format it is written in.

/// For a terminal or a plain-text file: control and invisible characters made visible
/// (attn::shown): no input can move the cursor, clear the screen or set the clipboard.
std::string terminal(std::string_view text);

/// A row or column label as a cell names it: "the#3" when the label is repeated among
/// `labels` (as --why takes it and the walk-through writes V[the#3]), else the label itself.
/// Raw text: escape it for its format.
std::string cell_label(std::span<const std::string> labels, std::size_t i);

/// For XML and HTML text and attribute values: & < > " ' as entities, and the characters
/// XML 1.0 forbids (C0 controls but tab and newline, and the like) made visible.
std::string xml(std::string_view text);

/// For HTML text: xml(), with no-break spaces as &nbsp;.
std::string html(std::string_view text);

/// For LaTeX text mode: its special characters escaped, attn's glyphs set as math, control
/// characters made visible.
std::string latex_text(std::string_view text);

/// For Markdown text: characters that would start emphasis, strikethrough, code, links,
/// images, tables, raw HTML or a character reference (| * _ ` \\ < [ ] ~ &) escaped with a
/// backslash, control characters made visible.
std::string markdown(std::string_view text);

/// One of the escapes above (or a format's own), for the helpers that write user text.
using Escape = std::string (*)(std::string_view);

/// attn's own glyphs in ASCII, for --ascii: "·" → "*", "√d_k" → "sqrt(d_k)", "−∞" → "-inf".
/// Only for attn's own prose: formulas are written by notation::formula, tokens never change.
std::string to_ascii(std::string_view text);

// ---- Layout

/// The columns `text` takes on a terminal.
std::size_t width_of(std::string_view text);

/// `text` broken at spaces into lines of at most `width` columns, the first line `first`
/// columns narrower and the others `rest` columns narrower (for the indents the caller adds).
/// A word longer than a line gets a line of its own. No-break spaces (U+00A0) hold words
/// together; they are returned as they are.
std::vector<std::string> wrap(std::string_view text, std::size_t width, std::size_t first = 0,
                              std::size_t rest = 0);

/// Every line of `text` wrapped at `width`, its continuation lines indented two columns more
/// than the line itself.
std::vector<std::string> wrap_lines(std::string_view text, std::size_t width);

/// "━━ title ━━━━━━" across `width` columns ("== title =====" in ASCII); a title too long
/// for one line is wrapped onto more, each under the first, the rule after the last.
std::vector<std::string> heading_rule(std::string_view title, std::size_t width, bool unicode);

/// `s` repeated n times.
std::string repeat(std::string_view s, std::size_t n);

/// `s` padded with spaces to `width` columns, on the left (numbers) or the right (labels).
std::string pad_left(std::string_view s, std::size_t width);
std::string pad_right(std::string_view s, std::size_t width);

/// `s` cut to at most `width` columns, ending with … (~ in ASCII) when cut.
std::string truncate(std::string_view s, std::size_t width, bool unicode);

/// The columns a line of the terminal walk-through takes: width_of(), its colour codes
/// (ESC [ ... m, which attn adds itself) taking none.
std::size_t painted_width(std::string_view line);

/// A line of the terminal walk-through, colour codes and all, cut to at most `width` columns,
/// ending with … (~ in ASCII) and its colour reset when cut.
std::string clip_painted(std::string_view line, std::size_t width, bool unicode);

/// A what-if's or attn diff's: the same step of the run compared with, or nullptr.
const Step* before_of(const Trace& trace, const Step& step);

/// Whether cell (r, c) of `step` differs from the run compared with (`before`, from
/// before_of; false when there is none): the cells a what-if marks *.
bool changed(const Step& step, const Step* before, std::size_t r, std::size_t c);

/// The indices 0..n-1 to show, with nullopt standing for the elided middle when n is more
/// than head + tail + 1: the first `head` and the last `tail`.
std::vector<std::optional<std::size_t>> shown_indices(std::size_t n, std::size_t head,
                                                      std::size_t tail);

// ---- Colour (palette.cpp): every colour decision of the terminal, the HTML page and the SVG

struct Rgb {
    int r = 0;
    int g = 0;
    int b = 0;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// The heatmap's colour for an attention weight: white (0) to deep blue (1), one hue (mixing
/// white into #08306b changes its lightness, not its hue). The HTML page, the SVG and the
/// terminal in 24-bit colour.
Rgb heat(double weight);

/// Whether text on heat(weight) should be white rather than black: whichever contrasts more.
bool light_text_on(double weight);

/// The relative luminance of a colour (WCAG 2: sRGB linearised, 0 black to 1 white).
double luminance(Rgb colour);

/// The contrast ratio of two colours (WCAG 2: from 1 to 21; 4.5 is enough for text).
double contrast(Rgb a, Rgb b);

/// The RGB of colour `index` (16 to 255) of the 256-colour palette (xterm's values).
Rgb palette_rgb(int index);

/// The heatmap's ramp in 256 colours, lightest first: white, then the palette's blues with
/// red = green (one hue, 240°, lightness only) down to #00005f.
const std::vector<int>& heat_ramp_256();

/// The SGR parameters ("48;5;189;38;5;16") of a heatmap cell for `weight` (0 to 1): its
/// background on heat_ramp_256() (`depth` 256) or heat() (24), lightest at 0 on a light or
/// unknown background and at 1 on a dark one (--theme); black or white text, whichever
/// contrasts more with it.
std::string heat_sgr(double weight, int depth, Theme theme);

/// The SGR parameters of the formula lines: a blue with a contrast of at least 4.5 to the
/// theme's background, and to both white and black when the theme is unknown.
std::string formula_sgr(Theme theme);

// ---- Steps

/// The tokens with their indices, "0: This, 1: is, 2: book", each through `escape`.
std::string numbered_tokens(const std::vector<std::string>& tokens, Escape escape);

/// The steps to show, in teaching order: those of `ids` (all when empty), in `layout`.
std::vector<const Step*> visible_steps(const Trace& trace, const std::vector<std::string>& ids,
                                       Layout layout = Layout::row);

/// An output built with += as a string is, handed to a Sink in pieces of about 64 KiB rather
/// than held whole (render_html, render_svg); flush() hands over the rest.
class Spool {
  public:
    explicit Spool(const Sink& sink) : sink_(sink) { buffer_.reserve(piece + piece / 4); }
    Spool(const Spool&) = delete;
    Spool& operator=(const Spool&) = delete;
    Spool(Spool&&) = delete;
    Spool& operator=(Spool&&) = delete;
    ~Spool() = default;

    Spool& operator+=(std::string_view text) {
        buffer_ += text;
        if (buffer_.size() >= piece) {
            flush();
        }
        return *this;
    }
    void flush() {
        if (!buffer_.empty()) {
            sink_(buffer_);
            buffer_.clear();
        }
    }

  private:
    static constexpr std::size_t piece = std::size_t{1} << 16U;
    const Sink& sink_;
    std::string buffer_;
};

/// What `render` writes to a sink, as one string.
// The number a reader takes from `x` shown at `decimals` (format_checkable).
double as_shown(double x, int decimals);

// The decimals at which worked arithmetic shows its operands so that a reader who computes
// `f` from them, as shown, gets `result` as it is shown (at `result_decimals`): `decimals`
// when they are enough, more where rounding the operands would change the result's last digit
// ("-0.53513 / 1.73205 = -0.3090", since -0.5351 / 1.7321 gives -0.3089), up to
// max_operand_decimals.
inline constexpr int max_operand_decimals = 17;
// The same, the result written by `format` (a number → its text), `want` as it is shown.
template <typename F, typename Format>
int operand_decimals(std::span<const double> operands, const std::string& want, int decimals, F f,
                     Format format) {
    std::vector<double> shown(operands.size());
    for (; decimals < max_operand_decimals; ++decimals) {
        for (std::size_t k = 0; k < operands.size(); ++k) {
            shown[k] = as_shown(operands[k], decimals);
        }
        if (format(f(shown)) == want) {
            break;
        }
    }
    return decimals;
}
// Whether `x` lies halfway between two numbers of `decimals` decimals, as far as a double can
// tell (2.55035 at 4): a reader rounds it up, a double may round it down, so operands that
// give it do not show the result.
bool halfway(double x, int decimals);
template <typename F>
int operand_decimals(std::span<const double> operands, double result, int result_decimals,
                     int decimals, F f) {
    const auto format = [result_decimals](double x) {
        return format_checkable(x, result_decimals, false);
    };
    const std::string want = format(result);
    return operand_decimals(operands, want, decimals, f, [&format, result_decimals](double x) {
        return halfway(x, result_decimals) ? std::string() : format(x);
    });
}

template <typename Render>
std::string collect(Render render) {
    std::string out;
    render([&out](std::string_view piece) { out += piece; });
    return out;
}

}  // namespace attn::toolkit
