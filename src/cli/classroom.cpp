// `attn worksheet` and `attn check`: exercises by hand, and checking the answers.
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "attn/core/check.hpp"
#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "attn/core/limits.hpp"
#include "attn/io/heap.hpp"
#include "attn/io/model_file.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"

namespace attn::cli {
namespace {

// The first score of `t` that is not a whole number, for a message: "query 'this', key
// 'is': 0.4523" (with several heads, the head first). Empty when every score is whole.
std::string fraction_found(const Trace& t) {
    for (const Head& h : t.heads) {
        const Matrix& s = h.scores;
        for (std::size_t i = 0; i < s.rows(); ++i) {
            for (std::size_t j = 0; j < s.cols(); ++j) {
                if (s(i, j) != std::round(s(i, j))) {
                    return fmt::format(
                        "{}query '{}', key '{}': {}",
                        t.heads.size() > 1 ? fmt::format("head {}, ", h.index + 1) : "",
                        t.tokens[i], t.tokens[j], format_number(s(i, j), prose_digits, true));
                }
            }
        }
    }
    return {};
}

// The worksheet's Trace. By hand unless --arith says otherwise, or unless a file's scores
// are not whole numbers (scores_whole, the premise explain's note checks too): then ⌊S / r⌋
// and 3^x would make a meaningless exercise, so the sheet is exact and a note says so. An
// explicit --arith hand on such numbers is kept, with a warning (and the sheets' caveat).
// Seeded numbers by hand are whole: their sheets never change here.
Trace worksheet_trace(const Loaded& loaded, const WorksheetOptions& o, const std::string& file,
                      std::vector<std::string>& notes) {
    Trace trace = explain(loaded.input, loaded.config);
    if (trace.config.arith != Arith::hand || scores_whole(trace)) {
        return trace;
    }
    const std::string found =
        fmt::format("the scores from {} are not whole numbers ({})",
                    std::filesystem::path(file).filename().string(), fraction_found(trace));
    const auto d = trace.config.d_k;
    if (o.arith) {
        notes.push_back(fmt::format(
            "warning: {}, and the hand rules of --arith hand are meant for whole numbers: {}; "
            "the sheets say so under their rules; --arith exact uses S / √{} and e^x",
            found, hand_rules_misfit(trace), d));
        return trace;
    }
    notes.push_back(fmt::format(
        "note: {}, so the worksheet uses exact arithmetic (S / √{} and e^x), not the hand rules "
        "(⌊S / {}⌋ and 3^x), which are meant for whole numbers; --arith hand forces the hand "
        "rules",
        found, d, static_cast<long long>(trace.rule.divisor())));
    Config exact = loaded.config;
    exact.arith = Arith::exact;
    trace = Trace{};  // freed first: the exact run needs as much memory again
    return explain(loaded.input, exact);
}

}  // namespace

int run_worksheet(const WorksheetOptions& o, Io& io) {
    ExplainOptions in = o.input;
    // a name such as "by-hand-6x4" finds the example of that name
    in.model = resolve_input_file(in.model, io);
    in.qkv = resolve_input_file(in.qkv, io);
    if (!in.d_model && in.model.empty() && in.qkv.empty()) {
        in.d_model = 4;  // small enough for pencil and paper
    }
    InputSpec spec = to_spec(in);
    spec.arith = choice<Arith>(Field::arith, o.arith.value_or("hand"));
    TextStyle style;
    style.precision = 4;
    style.layout = choice<Layout>(Field::layout, o.layout);
    // the five files, checked before any work: none may exist (without --force), be
    // write-protected, or be an input
    const std::vector<std::string> names{"worksheet.md", "answer-key.md", "worksheet.html",
                                         "answer-key.html", "answers.json"};
    std::vector<OutputTarget> outputs;
    for (const auto& name : names) {
        const std::string path = (std::filesystem::path(o.output) / name).string();
        struct stat st {};
        if (!o.force && special_file_kind(path).empty() && ::stat(path.c_str(), &st) == 0) {
            throw Error(ErrorKind::usage,
                        fmt::format("{} exists, expected a new folder or --force to replace it",
                                    shown(path)));
        }
        outputs.push_back({name, path});
    }
    check_outputs(outputs, input_targets(spec), o.force);
    const Loaded loaded = load_input(spec);
    std::vector<std::string> notes;  // printed once the files are written
    const Trace trace = worksheet_trace(loaded, o, in.qkv.empty() ? in.model : in.qkv, notes);
    check_layout(trace, style.layout);
    const auto steps = steps_in(trace, style.layout);
    const std::vector<std::string> blank =
        o.blank.empty() ? default_blank_steps(trace) : select_steps(o.blank, steps).ids;
    for (const auto& id : blank) {
        const auto b = base_id(id);
        if (b == "tokens" || b == "mask" ||
            (trace.qkv_given && (b == "Q" || b == "K" || b == "V"))) {
            throw Error(ErrorKind::usage,
                        fmt::format("--blank: '{}' has nothing to work out{}, expected steps such "
                                    "as {}scores, weights or output",
                                    shown(id), trace.qkv_given ? " (--qkv gives it)" : "",
                                    trace.qkv_given ? "" : "Q, "));
        }
    }
    std::error_code made;
    std::filesystem::create_directories(o.output, made);
    if (made) {
        throw errors::cannot_write(o.output, made.message());
    }
    // the worksheets are written as they are made; the answers template is built whole
    check_memory_for(answers_template_bytes(trace, blank), budget_now(spec.max_memory),
                     "the answers template (answers.json) needs about {}",
                     "leave fewer steps blank (--blank) or use a shorter sentence");
    // all five or none: a set half from one run and half from another would not match
    OutputSet files(o.force);
    for (std::size_t i = 0; i < names.size(); ++i) {
        files.add(outputs[i], [&, i](const OutputSet::Sink& sink) {
            // in the order of `names`: the worksheet and the answer key in Markdown, then in
            // HTML (both written as they are made), then the answers template
            const bool key = i % 2 == 1;
            if (i < 2) {
                render_worksheet(trace, blank, key, style, sink);
            } else if (i < 4) {
                render_worksheet_html(trace, blank, key, style, sink);
            } else {
                sink(render_answers_template(trace, blank, style.layout));
            }
        });
    }
    for (const auto& w : files.write_all()) {
        if (!w.in_place.empty()) {
            io.err << "attn: note: " << shown(describe(w)) << '\n';
        }
    }
    for (const auto& note : notes) {
        io.err << "attn: " << shown(note) << '\n';
    }
    io.err << fmt::format(
        "attn: wrote {0}/worksheet.md and .html (for the student), {0}/answer-key.md and .html "
        "(for the teacher) and {0}/answers.json (to fill in, then: attn check "
        "{0}/answers.json)\n",
        shown(o.output));
    return 0;
}

int run_check(const CheckOptions& o, Io& io) {
    for (const auto& [name, value] : {std::pair{"--tolerance", o.tolerance},
                                      std::pair{"--relative-tolerance", o.relative_tolerance}}) {
        if (!(value >= 0.0) || !std::isfinite(value)) {
            throw Error(ErrorKind::usage,
                        fmt::format("{} is {}, expected a number of at least 0", name, value));
        }
    }
    const std::size_t max_memory = max_memory_of(o.max_memory);
    const AnswerSheet sheet = read_answers(o.answers, max_memory);
    // the answers read count: one budget for the run
    const Loaded loaded = load_worksheet(sheet.worksheet, max_memory);
    const Trace trace = explain(loaded.input, loaded.config);
    const Layout layout = sheet.worksheet.layout;
    if (layout == Layout::col && trace.column_steps.empty()) {
        throw Error(
            ErrorKind::input,
            fmt::format("{}: worksheet.layout: the layout is \"col\", but the numbers "
                        "give {}, expected \"row\" (the column layout shows one plain "
                        "head)",
                        shown(o.answers),
                        trace.config.n_heads > 1 ? fmt::format("{} heads", trace.config.n_heads)
                                                 : std::string("a head with W_O")));
    }
    // every answered step must be a step of the worksheet: a misspelt one would be ignored
    for (const auto& id : sheet.step_ids) {
        if (find_step(trace, id) == nullptr) {
            std::vector<std::string> ids;
            for (const Step& s : steps_in(trace, layout)) {
                ids.push_back(s.id);
            }
            const auto near = nearest(id, ids);
            throw Error(ErrorKind::input,
                        fmt::format("{}: answers.{}: no step of this worksheet has that id, "
                                    "expected one of: {}{}",
                                    shown(o.answers), shown(id), listed(ids, ", "),
                                    near.empty() ? std::string()
                                                 : fmt::format(" (did you mean {}?)", near[0])));
        }
    }
    const Tolerance tolerance{o.tolerance, o.relative_tolerance};
    check_memory_for(check_bytes(trace, sheet), budget_now(max_memory),
                     "checking these answers needs about {} (each cell may be wrong)",
                     "check fewer steps at a time, or a shorter sentence");
    const auto verdicts = check_answers(trace, sheet, tolerance);
    if (verdicts.empty()) {
        throw Error(ErrorKind::input,
                    o.answers +
                        ": \"answers\" holds no step of this worksheet, expected the "
                        "steps the worksheet left blank");
    }
    check_limit(Field::precision, o.precision);
    TextStyle style;
    style.precision = o.precision;
    style.unicode = !o.ascii;
    style.layout = layout;
    render_check_report(trace, verdicts, tolerance, style, [&io](std::string_view piece) {
        io.out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    const bool all_right = std::all_of(verdicts.begin(), verdicts.end(), [](const auto& v) {
        return v.wrong.empty() && !v.wrong_shape;
    });
    return all_right ? 0 : 1;
}

}  // namespace attn::cli
