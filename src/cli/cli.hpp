#pragma once
// The command line: CLI11 wiring over the attn library. Everything here can be run
// in-process by the tests, with the terminal and the environment passed in.

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "attn/core/trace.hpp"
#include "attn/core/whatif.hpp"
#include "attn/io/output_file.hpp"
#include "attn/render/render.hpp"
#include "plan.hpp"

namespace CLI {
class App;
}

namespace attn {

/// --format: how the walk-through is printed.
enum class OutputFormat { text, markdown, latex, none };

template <>
struct EnumNames<OutputFormat> {
    static constexpr std::array names{Named<OutputFormat>{OutputFormat::text, "text"},
                                      Named<OutputFormat>{OutputFormat::markdown, "markdown"},
                                      Named<OutputFormat>{OutputFormat::latex, "latex"},
                                      Named<OutputFormat>{OutputFormat::none, "none"}};
};

/// --color: whether to colour the output.
enum class ColorMode { automatic, always, never };

template <>
struct EnumNames<ColorMode> {
    static constexpr std::array names{Named<ColorMode>{ColorMode::automatic, "auto"},
                                      Named<ColorMode>{ColorMode::always, "always"},
                                      Named<ColorMode>{ColorMode::never, "never"}};
};

/// --theme: the terminal's background, for the colours; auto: from $COLORFGBG when set.
enum class ThemeChoice { automatic, light, dark };

template <>
struct EnumNames<ThemeChoice> {
    static constexpr std::array names{Named<ThemeChoice>{ThemeChoice::automatic, "auto"},
                                      Named<ThemeChoice>{ThemeChoice::light, "light"},
                                      Named<ThemeChoice>{ThemeChoice::dark, "dark"}};
};

}  // namespace attn

namespace attn::cli {

class Console;
class Wanted;  // declare.hpp

/// What the process runs in: its streams, whether they are terminals, its environment.
struct Io {
    std::ostream& out;
    std::ostream& err;
    /// The terminal for --present, when stdin and stdout are one; nullptr otherwise.
    Console* console = nullptr;
    std::string executable{};  ///< this program's path, to find its examples; may be empty
    bool stdin_is_terminal = false;
    bool stdout_is_terminal = false;
    std::size_t terminal_columns = 0;  ///< 0 when unknown
    std::function<std::optional<std::string>(const std::string&)> getenv = [](const std::string&) {
        return std::optional<std::string>{};
    };
    /// The errno of the last write to `out` that failed (ENOSPC, EPIPE, ...), 0 if none or
    /// unknown: for a message that says why stdout could not be written.
    std::function<int()> out_errno = [] { return 0; };
    /// A path to the file stdout writes to (/proc/self/fd/1), so that an output file that
    /// is stdout's can be refused; empty when `out` is not a file (the tests' streams).
    std::string stdout_path{};
};

/// The options of `attn explain`, exactly as given on the command line.
struct ExplainOptions {
    std::vector<std::string> words;  ///< the sentence, as one argument or several
    // Unset means: from the files given, else the default (a file's size cannot be overridden)
    std::optional<std::string> seed;  ///< parsed by attn, to reject "-1" and overflow clearly
    std::optional<long long> d_model;
    std::optional<long long> heads;
    std::optional<long long> d_k;
    std::optional<long long> d_v;
    std::optional<std::string> mask;       ///< none, causal or a mask file
    std::optional<std::string> positions;  ///< none, sinusoidal or a positions file
    std::optional<long long> pad_to;
    std::optional<std::string> scale_by;  ///< d_k (right), d_model or none (mistakes shown)
    std::string softmax_over = "rows";    ///< rows (right), columns or all (mistakes shown)
    std::string arith = "exact";          ///< exact or hand
    std::string embeddings;               ///< an embeddings file
    std::string weights;                  ///< a weights file
    std::string model;                    ///< a model file (embeddings and weights)
    std::string qkv;                      ///< a Q, K, V file: the walk-through starts from them
    std::string from;                     ///< a JSON dump to replay
    std::string checkpoint;               ///< a GPT-2 checkpoint folder (docs/models.md)
    std::optional<long long> layer;       ///< with --checkpoint: the layer, 1-based
    std::string unknown = "error";
    std::vector<std::string> why;  ///< cells to work out, e.g. "scores[is,book]"
    std::vector<std::string> set;  ///< a what-if's changes, e.g. "W_Q[d0,q1]=0.5"
    std::string steps;             ///< comma-separated step ids or numbers; empty: all
    std::string layout = "row";    ///< row, or col for the by-hand exercises' column layout
    std::string color = "auto";
    std::string theme = "auto";        ///< the background: light, dark, or auto ($COLORFGBG)
    std::string json;                  ///< a path, "-" for stdout, empty for none
    std::string format = "text";       ///< text, markdown, latex, or none (no walk-through)
    std::optional<long long> threads;  ///< threads to compute and write with; unset: cores
    std::string max_memory;            ///< e.g. "4G"; empty: the default
    std::string svg;                   ///< a path for the attention heatmap; "-" for stdout
    std::string html;                  ///< a path for the HTML report; "-" for stdout
    std::string target;                ///< a target file for the backward pass
    std::optional<double> lr;          ///< with backward: one update W ← W − lr·dW
    std::string npz;                   ///< a path for every step's matrix as numpy arrays
    // small numbers and flags last, so that the struct packs without holes
    int head = 0;  ///< show this head in full, the others in brief; 0: all in full
    int precision = 4;
    int width = 0;  ///< 0: the terminal's width, else $COLUMNS, else 80
    bool lowercase = false;
    bool chars = false;
    bool no_scale = false;  ///< skip the scaling by √d_k: --scale-by none
    bool quiet_text = false;
    bool present = false;  ///< --present (--pause): one step per screen, driven by keys
    bool ascii = false;
    bool stats = false;     ///< print timings and memory to stderr
    bool force = false;     ///< replace write-protected output files too
    bool backward = false;  ///< add the loss and every gradient (needs target)
};

/// The options of `attn init`: the sentence and sizes of ExplainOptions, and where to write.
struct InitOptions {
    ExplainOptions input;  ///< only the sentence, seed, sizes, mask and tokenizer are used
    std::string description;
    std::string output = "-";  ///< a path, or "-" for stdout
    bool force = false;        ///< replace an existing output file
};

/// The options of `attn train`.
struct TrainOptions {
    std::string task;
    std::string output;               ///< the model file
    std::optional<std::string> seed;  ///< parsed by attn, as explain's
    std::optional<double> lr;
    std::optional<long long> steps;
    std::optional<long long> epochs;
    std::optional<long long> d_model;
    std::optional<long long> d_k;
    std::optional<long long> d_v;
    std::optional<long long> heads;
    std::optional<long long> threads;
    std::string max_memory;  ///< e.g. "4G"; empty: the default
    std::string svg;         ///< a path for the loss curve
    bool force = false;
    /// Train without scaling the scores, and the same run with it, to compare the curves.
    bool no_scale = false;
};

/// Runs `attn train`: trains on a built-in task and writes the model file. Returns the exit
/// code; throws attn::Error for bad usage and for a run that diverged.
int run_train(const TrainOptions& options, Io& io);

/// The options of `attn worksheet`.
struct WorksheetOptions {
    ExplainOptions input;  ///< the sentence, seed, sizes, mask and tokenizer, --model, --qkv
    /// hand or exact; unset: hand, or exact for a file whose scores are not whole numbers
    std::optional<std::string> arith;
    std::string layout = "row";  ///< row, or col: tokens are columns
    std::string blank;           ///< steps to leave blank; empty: every computed step
    std::string output = "worksheet";
    bool force = false;
};

/// The options of `attn check`.
struct CheckOptions {
    std::string answers;
    std::string max_memory;  ///< e.g. "4G"; empty: the default
    double tolerance = 0.05;
    double relative_tolerance = 0.0;
    int precision = 4;
    bool ascii = false;
};

int run_worksheet(const WorksheetOptions& options, Io& io);
/// Returns 0 when every answer is right, 1 when some are wrong; throws for a bad file.
int run_check(const CheckOptions& options, Io& io);

/// The options of `attn examples`.
struct ExamplesOptions {
    bool names_only = false;
};

/// The options of `attn diff`: two dumps and how to show the second against the first.
struct DiffOptions {
    std::string first;       ///< A.json, the run compared with
    std::string second;      ///< B.json, the run shown
    ExplainOptions display;  ///< only the display options, --html, --max-memory and --force
};

/// Runs `attn diff`. Returns 0; throws attn::Error for a bad dump or two runs that cannot be
/// compared.
int run_diff(const DiffOptions& options, Io& io);

/// The options of `attn` itself, beside its subcommands.
struct ProgramOptions {
    bool version = false;
};

// The options of each command, as src/cli/options.json writes them down (cmake/OptionTable.cmake
// turns that file into these functions, in options_table.cpp of the build folder).

/// Gives `app` the program's description, options and footer.
void declare_options(CLI::App& app, ProgramOptions& options);
/// Adds a subcommand to `parent` with its description and footer: explain, init, worksheet,
/// examples, check, diff; add_options declares its options (those `wanted`).
CLI::App* add_command(CLI::App& parent, ExplainOptions& options);
void add_options(CLI::App* app, ExplainOptions& options, const Wanted& wanted);
CLI::App* add_command(CLI::App& parent, InitOptions& options);
void add_options(CLI::App* app, InitOptions& options, const Wanted& wanted);
CLI::App* add_command(CLI::App& parent, TrainOptions& options);
void add_options(CLI::App* app, TrainOptions& options, const Wanted& wanted);
CLI::App* add_command(CLI::App& parent, WorksheetOptions& options);
void add_options(CLI::App* app, WorksheetOptions& options, const Wanted& wanted);
CLI::App* add_command(CLI::App& parent, ExamplesOptions& options);
void add_options(CLI::App* app, ExamplesOptions& options, const Wanted& wanted);
CLI::App* add_command(CLI::App& parent, CheckOptions& options);
void add_options(CLI::App* app, CheckOptions& options, const Wanted& wanted);
CLI::App* add_command(CLI::App& parent, DiffOptions& options);
void add_options(CLI::App* app, DiffOptions& options, const Wanted& wanted);

int run_examples(const ExamplesOptions& options, Io& io);

/// Where attn looks for its data, in order: $ATTN_DATA_DIR, ../share/attn next to the
/// executable, the source tree's data/ (for a build folder), the install prefix.
std::vector<std::string> data_dirs(const Io& io);

/// The first data folder's examples/, if any.
std::optional<std::string> examples_dir(const Io& io);

/// `path` itself when it exists or names a folder; else the example of that name
/// ("this-is-book" or "this-is-book.json") when there is one; else `path` unchanged.
std::string resolve_input_file(const std::string& path, const Io& io);

/// Refuses the column layout for a run of several heads or an output projection: it shows
/// one plain head, as the by-hand exercises do.
void check_layout(const Trace& trace, Layout layout);

/// Runs `attn init`: writes a starter model file. Returns the exit code.
int run_init(const InitOptions& options, Io& io);

/// The files a run plan reads, each with the option that names it, for check_outputs.
std::vector<InputTarget> input_targets(const InputSpec& spec);

/// Flushes `io.out`; when it has failed (a full disk, a closed pipe while SIGPIPE is
/// ignored), throws attn::Error (output) saying why, from io.out_errno, followed by
/// `what_else` (e.g. "; no output file was changed").
void flush_stdout(Io& io, std::string_view what_else = "");

/// --seed: a whole number from 0 to 2^64 - 1; throws attn::Error (usage, Field::seed) for
/// anything else ("-1", overflow, "0x10").
std::uint64_t parse_seed(const std::string& text);

/// --lr: a finite number above 0; throws attn::Error (usage) naming --lr otherwise.
double checked_lr(double lr);

/// The InputSpec of the sentence, seed, sizes, mask, tokenizer and files of `options`;
/// throws attn::Error (usage, naming the field) for a value out of range.
InputSpec to_spec(const ExplainOptions& options);

/// The text style of `options` on `io`'s terminal; throws attn::Error (usage) for a value
/// out of range.
TextStyle to_style(const ExplainOptions& options, const Io& io);

/// Runs `attn explain`. Returns the exit code; throws attn::Error for bad input.
int run_explain(const ExplainOptions& options, Io& io);

/// The files a run read its numbers from (null for a replayed dump): what a what-if's swapped
/// token takes its embedding from.
struct RunFiles {
    const InputSpec* spec = nullptr;
    const InputFiles* files = nullptr;
};

/// A dump read back (--from, attn diff): its inputs, its what-if record and its run computed
/// again.
struct Replayed {
    Loaded loaded;
    WhatIfRecord record;  ///< a what-if's changes; empty for another run
    Trace trace;          ///< a what-if's compared with the run before its changes
};

class Stopwatch;

/// Reads the dump at `path`, computes its run again from its inputs (a what-if's compared
/// with the run before its changes, as when it was made) and verifies every value the dump
/// holds against it. Throws attn::Error (input) at the first that differs. Times its phases
/// on `watch` (--stats) when given.
Replayed replay_dump(const std::string& path, std::size_t max_memory, Stopwatch* watch = nullptr);

/// --set: the run `computed` (from `loaded`; a replayed what-if's, whose `record` the
/// settings add to) with `settings` made, computed again and compared with the run before.
/// Throws attn::Error (usage, Field::set) for a bad setting.
Trace with_settings(const std::vector<std::string>& settings, const Trace& computed,
                    const Loaded& loaded, const WhatIfRecord& record, Layout layout,
                    const RunFiles& files);

/// Whether to colour the output: --color always|never wins; for auto, NO_COLOR (set and not
/// empty) turns colour off, FORCE_COLOR (set, not empty and not "0") turns it on, and
/// otherwise only a terminal whose TERM is not "dumb" gets colour.
bool use_color(const std::string& flag, const Io& io);

/// The background the colours must be readable on: --theme light|dark, or for auto the
/// background colour $COLORFGBG names ("15;0": foreground 15 on background 0; rxvt's rule:
/// 0 to 6 and 8 are dark, 7 and 9 to 15 light), else unknown. Throws attn::Error (usage)
/// for another value of --theme.
Theme theme_of(const std::string& flag, const Io& io);

/// 24 when COLORTERM says the terminal has 24-bit colour ("truecolor" or "24bit"), else 256.
int color_depth(const Io& io);

/// Bytes from "4G", "512M", "800K" or a plain number of bytes (powers of 1024). Throws
/// attn::Error (usage, naming `field`) for anything else.
std::size_t parse_bytes(Field field, const std::string& text);
/// The bytes --max-memory allows: `text` (4G, 512M, 800K) read by parse_bytes, or the
/// default, 4 GiB, when it is empty.
std::size_t max_memory_of(const std::string& text);

/// The text width: --width when given, else the terminal's, else $COLUMNS, else 80.
std::size_t text_width(int flag, const Io& io);

/// --present: the walk-through one step per screen on `console`, driven by keys, until q
/// or the terminal closing. The console is given back on every way out (a signal that ends
/// the process too: console.hpp); a failed write throws attn::Error (output).
void present(const Trace& trace, const TextStyle& style, Console& console, Io& io);

/// The steps a --steps value selects, and which of them were named for every head at once.
struct StepSelection {
    std::vector<std::string> ids;  ///< in teaching order
    /// Per-head steps named without a head ("weights" in a run of several heads): the base
    /// ids, for TextStyle::heads_together.
    std::vector<std::string> heads_together;
};

/// The steps selected by a --steps value such as "scores,weights" or "5,7" or "3" or "head2";
/// a per-head step without "headN." ("weights") selects that step of every head. Throws
/// attn::Error (usage) naming the valid choices for an unknown one.
StepSelection select_steps(const std::string& spec, const std::vector<Step>& steps);

/// The names `text` is near: nearest(), and what it leaves out in words this short: two
/// letters swapped ("hnad", "drak", "chekc") and a longer form of a name ("column" for col).
inline std::vector<std::string> near_names(const std::string& text,
                                           const std::vector<std::string>& names) {
    auto near = nearest(text, names);
    for (const auto& name : names) {
        if (!near.empty()) {
            break;
        }
        const bool longer = text.size() > name.size() && text.starts_with(name);
        bool swapped = false;
        for (std::size_t i = 0; i + 1 < text.size() && text.size() == name.size(); ++i) {
            std::string t = text;
            std::swap(t[i], t[i + 1]);
            swapped = swapped || (t == name && t != text);
        }
        if (longer || swapped) {
            near.push_back(name);
        }
    }
    return near;
}

/// "; did you mean 'causal'?" when `text` is near a spelling of E (a typo), else "".
template <NamedEnum E>
std::string near_choice(const std::string& text) {
    std::vector<std::string> names;
    names.reserve(EnumNames<E>::names.size());
    for (const auto& n : EnumNames<E>::names) {
        names.emplace_back(n.name);
    }
    const auto near = near_names(text, names);
    return near.empty() ? std::string() : fmt::format("; did you mean '{}'?", near.front());
}

/// The value of an enum option: parse_enum<E>(text), or a usage error naming the field and
/// every spelling (and the one meant, for a typo).
template <NamedEnum E>
E choice(Field field, const std::string& text) {
    const auto value = parse_enum<E>(text);
    if (!value) {
        throw errors::bad_choice(field, text, enum_choices<E>() + near_choice<E>(text));
    }
    return *value;
}

/// The command-line flag that sets `field` ("--d-model"), or "" when none does: the option
/// whose "field" it is in src/cli/options.json.
std::string_view flag_of(Field field) noexcept;

/// An error as the command line says it: a usage error names the flag of its field.
std::string message_of(const Error& error);

/// The whole program: parses `args` (without the program name) and runs the subcommand.
/// Prints errors as "attn: error: ..." on io.err and returns the exit code: 0 ok,
/// 2 usage or input error, 1 anything else.
int run(const std::vector<std::string>& args, Io& io);

/// "attn 0.1.0" and the versions of the libraries it was built with.
std::string version_text();

}  // namespace attn::cli
