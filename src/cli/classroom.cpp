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
#include "attn/io/model_file.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"

namespace attn::cli {

int run_worksheet(const WorksheetOptions& o, Io& io) {
    ExplainOptions in = o.input;
    if (!in.d_model) {
        in.d_model = 4;  // small enough for pencil and paper
    }
    InputSpec spec = to_spec(in);
    spec.arith = choice<Arith>(Field::arith, o.arith);
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
    const Trace trace = explain(loaded.input, loaded.config);
    const auto steps = teaching_steps(trace);
    const std::vector<std::string> blank =
        o.blank.empty() ? default_blank_steps(trace) : select_steps(o.blank, steps);
    for (const auto& id : blank) {
        const auto b = base_id(id);
        if (b == "tokens" || b == "mask") {
            throw Error(ErrorKind::usage, "--blank: '" + id +
                                              "' has nothing to work out, expected steps such "
                                              "as Q, scores, weights or output");
        }
    }
    std::error_code made;
    std::filesystem::create_directories(o.output, made);
    if (made) {
        throw errors::cannot_write(o.output, made.message());
    }
    TextStyle style;
    style.precision = 4;
    // all five or none: a set half from one run and half from another would not match
    OutputSet files(o.force);
    for (std::size_t i = 0; i < names.size(); ++i) {
        files.add(outputs[i], [&, i](const OutputSet::Sink& sink) {
            switch (i) {
                case 0:
                    sink(render_worksheet(trace, blank, false, style));
                    break;
                case 1:
                    sink(render_worksheet(trace, blank, true, style));
                    break;
                case 2:
                    sink(render_worksheet_html(trace, blank, false, style));
                    break;
                case 3:
                    sink(render_worksheet_html(trace, blank, true, style));
                    break;
                default:
                    sink(render_answers_template(trace, blank));
                    break;
            }
        });
    }
    for (const auto& w : files.write_all()) {
        if (!w.in_place.empty()) {
            io.err << "attn: note: " << shown(describe(w)) << '\n';
        }
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
    const AnswerSheet sheet = read_answers(o.answers);
    const Loaded loaded = load_input(spec_of(sheet.worksheet));
    const Trace trace = explain(loaded.input, loaded.config);
    // every answered step must be a step of the worksheet: a misspelt one would be ignored
    for (const auto& id : sheet.step_ids) {
        if (find_step(trace, id) == nullptr) {
            std::vector<std::string> ids;
            for (const Step& s : teaching_steps(trace)) {
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
    io.out << render_check_report(trace, verdicts, tolerance, style);
    const bool all_right = std::all_of(verdicts.begin(), verdicts.end(), [](const auto& v) {
        return v.wrong.empty() && !v.wrong_shape;
    });
    return all_right ? 0 : 1;
}

}  // namespace attn::cli
