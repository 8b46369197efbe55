// Worksheets (Markdown), the answers template (JSON) and the report of attn check.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/check.hpp"
#include "attn/core/utf8.hpp"
#include "attn/render/render.hpp"
#include "common.hpp"
#include "json_layout.hpp"
#include "render_assets.hpp"  // generated from src/render/assets/ (cmake/EmbedAssets.cmake)

namespace attn {
namespace {

std::string cell_text(const Step& step, std::size_t r, std::size_t c, int precision) {
    if (step.kind == StepKind::mask) {
        return step.mask->allowed(r, c) ? "1" : "0";
    }
    return format_tidy((*step.matrix)(r, c), precision, true);
}

// Markdown escapes for a token used as a label: | would end a cell.
std::string md_label(const std::string& s) {
    std::string out;
    for (char ch : s) {
        out += ch == '|' ? std::string("\\|") : ch == '*' ? std::string("\\*") : std::string(1, ch);
    }
    return out;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string rules(const Trace& t) {
    if (t.config.arith == Arith::hand) {
        return fmt::format(
            "Rules for pencil and paper: scale by ⌊S / {}⌋ (round down) in place of S / √{}, and "
            "use 3^x in place of e^x in softmax: A = 3^(s − max) / Σ 3^(s − max) along each "
            "row. Write fractions as decimals to two places (3/7 = 0.43); answers within 0.05 of "
            "the right value count as right.",
            static_cast<int>(hand_divisor(t.config.d_k)), t.config.d_k);
    }
    return "Rules: S′ = S / √d_k, and softmax along each row, A = e^(s − max) / Σ e^(s − max). "
           "Write numbers to two decimal places; answers within 0.05 of the right value count as "
           "right.";
}

// Long lines wrapped at the width, continuation lines indented under their line's text.
std::string wrap(const std::string& text, std::size_t width) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        const auto indent = line.find_first_not_of(' ');
        const std::string pad(indent == std::string::npos ? 0 : indent + 2, ' ');
        std::string current;
        std::size_t pos = 0;
        while (pos <= line.size()) {
            const auto space =
                std::min(line.find(' ', pos == 0 ? line.find_first_not_of(' ') : pos), line.size());
            const std::string word = line.substr(pos, space - pos);
            pos = space + 1;
            if (!current.empty() && utf8::display_width(current + word) > width) {
                out += current.substr(0, current.find_last_not_of(' ') + 1) + "\n";
                current = pad;
            }
            current += word + " ";
        }
        out += current.substr(0, current.find_last_not_of(' ') + 1) + "\n";
    }
    return out;
}

}  // namespace

std::vector<std::string> default_blank_steps(const Trace& trace) {
    std::vector<std::string> out;
    for (const auto& s : teaching_steps(trace)) {
        const auto b = base_id(s.id);
        if (b == "Q" || b == "K" || b == "V" || b == "scores" || b == "scaled_scores" ||
            b == "masked_scores" || b == "weights" || b == "output") {
            out.push_back(s.id);
        }
    }
    return out;
}

std::string render_worksheet(const Trace& t, const std::vector<std::string>& blank, bool answer_key,
                             const TextStyle& style) {
    std::string out;
    out += answer_key ? "# Self-attention by hand: answer key\n\n"
                      : "# Self-attention by hand: worksheet\n\n";
    out += fmt::format(
        "Sentence: **{}** ({} tokens). d_model = {}, d_k = {}, d_v = {}; mask: {}. "
        "Numbers made by attn with --seed {}.\n\n",
        t.sentence, t.tokens.size(), t.config.d_model, t.config.d_k, t.config.d_v,
        to_string(t.config.mask), t.config.seed);
    out += rules(t) + "\n\n";
    if (!answer_key) {
        out +=
            "Fill in the empty cells (______), step by step: each step uses the ones before "
            "it. Write your answers in answers.json too (replace each null; write \"-inf\" "
            "for −∞) and check them with `attn check answers.json`.\n";
    }
    for (const auto& step : teaching_steps(t)) {
        out += step.kind == StepKind::tokens
                   ? fmt::format("\n## {} · {}\n\n", step.number, step.title)
                   : fmt::format("\n## {} · {} {}\n\n", step.number, step.title, step.symbol);
        out += fmt::format("`{}`\n\n", step.formula);
        if (step.kind == StepKind::tokens) {
            for (std::size_t i = 0; i < t.tokens.size(); ++i) {
                out += fmt::format("{}{}: {}", i > 0 ? ", " : "", i, md_label(t.tokens[i]));
            }
            out += "\n";
            continue;
        }
        const bool empty = !answer_key && contains(blank, step.id);
        out += "| |";
        for (const auto& label : step.col_labels) {
            out += " " + md_label(label) + " |";
        }
        out += "\n|---|";
        for (std::size_t c = 0; c < step.shape.cols; ++c) {
            out += "---:|";
        }
        out += "\n";
        for (std::size_t r = 0; r < step.shape.rows; ++r) {
            out += "| **" + md_label(step.row_labels[r]) + "** |";
            for (std::size_t c = 0; c < step.shape.cols; ++c) {
                out += " " +
                       (empty ? std::string("______") : cell_text(step, r, c, style.precision)) +
                       " |";
            }
            out += "\n";
        }
    }
    return out;
}

std::string render_worksheet_html(const Trace& t, const std::vector<std::string>& blank,
                                  bool answer_key, const TextStyle& style) {
    const auto esc = [](std::string_view raw) {
        std::string out;
        for (char ch : raw) {
            out += ch == '&'   ? std::string("&amp;")
                   : ch == '<' ? std::string("&lt;")
                   : ch == '>' ? std::string("&gt;")
                   : ch == '"' ? std::string("&quot;")
                               : std::string(1, ch);
        }
        return out;
    };
    std::string out =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
    out += answer_key ? "Answer key" : "Worksheet";
    out += ": " + esc(t.sentence) + "</title>\n<style>\n";
    out += assets::worksheet_css;
    out += "</style>\n</head>\n<body>\n";
    out += answer_key ? "<h1>Self-attention by hand: answer key</h1>\n"
                      : "<h1>Self-attention by hand: worksheet</h1>\n";
    out += fmt::format(
        "<p>Sentence: <b>{}</b> ({} tokens). d_model = {}, d_k = {}, d_v = {}; "
        "mask: {}. Numbers made by attn with --seed {}.</p>\n",
        esc(t.sentence), t.tokens.size(), t.config.d_model, t.config.d_k, t.config.d_v,
        to_string(t.config.mask), t.config.seed);
    out += "<p>" + esc(rules(t)) + "</p>\n";
    if (!answer_key) {
        out +=
            "<p>Fill in the empty cells, step by step: each step uses the ones before it. "
            "Write your answers in answers.json too and check them with <code>attn check "
            "answers.json</code>.</p>\n";
    }
    for (const auto& step : teaching_steps(t)) {
        out += "<div class=\"step\">\n";
        out += step.kind == StepKind::tokens
                   ? fmt::format("<h2>{} · {}</h2>\n", esc(step.number), esc(step.title))
                   : fmt::format("<h2>{} · {} {}</h2>\n", esc(step.number), esc(step.title),
                                 esc(step.symbol));
        out += "<p class=\"formula\">" + esc(step.formula) + "</p>\n";
        if (step.kind == StepKind::tokens) {
            out += "<p>";
            for (std::size_t i = 0; i < t.tokens.size(); ++i) {
                out += fmt::format("{}{}: {}", i > 0 ? ", " : "", i, esc(t.tokens[i]));
            }
            out += "</p>\n</div>\n";
            continue;
        }
        const bool empty = !answer_key && contains(blank, step.id);
        out += "<table>\n<thead><tr><th></th>";
        for (const auto& label : step.col_labels) {
            out += "<th>" + esc(label) + "</th>";
        }
        out += "</tr></thead>\n<tbody>\n";
        for (std::size_t r = 0; r < step.shape.rows; ++r) {
            out += "<tr><th>" + esc(step.row_labels[r]) + "</th>";
            for (std::size_t c = 0; c < step.shape.cols; ++c) {
                out += empty ? std::string("<td class=\"blank\"></td>")
                             : "<td>" + esc(cell_text(step, r, c, style.precision)) + "</td>";
            }
            out += "</tr>\n";
        }
        out += "</tbody>\n</table>\n</div>\n";
    }
    out += "</body>\n</html>\n";
    return out;
}

std::string render_answers_template(const Trace& t, const std::vector<std::string>& blank) {
    using json_layout::Json;
    Json answers = Json::object();
    for (const auto& step : teaching_steps(t)) {
        if (contains(blank, step.id)) {
            const Json row(step.shape.cols, nullptr);
            answers[step.id] = Json(step.shape.rows, row);
        }
    }
    const Json tmpl = {
        {"schema", "attn.answers"},
        {"schema_version", 1},
        {"instructions",
         "Replace each null with your number (write \"-inf\" for minus infinity), then run: "
         "attn check THIS-FILE"},
        {"worksheet",
         {{"sentence", t.sentence},
          {"seed", t.config.seed},
          {"d_model", t.config.d_model},
          {"d_k", t.config.d_k},
          {"d_v", t.config.d_v},
          {"mask", to_string(t.config.mask)},
          {"arith", to_string(t.config.arith)},
          {"tokenizer",
           {{"mode", to_string(t.config.tokenizer.mode)},
            {"lowercase", t.config.tokenizer.lowercase}}}}},
        {"answers", std::move(answers)}};
    return json_layout::write(tmpl) + "\n";
}

std::string render_check_report(const Trace& t, const std::vector<StepVerdict>& verdicts,
                                double tolerance, const TextStyle& style) {
    const auto num = [&](double x) { return format_tidy(x, style.precision, style.unicode); };
    const auto given = [&](const Answer& a) -> std::string {
        switch (a.kind) {
            case Answer::Kind::blank:
                return "blank";
            case Answer::Kind::minus_infinity:
                return style.unicode ? "−∞" : "-inf";
            case Answer::Kind::number:
                return num(a.value);
        }
        return "";
    };
    std::string out;
    const StepVerdict* first_wrong = nullptr;
    std::size_t n_wrong = 0;
    std::size_t n_cells = 0;
    const auto steps = teaching_steps(t);
    for (const auto& v : verdicts) {
        n_cells += v.n_cells;
        const bool ok = v.wrong.empty() && v.shape_problem.empty();
        if (!ok && first_wrong == nullptr) {
            first_wrong = &v;
        }
        const auto step = std::find_if(steps.begin(), steps.end(),
                                       [&](const Step& s) { return s.id == v.step_id; });
        if (ok) {
            out += fmt::format("{} {}: all {} cells right\n", style.unicode ? "✓" : "ok", v.title,
                               v.n_cells);
            continue;
        }
        if (!v.shape_problem.empty()) {
            n_wrong += v.n_cells;
            out +=
                fmt::format("{} {}: {}\n", style.unicode ? "✗" : "WRONG", v.title, v.shape_problem);
        } else {
            n_wrong += v.wrong.size();
            out += fmt::format("{} {}: {} of {} cells wrong or blank\n",
                               style.unicode ? "✗" : "WRONG", v.title, v.wrong.size(), v.n_cells);
            for (const auto& w : v.wrong) {
                out += fmt::format("    {}[{}, {}]: {}, expected {}\n", v.step_id,
                                   step->row_labels[w.row], step->col_labels[w.col], given(w.given),
                                   num(w.expected));
            }
        }
        if (!v.diagnosis.empty()) {
            out += "    likely mistake: " + v.diagnosis + "\n";
        }
    }
    if (first_wrong == nullptr) {
        out += fmt::format("\nAll {} answers are right (within {}).\n", n_cells, tolerance);
    } else {
        out += fmt::format(
            "\n{} of {} answers are wrong or blank (tolerance {}). The first "
            "mistake is in step {}: later steps may be wrong only because of it, "
            "so start there.\n",
            n_wrong, n_cells, tolerance, first_wrong->title);
    }
    return wrap(style.unicode ? out : to_ascii(out), style.width);
}

}  // namespace attn
