// `attn diff A.json B.json`: two dumps read back and verified as --from reads them, and the
// second walked through with every cell that differs from the first marked, as --set marks
// its changes.
#include <ostream>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/whatif.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"

namespace attn::cli {

int run_diff(const DiffOptions& options, Io& io) {
    const ExplainOptions& o = options.display;
    const auto format = choice<OutputFormat>(Field::format, o.format);
    if (format != OutputFormat::text && format != OutputFormat::none) {
        throw Error(ErrorKind::usage, Field::format,
                    fmt::format("attn diff marks the cells that differ in the terminal "
                                "walk-through and in --html, not in --format {}, expected "
                                "--format text or none",
                                o.format));
    }
    std::vector<OutputTarget> outputs;
    if (!o.html.empty() && o.html != "-") {
        outputs.push_back({"--html", o.html});
    }
    const bool prints = format == OutputFormat::text || o.html == "-";
    check_outputs(outputs, {{"A.json", options.first}, {"B.json", options.second}}, o.force,
                  prints ? io.stdout_path : "");
    TextStyle style = to_style(o, io);
    const std::size_t max_memory = max_memory_of(o.max_memory);
    const Replayed a = replay_dump(options.first, max_memory);
    Replayed b = replay_dump(options.second, max_memory);
    if (const auto differ = incomparable(a.trace, b.trace); !differ.empty()) {
        throw Error(
            ErrorKind::input,
            fmt::format("{} (A) and {} (B) cannot be compared cell by cell: {} (A against "
                        "B), expected two runs of the same shape: as many tokens, as "
                        "many heads and the same sizes (their sentences, seeds, masks, "
                        "rules and numbers may differ)",
                        shown(options.first), shown(options.second), listed(differ, " and ")));
    }
    Trace& trace = b.trace;
    auto comparison =
        compare(a.trace, trace, input_differences(a.trace, trace), b.record.mask_before);
    comparison->before_name = options.first;
    comparison->after_name = options.second;
    trace.comparison = std::move(comparison);
    check_layout(trace, style.layout);
    if (!o.steps.empty()) {
        auto selection = select_steps(o.steps, steps_in(trace, style.layout));
        style.steps = std::move(selection.ids);
        style.heads_together = std::move(selection.heads_together);
    }
    OutputSet files(o.force);
    for (const auto& target : outputs) {
        files.add(target, [&](const OutputSet::Sink& sink) { render_html(trace, style, sink); });
    }
    const auto print = [&] {
        const Sink to_stdout = [&io](std::string_view piece) {
            io.out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
        };
        if (o.html == "-") {
            if (o.present) {
                io.err << "attn: note: --present shows the text comparison, and --html - prints "
                          "the page instead; printing that\n";
            }
            render_html(trace, style, to_stdout);
        } else if (format == OutputFormat::text && o.present && io.console != nullptr) {
            present(trace, style, *io.console, io);
        } else if (format == OutputFormat::text) {
            if (o.present) {
                io.err << "attn: note: --present needs a terminal on stdin and stdout; printing "
                          "the whole comparison\n";
            }
            render_text(trace, style, to_stdout);
        }
        flush_stdout(io, files.empty() ? "" : "; no output file was changed");
    };
    const std::vector<Written> written = files.write_all(print);
    for (const auto& warning : trace_warnings(trace)) {
        io.err << "attn: warning: " << shown(warning, true) << '\n';
    }
    for (const auto& w : written) {
        io.err << "attn: wrote " << shown(describe(w)) << '\n';
    }
    return 0;
}

}  // namespace attn::cli
