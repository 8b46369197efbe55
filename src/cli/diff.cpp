// `attn diff A.json B.json`: two dumps read back and verified as --from reads them, and the
// second walked through with every cell that differs from the first marked.
#include <ostream>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/whatif.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"

namespace attn::cli {

int run_diff(const DiffOptions& options, Io& io) {
    const ExplainOptions& o = options.display;
    const std::string& html = o.html;
    std::vector<OutputTarget> outputs;
    if (!html.empty() && html != "-") {
        outputs.push_back({"--html", html});
    }
    check_outputs(outputs, {{"A.json", options.first}, {"B.json", options.second}}, o.force,
                  io.stdout_path);
    TextStyle style = to_style(o, io);
    const std::size_t max_memory =
        o.max_memory.empty() ? default_max_memory : parse_bytes(Field::max_memory, o.max_memory);
    const Replayed a = replay_dump(options.first, max_memory);
    Replayed b = replay_dump(options.second, max_memory);
    if (const auto differ = incomparable(a.trace, b.trace); !differ.empty()) {
        throw Error(ErrorKind::input,
                    fmt::format("{} and {} cannot be compared: {} ({} against {}), expected two "
                                "runs of the same shape: as many tokens, the same heads and the "
                                "same sizes (their seeds, masks, rules and numbers may differ)",
                                shown(options.first), shown(options.second),
                                listed(differ, " and "), shown(options.first),
                                shown(options.second)));
    }
    Trace& trace = b.trace;
    auto comparison =
        compare(a.trace, trace, input_differences(a.trace, trace), b.record.mask_before);
    comparison->before_name = options.first;
    comparison->after_name = options.second;
    trace.comparison = std::move(comparison);
    if (style.layout == Layout::col && trace.column_steps.empty()) {
        throw Error(ErrorKind::usage, Field::layout,
                    fmt::format("{} col is for one plain head, as in the by-hand exercises, "
                                "expected it without --heads (or W_O)",
                                subject));
    }
    if (!o.steps.empty()) {
        style.steps = select_steps(o.steps, steps_in(trace, style.layout));
    }
    OutputSet files(o.force);
    for (const auto& target : outputs) {
        files.add(target, [&](const OutputSet::Sink& sink) { render_html(trace, style, sink); });
    }
    const auto print = [&] {
        if (html == "-") {
            render_html(trace, style, [&io](std::string_view piece) {
                io.out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
            });
        } else {
            io.out << render_text(trace, style);
        }
        flush_stdout(io, files.empty() ? "" : "; no output file was changed");
    };
    for (const auto& w : files.write_all(print)) {
        io.err << "attn: wrote " << shown(describe(w)) << '\n';
    }
    return 0;
}

}  // namespace attn::cli
