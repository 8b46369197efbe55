// Worksheets (Markdown), the answers template (JSON) and the report of attn check.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "attn/core/check.hpp"
#include "attn/core/utf8.hpp"
#include "attn/render/render.hpp"
#include "json_layout.hpp"
#include "lesson.hpp"
#include "notation.hpp"
#include "render_assets.hpp"  // generated from src/render/assets/ (cmake/EmbedAssets.cmake)
#include "toolkit.hpp"

namespace attn {
namespace {

// `numbers`: the table's one number form (table_numbers, made once a table: it reads every
// cell), never "2", "2.0000", "2" in one column.
std::string cell_text(const Step& step, std::size_t r, std::size_t c, const TableNumbers& numbers) {
    if (step.kind == StepKind::mask) {
        return step.allowed(r, c) ? "1" : "0";
    }
    return numbers.format(step.value(r, c), true);
}

// Markdown escapes for a token or the sentence: no cell ends, no emphasis, link, image or
// raw HTML starts, and controls are made visible (toolkit::markdown).
std::string md_label(std::string_view s) {
    return toolkit::markdown(s);
}

// HTML escapes for the worksheet's page: & < > " ', controls made visible (toolkit::html).
std::string esc(std::string_view raw) {
    return toolkit::html(raw);
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The text before and after an escaped label or value.
struct Around {
    std::string_view before;
    std::string_view after;
};

// How a worksheet's table is marked up, around its escaped labels and cells.
struct TableMarkup {
    toolkit::Escape escape = nullptr;
    std::string_view start;  // before the column labels
    Around column;           // each column label
    std::string_view head;   // after the column labels
    std::string_view align;  // then once per column (Markdown's ---:)
    std::string_view body;   // before the rows
    Around row;              // each row label
    Around cell;             // each cell's value
    std::string_view blank;  // a cell left to fill in
    std::string_view row_end;
    std::string_view end;
};

constexpr TableMarkup markdown_table{
    .escape = md_label,
    .start = "| |",
    .column = {" ", " |"},
    .head = "\n|---|",
    .align = "---:|",
    .body = "\n",
    .row = {"| **", "** |"},
    .cell = {" ", " |"},
    .blank = " ______ |",
    .row_end = "\n",
    .end = "",
};

constexpr TableMarkup html_table{
    .escape = esc,
    .start = "<table>\n<thead><tr><th></th>",
    .column = {"<th>", "</th>"},
    .head = "</tr></thead>\n",
    .align = "",
    .body = "<tbody>\n",
    .row = {"<tr><th>", "</th>"},
    .cell = {"<td>", "</td>"},
    .blank = "<td class=\"blank\"></td>",
    .row_end = "</tr>\n",
    .end = "</tbody>\n</table>\n",
};

// The table of a step's values in a markup, its cells left blank when `blank`, written to
// `out` as it is made (a table of thousands of tokens is far larger than its matrix).
void table(toolkit::Spool& out, const Step& step, bool blank, int precision, const TableMarkup& m) {
    const auto around = [&](const Around& a, std::string_view text) {
        out += a.before;
        out += m.escape(text);
        out += a.after;
    };
    out += m.start;
    for (const auto& label : step.col_labels) {
        around(m.column, label);
    }
    out += m.head;
    for (std::size_t c = 0; c < step.shape.cols; ++c) {
        out += m.align;
    }
    out += m.body;
    const TableNumbers numbers =
        blank || step.kind == StepKind::mask ? TableNumbers{} : table_numbers(step, precision);
    for (std::size_t r = 0; r < step.shape.rows; ++r) {
        around(m.row, step.row_labels[r]);
        for (std::size_t c = 0; c < step.shape.cols; ++c) {
            if (blank) {
                out += m.blank;
            } else {
                around(m.cell, cell_text(step, r, c, numbers));
            }
        }
        out += m.row_end;
    }
    out += m.end;
}

// The caveat of a sheet by hand whose scores are not whole numbers; empty otherwise.
std::string caveat(const Trace& t) {
    const std::string misfit = hand_rules_misfit(t);
    return misfit.empty() ? misfit
                          : "Caution: the hand rules are meant for whole numbers, and these "
                            "scores are not: " +
                                misfit + ".";
}

std::string rules(const Trace& t, Layout layout) {
    const std::string_view along =
        layout == Layout::col ? "down each column (one column per query)" : "along each row";
    if (t.config.arith == Arith::hand) {
        const std::string warning = caveat(t);
        return fmt::format(
            "Rules for pencil and paper: scale by ⌊S / {}⌋ (round down) in place of S / √{}, and "
            "use 3^x in place of e^x in softmax: A = 3^(s − max) / Σ 3^(s − max) {}. Write "
            "fractions as decimals to two places (3/7 = 0.43); answers within 0.05 of the right "
            "value count as right.{}{}",
            static_cast<int>(t.rule.divisor()), t.config.d_k, along, warning.empty() ? "" : " ",
            warning);
    }
    return fmt::format(
        "Rules: S′ = S / √d_k, and softmax {}, A = e^(s − max) / Σ e^(s − max). Write numbers "
        "to two decimal places; answers within 0.05 of the right value count as right.",
        along);
}

// Where the worksheet's numbers came from, after its sizes and mask: a seed, a model file or
// a Q, K, V file (the answers file keeps the file's numbers, not its path).
std::string origin(const Trace& t, toolkit::Escape escape) {
    const auto file = [&](const std::string& path) {
        return escape(std::filesystem::path(path).filename().string());
    };
    if (t.qkv_given) {
        return fmt::format("Q, K and V given in {}.", file(t.qkv_path));
    }
    if (t.embeddings_source.kind == Source::Kind::file ||
        t.weights_source.kind == Source::Kind::file) {
        return fmt::format("Numbers from {}.", file(t.embeddings_source.kind == Source::Kind::file
                                                        ? t.embeddings_source.path
                                                        : t.weights_source.path));
    }
    return fmt::format("Numbers made by attn with --seed {}.", t.config.seed);
}

// What the header says of the worksheet's tokens, sizes and mask, and where its numbers came
// from.
std::string header(const Trace& t, toolkit::Escape escape, std::string_view bold_start,
                   std::string_view bold_end) {
    const std::string sizes = t.qkv_given
                                  ? fmt::format("d_k = {}, d_v = {}", t.config.d_k, t.config.d_v)
                                  : fmt::format("d_model = {}, d_k = {}, d_v = {}",
                                                t.config.d_model, t.config.d_k, t.config.d_v);
    return fmt::format("Sentence: {}{}{} ({} tokens). {}; mask: {}. {}", bold_start,
                       escape(t.sentence), bold_end, t.tokens.size(), sizes,
                       to_string(t.config.mask), origin(t, escape));
}

}  // namespace

std::string hand_rules_misfit(const Trace& t) {
    if (t.config.arith != Arith::hand || scores_whole(t)) {
        return {};
    }
    // the values ⌊S / r⌋ leaves: a few of them for many scores is an exercise that says little
    std::vector<double> values;
    std::size_t n_scores = 0;
    for (const Head& h : t.heads) {
        values.insert(values.end(), h.scaled_scores.data().begin(), h.scaled_scores.data().end());
        n_scores += h.scaled_scores.size();
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    std::string left;
    if (values.size() == 1) {
        left = fmt::format(" (here all {} scaled scores are {})", n_scores,
                           format_tidy(values.front(), prose_digits, true));
    } else if (values.size() <= 3) {
        std::vector<std::string> shown_values;
        shown_values.reserve(values.size());
        for (double v : values) {
            shown_values.push_back(format_tidy(v, prose_digits, true));
        }
        const std::string last = shown_values.back();
        shown_values.pop_back();
        std::string listed;
        for (const auto& v : shown_values) {
            listed += (listed.empty() ? "" : ", ") + v;
        }
        left = fmt::format(" (here the {} scaled scores take only the values {} and {})", n_scores,
                           listed, last);
    }
    return fmt::format(
        "⌊S / {}⌋ drops their fractions{}, so the hand weights are as much as {} away from the "
        "exact ones (softmax with e^x of S / √{})",
        static_cast<long long>(t.rule.divisor()), left,
        format_number(hand_difference(t), prose_digits, true),
        t.rule.scale_by == ScaleBy::d_model ? t.config.d_model : t.config.d_k);
}

void render_worksheet(const Trace& t, const std::vector<std::string>& blank, bool answer_key,
                      const TextStyle& style, const Sink& sink) {
    toolkit::Spool out(sink);  // a piece at a time: the tables grow with the square of T
    out += answer_key ? "# Self-attention by hand: answer key\n\n"
                      : "# Self-attention by hand: worksheet\n\n";
    out += header(t, md_label, "**", "**") + "\n\n";
    out += rules(t, style.layout);
    out += "\n\n";
    if (!answer_key) {
        out +=
            "Fill in the empty cells (______), step by step: each step uses the ones before "
            "it. Write your answers in answers.json too (replace each null; write \"-inf\" "
            "for −∞) and check them with `attn check answers.json`.\n";
    }
    for (const auto& step : steps_in(t, style.layout)) {
        out += step.kind == StepKind::tokens
                   ? fmt::format("\n## {} · {}\n\n", step.number, lesson::title(t, step))
                   : fmt::format("\n## {} · {} {}\n\n", step.number, lesson::title(t, step),
                                 notation::symbol(step.symbol, notation::Style::unicode));
        out += fmt::format("`{}`\n\n", notation::formula(step.formula, notation::Style::unicode));
        if (step.kind == StepKind::tokens) {
            out += toolkit::numbered_tokens(t.tokens, md_label) + "\n";
            continue;
        }
        table(out, step, !answer_key && contains(blank, step.id), style.precision, markdown_table);
    }
    out.flush();
}

void render_worksheet_html(const Trace& t, const std::vector<std::string>& blank, bool answer_key,
                           const TextStyle& style, const Sink& sink) {
    toolkit::Spool out(sink);
    out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    // a sheet has no script at all: none may run, nothing comes from the network
    out +=
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n<title>";
    out += answer_key ? "Answer key" : "Worksheet";
    out += ": " + esc(t.sentence) + "</title>\n<style>\n";
    out += assets::worksheet_css;
    out += "</style>\n</head>\n<body>\n";
    out += answer_key ? "<h1>Self-attention by hand: answer key</h1>\n"
                      : "<h1>Self-attention by hand: worksheet</h1>\n";
    out += "<p>" + header(t, esc, "<b>", "</b>") + "</p>\n";
    out += "<p>" + esc(rules(t, style.layout)) + "</p>\n";
    if (!answer_key) {
        out +=
            "<p>Fill in the empty cells, step by step: each step uses the ones before it. "
            "Write your answers in answers.json too and check them with <code>attn check "
            "answers.json</code>.</p>\n";
    }
    for (const auto& step : steps_in(t, style.layout)) {
        out += "<div class=\"step\">\n";
        out +=
            step.kind == StepKind::tokens
                ? fmt::format("<h2>{} · {}</h2>\n", esc(step.number), esc(lesson::title(t, step)))
                : fmt::format("<h2>{} · {} {}</h2>\n", esc(step.number),
                              esc(lesson::title(t, step)),
                              esc(notation::symbol(step.symbol, notation::Style::unicode)));
        out += "<p class=\"formula\">" +
               esc(notation::formula(step.formula, notation::Style::unicode)) + "</p>\n";
        if (step.kind == StepKind::tokens) {
            out += "<p>" + toolkit::numbered_tokens(t.tokens, esc) + "</p>\n</div>\n";
            continue;
        }
        table(out, step, !answer_key && contains(blank, step.id), style.precision, html_table);
        out += "</div>\n";
    }
    out += "</body>\n</html>\n";
    out.flush();
}

std::string render_worksheet(const Trace& t, const std::vector<std::string>& blank, bool answer_key,
                             const TextStyle& style) {
    return toolkit::collect(
        [&](const Sink& sink) { render_worksheet(t, blank, answer_key, style, sink); });
}

std::string render_worksheet_html(const Trace& t, const std::vector<std::string>& blank,
                                  bool answer_key, const TextStyle& style) {
    return toolkit::collect(
        [&](const Sink& sink) { render_worksheet_html(t, blank, answer_key, style, sink); });
}

std::size_t answers_template_bytes(const Trace& t, const std::vector<std::string>& blank) {
    std::size_t cells = 0;
    std::size_t rows = 0;
    for (const auto& step : teaching_steps(t)) {
        if (contains(blank, step.id)) {
            cells += step.shape.rows * step.shape.cols;
            rows += step.shape.rows;
        }
    }
    // the numbers the worksheet was made from, when a file gave them: up to 24 characters
    // each (", " and a double's digits) where a null takes 6
    std::size_t numbers = 0;
    for (const Matrix* m :
         {&t.x, &t.positions, &t.w_q, &t.w_k, &t.w_v, &t.w_o, &t.b_q, &t.b_k, &t.b_v, &t.b_o}) {
        numbers += m->size();
        rows += m->rows();
    }
    // a null is one Json (16 bytes) in its row's vector, and "null, " in the text (held twice
    // at the end: the layout's string and the one returned); a row is a Json and its vector
    constexpr std::size_t per_cell = sizeof(json_layout::Json) + 2 * std::size_t{6};
    constexpr std::size_t per_number = sizeof(json_layout::Json) + 2 * std::size_t{24};
    constexpr std::size_t per_row =
        2 * sizeof(json_layout::Json) + 3 * sizeof(void*) + 2 * std::size_t{8};
    return cells * per_cell + numbers * per_number + rows * per_row + (std::size_t{64} << 10U);
}

namespace {

// The settings a worksheet is remade from, for attn check: with numbers from a file, the
// numbers themselves (a model's embeddings and weights, or Q, K and V), not the file's path,
// so that the answers file stays checkable when that file is gone or changed.
json_layout::Json settings(const Trace& t, Layout layout) {
    using json_layout::Json;
    Json w = Json::object();
    if (!t.qkv_given || !t.tokens_named) {
        w["sentence"] = t.sentence;
    }
    const bool from_file = t.embeddings_source.kind == Source::Kind::file ||
                           t.weights_source.kind == Source::Kind::file;
    if (t.qkv_given) {
        const Head& head = t.heads.front();
        w["qkv"] = {{"tokens", t.tokens},
                    {"Q", json_layout::matrix(head.q)},
                    {"K", json_layout::matrix(head.k)},
                    {"V", json_layout::matrix(head.v)}};
    } else if (from_file) {
        const std::size_t n_real = t.tokens.size() - t.config.n_pad;
        Json model = {
            // a table as the model file gave it (one row a position), else its kind
            {"positions", t.config.positions == PositionKind::file
                              ? json_layout::matrix(t.positions)
                              : Json(to_string(t.config.positions))},
            {"embeddings",
             {{"case_insensitive", false}, {"vectors", json_layout::vectors(t.tokens, t.x)}}},
            {"weights", json_layout::weights(Weights{.w_q = t.w_q,
                                                     .w_k = t.w_k,
                                                     .w_v = t.w_v,
                                                     .w_o = t.w_o,
                                                     .b_q = t.b_q,
                                                     .b_k = t.b_k,
                                                     .b_v = t.b_v,
                                                     .b_o = t.b_o},
                                             t.config.n_heads)}};
        if (t.config.n_pad > 0) {
            model["pad_to"] = n_real + t.config.n_pad;
        }
        w["model"] = std::move(model);
    } else {
        w["seed"] = t.config.seed;
        w["d_model"] = t.config.d_model;
        w["d_k"] = t.config.d_k;
        w["d_v"] = t.config.d_v;
    }
    w["mask"] = to_string(t.config.mask);
    w["arith"] = to_string(t.config.arith);
    w["tokenizer"] = {{"mode", to_string(t.config.tokenizer.mode)},
                      {"lowercase", t.config.tokenizer.lowercase}};
    w["layout"] = to_string(layout);
    return w;
}

}  // namespace

std::string render_answers_template(const Trace& t, const std::vector<std::string>& blank,
                                    Layout layout) {
    using json_layout::Json;
    Json answers = Json::object();
    for (const auto& step : steps_in(t, layout)) {
        if (contains(blank, step.id)) {
            const Json row(step.shape.cols, nullptr);
            answers[step.id] = Json(step.shape.rows, row);
        }
    }
    std::string instructions =
        layout == Layout::col
            ? "Replace each null with your number (write \"-inf\" for minus infinity), each "
              "step's rows and columns as the worksheet shows them (\"layout\": \"col\": "
              "tokens are columns), then run: attn check THIS-FILE"
            : "Replace each null with your number (write \"-inf\" for minus infinity), then "
              "run: attn check THIS-FILE";
    if (const std::string warning = caveat(t); !warning.empty()) {
        instructions += ". " + warning;
    }
    const Json tmpl = {{"schema", "attn.answers"},
                       {"schema_version", 1},
                       {"instructions", std::move(instructions)},
                       {"worksheet", settings(t, layout)},
                       {"answers", std::move(answers)}};
    return json_layout::write(tmpl) + "\n";
}

}  // namespace attn
