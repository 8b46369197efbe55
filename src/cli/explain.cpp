// `attn explain`: the run: options → plan → files read → Trace → text, JSON and pictures.
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "attn/core/backward.hpp"
#include "attn/core/cell.hpp"
#include "attn/core/error.hpp"
#include "attn/core/gpt2.hpp"
#include "attn/core/limits.hpp"
#include "attn/core/parallel.hpp"
#include "attn/io/checkpoint.hpp"
#include "attn/io/heap.hpp"
#include "attn/io/model_file.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"
#include "stats.hpp"

namespace attn::cli {
namespace {

// The options that choose the numbers of a toy-model run (the sizes, the mask, the
// tokenizer, the rule and the files the numbers come from), in the order a conflict names them.
using Given = std::vector<std::pair<bool, const char*>>;
Given number_options(const ExplainOptions& o) {
    return {
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
    };
}

// The name of the first option of `before`, then number_options(o), then `after` that is given.
std::optional<std::string> first_given(const Given& before, const ExplainOptions& o,
                                       const Given& after) {
    for (const Given& list : {before, number_options(o), after}) {
        for (const auto& [is_given, name] : list) {
            if (is_given) {
                return name;
            }
        }
    }
    return std::nullopt;
}

// --from replays a dump as recorded: the first option given that would change the numbers.
std::optional<std::string> conflicts_with_from(const ExplainOptions& o) {
    return first_given(
        {{!o.words.empty(), "a sentence"}}, o,
        {{o.unknown != "error", "--unknown"},
         {!o.target.empty() || o.backward || o.lr.has_value(), "--target, --backward or --lr"}});
}

// The output files of a run (stdout, "-", is not one).
std::vector<OutputTarget> output_targets(const ExplainOptions& o) {
    std::vector<OutputTarget> targets;
    for (const auto& [option, path] : {std::pair{"--svg", &o.svg}, std::pair{"--html", &o.html},
                                       std::pair{"--json", &o.json}, std::pair{"--npz", &o.npz}}) {
        if (!path->empty() && *path != "-") {
            targets.push_back({option, *path});
        }
    }
    return targets;
}

// The files a run reads.
std::vector<InputTarget> inputs_of(const ExplainOptions& o) {
    if (!o.from.empty()) {
        return {{"--from", o.from}};
    }
    auto inputs = input_targets(to_spec(o));
    if (!o.target.empty()) {
        inputs.push_back({"--target", o.target});
    }
    // every file a checkpoint folder may hold that attn reads (find_checkpoint)
    if (!o.checkpoint.empty()) {
        const std::string base = o.checkpoint.ends_with('/') ? o.checkpoint : o.checkpoint + "/";
        for (const char* name :
             {"config.json", "model.safetensors", "vocab.json", "merges.txt", "tokenizer.json"}) {
            inputs.push_back({"--checkpoint", base + name});
        }
    }
    return inputs;
}

// --target, --backward and --lr go together, in the row layout.
void check_backward_options(const ExplainOptions& o, Layout layout) {
    if (o.backward && o.target.empty()) {
        throw Error(ErrorKind::usage,
                    "--backward needs --target FILE, the output each token should have "
                    "({\"target\": [[...], ...]}), expected both");
    }
    if (!o.backward && !o.target.empty()) {
        throw Error(ErrorKind::usage,
                    "--target is the target of the backward pass, expected --backward with it");
    }
    if (o.lr && !o.backward) {
        throw Error(ErrorKind::usage,
                    "--lr is the learning rate of the update after the backward pass, expected "
                    "--backward and --target with it");
    }
    if (o.lr) {
        checked_lr(*o.lr);
    }
    if (o.backward && layout == Layout::col) {
        throw Error(ErrorKind::usage,
                    "--backward is written in the row layout (tokens are rows), expected it "
                    "without --layout col");
    }
}

// A what-if (--set) computes the run again with its changes, beside the run as given, keeps a
// copy of that run for the comparison and marks the cells that changed: measured at about
// 2.7 times the run's matrices more than it holds (600 tokens: 39 MB), counted as 3.
void check_whatif_memory(const Trace& computed, std::size_t max_memory) {
    const std::size_t n = computed.tokens.size();
    check_memory_for(3 * estimate_bytes(computed.config, n), budget_now(max_memory),
                     fmt::format("the what-if (--set) computes the run again and keeps the run "
                                 "as given beside it: about {{}} more ({} {}, d_model {})",
                                 n, n == 1 ? "token" : "tokens", computed.config.d_model),
                     "use a shorter sentence, a smaller d_model or fewer heads");
}

// --checkpoint takes every number from the checkpoint: the first option given that would
// change them, or that needs the toy model's input.
std::optional<std::string> conflicts_with_checkpoint(const ExplainOptions& o) {
    return first_given({}, o,
                       {{!o.from.empty(), "--from"},
                        {o.unknown != "error", "--unknown"},
                        {o.layout != "row", "--layout"}});
}

// A GPT-2 checkpoint's walk: its tokenizer, then explain_gpt2 over its mapped weights.
Trace explain_checkpoint(const ExplainOptions& o, std::size_t max_memory) {
    if (const auto other = conflicts_with_checkpoint(o)) {
        throw Error(ErrorKind::usage,
                    fmt::format("--checkpoint takes the tokenizer, the sizes and every number "
                                "from the checkpoint, so it cannot be combined with {}, expected "
                                "--checkpoint DIR with a sentence, --layer and --head (and "
                                "display options)",
                                *other));
    }
    if (o.words.empty()) {
        throw Error(ErrorKind::usage,
                    "--checkpoint needs a sentence to walk through, expected attn explain "
                    "\"SENTENCE\" --checkpoint DIR");
    }
    const Gpt2Checkpoint ck = open_gpt2_checkpoint(o.checkpoint);
    const auto& c = ck.config;
    Gpt2Request request;
    for (const auto& word : o.words) {
        request.sentence += (request.sentence.empty() ? "" : " ") + word;
    }
    for (const auto& token : ck.bpe.tokenize(request.sentence, c.n_positions)) {
        request.token_ids.push_back(token.id);
        request.tokens.push_back(token.display);
        request.token_texts.push_back(token.text);
    }
    const long long layer = o.layer.value_or(1);
    if (layer < 1 || static_cast<unsigned long long>(layer) > c.n_layer) {
        throw Error(ErrorKind::usage, Field::layer,
                    fmt::format("{} {}: out of range, expected a layer from 1 to {} (the "
                                "checkpoint has {} layers, h.0 to h.{})",
                                subject, layer, c.n_layer, c.n_layer, c.n_layer - 1));
    }
    request.layer = static_cast<std::size_t>(layer - 1);
    if (o.head != 0) {
        if (o.head < 1 || static_cast<std::size_t>(o.head) > c.n_head) {
            throw Error(ErrorKind::usage, Field::head,
                        fmt::format("{} {}: out of range, expected a head from 1 to {} (the "
                                    "checkpoint has {} heads per layer), or all",
                                    subject, o.head, c.n_head, c.n_head));
        }
        request.head = static_cast<std::size_t>(o.head - 1);
    }
    // before anything large is allocated: the heads' T×T steps grow with the text
    check_gpt2_memory(c, request.layer, request.token_ids.size(), budget_now(max_memory));
    request.source = o.checkpoint;
    const CheckpointTensors tensors(ck.model);
    request.prefix = tensors.prefix();
    reuse_freed_memory();  // every layer's weights are freed and taken again
    return explain_gpt2(request, c, tensors);
}

}  // namespace

void check_layout(const Trace& trace, Layout layout) {
    if (layout == Layout::col && trace.column_steps.empty()) {
        throw Error(ErrorKind::usage, Field::layout,
                    fmt::format("{} col is for one plain head, as in the by-hand exercises, "
                                "expected it without --heads (or W_O)",
                                subject));
    }
}

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
    const bool prints =
        format != OutputFormat::none || o.json == "-" || o.svg == "-" || o.html == "-";
    check_outputs(output_targets(o), inputs_of(o), o.force, prints ? io.stdout_path : "");
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
    check_backward_options(o, style.layout);
    if (style.layout == Layout::col &&
        (format == OutputFormat::markdown || format == OutputFormat::latex)) {
        throw Error(ErrorKind::usage, Field::layout,
                    fmt::format("--layout col is for the terminal walk-through, and --format {} "
                                "writes the row layout (tokens are rows), expected --layout row "
                                "with it",
                                o.format));
    }
    if (style.layout == Layout::col && (!o.html.empty() || !o.svg.empty())) {
        const std::string which = o.html.empty()  ? "SVG heatmap shows"
                                  : o.svg.empty() ? "HTML report shows"
                                                  : "HTML report and the SVG heatmap show";
        io.err << "attn: note: the " << which
               << " the row layout (a row per query); --layout col changes only the terminal "
                  "walk-through\n";
    }
    Stopwatch watch;
    const std::size_t max_memory = max_memory_of(o.max_memory);
    if (o.layer && o.checkpoint.empty()) {
        throw Error(ErrorKind::usage,
                    "--layer chooses a layer of a GPT-2 checkpoint, expected it with "
                    "--checkpoint DIR");
    }
    Trace computed;
    if ((!o.checkpoint.empty() || o.backward) && !o.set.empty()) {
        throw Error(ErrorKind::usage, Field::set,
                    fmt::format("{} changes the inputs of a lesson and walks through it again, "
                                "not yet {}, expected {} without it",
                                subject,
                                o.backward ? "with the backward pass (--backward)"
                                           : "a GPT-2 checkpoint's (--checkpoint)",
                                o.backward ? "--backward" : "--checkpoint"));
    }
    if (!o.checkpoint.empty()) {
        if (o.backward) {
            throw Error(ErrorKind::usage,
                        "--backward works on attn's own models (seeded, --model, --embeddings "
                        "and --weights, --qkv), not yet on a GPT-2 checkpoint, expected "
                        "--checkpoint without --backward");
        }
        computed = explain_checkpoint(o, max_memory);
        watch.lap("read the checkpoint and compute");
    } else if (!o.from.empty()) {
        Replayed replayed = replay_dump(o.from, max_memory, &watch);
        computed = std::move(replayed.trace);
        if (!o.set.empty()) {  // a what-if of the replayed run
            check_whatif_memory(computed, max_memory);
            computed =
                with_settings(o.set, computed, replayed.loaded, replayed.record, style.layout, {});
            watch.lap("compute the what-if");
        }
    } else {
        const InputSpec spec = to_spec(o);
        const InputFiles files = read_input_files(spec);
        const Loaded loaded = assemble_input(spec, files);
        if (o.backward) {  // the gradients, and a second forward pass for the update's loss
            const Config& c = loaded.config;
            const std::size_t n = loaded.input.tokens.size();
            const std::size_t forward = estimate_bytes(c, n);
            const std::size_t backward = backward_bytes(c.d_model, c.n_heads, c.d_k, c.d_v, n);
            check_memory_for(forward + backward, budget_now(max_memory),
                             fmt::format("the backward pass of this run needs about {} more "
                                         "than the {} of its forward pass, {{}} in all",
                                         human_bytes(backward), human_bytes(forward)),
                             "use a shorter sentence, a smaller d_model or fewer heads");
        }
        watch.lap("read input");
        computed = o.backward ? with_backward(explain(loaded.input, loaded.config),
                                              read_target(o.target, max_memory), o.target, o.lr)
                              : explain(loaded.input, loaded.config);
        watch.lap("compute");
        if (!o.set.empty()) {  // a what-if: the inputs changed, and everything computed again
            check_whatif_memory(computed, max_memory);
            computed = with_settings(o.set, computed, loaded, {}, style.layout, {&spec, &files});
            watch.lap("compute the what-if");
        }
    }
    const Trace& trace = computed;
    check_layout(trace, style.layout);
    if (!o.steps.empty()) {
        auto selection = select_steps(o.steps, steps_in(trace, style.layout));
        style.steps = std::move(selection.ids);
        style.heads_together = std::move(selection.heads_together);
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
        std::vector<std::string> want;
        for (const auto& [option, path] : {std::pair{"--json", &o.json}, std::pair{"--svg", &o.svg},
                                           std::pair{"--html", &o.html}}) {
            if (*path == "-") {
                want.push_back(fmt::format("{} -", option));
            }
        }
        throw Error(ErrorKind::usage,
                    fmt::format("{} {} want stdout, expected at most one of them there",
                                listed(want), want.size() == 2 ? "both" : "all"));
    }
    std::vector<CellRef> cells;
    for (const auto& why : o.why) {
        cells.push_back(parse_cell(why, trace, style.layout));  // checked before any output
    }

    // every output file is prepared before any is committed, and stdout is written in
    // between: if anything fails, no file changes
    OutputSet files(o.force);
    for (const auto& target : output_targets(o)) {
        files.add(target, [&, target](const OutputSet::Sink& sink) {
            std::size_t bytes = 0;
            const auto counted = [&](std::string_view piece) {
                sink(piece);
                bytes += piece.size();
            };
            if (target.option == "--svg") {
                render_svg(trace, counted);
            } else if (target.option == "--html") {
                render_html(trace, style, counted);
            } else if (target.option == "--npz") {
                render_npz(trace, counted);
            } else {
                render_json(trace, counted);
            }
            watch.lap("write " + target.path, bytes);
        });
    }
    if (o.present) {
        const std::string instead = o.html == "-"                  ? "--html -"
                                    : o.svg == "-"                 ? "--svg -"
                                    : o.json == "-"                ? "--json -"
                                    : format != OutputFormat::text ? "--format " + o.format
                                    : !cells.empty()               ? "--why"
                                                                   : "";
        if (!instead.empty()) {
            io.err << "attn: note: --present shows the text walk-through, and " << shown(instead)
                   << " prints something else instead; printing that\n";
        }
    }
    const auto print = [&] {
        const Sink to_stdout = [&io](std::string_view piece) {
            io.out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
        };
        if (o.html == "-") {
            render_html(trace, style, to_stdout);
        } else if (o.svg == "-") {
            render_svg(trace, to_stdout);
        } else if (o.json == "-") {
            std::size_t bytes = 0;
            render_json(trace, [&io, &bytes](std::string_view piece) {
                io.out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
                bytes += piece.size();
            });
            watch.lap("write JSON to stdout", bytes);
        } else if (format == OutputFormat::none) {
            // compute and files only
        } else if (cells.empty() && format == OutputFormat::text && o.present &&
                   io.console != nullptr) {
            present(trace, style, *io.console, io);
        } else if (cells.empty() && format == OutputFormat::markdown) {
            render_markdown(trace, style, to_stdout);  // written as made, never held whole
        } else if (cells.empty() && format == OutputFormat::latex) {
            render_latex(trace, style, to_stdout);
        } else if (cells.empty()) {
            if (o.present) {
                io.err << "attn: note: --present needs a terminal on stdin and stdout (here "
                       << (io.stdin_is_terminal && io.stdout_is_terminal ? "none was given"
                           : io.stdin_is_terminal                        ? "stdout is not one"
                           : io.stdout_is_terminal                       ? "stdin is not one"
                                                                         : "neither is one")
                       << "); printing the whole walk-through\n";
            }
            render_text(trace, style, to_stdout);
        } else {
            io.out << render_summary(trace, style);
            for (const auto& cell : cells) {
                io.out << '\n' << render_why(trace, cell, style);
            }
        }
        flush_stdout(io, files.empty() ? "" : "; no output file was changed");
        if (o.html == "-" || o.svg == "-" || (o.json != "-" && format != OutputFormat::none)) {
            watch.lap("print to stdout");  // (a dump to stdout has its own lap above)
        }
    };
    const std::vector<Written> written = files.write_all(print);
    for (const auto& warning : trace_warnings(trace)) {
        io.err << "attn: warning: " << shown(warning, true) << '\n';
    }
    for (const auto& w : written) {
        io.err << "attn: wrote " << shown(describe(w)) << '\n';
    }
    if (o.stats) {
        io.err << watch.report(trace);
    }
    return 0;
}

}  // namespace attn::cli
