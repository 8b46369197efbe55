// The terminal walk-through: every step of teaching_steps() as a heading, its formula and
// shapes, an explanation and its matrix (matrix_text.cpp), page by page.
#include <algorithm>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "attn/core/utf8.hpp"
#include "attn/core/whatif.hpp"
#include "attn/render/render.hpp"
#include "heads_text.hpp"
#include "lesson.hpp"
#include "matrix_text.hpp"
#include "text_writer.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

using text::print_matrix;
using text::Writer;
using toolkit::pad_right;

std::string shape_text(const Shape& s) {
    return fmt::format("({}×{})", s.rows, s.cols);
}

// "(3×5)·(5×3) → (3×3)", or "(3×5)" for a step with nothing going in.
std::string shapes_line(const Step& step) {
    if (step.kind == StepKind::tokens) {
        return fmt::format("{} {}", step.shape.rows, step.shape.rows == 1 ? "token" : "tokens");
    }
    // Many equal operands (the concatenation of eight heads) read better counted than listed.
    const auto& ops = step.operands;
    if (ops.size() > 3 && std::all_of(ops.begin(), ops.end(), [&](const Shape& s) {
            return s.rows == ops.front().rows && s.cols == ops.front().cols;
        })) {
        return fmt::format("{} × {} side by side → {}", ops.size(), shape_text(ops.front()),
                           shape_text(step.shape));
    }
    std::string out;
    for (std::size_t i = 0; i < step.operands.size(); ++i) {
        const std::string joiner = step.joiner == Joiner::product ? "·"
                                   : step.joiner == Joiner::plus  ? " + "
                                   : step.joiner == Joiner::minus ? " − "
                                                                  : " | ";
        out += (i > 0 ? joiner : "") + shape_text(step.operands[i]);
    }
    return out.empty() ? shape_text(step.shape) : out + " → " + shape_text(step.shape);
}

void print_tokens(Writer& w, const Step& step, const Step* before) {
    const auto& tokens = step.row_labels;
    const auto shown = tokens.size() > 100
                           ? toolkit::shown_indices(tokens.size(), 50, 10)
                           : toolkit::shown_indices(tokens.size(), tokens.size(), 0);
    std::vector<std::string> items;
    items.reserve(shown.size());
    for (const auto& i : shown) {
        const bool swapped = i && before != nullptr && *i < before->row_labels.size() &&
                             before->row_labels[*i] != tokens[*i];
        items.push_back(!i ? std::string(w.style().unicode ? "…" : "...")
                        : swapped
                            ? fmt::format("[{}] *{} (was {})", *i, toolkit::terminal(tokens[*i]),
                                          toolkit::terminal(before->row_labels[*i]))
                            : fmt::format("[{}] {}", *i, toolkit::terminal(tokens[*i])));
    }
    const std::size_t width = std::max<std::size_t>(w.style().width, 20);
    std::string current = "  ";
    std::size_t current_w = 2;
    for (const auto& item : items) {
        const auto iw = toolkit::width_of(item);
        if (current_w > 2 && current_w + 3 + iw > width) {
            w.line(current);
            current = "  ";
            current_w = 2;
        }
        if (current_w > 2) {
            current += "   ";
            current_w += 3;
        }
        current += item;
        current_w += iw;
    }
    w.line(current);
    if (tokens.size() > 100) {
        w.paragraph(
            fmt::format("(tokens 50 to {} of {} not shown)", tokens.size() - 11, tokens.size()),
            "  ", "2");
    }
}

void print_heading(Writer& w, std::string_view title) {
    for (const auto& line :
         toolkit::heading_rule(w.text(title), w.style().width, w.style().unicode)) {
        w.line(w.paint(line, "1"));
    }
}

// A what-if's or attn diff's closing section: what changed in the output, and why.
void print_what_changed(Writer& w, const Trace& trace) {
    w.line();
    print_heading(w, lesson::what_changed_title(trace));
    for (const auto& paragraph :
         lesson::what_changed(trace, w.style().precision, w.style().layout)) {
        w.paragraph(paragraph);
    }
}

void print_summary(Writer& w, const Trace& trace) {
    // the title in one line of the width (40 columns, the narrowest, are 3 too few for it)
    const std::string title = "attn explain · self-attention, step by step";
    w.line(w.paint(w.text(toolkit::width_of(title) <= w.style().width
                              ? title
                              : std::string("attn explain · self-attention")),
                   "1"));
    // "sizes     d_model = ...": the key, then the value wrapped under itself
    constexpr std::size_t value_column = 10;
    const std::string under(value_column, ' ');
    for (const auto& item : lesson::summary(trace, w.style().layout)) {
        w.wrapped(w.text(toolkit::terminal(item.value)), pad_right(item.key, value_column), {},
                  under);
        for (const auto& more : item.more) {
            w.wrapped(w.text(toolkit::terminal(more)), under);
        }
    }
}

// A GPT-2 walk without --head: every head's weights side by side, compactly: for each query
// token (a row) and each head (a column), the key it attends to most and that weight.
void print_heads_side_by_side(Writer& w, const Trace& trace) {
    const auto& g = *trace.gpt2;
    w.line();
    print_heading(w, fmt::format("Every head of layer {} [{}{}], side by side", g.layer + 1,
                                 g.prefix, gpt2_name(g.layer, "attn")));
    w.paragraph(w.text(fmt::format(
        "For each token (a row) and each of the {} heads (a column): the token it attends to "
        "most, and that weight; a tie (exactly equal largest weights) names both keys, joined "
        "by =, or says how many keys tie. --head N walks through head N step by step; the JSON "
        "dump and --steps have every head's steps (--steps weights: every head's weights).",
        trace.heads.size())));
    std::vector<const Matrix*> weights;
    weights.reserve(trace.heads.size());
    for (const auto& head : trace.heads) {
        weights.push_back(&head.attention);
    }
    text::print_most_attended(w, trace.tokens, weights, 1, 2);
}

// Whether `step` is shown with the same step of the other heads: --steps named it without a
// head (TextStyle::heads_together), the run has several heads and no --head is walked in full.
bool together(const TextStyle& style, const Step& step) {
    return style.head == 0 && step.head > 0 &&
           std::find(style.heads_together.begin(), style.heads_together.end(), base_id(step.id)) !=
               style.heads_together.end();
}

// "Heads 1 and 2", "Heads 1 to 8"
std::string heads_span(const Step& first, const Step& last) {
    return fmt::format("Heads {} {} {}", first.head, last.head == first.head + 1 ? "and" : "to",
                       last.head);
}

// One step of every head (--steps weights with several heads): one heading, head 1's formula
// for them all, the explanation once, then the heads' matrices (heads_text.cpp).
void print_heads_together(Writer& w, const Trace& trace, const std::vector<const Step*>& steps) {
    const Step& first = *steps.front();
    const Step& last = *steps.back();
    // side by side when they fit the width, else one under the other: the title says neither
    const std::string title = fmt::format("{} · {} · {}", first.number, heads_span(first, last),
                                          lesson::title(trace, first));
    w.line();
    print_heading(w, title);
    w.wrapped(w.formula(first.formula) + "\u00A0\u00A0\u00A0\u00A0" + w.text(shapes_line(first)),
              "", toolkit::formula_sgr(w.style().theme));
    if (w.style().explanations) {
        w.paragraph(lesson::explanation(trace, first));
        w.paragraph(fmt::format(
            "Every head does this with its own numbers: the formula is head {}'s, and head h's "
            "is the same with h in its place.",
            first.head));
    }
    w.line();
    text::print_heads_matrices(w, trace, steps);
}

}  // namespace

std::string render_summary(const Trace& trace, const TextStyle& style) {
    Writer w(style);
    print_summary(w, trace);
    return w.take();
}

namespace {

// Hands the walk-through to `emit` a page at a time: the header, then one page per step (the
// warnings end the last page).
void write_pages(const Trace& trace, const TextStyle& style,
                 const std::function<void(TextPage&&)>& emit) {
    Writer w(style);
    print_summary(w, trace);
    if (style.layout == Layout::col) {
        w.line();
        // --softmax-over names the axes of the row layout: in this one they are turned round
        const SoftmaxOver over = trace.rule.over;
        w.paragraph(fmt::format(
            "Column layout (--layout col), as in the by-hand exercises: every matrix below is "
            "the transpose of attn's usual row layout. Tokens are columns, Q = W_Q · X, the "
            "scores Kᵀ · Q have a row per key and a column per query, and softmax runs down "
            "each column{}",
            over == SoftmaxOver::columns
                ? " by the rule. --softmax-over columns names the columns of the row layout (one "
                  "per key): here they are the rows, so this run's softmax goes along each row, "
                  "over each key's scores."
            : over == SoftmaxOver::all ? " by the rule; this run's softmax (--softmax-over all) "
                                         "takes the whole matrix at once."
                                       : "."));
    }
    if (trace.comparison) {
        w.line();
        w.paragraph(fmt::format("A cell marked * differs from {}; the line 'was' under its row "
                                "holds its value there.",
                                trace.comparison->before_name.empty()
                                    ? "the run as given"
                                    : trace.comparison->before_name + " (A)"),
                    "", "2");
    }
    // a page is handed over when the next is made: the warnings go at the end of the last
    TextPage page{"", "", w.take()};
    const auto next = [&](std::string title, std::string number, std::string text) {
        emit(std::move(page));
        page = {std::move(title), std::move(number), std::move(text)};
    };

    const auto visible = toolkit::visible_steps(trace, style.steps, style.layout);
    for (const Step* step : visible) {
        // --head N: the other heads in brief, their attention weights only
        const bool brief = style.head > 0 && step->head > 0 && step->head != style.head;
        if (brief && step->op != StepOp::weights) {
            continue;
        }
        if (trace.gpt2 && style.head == 0 && style.steps.empty() && step->head > 0) {
            // a checkpoint's heads without --head: side by side before the concatenation
            if (step->head == trace.heads.size() && step->op == StepOp::output) {
                print_heads_side_by_side(w, trace);
                next(w.text("Every head, side by side"), "", w.take());
            }
            continue;
        }
        if (together(style, *step)) {
            // --steps weights with several heads: every head's weights at once, with head 1's
            if (step->head == 1) {
                std::vector<const Step*> group;
                std::copy_if(visible.begin(), visible.end(), std::back_inserter(group),
                             [&](const Step* s) {
                                 return s->head > 0 && base_id(s->id) == base_id(step->id);
                             });
                print_heads_together(w, trace, group);
                next(w.text(fmt::format("{} · {}", heads_span(*group.front(), *group.back()),
                                        lesson::title(trace, *step))),
                     step->number, w.take());
            }
            continue;
        }
        w.line();
        print_heading(w, lesson::heading(trace, *step));
        w.wrapped(
            w.formula(step->formula) + "\u00A0\u00A0\u00A0\u00A0" + w.text(shapes_line(*step)), "",
            toolkit::formula_sgr(w.style().theme));
        if (brief) {
            w.paragraph(fmt::format("(Head {} in brief: its attention weights only; --head {} "
                                    "shows all of its steps.)",
                                    step->head, step->head),
                        "", "2");
            w.line();
            print_matrix(w, *step, toolkit::before_of(trace, *step));
            next(w.text(lesson::heading(trace, *step)), step->number, w.take());
            continue;
        }
        const auto notes = lesson::notes(trace, *step, style.precision);
        if (style.explanations) {
            w.paragraph(lesson::explanation(trace, *step));
            for (const auto& note : notes.before) {
                w.paragraph(note);
            }
        }
        w.line();
        if (step->kind == StepKind::tokens) {
            print_tokens(w, *step, toolkit::before_of(trace, *step));
        } else {
            print_matrix(w, *step, toolkit::before_of(trace, *step));
        }
        if (style.explanations && !notes.after.empty()) {
            w.line();
            for (const auto& note : notes.after) {
                w.paragraph(note);
            }
        }
        next(w.text(lesson::heading(trace, *step)), step->number, w.take());
    }
    if (trace.comparison) {
        print_what_changed(w, trace);
        next(w.text(lesson::what_changed_title(trace)), "", w.take());
    }
    const auto warnings = lesson::warnings(trace);
    if (!warnings.empty()) {
        w.line();
        for (const auto& warning : warnings) {
            w.paragraph("warning: " + warning);
        }
        page.text += w.take();
    }
    emit(std::move(page));
}

}  // namespace

std::vector<TextPage> render_text_pages(const Trace& trace, const TextStyle& style) {
    std::vector<TextPage> pages;
    write_pages(trace, style, [&pages](TextPage&& page) { pages.push_back(std::move(page)); });
    return pages;
}

void render_text(const Trace& trace, const TextStyle& style, const Sink& sink) {
    write_pages(trace, style, [&sink](TextPage&& page) { sink(page.text); });
}

std::string render_text(const Trace& trace, const TextStyle& style) {
    return toolkit::collect([&](const Sink& sink) { render_text(trace, style, sink); });
}

}  // namespace attn
