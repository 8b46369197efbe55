// The report of attn check: each answered step against the right values and against the
// student's own answers before it, the likely mistakes in words, and where to start.
#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

// Each likely mistake in words, in the order of Mistake (attn/core/check.hpp). Dividing by
// √d_model and Qᵀ · K name the run's sizes, and forgetting to scale by hand the hand rule.
constexpr auto mistake_texts = std::to_array<std::string_view>({
    "",  // none
    "rows and columns are swapped: in S = Q · Kᵀ the rows are queries and the columns keys (you "
    "computed K · Qᵀ)",
    "S = Q · Kᵀ is tokens × tokens ({0}×{0}); a d_k × d_k answer ({1}×{1}) is Qᵀ · K: "
    "transpose K, not Q",
    "the cells the mask blocks must be −∞, not a number (neither 0 nor the score): −∞ is what "
    "makes their weight exactly 0 after softmax",
    "you forgot to scale: S′ = S / √d_k",
    "you forgot to scale before softmax: softmax(S′) with S′ = S / √d_k, not softmax(S)",
    "softmax over the wrong axis: each row (one query, over all keys) must sum to 1, not each "
    "column",
    "the mask was not applied: masked cells must be −∞ before softmax, so that their weight is 0",
    "you used e^x: by hand the rule is 3^x",
    "you used the columns of A as weights: Z = A · V takes each row of A",
    "one softmax over the whole matrix: each row (one query's scores) has its own softmax, so "
    "that each row sums to 1",
    "you divided by √d_model = √{}: the rule divides by √d_k = √{}, the width of the queries and "
    "keys",
});
static_assert(mistake_texts.size() == mistake_count);

// The same in the column layout's words (a worksheet made with --layout col: S = Kᵀ · Q has a
// row per key and a column per query, Z = V · A), where they differ; empty where they do not.
constexpr auto column_mistake_texts = std::to_array<std::string_view>({
    "",  // none
    "rows and columns are swapped: in S = Kᵀ · Q the rows are keys and the columns queries "
    "(you computed Qᵀ · K)",
    "S = Kᵀ · Q is tokens × tokens ({0}×{0}); a d_k × d_k answer ({1}×{1}) is Q · Kᵀ: "
    "transpose K and put it first",
    "",
    "",
    "",
    "softmax over the wrong axis: each column (one query, over all keys) must sum to 1, not "
    "each row",
    "",
    "",
    "you used the rows of A as weights: Z = V · A takes each column of A",
    "one softmax over the whole matrix: each column (one query's scores) has its own softmax, "
    "so that each column sums to 1",
    "",
});
static_assert(column_mistake_texts.size() == mistake_count);

std::string mistake_text(Mistake m, const Trace& t, Layout layout) {
    const auto i = static_cast<std::size_t>(m);
    const std::string_view column =
        layout == Layout::col && i < column_mistake_texts.size() ? column_mistake_texts[i] : "";
    const std::string_view text = !column.empty()            ? column
                                  : i < mistake_texts.size() ? mistake_texts[i]
                                                             : "";
    if (m == Mistake::scaled_by_d_model) {
        return fmt::format(fmt::runtime(text), t.config.d_model, t.config.d_k);
    }
    if (m == Mistake::k_not_transposed) {
        return fmt::format(fmt::runtime(text), t.tokens.size(), t.config.d_k);
    }
    if (m == Mistake::not_scaled && t.rule.arith == Arith::hand) {
        const WeightsRule right = t.rule.right(t.config.d_k);
        return fmt::format("{} (by hand, ⌊S / {}⌋: √d_k = √{} rounded to a whole number)", text,
                           right.divisor(), t.config.d_k);
    }
    return std::string(text);
}

// The answered steps that depend on `id`, directly or through other steps.
std::set<std::string> depending_on(const Trace& t, const std::string& id) {
    std::set<std::string> out;
    bool grew = true;
    while (grew) {
        grew = false;
        for (const Step& s : teaching_steps(t)) {
            if (out.contains(s.id)) {
                continue;
            }
            for (const auto& input : inputs_of(t, s.id)) {
                if (input == id || out.contains(input)) {
                    out.insert(s.id);
                    grew = true;
                    break;
                }
            }
        }
    }
    return out;
}

std::string step_title(const Trace& t, const Step& step) {
    return step.number + " · " + lesson::title(t, step) + " " +
           notation::symbol(step.symbol, notation::Style::unicode);
}

}  // namespace

void render_check_report(const Trace& t, const std::vector<StepVerdict>& verdicts,
                         const Tolerance& tolerance, const TextStyle& style, const Sink& sink) {
    // every number of the report, given or expected, in one format: "3.0000" beside "0.7500",
    // never "3" beside it, whatever is whole
    // at least prose_digits decimals: at --precision 0, "0, expected 0" marked wrong says nothing
    const auto num = [&](double x) {
        return format_number(x, std::max(style.precision, prose_digits), true);
    };
    const auto given = [&](const Answer& a) -> std::string {
        switch (a.kind) {
            case Answer::Kind::blank:
                return "blank";
            case Answer::Kind::minus_infinity:
                return "−∞";
            case Answer::Kind::number:
                return num(a.value);
        }
        return "";
    };
    // the report is written a line at a time (a step of thousands of tokens lists its wrong
    // cells), its lines wrapped to the width as they are handed over
    toolkit::Spool written(sink);
    std::string out;  // whole lines, not yet wrapped
    const auto hand_over = [&] {
        for (const auto& line : toolkit::wrap_lines(out, style.width)) {
            written += style.unicode ? line : toolkit::to_ascii(line);
            written += "\n";
        }
        out.clear();
    };
    const StepVerdict* first_wrong = nullptr;
    const StepVerdict* first_blank = nullptr;  // of the steps whose only faults are blanks
    const StepVerdict* hidden = nullptr;       // a mistake inside the tolerance
    bool any_answered_wrong = false;
    std::size_t n_wrong = 0;
    std::size_t n_cells = 0;
    for (const auto& v : verdicts) {
        hand_over();
        n_cells += v.n_cells;
        const bool ok = v.wrong.empty() && !v.wrong_shape;
        const Step& step = *find_step(t, v.step_id, style.layout);
        const std::string title = step_title(t, step);
        if (ok) {
            out += fmt::format("✓ {}: all {} cells right\n", title, v.n_cells);
            if (v.within_tolerance == Mistake::e_instead_of_3) {
                out += fmt::format(
                    "    but they are within {} of the weights e^x gives and up to {} from "
                    "those of 3^x: you probably used e^x. By hand the rule is 3^x; the "
                    "difference is inside the tolerance here, so no cell is marked wrong\n",
                    num(v.mistake_distance), num(v.right_distance));
                hidden = &v;
            }
            continue;
        }
        const bool answered_wrong = v.answered_wrong();
        if (first_wrong == nullptr && v.follows_from.empty() && answered_wrong) {
            first_wrong = &v;  // a blank is missing, not a mistake
        }
        if (first_blank == nullptr && !answered_wrong) {
            first_blank = &v;
        }
        any_answered_wrong = any_answered_wrong || answered_wrong;
        if (v.wrong_shape) {
            n_wrong += v.n_cells;
            out += fmt::format("✗ {}: the answer is {}×{}, expected {}×{}\n", title,
                               v.wrong_shape->first, v.wrong_shape->second, step.shape.rows,
                               step.shape.cols);
        } else {
            n_wrong += v.wrong.size();
            out += fmt::format("✗ {}: {} of {} cells wrong or blank\n", title, v.wrong.size(),
                               v.n_cells);
            for (const auto& w : v.wrong) {
                out += fmt::format("    {}[{}, {}]: {}, expected {}\n", v.step_id,
                                   toolkit::terminal(step.row_labels[w.row]),
                                   toolkit::terminal(step.col_labels[w.col]), given(w.given),
                                   num(w.expected));
                hand_over();  // a line at a time: a step may have millions of cells
            }
        }
        if (!v.follows_from.empty()) {
            const Step& input = *find_step(t, v.follows_from);
            // the step they follow from was marked wrong, or accepted within the tolerance
            const auto from = std::find_if(verdicts.begin(), verdicts.end(), [&](const auto& u) {
                return u.step_id == v.follows_from;
            });
            const bool from_wrong =
                from != verdicts.end() && (from->answered_wrong() || from->wrong_shape.has_value());
            out += from_wrong ? fmt::format(
                                    "    but they follow correctly from your answers to step {} "
                                    "({}): only those are wrong, this step is worked out "
                                    "right\n",
                                    input.number, lesson::title(t, input))
                              : fmt::format(
                                    "    but they follow correctly from your answers to step {} "
                                    "({}), which are inside the tolerance but not exact: their "
                                    "small differences grow in this step. This step is worked "
                                    "out right from them\n",
                                    input.number, lesson::title(t, input));
        } else if (v.mistake != Mistake::none) {
            out += "    likely mistake: " + mistake_text(v.mistake, t, style.layout) + "\n";
        } else if (!v.swapped_cells.empty() || !v.maybe_swapped_cells.empty()) {
            // cells holding their mirror cell's value: a likely swap, or a possible one
            const bool likely = !v.swapped_cells.empty();
            std::vector<std::string> cells;
            for (const auto& [r, c] : likely ? v.swapped_cells : v.maybe_swapped_cells) {
                cells.push_back(fmt::format("{}[{}, {}]", v.step_id,
                                            toolkit::terminal(step.row_labels[r]),
                                            toolkit::terminal(step.col_labels[c])));
            }
            out += fmt::format(
                "    {} mistake: {} {} the value of {} mirror cell{}\n",
                likely ? "likely" : "possible", lesson::join_list(cells),
                cells.size() == 1 ? "holds" : "hold", cells.size() == 1 ? "its" : "their",
                likely ? ", with row and column swapped"
                       : " (row and column swapped?); with small whole numbers this may also be "
                         "chance");
        }
        if (!v.own_cells.empty()) {
            // some of the wrong cells are what the student's own earlier answers give
            const Step& input = *find_step(t, v.own_from);
            std::vector<std::string> cells;
            for (const auto& [r, c] : v.own_cells) {
                cells.push_back(fmt::format("{}[{}, {}]", v.step_id,
                                            toolkit::terminal(step.row_labels[r]),
                                            toolkit::terminal(step.col_labels[c])));
            }
            const std::size_t others =
                static_cast<std::size_t>(std::count_if(
                    v.wrong.begin(), v.wrong.end(),
                    [](const WrongCell& w) { return w.given.kind != Answer::Kind::blank; })) -
                v.own_cells.size();
            out += fmt::format(
                "    {} {} correctly from your answers to step {} ({}){}\n",
                lesson::join_list(cells), cells.size() == 1 ? "follows" : "follow", input.number,
                lesson::title(t, input),
                others == 0 ? ""
                : others == 1
                    ? ": the other wrong cell is a mistake of this step"
                    : fmt::format(": the other {} wrong cells are a mistake of this step", others));
        }
    }
    const std::string within =
        tolerance.relative > 0.0
            ? fmt::format("tolerance {} or {}%", tolerance.absolute, tolerance.relative * 100.0)
            : fmt::format("tolerance {}", tolerance.absolute);
    if (n_wrong == 0) {
        out += fmt::format(
            "\nAll {} answers are right ({}){}.\n", n_cells,
            tolerance.relative > 0.0 ? within : fmt::format("within {}", tolerance.absolute),
            hidden == nullptr
                ? ""
                : fmt::format(", but those of step {} look worked out with e^x (see above)",
                              step_title(t, *find_step(t, hidden->step_id))));
    } else if (!any_answered_wrong && first_blank != nullptr) {
        out += n_wrong == n_cells
                   ? fmt::format(
                         "\n{} of {} answers {} blank: none is given yet. Fill in the "
                         "blanks, starting with step {}.\n",
                         n_wrong, n_cells, n_wrong == 1 ? "is" : "are",
                         step_title(t, *find_step(t, first_blank->step_id)))
                   : fmt::format(
                         "\n{} of {} answers {} blank; every answer given is right "
                         "({}). Fill in the blanks, starting with step {}.\n",
                         n_wrong, n_cells, n_wrong == 1 ? "is" : "are", within,
                         step_title(t, *find_step(t, first_blank->step_id)));
    } else {
        out += fmt::format("\n{} of {} answers {} wrong or blank ({}).", n_wrong, n_cells,
                           n_wrong == 1 ? "is" : "are", within);
        if (first_wrong != nullptr) {
            const Step& step = *find_step(t, first_wrong->step_id);
            const auto later = depending_on(t, first_wrong->step_id);
            // "start there" only when a later step that uses it is wrong too
            const bool later_wrong =
                std::any_of(verdicts.begin(), verdicts.end(), [&](const StepVerdict& v) {
                    return later.contains(v.step_id) && (!v.wrong.empty() || v.wrong_shape);
                });
            out += fmt::format(" The first mistake is in step {}{}", step_title(t, step),
                               later_wrong ? ": later steps use it and may be wrong only "
                                             "because of it, so start there."
                                           : ".");
        }
        out += "\n";
    }
    hand_over();
    written.flush();
}

std::string render_check_report(const Trace& t, const std::vector<StepVerdict>& verdicts,
                                const Tolerance& tolerance, const TextStyle& style) {
    return toolkit::collect(
        [&](const Sink& sink) { render_check_report(t, verdicts, tolerance, style, sink); });
}

}  // namespace attn
