// attn train's words and pictures: what is trained, the progress line, the loss sparkline, the
// held-out accuracy, the model file's description and the loss curve as SVG. Every number is
// the run's own; every sentence about the task is drawn from its examples.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

std::string joined_tokens(const std::vector<std::string>& tokens) {
    std::string s;
    for (const auto& t : tokens) {
        s += (s.empty() ? "" : " ") + t;
    }
    return s;
}

// "a, b and c"
std::string listing(const std::vector<std::string>& items) {
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i) {
        s += i == 0 ? "" : (i + 1 == items.size() ? " and " : ", ");
        s += items[i];
    }
    return s;
}

// The index in e.graded of the row the task's notes look at (TaskSetup::showcase_row).
std::size_t showcase_index(const TaskData& data, const Example& e) {
    const std::size_t row = task_setup(data.task).showcase_row;
    const auto it = std::find(e.graded.begin(), e.graded.end(), row);
    return it == e.graded.end() ? e.graded.size() - 1
                                : static_cast<std::size_t>(it - e.graded.begin());
}

// Where the showcase's graded row attends: its row, its source, and the heads' mean weights.
struct ShowcaseAttention {
    std::size_t row = 0;
    std::size_t source = 0;
    std::vector<double> weights;
    std::size_t top = 0;  ///< the largest weight's column (the first on a tie)
};

ShowcaseAttention showcase_attention(const TaskData& data, const Example& e, const Trace& t) {
    ShowcaseAttention a;
    const std::size_t g = showcase_index(data, e);
    a.row = e.graded[g];
    a.source = e.sources[g];
    a.weights.assign(t.tokens.size(), 0.0);
    for (const Head& head : t.heads) {
        for (std::size_t j = 0; j < a.weights.size(); ++j) {
            a.weights[j] += head.attention(a.row, j) / static_cast<double>(t.heads.size());
        }
    }
    a.top = static_cast<std::size_t>(std::max_element(a.weights.begin(), a.weights.end()) -
                                     a.weights.begin());
    return a;
}

// The task in one sentence, with the showcase sentence as its example.
std::string task_sentence(const TaskData& data, const Example& e) {
    const std::string example = shown(joined_tokens(e.tokens));
    const std::size_t row = e.graded[showcase_index(data, e)];
    const std::size_t source = e.sources[showcase_index(data, e)];
    const std::string at = shown(e.tokens[row]);
    const std::string to = shown(e.tokens[source]);
    switch (data.task) {
        case Task::coreference:
            return fmt::format(
                "sentences such as \"{}\": the output at '{}' must be the value of the noun it "
                "refers to, '{}', so '{}' must attend to that noun",
                example, at, to, at);
        case Task::previous_token:
            return fmt::format(
                "strings of {} letters such as \"{}\": each token's output from the second on "
                "must be the value of the token before it ('{}' at {} must attend to '{}' at {}), "
                "and only the positions tell where that is",
                e.tokens.size(), example, at, row, to, source);
        case Task::match:
            return fmt::format(
                "strings such as \"{}\" whose last token came once before: its output must be "
                "the value of that earlier copy ('{}' at {} must attend to '{}' at {}), the seed "
                "of an induction head",
                example, at, row, to, source);
    }
    return "";
}

// "W_Q and W_K", and what keeps its seeded numbers.
std::pair<std::vector<std::string>, std::vector<std::string>> trained_and_kept(
    const TrainSettings& s) {
    std::vector<std::string> trained;
    std::vector<std::string> kept;
    const Trainable& t = s.trainable;
    (t.w_q ? trained : kept).emplace_back("W_Q");
    (t.w_k ? trained : kept).emplace_back("W_K");
    kept.emplace_back("W_V");
    if (s.config.n_heads > 1) {
        kept.emplace_back("W_O");
    }
    (t.embeddings ? trained : kept).emplace_back("the embeddings");
    if (s.config.positions == PositionKind::file) {
        (t.positions ? trained : kept).emplace_back("the positions");
    }
    return {trained, kept};
}

std::string percent(std::size_t part, std::size_t whole) {
    return fmt::format(
        "{:.1f}%",
        whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::size_t count_of(double fraction, std::size_t rows) {
    return static_cast<std::size_t>(std::llround(fraction * static_cast<double>(rows)));
}

std::string loss_text(double x) {
    return format_checkable(x, 4, true);
}

// The marks of a sparkline: `values` in at most `columns` groups, each the mean of its group.
std::vector<double> marks_of(std::span<const double> values, std::size_t columns) {
    const std::size_t n = values.size();
    const std::size_t m = std::min(n, columns);
    std::vector<double> marks;
    for (std::size_t i = 0; i < m; ++i) {
        const std::size_t begin = i * n / m;
        const std::size_t end = (i + 1) * n / m;
        double sum = 0.0;
        for (std::size_t j = begin; j < end; ++j) {
            sum += values[j];
        }
        marks.push_back(sum / static_cast<double>(end - begin));
    }
    return marks;
}

// "  label     text", the text wrapped at 80 columns under itself.
std::string labelled(std::string_view label, std::string_view text) {
    constexpr std::size_t indent = 12;
    std::string out;
    for (const auto& line : toolkit::wrap(text, 80, indent, indent)) {
        out += out.empty() ? fmt::format("  {:<{}}", label, indent - 2) : std::string(indent, ' ');
        out += line + "\n";
    }
    return out;
}

// The marks as bars from `lo` (▁) to `hi` (█).
std::string bars_between(const std::vector<double>& marks, double lo, double hi, bool unicode) {
    static constexpr std::array<std::string_view, 8> bars{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static constexpr std::string_view ascii = "_.-~=+*#";
    std::string out;
    for (const double x : marks) {
        const double span = hi - lo;
        const auto level =
            span > 0.0
                ? static_cast<std::size_t>(std::lround(std::clamp((x - lo) / span, 0.0, 1.0) * 7.0))
                : 0U;
        if (unicode) {
            out += bars[level];
        } else {
            out += ascii[level];
        }
    }
    return out;
}

// The mean loss over the steps around step `fraction` of the run: the points (each the mean
// of `per_point` steps) whose steps meet a window of `window` steps centred there, weighted by
// the steps each covers. The window as it was: its first and last step.
struct Window {
    double mean = 0.0;
    std::size_t first = 0;
    std::size_t last = 0;
};

constexpr std::size_t mean_window = 30;

Window mean_around(const TrainResult& r, double fraction) {
    const auto& points = r.curve.points;
    if (points.empty() || r.steps_done == 0) {
        return {r.last_loss, r.steps_done, r.steps_done};
    }
    const std::size_t per = r.curve.per_point;
    const auto centre = static_cast<std::size_t>(
        std::max(1.0, std::round(static_cast<double>(r.steps_done) * fraction)));
    const std::size_t from = centre > mean_window / 2 ? centre - mean_window / 2 + 1 : 1;
    const std::size_t to = std::min(r.steps_done, from + mean_window - 1);
    Window w{0.0, 0, 0};
    double weight = 0.0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::size_t first = i * per + 1;
        const std::size_t last = std::min(r.steps_done, (i + 1) * per);
        if (last < from || first > to) {
            continue;
        }
        const auto steps = static_cast<double>(last - first + 1);
        w.mean += points[i] * steps;
        weight += steps;
        w.first = w.first == 0 ? first : w.first;
        w.last = last;
    }
    w.mean /= weight;
    return w;
}

}  // namespace

std::string render_sparkline(std::span<const double> values, std::size_t columns, bool unicode) {
    const std::vector<double> marks = marks_of(values, columns);
    if (marks.empty()) {
        return "";
    }
    const auto [lo, hi] = std::minmax_element(marks.begin(), marks.end());
    return bars_between(marks, *lo, *hi, unicode);
}

std::string render_scaling_comparison(const TrainSettings& s, const TrainResult& unscaled,
                                      const TrainResult& scaled) {
    const double sqrt_d_k = std::sqrt(static_cast<double>(s.config.d_k));
    std::string out;
    if (scaled.diverged) {
        out += labelled("scaled", fmt::format("the same run with the scores divided by √d_k = {} "
                                              "diverged at step {}, so there is no curve to "
                                              "compare with",
                                              loss_text(sqrt_d_k), scaled.diverged->step));
        return out;
    }
    // both curves on one scale, so that their heights compare
    const auto marks_u = marks_of(unscaled.curve.points, 40);
    const auto marks_s = marks_of(scaled.curve.points, 40);
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    for (const auto* m : {&marks_u, &marks_s}) {
        for (const double x : *m) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
    }
    out += labelled("compare", fmt::format("the same run twice, both curves on one scale (▁ is {}, "
                                           "█ is {}):",
                                           loss_text(lo), loss_text(hi)));
    out += labelled(
        "", fmt::format("{}  not scaled (the model file)", bars_between(marks_u, lo, hi, true)));
    out += labelled("", fmt::format("{}  scores / √d_k = {}", bars_between(marks_s, lo, hi, true),
                                    loss_text(sqrt_d_k)));
    const Window u_quarter = mean_around(unscaled, 0.25);
    const Window s_quarter = mean_around(scaled, 0.25);
    const Window u_half = mean_around(unscaled, 0.5);
    const Window s_half = mean_around(scaled, 0.5);
    // the verdict from the means over both windows, a quarter and half of the way
    const auto slower = [](const Window& a1, const Window& a2, const Window& b1, const Window& b2) {
        return a1.mean > 1.1 * b1.mean && a2.mean > 1.1 * b2.mean;
    };
    const std::string verdict =
        slower(u_quarter, u_half, s_quarter, s_half)
            ? fmt::format(
                  "Without the scaling the loss is higher at both, as the scaling step's "
                  "explanation predicts: from the same seeded weights the unscaled scores "
                  "start √{} = {} times larger, and the larger the scores, the closer softmax "
                  "comes to saturating, where it passes back little gradient.",
                  s.config.d_k, loss_text(sqrt_d_k))
        : slower(s_quarter, s_half, u_quarter, u_half)
            ? fmt::format(
                  "Here the run without scaling has the lower loss at both: with d_k = {} "
                  "the larger unscaled scores sharpened the weights more than they slowed "
                  "learning (try a larger --d-k, e.g. 64).",
                  s.config.d_k)
            : fmt::format(
                  "Here neither run is ahead by more than 10% at both points: with d_k = {} "
                  "the scaling changes little here (try a larger --d-k, e.g. 64).",
                  s.config.d_k);
    const auto steps_of = [](const Window& w) {
        return w.first == w.last ? fmt::format("step {}", w.first)
                                 : fmt::format("steps {}–{}", w.first, w.last);
    };
    out += labelled(
        "",
        fmt::format(
            "Mean loss over {} ({} steps): {} without scaling, {} with it; over {}: {} and {}; "
            "the last batch: {} and {}. Held-out accuracy: {} without scaling, {} with it. {}",
            steps_of(u_quarter), u_quarter.last - u_quarter.first + 1, loss_text(u_quarter.mean),
            loss_text(s_quarter.mean), steps_of(u_half), loss_text(u_half.mean),
            loss_text(s_half.mean), loss_text(unscaled.last_loss), loss_text(scaled.last_loss),
            percent(count_of(unscaled.held_out_score.accuracy, unscaled.held_out_score.rows),
                    unscaled.held_out_score.rows),
            percent(count_of(scaled.held_out_score.accuracy, scaled.held_out_score.rows),
                    scaled.held_out_score.rows),
            verdict));
    return out;
}

std::string render_training_plan(const TaskData& data, const TrainSettings& s) {
    const Example showcase = showcase_example(data);
    const Config& c = s.config;
    const auto [trained, kept] = trained_and_kept(s);
    const double passes =
        static_cast<double>(s.steps * s.batch) / static_cast<double>(data.train.size());
    std::string out;
    for (const auto& line : toolkit::wrap(
             fmt::format("attn train {}: {}.", to_string(data.task), task_sentence(data, showcase)),
             80)) {
        out += line + "\n";
    }
    out += labelled(
        "examples",
        fmt::format("{} to train on, {} held out (never trained on), {} different "
                    "tokens; seed {}",
                    data.train.size(), data.held_out.size(), data.vocabulary.size(), c.seed));
    out += labelled(
        "model", fmt::format("d_model {}, d_k {}, d_v {}, {} {}, {}, {}", c.d_model, c.d_k, c.d_v,
                             c.n_heads, c.n_heads == 1 ? "head" : "heads",
                             c.mask == MaskKind::causal ? "a causal mask" : "no mask",
                             c.positions == PositionKind::file ? "a table of positions added to X"
                                                               : "no positions"));
    out += labelled("trained", fmt::format("{}; {} keep their seeded numbers", listing(trained),
                                           listing(kept)));
    // the passes exactly (steps · batch / examples, a short decimal): 1.5625, not 1.562
    out += labelled("steps",
                    fmt::format("{} of {} examples each ({} {} over the training "
                                "examples), learning rate η = {}",
                                s.steps, s.batch, passes, passes == 1.0 ? "pass" : "passes", s.lr));
    return out;
}

std::string render_training_progress(const Progress& p) {
    // a bar of progress_cells cells, filled in eighths of a cell
    constexpr std::size_t cells = 20;
    static constexpr std::array<std::string_view, 8> partial{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    const std::size_t eighths = p.steps == 0 ? 0 : std::min(p.step, p.steps) * cells * 8 / p.steps;
    std::string bar = toolkit::repeat("█", eighths / 8);
    if (eighths / 8 < cells) {
        bar += partial.at(eighths % 8);
        bar += std::string(cells - eighths / 8 - (eighths % 8 == 0 ? 0 : 1), ' ');
    }
    return fmt::format("  step {}/{} ▕{}▏ {:3}%  loss {}", p.step, p.steps, bar,
                       p.steps == 0 ? 0 : p.step * 100 / p.steps, loss_text(p.loss));
}

std::string render_training_result(const TaskData& data, const TrainSettings& s,
                                   const TrainResult& r, const Trace& showcase_trace) {
    const Example showcase = showcase_example(data);
    const std::vector<double>& points = r.curve.points;
    std::string out;
    const std::string line = render_sparkline(points, 40, true);
    const auto marks = marks_of(points, 40);
    const auto [lo, hi] = std::minmax_element(marks.begin(), marks.end());
    out += labelled("loss", fmt::format("{}  steps 1 to {}", line, r.steps_done));
    // a mark is the mean of an equal share of the steps when the points are single steps and
    // the marks divide them evenly
    const bool even = r.curve.per_point == 1 && points.size() % marks.size() == 0;
    const auto share = static_cast<std::size_t>(
        std::lround(static_cast<double>(r.steps_done) / static_cast<double>(marks.size())));
    out += labelled(
        "", fmt::format("from {} (the first batch) to {} (the last); each mark is the "
                        "mean loss of {}{} {}, ▁ is {} and █ is {}",
                        loss_text(r.first_loss), loss_text(r.last_loss), even ? "" : "about ",
                        share, share == 1 ? "step" : "steps", loss_text(*lo), loss_text(*hi)));
    const Score& h = r.held_out_score;
    const std::size_t right = count_of(h.accuracy, h.rows);
    const std::size_t focused = count_of(h.focus, h.rows);
    const Score& t = r.train_score;
    out += labelled(
        "held out",
        fmt::format("accuracy {}: of the {} graded tokens of the {} examples never trained on, "
                    "{} have an output nearest the value of the token they should attend to, "
                    "and {} attend most to it (on the training examples: {})",
                    percent(right, h.rows), h.rows, data.held_out.size(), right, focused,
                    percent(count_of(t.accuracy, t.rows), t.rows)));
    // the showcase: the graded row the task looks at, and where its attention goes
    const ShowcaseAttention a = showcase_attention(data, showcase, showcase_trace);
    const std::size_t row = a.row;
    const std::size_t source = a.source;
    const std::size_t top = a.top;
    const std::vector<double>& mean = a.weights;
    const auto& tokens = showcase.tokens;
    std::string where =
        top == source ? "its largest weight"
                      : fmt::format("its largest weight is {} on '{}' ({})",
                                    format_number(mean[top], 2, true), shown(tokens[top]), top);
    const std::string text = fmt::format(
        "\"{}\" (never trained on): '{}' ({}) attends to '{}' ({}) with {}weight {}, {}",
        shown(joined_tokens(tokens)), shown(tokens[row]), row, shown(tokens[source]), source,
        s.config.n_heads > 1 ? "the heads' mean " : "", format_number(mean[source], 2, true),
        where);
    out += labelled("example", text);
    return out;
}

std::string training_description(const TaskData& data, const TrainSettings& s, const TrainResult& r,
                                 const Trace& showcase_trace) {
    const Score& h = r.held_out_score;
    const std::size_t right = count_of(h.accuracy, h.rows);
    const auto [trained, kept] = trained_and_kept(s);
    const Example e = showcase_example(data);
    const ShowcaseAttention a = showcase_attention(data, e, showcase_trace);
    return fmt::format(
        "Learned, not made by hand: attn train {} (seed {}, {} steps, learning rate {}) trained "
        "{}, the rest is seeded; held-out accuracy {} ({} of {}). In \"{}\", '{}' ({}) attends "
        "to '{}' ({}) with {}weight {}{}",
        to_string(data.task), s.config.seed, r.steps_done, s.lr, listing(trained),
        percent(right, h.rows), right, h.rows, shown(joined_tokens(e.tokens)),
        shown(e.tokens[a.row]), a.row, shown(e.tokens[a.source]), a.source,
        s.config.n_heads > 1 ? "the heads' mean " : "", format_number(a.weights[a.source], 2, true),
        a.top == a.source ? ", its largest" : "");
}

std::string render_loss_svg(const TaskData& data, const TrainResult& r, const TrainResult* scaled) {
    const std::vector<double>& points = r.curve.points;
    const bool both = scaled != nullptr && !scaled->diverged && !scaled->curve.points.empty();
    constexpr double width = 640.0;
    constexpr double height = 320.0;
    constexpr double left = 64.0;
    constexpr double right = 16.0;
    constexpr double top = 40.0;
    constexpr double bottom = 48.0;
    double hi = points.empty() ? 1.0 : *std::max_element(points.begin(), points.end());
    if (both) {  // one scale for both curves
        hi = std::max(hi,
                      *std::max_element(scaled->curve.points.begin(), scaled->curve.points.end()));
    }
    const double y_max = hi > 0.0 ? hi : 1.0;
    const auto x_of = [&](std::size_t i) {
        const double n = static_cast<double>(std::max<std::size_t>(points.size(), 2) - 1);
        return left + (width - left - right) * static_cast<double>(i) / n;
    };
    const auto y_of = [&](double v) { return top + (height - top - bottom) * (1.0 - v / y_max); };
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 "
        "{0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
        width, height);
    out += fmt::format("<title>attn train {}: the loss of each step</title>\n",
                       toolkit::xml(to_string(data.task)));
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out += fmt::format(
        "<text x=\"{}\" y=\"24\" font-size=\"14\">attn train {}: loss (mean "
        "squared error of the graded rows) by step</text>\n",
        left, toolkit::xml(to_string(data.task)));
    // axes, with the loss's range and the steps
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n",
                       left, top, height - bottom);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n",
                       left, height - bottom, width - right);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 6, top + 4,
                       fmt::format("{:.4g}", y_max));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\n", left - 6,
                       height - bottom + 4);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"start\">1</text>\n", left,
                       height - bottom + 18);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", width - right,
                       height - bottom + 18, r.steps_done);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">step{}</text>\n",
                       (left + width - right) / 2, height - 12,
                       r.curve.per_point > 1
                           ? fmt::format(" (each point the mean of {} steps)", r.curve.per_point)
                           : "");
    const auto curve = [&](const std::vector<double>& values, std::string_view colour) {
        std::string path;
        for (std::size_t i = 0; i < values.size(); ++i) {
            path += fmt::format("{}{:.2f},{:.2f}", i == 0 ? "" : " ", x_of(i), y_of(values[i]));
        }
        out += fmt::format(
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n", colour,
            path);
    };
    curve(points, "#1f77b4");
    if (both) {  // the same run with the scores divided by √d_k, and a legend for the two
        curve(scaled->curve.points, "#d62728");
        out += fmt::format(
            "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" fill=\"#1f77b4\">not scaled "
            "(--no-scale)</text>\n<text x=\"{0}\" y=\"{2}\" text-anchor=\"end\" "
            "fill=\"#d62728\">scores / √d_k</text>\n",
            width - right, top + 12, top + 28);
    }
    out += "</svg>\n";
    return out;
}

}  // namespace attn
