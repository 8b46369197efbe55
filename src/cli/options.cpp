// `attn explain`'s options: their declarations, and what they mean for the run plan
// (to_spec) and for the look of the output (to_style). Every value is checked once, here,
// against the core's tables: enums by parse_enum, sizes by check_limit.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "attn/core/error.hpp"
#include "attn/core/limits.hpp"
#include "cli.hpp"
#include "declare.hpp"
#include "words.hpp"

namespace attn::cli {
namespace {

std::uint64_t parse_seed(const std::string& text) {
    std::uint64_t seed = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, seed);
    if (text.empty() || ec != std::errc() || ptr != end) {
        throw Error(ErrorKind::usage, Field::seed,
                    fmt::format("{} is '{}', expected a whole number from 0 to {}", subject,
                                shown(text), std::numeric_limits<std::uint64_t>::max()));
    }
    return seed;
}

std::optional<std::size_t> size_of(Field field, const std::optional<long long>& value) {
    if (!value) {
        return std::nullopt;
    }
    check_limit(field, *value);
    return static_cast<std::size_t>(*value);
}

// A value of --mask or --positions that is not a keyword: a file, when it looks like one.
bool looks_like_file(const std::string& value) {
    struct stat st {};
    return value.find('/') != std::string::npos || value.ends_with(".json") ||
           ::stat(value.c_str(), &st) == 0;
}

// --mask and --positions: a keyword of E (but `file`, which a path stands for) or a file,
// when the value looks like one.
template <NamedEnum E>
void keyword_or_file(Field field, const std::string& value, E file, std::optional<E>& kind,
                     std::optional<std::string>& path, std::string_view allowed) {
    const auto keyword = parse_enum<E>(value);
    if (keyword && keyword != file) {
        kind = keyword;
    } else if (looks_like_file(value)) {
        path = value;
    } else {
        throw errors::bad_choice(field, value, allowed);
    }
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

}  // namespace

CLI::Validator decimal_only() {
    return {[](std::string& value) -> std::string {
                const std::size_t sign = value.starts_with('+') || value.starts_with('-') ? 1 : 0;
                const std::string_view digits = std::string_view(value).substr(sign);
                if (digits.empty() || !std::all_of(digits.begin(), digits.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; })) {
                    const bool other_base =
                        digits.size() > 1 && digits[0] == '0' &&
                        std::isalpha(static_cast<unsigned char>(digits[1])) != 0;
                    return fmt::format("is '{}', expected a whole number{}", shown(value),
                                       other_base ? " written in decimal" : "");
                }
                // no leading zeros, which CLI11 (strtoll, base 0) would read as octal
                const auto first = digits.find_first_not_of('0');
                value = value.substr(0, sign) +
                        (first == std::string_view::npos ? "0" : std::string(digits.substr(first)));
                return "";
            },
            "", "decimal"};
}

CLI::Validator non_empty_path() {
    return {[](const std::string& value) -> std::string {
                return value.empty() ? "is an empty file name, expected a path" : "";
            },
            "", "path"};
}

std::vector<InputTarget> input_targets(const InputSpec& spec) {
    std::vector<InputTarget> inputs;
    const std::vector<std::pair<const char*, const std::optional<std::string>*>> paths{
        {"--embeddings", &spec.embeddings_path},
        {"--weights", &spec.weights_path},
        {"--model", &spec.model_path},
        {"--qkv", &spec.qkv_path},
        {"--mask", &spec.mask_path},
        {"--positions", &spec.positions_path},
    };
    for (const auto& [name, path] : paths) {
        if (*path) {
            inputs.push_back({name, **path});
        }
    }
    return inputs;
}

InputSpec to_spec(const ExplainOptions& o) {
    InputSpec spec;
    if (!o.words.empty()) {
        spec.sentence = join_words(o.words);
    }
    if (o.seed) {
        spec.seed = parse_seed(*o.seed);
    }
    spec.d_model = size_of(Field::d_model, o.d_model);
    spec.n_heads = size_of(Field::n_heads, o.heads);
    spec.d_k = size_of(Field::d_k, o.d_k);
    spec.d_v = size_of(Field::d_v, o.d_v);
    if (o.mask) {
        keyword_or_file(Field::mask, *o.mask, MaskKind::file, spec.mask, spec.mask_path,
                        "none, causal, or a mask file (FILE.json)");
    }
    if (o.positions) {
        keyword_or_file(Field::positions, *o.positions, PositionKind::file, spec.positions,
                        spec.positions_path, "none, sinusoidal, or a positions file (FILE.json)");
    }
    spec.pad_to = size_of(Field::pad_to, o.pad_to);
    spec.unknown = choice<UnknownTokens>(Field::unknown, o.unknown);
    spec.arith = choice<Arith>(Field::arith, o.arith);
    spec.lowercase = o.lowercase;
    spec.chars = o.chars;
    spec.scale_by = o.scale_by ? choice<ScaleBy>(Field::scale_by, *o.scale_by) : ScaleBy::d_k;
    if (o.no_scale) {
        if (o.scale_by && spec.scale_by != ScaleBy::none) {
            throw Error(ErrorKind::usage, Field::scale_by,
                        fmt::format("--no-scale and {} {} disagree, expected one of them "
                                    "(--no-scale is {} none)",
                                    subject, shown(*o.scale_by), subject));
        }
        spec.scale_by = ScaleBy::none;
    }
    spec.softmax_over = choice<SoftmaxOver>(Field::softmax_over, o.softmax_over);
    spec.max_memory =
        o.max_memory.empty() ? default_max_memory : parse_bytes(Field::max_memory, o.max_memory);
    spec.embeddings_path = non_empty(o.embeddings);
    spec.weights_path = non_empty(o.weights);
    spec.model_path = non_empty(o.model);
    spec.qkv_path = non_empty(o.qkv);
    return spec;
}

TextStyle to_style(const ExplainOptions& o, const Io& io) {
    check_limit(Field::precision, o.precision);
    if (o.width != 0) {
        check_limit(Field::width, o.width);
    }
    (void)choice<ColorMode>(Field::color, o.color);
    TextStyle style;
    style.precision = o.precision;
    style.width = text_width(o.width, io);
    style.unicode = !o.ascii;
    style.color = use_color(o.color, io);
    style.color_depth = color_depth(io);
    style.explanations = !o.quiet_text;
    style.layout = choice<Layout>(Field::layout, o.layout);
    return style;
}

std::size_t parse_bytes(Field field, const std::string& text) {
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
        throw Error(ErrorKind::usage, field,
                    fmt::format("{} is '{}', expected a size such as 4G, 512M or 800K", subject,
                                shown(text)));
    }
    return value << shift;
}

void configure_explain(CLI::App& app, ExplainOptions& o) {
    option(app, "sentence", o.words, "SENTENCE",
           "The sentence to explain, in quotes or as several words");
    option(app, "--seed", o.seed, "N",
           "Seed for the random embeddings and weights (0 to 2^64 - 1; "
           "default 42); the same seed gives the same numbers everywhere");
    option(app, "--d-model", o.d_model, "N",
           "Width of each token's embedding (1 to 4096; default 5, 3·H with --heads H, or "
           "the width in the files given)");
    option(app, "--heads", o.heads, "H",
           "Attention heads (1 to 64; default 1). More than one splits "
           "W_Q, W_K, W_V by columns and mixes the heads with W_O, as "
           "PyTorch's nn.MultiheadAttention; without --d-k, each head gets d_model / H "
           "columns, so d_model must then be a multiple of H");
    option(app, "--d-k", o.d_k, "N",
           "Width of each query and key vector (1 to 4096; default 3, or d_model / H with "
           "--heads H)");
    option(app, "--d-v", o.d_v, "N",
           "Width of each value vector and output row (1 to 4096; default 3, or d_k with "
           "--heads H)");
    option(app, "--mask", o.mask, "none|causal|FILE",
           "none (default): every token sees every token; causal: a token "
           "sees only itself and the tokens before it; or a JSON file "
           "{\"mask\": [[true, false, ...], ...]} (true = may attend)");
    option(app, "--positions", o.positions, "none|sinusoidal|FILE",
           "Add positional encodings to X before Q, K, V: none "
           "(default), sinusoidal (the original Transformer's), or a "
           "JSON file {\"positions\": [[...], ...]}");
    option(app, "--pad-to", o.pad_to, "N",
           "Pad the sentence with <pad> tokens (zero vectors) to N tokens; "
           "a padding mask keeps every token from attending to them");
    app.add_flag("--lowercase", o.lowercase,
                 "Lowercase the sentence first, so 'The' and 'the' are the same token");
    app.add_flag("--chars", o.chars,
                 "One token per character instead of words and punctuation (spaces dropped)");
    option(app, "--scale-by", o.scale_by, "d_k|d_model|none",
           "What the scores are divided by: d_k (default, √d_k as in \"Attention Is All "
           "You Need\"); d_model (√d_model, a tutorial's mistake) or none (no scaling, "
           "to see what it is for), each shown beside the right weights");
    app.add_flag("--no-scale", o.no_scale,
                 "Skip the scaling by √d_k (--scale-by none): the output compares how peaked "
                 "each row of weights is with and without");
    option(app, "--softmax-over", o.softmax_over, "rows|columns|all",
           "Which scores softmax normalises together: rows (default: each query's), or, "
           "to show the mistake, columns or all (the whole matrix, as two tutorials "
           "do), beside the right weights");
    option(app, "--arith", o.arith, "exact|hand",
           "exact (default), or hand: small whole numbers, ⌊S/2⌋ for "
           "S/√3 and 3^x for e^x, so every number can be done with pencil "
           "and paper");
    path_option(app, "--embeddings", o.embeddings, "FILE",
                "Read the token vectors from this JSON file "
                "(docs/json-format.md); tokens not in it are an error");
    path_option(app, "--weights", o.weights, "FILE", "Read W_Q, W_K and W_V from this JSON file");
    path_option(app, "--model", o.model, "FILE",
                "Read embeddings and weights (and optionally the sentence, "
                "mask and tokenizer) from one model file, e.g. "
                "data/examples/this-is-book.json");
    path_option(app, "--qkv", o.qkv, "FILE",
                "Start from queries, keys and values given in this JSON file "
                "({\"Q\": [[...]], \"K\": [[...]], \"V\": [[...]]}, optionally \"tokens\"), "
                "as lessons that begin at the scores do; no embeddings or weights");
    option(app, "--unknown", o.unknown, "error|random",
           "Tokens missing from --embeddings/--model: error (default) "
           "or random (seed them, and say so)");
    option(app, "--max-memory", o.max_memory, "SIZE",
           "The most memory the run may take: input files and matrices that would need more "
           "are refused (default 4G; K, M, G suffixes)");
    path_option(app, "--from", o.from, "FILE",
                "Replay a JSON dump written by --json: the same walk-through, byte for byte "
                "(display options only); a dump whose values are not what its inputs give is "
                "refused");
    option(app, "--precision", o.precision, "N", "Digits after the decimal point (0 to 15)")
        ->capture_default_str();
    option(app, "--steps", o.steps, "LIST",
           "Show only these steps: ids or numbers, comma-separated "
           "(tokens, embeddings, W_Q, W_K, W_V, Q, K, V, scores, scaled_scores, mask, "
           "masked_scores, weights, output)");
    option(app, "--layout", o.layout, "row|col",
           "row (default): tokens are rows, Q = X·W_Q; col: tokens are columns, as in "
           "the by-hand exercises (Q = W_Q·X, Kᵀ·Q, softmax down each column): the same "
           "numbers transposed; for one plain head, in the terminal walk-through (HTML, "
           "SVG, Markdown and LaTeX show the row layout)");
    app.add_flag("--pause", o.pause,
                 "Wait for Enter between steps, showing which step comes next (q ends the "
                 "walk-through); only when stdin and stdout are a terminal");
    app.add_flag("-q,--quiet-text", o.quiet_text,
                 "Headings, formulas and matrices only, without the explanations");
    option(app, "--color", o.color, "auto|always|never",
           "Colour and the attention heatmap: auto (a terminal, unless NO_COLOR is "
           "set), always or never")
        ->capture_default_str();
    option(
        app, "--width", o.width, "N",
        "Columns of text (40 to 1000, or 0 for the default); wider matrices are split or elided. "
        "Default: the terminal's width, else $COLUMNS, else 80");
    app.add_flag("--ascii", o.ascii, "ASCII only: -inf, sqrt, ->, * instead of −∞, √, →, ·");
    path_option(app, "--json", o.json, "FILE",
                "Write every step with full-precision values to FILE as JSON "
                "(docs/json-format.md); '-' writes to stdout instead of the walk-through");
    option(app, "--format", o.format, "text|markdown|latex|none",
           "text (default); markdown: headings and tables to paste into notes; latex: a "
           "document with one bmatrix per step, for slides; none: no walk-through, only "
           "the files asked for (--json, --svg, --html), e.g. to time the computation");
    option(app, "--threads", o.threads, "N",
           "Threads for the computation and the JSON dump (1 to 256; default: the "
           "cores available); the numbers are the same for any count");
    app.add_flag("--stats", o.stats,
                 "After the run, print to stderr how long reading, computing and each output "
                 "took, the bytes of the matrices and the peak memory");
    path_option(app, "--svg", o.svg, "FILE",
                "Write the attention weights as an SVG heatmap to FILE (one panel per head), "
                "for slides and papers; '-' writes it to stdout instead of the walk-through");
    path_option(app, "--html", o.html, "FILE",
                "Write the walk-through as one self-contained HTML page to FILE: heatmaps, "
                "hover a token or a number to explore; works offline and prints well; '-' "
                "writes it to stdout instead of the walk-through");
    app.add_flag("--force", o.force,
                 "Replace output files even when they are write-protected (without it, attn "
                 "refuses a file you may not write)");
    option(app, "--why", o.why, "CELL",
           "Work out one cell term by term, e.g. 'scores[is,book]', 'weights[2,0]', "
           "'output[book,1]', 'head2.weights[is,book]'; may be given several times. "
           "Prints the worked arithmetic instead of the whole walk-through");
    option(app, "--set", o.set, "CELL=VALUE",
           "What if: change one input and walk through again, the cells that change marked * "
           "with their old values; may be given several times. CELL is a cell of X "
           "(embeddings), W_Q, W_K, W_V, W_O, a bias, the mask or a given Q, K, V, named as "
           "for --why ('W_Q[d0,q1]=0.5', 'mask[is,book]=0'), or a token ('tokens[2]=hat')");
    option(app, "--target", o.target, "FILE",
           "The output each token should have, for --backward: a JSON file "
           "{\"target\": [[...], ...]}, T rows of d_v numbers (d_model with several heads)");
    app.add_flag("--backward", o.backward,
                 "After the forward steps, the loss against --target (mean squared error) and "
                 "its gradient with respect to every step and weight, each as a step of its "
                 "own: how weights are learned (docs/training.md)");
    option(app, "--lr", o.lr, "η",
           "With --backward: one step of gradient descent, W ← W − η·dW, shown as steps, with "
           "the loss the new weights give (a number above 0)");
    option(app, "--head", o.head, "N|all",
           "Show head N's steps in full and the other heads in brief (the JSON always "
           "has every head); all (the default): every head in full, or with --checkpoint "
           "every head's weights side by side. Heads are counted from 1")
        ->transform(CLI::Transformer(std::map<std::string, std::string>{{"all", "0"}}));
    option(app, "--checkpoint", o.checkpoint, "DIR",
           "Walk through a GPT-2 checkpoint folder as Hugging Face saves it "
           "(model.safetensors, config.json, vocab.json + merges.txt or tokenizer.json): "
           "its own tokenizer, embeddings and weights; see docs/models.md");
    option(app, "--layer", o.layer, "L",
           "With --checkpoint: the layer to walk through in full, counted from 1 (layer 1 is "
           "the tensors h.0.*; default 1); the layers below are summarised");
    option(app, "--npz", o.npz, "FILE",
           "Write every step's matrix to FILE as a numpy .npz (numpy.load(FILE)), one array "
           "per step, named by step id");
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
  attn explain "This is book" --target data/targets/this-is-book.json --backward --lr 0.5
  attn explain "He took the hat and examined it carefully" --checkpoint gpt2 --layer 6 --head 2
  attn explain "He took the hat and examined it carefully" --checkpoint gpt2 --layer 6
  attn explain "This is book" --json - | jq '.steps[] | select(.id == "weights") | .values'

Output files are written all or nothing: each is prepared in a temporary file beside it, and
all are renamed into place only when every one (and stdout) has been written. An output that
is another output or an input is refused; a FIFO or a device (/dev/stdout, >(...)) is
written into in place, never replaced; a write-protected file needs --force.

Exit status: 0 ok, 2 bad usage or input, 1 anything else (e.g. an output file that cannot be
written, or a full disk on stdout). Docs: README.md and docs/ in the source tree.)");
}

}  // namespace attn::cli
