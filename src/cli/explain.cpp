// `attn explain`: options, validation, and the run: input → Trace → text and JSON.
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <limits>
#include <ostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "attn/core/attention.hpp"
#include "attn/core/cell.hpp"
#include "attn/core/error.hpp"
#include "attn/core/parallel.hpp"
#include "attn/io/model_file.hpp"
#include "attn/io/output_file.hpp"
#include "attn/render/render.hpp"
#include "cli.hpp"

namespace attn::cli {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) {
        return {};
    }
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::uint64_t parse_seed(const std::string& text) {
    std::uint64_t seed = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, seed);
    if (text.empty() || ec != std::errc() || ptr != end) {
        throw Error(ErrorKind::usage,
                    fmt::format("--seed is '{}', expected a whole number from 0 to {}", text,
                                std::numeric_limits<std::uint64_t>::max()));
    }
    return seed;
}

std::optional<std::size_t> checked_size(const char* option, const std::optional<long long>& value,
                                        const char* meaning) {
    if (!value) {
        return std::nullopt;
    }
    if (*value < 1 || *value > static_cast<long long>(max_width)) {
        throw errors::bad_size(option, *value, 1, static_cast<long long>(max_width), meaning);
    }
    return static_cast<std::size_t>(*value);
}

// A value of --mask or --positions that is not a keyword: a file, when it looks like one.
bool looks_like_file(const std::string& value) {
    struct stat st {};
    return value.find('/') != std::string::npos || value.ends_with(".json") ||
           ::stat(value.c_str(), &st) == 0;
}

std::optional<std::string> non_empty(const std::string& s) {
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

std::string join_words(const std::vector<std::string>& words) {
    std::string sentence;
    for (const auto& w : words) {
        sentence += (sentence.empty() ? "" : " ") + w;
    }
    return sentence;
}

// --max-memory in bytes, or the default when it is not given.
std::size_t max_memory_of(const ExplainOptions& o) {
    return o.max_memory.empty() ? default_max_memory : parse_bytes("--max-memory", o.max_memory);
}

InputSpec spec_of(const ExplainOptions& o) {
    InputSpec spec;
    if (!o.words.empty()) {
        spec.sentence = join_words(o.words);
    }
    if (o.seed) {
        spec.seed = parse_seed(*o.seed);
    }
    spec.d_model = checked_size("--d-model", o.d_model, "the width of each token's embedding");
    if (o.heads && (*o.heads < 1 || *o.heads > static_cast<long long>(max_heads))) {
        throw errors::bad_size("--heads", *o.heads, 1, static_cast<long long>(max_heads),
                               "the number of attention heads");
    }
    if (o.heads) {
        spec.n_heads = static_cast<std::size_t>(*o.heads);
    }
    spec.d_k = checked_size("--d-k", o.d_k, "the width of each query and key vector");
    spec.d_v = checked_size("--d-v", o.d_v, "the width of each value vector");
    if (o.mask) {
        if (*o.mask == "none") {
            spec.mask = MaskKind::none;
        } else if (*o.mask == "causal") {
            spec.mask = MaskKind::causal;
        } else if (looks_like_file(*o.mask)) {
            spec.mask_path = *o.mask;
        } else {
            throw errors::bad_choice("--mask", *o.mask, "none, causal, or a mask file (FILE.json)");
        }
    }
    if (o.positions) {
        if (*o.positions == "none") {
            spec.positions = PositionKind::none;
        } else if (*o.positions == "sinusoidal") {
            spec.positions = PositionKind::sinusoidal;
        } else if (looks_like_file(*o.positions)) {
            spec.positions_path = *o.positions;
        } else {
            throw errors::bad_choice("--positions", *o.positions,
                                     "none, sinusoidal, or a positions file (FILE.json)");
        }
    }
    if (o.pad_to) {
        if (*o.pad_to < 1 || *o.pad_to > static_cast<long long>(max_tokens)) {
            throw errors::bad_size("--pad-to", *o.pad_to, 1, static_cast<long long>(max_tokens),
                                   "the number of tokens after padding");
        }
        spec.pad_to = static_cast<std::size_t>(*o.pad_to);
    }
    if (o.unknown == "random") {
        spec.unknown = UnknownTokens::random;
    } else if (o.unknown != "error") {
        throw errors::bad_choice("--unknown", o.unknown, "error, random");
    }
    spec.lowercase = o.lowercase;
    spec.no_scale = o.no_scale;
    spec.max_memory = max_memory_of(o);
    if (o.arith == "hand") {
        spec.arith = Arith::hand;
    } else if (o.arith != "exact") {
        throw errors::bad_choice("--arith", o.arith, "exact, hand");
    }
    spec.chars = o.chars;
    spec.embeddings_path = non_empty(o.embeddings);
    spec.weights_path = non_empty(o.weights);
    spec.model_path = non_empty(o.model);
    return spec;
}

TextStyle to_style(const ExplainOptions& o, const Io& io) {
    if (o.precision < 0 || o.precision > 15) {
        throw errors::bad_size("--precision", o.precision, 0, 15, "digits after the decimal point");
    }
    if (o.width != 0 && (o.width < 40 || o.width > 1000)) {
        throw errors::bad_size("--width", o.width, 40, 1000, "columns of text; 0 means auto");
    }
    if (o.color != "auto" && o.color != "always" && o.color != "never") {
        throw errors::bad_choice("--color", o.color, "auto, always, never");
    }
    TextStyle style;
    style.precision = o.precision;
    style.width = text_width(o.width, io);
    style.unicode = !o.ascii;
    style.color = use_color(o.color, io);
    style.color_depth = color_depth(io);
    style.explanations = !o.quiet_text;
    return style;
}

// --pause: one page at a time; Enter goes on, q (or the end of input) stops.
void walk_with_pauses(const std::vector<TextPage>& pages, const TextStyle& style, Io& io) {
    // the header and the first step together, then a pause before each further step
    std::size_t next = 0;
    while (next < pages.size()) {
        io.out << pages[next].text;
        if (next == 0 && pages.size() > 1) {
            io.out << pages[1].text;
            next = 1;
        }
        ++next;
        if (next >= pages.size()) {
            break;
        }
        const std::string prompt =
            fmt::format("── next: {} · Enter: go on, q: quit ──", pages[next].title);
        io.out << (style.color ? "\x1b[2m" + prompt + "\x1b[0m"
                               : (style.unicode ? prompt : to_ascii(prompt)))
               << std::flush;
        std::string answer;
        if (!std::getline(*io.in, answer) || trim(answer) == "q" || trim(answer) == "Q") {
            io.out << "\n";
            return;
        }
        io.out << "\x1b[1A\x1b[2K";  // erase the prompt line: the walk-through reads on
    }
}

}  // namespace

InputSpec to_spec(const ExplainOptions& options) {
    return spec_of(options);
}

void configure_explain(CLI::App& app, ExplainOptions& o) {
    app.add_option("sentence", o.words, "The sentence to explain, in quotes or as several words")
        ->type_name("SENTENCE");
    app.add_option("--seed", o.seed,
                   "Seed for the random embeddings and weights (0 to 2^64 - 1; "
                   "default 42); the same seed gives the same numbers everywhere")
        ->type_name("N");
    app.add_option("--d-model", o.d_model,
                   "Width of each token's embedding (1 to 4096; default 5, or "
                   "the width in the files given)")
        ->type_name("N");
    app.add_option("--heads", o.heads,
                   "Attention heads (1 to 64; default 1). More than one splits "
                   "W_Q, W_K, W_V by columns and mixes the heads with W_O, as "
                   "PyTorch's nn.MultiheadAttention; d_model must be divisible")
        ->type_name("H");
    app.add_option("--d-k", o.d_k, "Width of each query and key vector (1 to 4096; default 3)")
        ->type_name("N");
    app.add_option("--d-v", o.d_v,
                   "Width of each value vector and output row (1 to 4096; default 3)")
        ->type_name("N");
    app.add_option("--mask", o.mask,
                   "none (default): every token sees every token; causal: a token "
                   "sees only itself and the tokens before it; or a JSON file "
                   "{\"mask\": [[true, false, ...], ...]} (true = may attend)")
        ->type_name("none|causal|FILE");
    app.add_option("--positions", o.positions,
                   "Add positional encodings to X before Q, K, V: none "
                   "(default), sinusoidal (the original Transformer's), or a "
                   "JSON file {\"positions\": [[...], ...]}")
        ->type_name("none|sinusoidal|FILE");
    app.add_option("--pad-to", o.pad_to,
                   "Pad the sentence with <pad> tokens (zero vectors) to N tokens; "
                   "a padding mask keeps every token from attending to them")
        ->type_name("N");
    app.add_flag("--lowercase", o.lowercase,
                 "Lowercase the sentence first, so 'The' and 'the' are the same token");
    app.add_flag("--chars", o.chars,
                 "One token per character instead of words and punctuation (spaces dropped)");
    app.add_flag("--no-scale", o.no_scale,
                 "Skip the scaling by √d_k, to see what it is for: the output "
                 "compares how peaked each row of weights is with and without");
    app.add_option("--arith", o.arith,
                   "exact (default), or hand: small whole numbers, ⌊S/2⌋ for "
                   "S/√3 and 3^x for e^x, so every number can be done with pencil "
                   "and paper")
        ->type_name("exact|hand");
    app.add_option("--embeddings", o.embeddings,
                   "Read the token vectors from this JSON file "
                   "(docs/json-format.md); tokens not in it are an error")
        ->type_name("FILE");
    app.add_option("--weights", o.weights, "Read W_Q, W_K and W_V from this JSON file")
        ->type_name("FILE");
    app.add_option("--model", o.model,
                   "Read embeddings and weights (and optionally the sentence, "
                   "mask and tokenizer) from one model file, e.g. "
                   "data/examples/this-is-book.json")
        ->type_name("FILE");
    app.add_option("--unknown", o.unknown,
                   "Tokens missing from --embeddings/--model: error (default) "
                   "or random (seed them, and say so)")
        ->type_name("error|random");
    app.add_option("--max-memory", o.max_memory,
                   "Refuse runs whose matrices would need more memory than this (default 4G; "
                   "K, M, G suffixes)")
        ->type_name("SIZE");
    app.add_option("--from", o.from,
                   "Replay a JSON dump written by --json: the same walk-through, byte for byte "
                   "(display options only)")
        ->type_name("FILE");
    app.add_option("--precision", o.precision, "Digits after the decimal point (0 to 15)")
        ->capture_default_str();
    app.add_option("--steps", o.steps,
                   "Show only these steps: ids or numbers, comma-separated "
                   "(tokens, embeddings, W_Q, W_K, W_V, Q, K, V, scores, scaled_scores, mask, "
                   "masked_scores, weights, output)")
        ->type_name("LIST");
    app.add_option("--layout", o.layout,
                   "row (default): tokens are rows, Q = X·W_Q; col: tokens are columns, as in "
                   "the by-hand exercises (Q = W_Q·X, Kᵀ·Q, softmax down each column): the same "
                   "numbers transposed; for one plain head")
        ->type_name("row|col");
    app.add_flag("--pause", o.pause,
                 "Wait for Enter between steps, showing which step comes next (q ends the "
                 "walk-through); only when stdin and stdout are a terminal");
    app.add_flag("-q,--quiet-text", o.quiet_text,
                 "Headings, formulas and matrices only, without the explanations");
    app.add_option("--color", o.color,
                   "Colour and the attention heatmap: auto (a terminal, unless NO_COLOR is "
                   "set), always or never")
        ->type_name("auto|always|never")
        ->capture_default_str();
    app.add_option("--width", o.width,
                   "Columns of text (40 to 1000); wider matrices are split or elided. "
                   "Default: the terminal's width, else $COLUMNS, else 80")
        ->type_name("N");
    app.add_flag("--ascii", o.ascii, "ASCII only: -inf, sqrt, ->, * instead of −∞, √, →, ·");
    app.add_option("--json", o.json,
                   "Write every step with full-precision values to FILE as JSON "
                   "(docs/json-format.md); '-' writes to stdout instead of the walk-through")
        ->type_name("FILE");
    app.add_option("--format", o.format,
                   "text (default); markdown: headings and tables to paste into notes; latex: a "
                   "document with one bmatrix per step, for slides; none: no walk-through, only "
                   "the files asked for (--json, --svg, --html), e.g. to time the computation")
        ->type_name("text|markdown|latex|none");
    app.add_option("--threads", o.threads,
                   "Threads for the computation and the JSON dump (1 to 256; default: the "
                   "cores available); the numbers are the same for any count")
        ->type_name("N");
    app.add_flag("--stats", o.stats,
                 "After the run, print to stderr how long reading, computing and each output "
                 "took, the bytes of the matrices and the peak memory");
    app.add_option("--svg", o.svg,
                   "Write the attention weights as an SVG heatmap to FILE (one panel per head), "
                   "for slides and papers; '-' writes it to stdout instead of the walk-through")
        ->type_name("FILE");
    app.add_option("--html", o.html,
                   "Write the walk-through as one self-contained HTML page to FILE: heatmaps, "
                   "hover a token or a number to explore; works offline and prints well; '-' "
                   "writes it to stdout instead of the walk-through")
        ->type_name("FILE");
    app.add_option("--why", o.why,
                   "Work out one cell term by term, e.g. 'scores[is,book]', 'weights[2,0]', "
                   "'output[book,1]', 'head2.weights[is,book]'; may be given several times. "
                   "Prints the worked arithmetic instead of the whole walk-through")
        ->type_name("CELL");
    app.add_option("--head", o.head,
                   "Show head N's steps in full and the other heads in brief (the JSON always "
                   "has every head)")
        ->type_name("N");
    app.footer(R"(Examples:
  attn explain "This is book"
  attn explain The cat sat on the mat --lowercase --mask causal
  attn explain "Ελληνικά και emoji 🙂" --chars --ascii
  attn explain "This is book" --seed 7 --d-model 8 --d-k 4 --d-v 4
  attn explain "This is book" --why 'scores[is,book]' --why 'weights[is,book]'
  attn explain "This is book" --pause
  attn explain "This is book" --arith hand --d-model 4 --layout col
  attn explain "This is book" --d-k 64 --no-scale --steps weights
  attn explain "This is book" --heads 2 --head 1
  attn explain The cat sat on the mat --lowercase --positions sinusoidal
  attn explain "This is book" --pad-to 5 --mask causal
  attn explain "This is book" --steps scores,weights --quiet-text
  attn explain "This is book" --json trace.json
  attn explain "This is book" --svg weights.svg --format markdown > notes.md
  attn explain "This is book" --mask causal --html report.html
  attn explain --model data/examples/this-is-book.json
  attn explain "This is a book" --embeddings my-vectors.json --unknown random
  attn explain --from trace.json --steps weights
  attn explain "This is book" --json - | jq '.steps[] | select(.id == "weights") | .values'

Exit status: 0 ok, 2 bad usage or input, 1 anything else (e.g. an output file that cannot be
written). Docs: README.md and docs/ in the source tree.)");
}

std::vector<std::string> select_steps(const std::string& spec, const std::vector<Step>& steps) {
    std::string valid;
    std::size_t n_heads = 0;
    for (const auto& s : steps) {
        if (s.head <= 1) {  // list each head's steps once, as head1.*
            valid += (valid.empty() ? "" : ", ") + s.id;
        }
        n_heads = std::max(n_heads, s.head);
    }
    if (n_heads > 1) {
        valid += fmt::format(
            " (likewise head2.* to head{}.*, or head1 to head{} for all of a "
            "head's steps)",
            n_heads, n_heads);
    }
    std::vector<std::string> selected;
    std::size_t pos = 0;
    while (pos <= spec.size()) {
        const auto end = std::min(spec.find(',', pos), spec.size());
        const std::string item = trim(spec.substr(pos, end - pos));
        pos = end + 1;
        if (item.empty()) {
            continue;
        }
        bool found = false;
        for (const auto& s : steps) {
            // an id (any case), a full number ("3a"), a group number ("3" = 3a, 3b, 3c), or
            // a head ("head2" = all of head 2's steps)
            const std::string group = s.number.substr(0, s.number.find_first_not_of("0123456789"));
            const bool head_match = s.head > 0 && lower(item) == fmt::format("head{}", s.head);
            if (lower(item) == lower(s.id) || item == s.number || item == group || head_match) {
                found = true;
                if (std::find(selected.begin(), selected.end(), s.id) == selected.end()) {
                    selected.push_back(s.id);
                }
            }
        }
        if (!found) {
            const std::string base = lower(std::string(base_id(item)));
            const bool needs_mask = base == "mask" || base == "masked_scores";
            throw Error(ErrorKind::usage,
                        fmt::format("--steps: '{}' is not a step of this run{}, expected one of: "
                                    "{} (or their numbers, e.g. 5 or 3a)",
                                    item, needs_mask ? " (it needs --mask causal)" : "", valid));
        }
    }
    if (selected.empty()) {
        throw Error(ErrorKind::usage, "--steps is empty, expected one or more of: " + valid);
    }
    // keep teaching order whatever order they were given in
    std::vector<std::string> ordered;
    for (const auto& s : steps) {
        if (std::find(selected.begin(), selected.end(), s.id) != selected.end()) {
            ordered.push_back(s.id);
        }
    }
    return ordered;
}

std::size_t parse_bytes(const std::string& option, const std::string& text) {
    std::size_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    std::size_t shift = 0;
    if (ptr != end) {
        const std::string unit = lower(std::string(ptr, end));
        shift = unit == "k" || unit == "kb" || unit == "kib"   ? 10
                : unit == "m" || unit == "mb" || unit == "mib" ? 20
                : unit == "g" || unit == "gb" || unit == "gib" ? 30
                                                               : 64;
    }
    if (text.empty() || ec != std::errc() || ptr == text.data() || shift == 64 ||
        value > (std::numeric_limits<std::size_t>::max() >> shift)) {
        throw Error(
            ErrorKind::usage,
            fmt::format("{} is '{}', expected a size such as 4G, 512M or 800K", option, text));
    }
    return value << shift;
}

int color_depth(const Io& io) {
    const auto colorterm = io.getenv("COLORTERM");
    return colorterm && (*colorterm == "truecolor" || *colorterm == "24bit") ? 24 : 256;
}

bool use_color(const std::string& flag, const Io& io) {
    if (flag == "always") {
        return true;
    }
    if (flag == "never") {
        return false;
    }
    const auto no_color = io.getenv("NO_COLOR");
    if (no_color && !no_color->empty()) {
        return false;
    }
    const auto force = io.getenv("FORCE_COLOR");
    if (force && !force->empty() && *force != "0") {
        return true;
    }
    const auto term = io.getenv("TERM");
    return io.stdout_is_terminal && !(term && *term == "dumb");
}

std::size_t text_width(int flag, const Io& io) {
    if (flag > 0) {
        return static_cast<std::size_t>(flag);
    }
    if (io.terminal_columns >= 40) {
        return io.terminal_columns;
    }
    if (const auto columns = io.getenv("COLUMNS")) {
        try {
            const int n = std::stoi(*columns);
            if (n >= 40 && n <= 1000) {
                return static_cast<std::size_t>(n);
            }
        } catch (const std::exception&) {
            // not a number: fall through to the default
        }
    }
    return 80;
}

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
        {o.arith != "exact", "--arith"},
        {!o.embeddings.empty(), "--embeddings"},
        {!o.weights.empty(), "--weights"},
        {!o.model.empty(), "--model"},
        {o.unknown != "error", "--unknown"},
    };
    for (const auto& [is_given, name] : given) {
        if (is_given) {
            return name;
        }
    }
    return std::nullopt;
}

// --stats: how long each phase of a run took, its output's size, and the memory it used.
class Stopwatch {
  public:
    using Clock = std::chrono::steady_clock;

    // The time since the last lap (or the start), under `label`; `bytes` written, if any.
    void lap(std::string label, std::optional<std::size_t> bytes = std::nullopt) {
        const auto now = Clock::now();
        laps_.push_back(
            {std::move(label), std::chrono::duration<double>(now - last_).count(), bytes});
        last_ = now;
    }

    [[nodiscard]] std::string report(const Trace& t) const {
        const Config& c = t.config;
        std::string out = fmt::format(
            "attn: stats for {} tokens, d_model {}, {} {} (d_k {}, d_v {}), {} {}\n",
            t.tokens.size(), c.d_model, c.n_heads, c.n_heads == 1 ? "head" : "heads", c.d_k, c.d_v,
            worker_threads(), worker_threads() == 1 ? "thread" : "threads");
        double total = 0.0;
        for (const auto& l : laps_) {
            total += l.seconds;
            out += fmt::format("  {:<28} {:>9.3f} s", l.label, l.seconds);
            if (l.bytes) {
                out += fmt::format("  {} ({:.0f} MB/s)", human_bytes(*l.bytes),
                                   static_cast<double>(*l.bytes) / 1e6 / std::max(l.seconds, 1e-9));
            }
            out += '\n';
        }
        out += fmt::format("  {:<28} {:>9.3f} s\n", "total", total);
        const std::size_t matrices = trace_bytes(t);
        out += fmt::format("  {:<28} {:>11}\n", "numbers held (the trace)", human_bytes(matrices));
        rusage usage{};
        if (getrusage(RUSAGE_SELF, &usage) == 0) {
            // KiB on Linux; glibc declares the fields of rusage inside unions
            // NOLINTNEXTLINE(cppcoreguidelines-pro-type-union-access)
            const auto peak = static_cast<std::size_t>(usage.ru_maxrss) * 1024;
            out += fmt::format("  {:<28} {:>11}", "peak memory", human_bytes(peak));
            if (matrices >= (std::size_t{1} << 20U)) {  // below, the program itself dominates
                out += fmt::format("  ({:.2f}× the numbers held)",
                                   static_cast<double>(peak) / static_cast<double>(matrices));
            }
            out += '\n';
        }
        return out;
    }

  private:
    struct Lap {
        std::string label;
        double seconds = 0.0;
        std::optional<std::size_t> bytes;
    };
    Clock::time_point last_ = Clock::now();
    std::vector<Lap> laps_;
};

int run_explain(const ExplainOptions& options, Io& io) {
    ExplainOptions o = options;
    // a name such as "this-is-book" finds the example of that name
    o.model = resolve_input_file(o.model, io);
    o.embeddings = resolve_input_file(o.embeddings, io);
    o.weights = resolve_input_file(o.weights, io);
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
    if (o.format != "text" && o.format != "markdown" && o.format != "latex" && o.format != "none") {
        throw errors::bad_choice("--format", o.format, "text, markdown, latex, none");
    }
    if (o.format == "none" && !o.why.empty()) {
        throw Error(ErrorKind::usage,
                    "--why prints worked arithmetic and --format none prints nothing, expected "
                    "one of them");
    }
    if (o.threads) {
        if (*o.threads < 1 || *o.threads > 256) {
            throw errors::bad_size("--threads", *o.threads, 1, 256,
                                   "the threads to compute and write with");
        }
        set_worker_threads(static_cast<std::size_t>(*o.threads));
    }
    TextStyle style = to_style(o, io);
    Stopwatch watch;
    const Loaded loaded = o.from.empty() ? load_input(to_spec(o)) : read_dump(o.from);
    if (!o.from.empty()) {  // a dump's inputs are small; its T×T steps may not be
        check_memory(loaded.config, loaded.input.tokens.size(), max_memory_of(o));
    }
    watch.lap(o.from.empty() ? "read input" : "read " + o.from);
    const Trace trace = explain(loaded.input, loaded.config);
    watch.lap("compute");
    if (!o.steps.empty()) {
        style.steps = select_steps(o.steps, teaching_steps(trace));
    }
    if (o.layout == "col") {
        if (trace.projected) {
            throw Error(ErrorKind::usage,
                        "--layout col is for one plain head, as in the by-hand exercises, "
                        "expected it without --heads (or W_O)");
        }
        style.columns = true;
    } else if (o.layout != "row") {
        throw errors::bad_choice("--layout", o.layout, "row, col");
    }
    if (o.head != 0) {
        if (o.head < 1 || static_cast<std::size_t>(o.head) > trace.heads.size()) {
            throw errors::bad_size("--head", o.head, 1, static_cast<long long>(trace.heads.size()),
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
        cells.push_back(parse_cell(why, trace));  // every name checked before any output
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
        if (o.format == "none") {
            // compute and files only
        } else if (cells.empty() && o.pause && io.in != nullptr && io.stdin_is_terminal &&
                   io.stdout_is_terminal) {
            walk_with_pauses(render_text_pages(trace, style), style, io);
        } else if (cells.empty() && o.format == "markdown") {
            io.out << render_markdown(trace, style);
        } else if (cells.empty() && o.format == "latex") {
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
    if (o.html == "-" || o.svg == "-" || (o.json != "-" && o.format != "none")) {
        watch.lap("print to stdout");  // (a dump to stdout has its own lap above)
    }
    for (const auto& warning : trace_warnings(trace)) {
        io.err << "attn: warning: " << warning << '\n';
    }
    if (!io.out) {
        return 1;  // stdout closed or full: nothing useful to say on a broken pipe
    }
    if (!o.json.empty() && o.json != "-") {
        io.err << "attn: wrote " << o.json << '\n';
    }
    if (!o.svg.empty() && o.svg != "-") {
        io.err << "attn: wrote " << o.svg << '\n';
    }
    if (!o.html.empty() && o.html != "-") {
        io.err << "attn: wrote " << o.html << '\n';
    }
    if (o.stats) {
        io.err << watch.report(trace);
    }
    return 0;
}

}  // namespace attn::cli
