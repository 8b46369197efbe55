#pragma once
// What the HTML page's parts share (html.cpp, html_heatmap.cpp): its colours, JSON safe in a
// <script> block, and the compact heatmap of a long input's T × T steps.

#include <cstddef>
#include <string>

#include "attn/core/trace.hpp"
#include "attn/render/render.hpp"
#include "toolkit.hpp"

namespace attn::report {

/// The background of a mask's "may attend" cell, and of a blocked (or −∞) cell.
inline constexpr toolkit::Rgb allowed_background{223, 232, 245};
inline constexpr toolkit::Rgb blocked_background{238, 238, 238};

/// A cell's background: an attention weight on the heat ramp (white to deep blue); another
/// number blue when positive, red when negative, as strong as v against `scale` (the largest
/// size in its matrix).
toolkit::Rgb cell_background(double v, double scale, bool weights);

/// The most tokens the views of every head together (the grid of heatmaps, the lines view)
/// are drawn for: beyond, too many cells and lines to take in.
inline constexpr std::size_t heads_views_up_to = 40;

/// JSON text made safe for a <script type="application/json"> block (html.cpp).
std::string script_safe(const std::string& json);

/// Whether `step` is drawn as a compact heatmap rather than a table: a T × T step of a
/// sentence of more than 40 tokens.
bool compact(const Trace& trace, const Step& step);

/// The compact heatmap of `step`: a note, the canvas the page's script draws, and its data
/// (each cell's palette level, the palette, every value as a double, the labels).
/// Written to `out` as it is made (a 1,000-token step's values are 8 MB: never held whole).
/// With `before` (a what-if's or attn diff's same step, of the same shape), the cells that
/// differ are tinted and their values there shown on hover, as the tables outline them.
void heatmap(toolkit::Spool& out, const Step& step, const TextStyle& style,
             const Step* before = nullptr);

/// The lines view (html_lines.cpp): from the query token hovered or focused, a line to every
/// key it gives a nonzero weight, as thick as the weight, one colour per head; its words and
/// its data (drawn by report.js). Beyond `heads_views_up_to` tokens, a note why it is absent.
void lines_view(toolkit::Spool& out, const Trace& trace, const TextStyle& style);
/// Whether lines_view() draws the view (rather than a note why it is absent, or nothing).
bool lines_drawn(const Trace& trace);
/// Whether the page draws the grid of every head's heatmaps near the top (html.cpp).
bool heads_grid_drawn(const Trace& trace);

/// Whether --steps shows `step` (every step when it names none).
bool on_page(const Step& step, const TextStyle& style);
/// Near the top of the page (html_summary.cpp): a link to every part of it, the attention
/// weights in bold.
void contents(toolkit::Spool& out, const Trace& trace, const TextStyle& style);
/// Near the top of the page: each query's most attended key in each head, with its weight
/// (a sentence with links for a long input).
void in_short(toolkit::Spool& out, const Trace& trace, const TextStyle& style);

}  // namespace attn::report
