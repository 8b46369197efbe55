// `attn explain`: the run: options → plan → files read → Trace → text, JSON and pictures.
#include <ostream>

#include <fmt/format.h>

#include "attn/core/cell.hpp"
#include "attn/core/error.hpp"
#include "attn/core/limits.hpp"
#include "attn/core/parallel.hpp"
#include "attn/io/model_file.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"
#include "stats.hpp"

namespace attn::cli {
namespace {

// --from replays a dump as recorded: the first option given that would change the numbers.
std::optional<std::string> conflicts_with_from(const ExplainOptions& o) {
    const std::vector<std::pair<bool, const char*>> given{
        {!o.words.empty(), "a sentence"},
        {o.seed.has_value(), "--seed"},
        {o.d_model.has_value(), "--d-model"},
        {o.heads.has_value(), "--heads"},
        {o.d_k.has_value(), "--d-k"},
        {o.d_v.has_value(), "--d-v"},
        {o.mask.has_value(), "--mask"},
        {o.positions.has_value(), "--positions"},
        {o.pad_to.has_value(), "--pad-to"},
        {o.lowercase, "--lowercase"},
        {o.chars, "--chars"},
        {o.no_scale, "--no-scale"},
        {o.scale_by.has_value(), "--scale-by"},
        {o.softmax_over != "rows", "--softmax-over"},
        {o.arith != "exact", "--arith"},
        {!o.embeddings.empty(), "--embeddings"},
        {!o.weights.empty(), "--weights"},
        {!o.model.empty(), "--model"},
        {!o.qkv.empty(), "--qkv"},
        {o.unknown != "error", "--unknown"},
    };
    for (const auto& [is_given, name] : given) {
        if (is_given) {
            return name;
        }
    }
    return std::nullopt;
}

}  // namespace

int run_explain(const ExplainOptions& options, Io& io) {
    ExplainOptions o = options;
    // a name such as "this-is-book" finds the example of that name
    o.model = resolve_input_file(o.model, io);
    o.embeddings = resolve_input_file(o.embeddings, io);
    o.weights = resolve_input_file(o.weights, io);
    o.qkv = resolve_input_file(o.qkv, io);
    if (!o.from.empty()) {
        if (const auto other = conflicts_with_from(o)) {
            throw Error(ErrorKind::usage,
                        "--from replays a dump exactly as it was recorded, so it cannot be "
                        "combined with " +
                            *other +
                            ", expected --from FILE alone (display options such as --steps or "
                            "--width are fine)");
        }
    }
    // checked before the work starts: a typo should not cost a long computation first
    const auto format = choice<OutputFormat>(Field::format, o.format);
    if (format == OutputFormat::none && !o.why.empty()) {
        throw Error(ErrorKind::usage,
                    "--why prints worked arithmetic and --format none prints nothing, expected "
                    "one of them");
    }
    if (o.threads) {
        check_limit(Field::threads, *o.threads);
        set_worker_threads(static_cast<std::size_t>(*o.threads));
    }
    TextStyle style = to_style(o, io);
    Stopwatch watch;
    const std::size_t max_memory =
        o.max_memory.empty() ? default_max_memory : parse_bytes(Field::max_memory, o.max_memory);
    const Loaded loaded = o.from.empty() ? load_input(to_spec(o)) : read_dump(o.from);
    if (!o.from.empty()) {  // a dump's inputs are small; its T×T steps may not be
        check_memory(loaded.config, loaded.input.tokens.size(), max_memory);
    }
    watch.lap(o.from.empty() ? "read input" : "read " + o.from);
    const Trace trace = explain(loaded.input, loaded.config);
    watch.lap("compute");
    if (!o.from.empty()) {
        // a replay shows only what its inputs give: every value the dump holds is compared
        // with the run computed again, and the first that differs is an error (exit 2)
        std::string recomputed;
        render_json(trace, [&recomputed](std::string_view piece) { recomputed += piece; });
        verify_dump(o.from, recomputed);
        watch.lap("verify " + o.from);
    }
    if (style.layout == Layout::col && trace.column_steps.empty()) {
        throw Error(ErrorKind::usage, Field::layout,
                    fmt::format("{} col is for one plain head, as in the by-hand exercises, "
                                "expected it without --heads (or W_O)",
                                subject));
    }
    if (!o.steps.empty()) {
        style.steps = select_steps(o.steps, steps_in(trace, style.layout));
    }
    if (o.head != 0) {
        if (o.head < 1 || static_cast<std::size_t>(o.head) > trace.heads.size()) {
            throw errors::bad_size(Field::head, o.head, 1,
                                   static_cast<long long>(trace.heads.size()),
                                   "the head to show in full; this run has that many heads");
        }
        style.head = static_cast<std::size_t>(o.head);
    }

    if (static_cast<int>(o.json == "-") + static_cast<int>(o.svg == "-") +
            static_cast<int>(o.html == "-") >
        1) {
        throw Error(ErrorKind::usage,
                    "--json -, --svg - and --html - all want stdout, expected at most one of them "
                    "there");
    }
    std::vector<CellRef> cells;
    for (const auto& why : o.why) {
        cells.push_back(parse_cell(why, trace, style.layout));  // checked before any output
    }

    if (!o.svg.empty() && o.svg != "-") {
        AtomicFile file(o.svg);
        file.write(render_svg(trace));
        file.commit();
        watch.lap("write " + o.svg, file.bytes());
    }
    if (!o.html.empty() && o.html != "-") {
        AtomicFile file(o.html);
        file.write(render_html(trace, style));
        file.commit();
        watch.lap("write " + o.html, file.bytes());
    }
    if (o.html == "-") {
        io.out << render_html(trace, style);
    } else if (o.svg == "-") {
        io.out << render_svg(trace);
    } else if (o.json == "-") {
        std::size_t bytes = 0;
        render_json(trace, [&io, &bytes](std::string_view piece) {
            io.out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
            bytes += piece.size();
        });
        watch.lap("write JSON to stdout", bytes);
    } else {
        if (!o.json.empty()) {
            AtomicFile file(o.json);
            render_json(trace, [&file](std::string_view piece) { file.write(piece); });
            file.commit();
            watch.lap("write " + o.json, file.bytes());
        }
        if (format == OutputFormat::none) {
            // compute and files only
        } else if (cells.empty() && o.pause && io.in != nullptr && io.stdin_is_terminal &&
                   io.stdout_is_terminal) {
            walk_with_pauses(render_text_pages(trace, style), style, io);
        } else if (cells.empty() && format == OutputFormat::markdown) {
            io.out << render_markdown(trace, style);
        } else if (cells.empty() && format == OutputFormat::latex) {
            io.out << render_latex(trace, style);
        } else if (cells.empty()) {
            if (o.pause) {
                io.err << "attn: note: --pause needs a terminal on stdin and stdout; printing "
                          "every step at once\n";
            }
            io.out << render_text(trace, style);
        } else {
            io.out << render_summary(trace, style);
            for (const auto& cell : cells) {
                io.out << '\n' << render_why(trace, cell, style);
            }
        }
    }
    io.out.flush();
    if (o.html == "-" || o.svg == "-" || (o.json != "-" && format != OutputFormat::none)) {
        watch.lap("print to stdout");  // (a dump to stdout has its own lap above)
    }
    for (const auto& warning : trace_warnings(trace)) {
        io.err << "attn: warning: " << shown(warning, true) << '\n';
    }
    if (!io.out) {
        return 1;  // stdout closed or full: nothing useful to say on a broken pipe
    }
    if (!o.json.empty() && o.json != "-") {
        io.err << "attn: wrote " << shown(o.json) << '\n';
    }
    if (!o.svg.empty() && o.svg != "-") {
        io.err << "attn: wrote " << shown(o.svg) << '\n';
    }
    if (!o.html.empty() && o.html != "-") {
        io.err << "attn: wrote " << shown(o.html) << '\n';
    }
    if (o.stats) {
        io.err << watch.report(trace);
    }
    return 0;
}

}  // namespace attn::cli
