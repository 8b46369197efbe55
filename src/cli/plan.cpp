// The run plan: the one order of precedence that puts a run's input together.
#include "plan.hpp"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/tokenizer.hpp"
#include "attn/io/heap.hpp"
#include "attn/io/model_file.hpp"

namespace attn {
namespace {

// An explicit --d-model (or --d-k, --d-v) must agree with the size a file decides.
void check_sizes_agree(std::string_view option, const std::optional<std::size_t>& flag,
                       std::size_t from_file, const std::string& what_in_file) {
    if (flag && *flag != from_file) {
        throw Error(ErrorKind::usage,
                    fmt::format("{} is {}, but {}; expected {} {} or no {} (the file decides it)",
                                option, *flag, what_in_file, option, from_file, option));
    }
}

}  // namespace

Matrix embeddings_of(const EmbeddingTable& table, const std::vector<std::string>& tokens,
                     UnknownTokens unknown, std::uint64_t seed, Source& source,
                     std::string_view whose, std::size_t first) {
    LookUp found = look_up(table, tokens);
    if (found.missing.empty()) {
        return std::move(found.x);
    }
    // each missing token once, in the order of the sentence, with its positions
    std::vector<std::string> missing_tokens;
    std::unordered_map<std::string, std::vector<std::string>> positions_of;
    for (std::size_t t : found.missing) {
        auto& positions = positions_of[tokens[t]];
        if (positions.empty()) {
            missing_tokens.push_back(tokens[t]);
        }
        positions.push_back(std::to_string(first + t));
    }
    if (unknown == UnknownTokens::random) {
        const Matrix seeded = seeded_embeddings(tokens, table.vectors.cols(), seed);
        for (std::size_t t : found.missing) {
            const auto row = seeded.row(t);
            std::copy(row.begin(), row.end(), found.x.row(t).begin());
        }
        for (const auto& token : missing_tokens) {
            if (std::find(source.seeded_tokens.begin(), source.seeded_tokens.end(), token) ==
                source.seeded_tokens.end()) {
                source.seeded_tokens.push_back(token);
            }
        }
        return std::move(found.x);
    }
    std::string lines;
    bool case_only = false;
    const Spellings spellings(table.tokens);  // indexed once for all the missing tokens
    for (const auto& token : missing_tokens) {
        const auto& positions = positions_of.at(token);
        const auto near = spellings.nearest(token);
        std::vector<std::string> quoted;
        quoted.reserve(near.size());
        for (const auto& n : near) {
            case_only = case_only || fold_case(n) == fold_case(token);
            quoted.push_back("'" + shown(n) + "'");
        }
        lines += fmt::format("\n  '{}' ({} {}): {}", shown(token),
                             positions.size() == 1 ? "token" : "tokens", listed(positions),
                             near.empty() ? std::string("no similar token in the file")
                                          : "did you mean " + listed(quoted, " or ") + "?");
    }
    const bool one = missing_tokens.size() == 1;
    throw Error(
        ErrorKind::input,
        fmt::format("{}: {} {} {} {} not in the embeddings, expected every "
                    "token to have a vector:{}\n  hint: add {} to \"vectors\" in {}{}, "
                    "or use --unknown random to give {}",
                    shown(table.path), missing_tokens.size(), one ? "token" : "tokens", whose,
                    one ? "is" : "are", lines, one ? "it" : "them", shown(table.path),
                    case_only ? ", use --lowercase or \"case_insensitive\": true when "
                                "only the case differs"
                              : "",
                    one ? "it a seeded vector" : "them seeded vectors"));
}

namespace {

// A lesson that starts from Q, K and V (--qkv): one head, no embeddings, weights, positions
// or padding. The rows are named by the sentence given (its tokens must be as many as the
// rows), else by the file's "tokens", else t0, t1, ...
Loaded assemble_qkv(const InputSpec& spec, const QkvFile& file, const std::optional<Mask>& mask) {
    const std::vector<std::pair<bool, const char*>> others{
        {spec.embeddings_path.has_value(), "--embeddings"},
        {spec.weights_path.has_value(), "--weights"},
        {spec.model_path.has_value(), "--model"},
        {spec.d_model.has_value(), "--d-model"},
        {spec.n_heads.value_or(1) != 1, "--heads"},
        {spec.positions.value_or(PositionKind::none) != PositionKind::none ||
             spec.positions_path.has_value(),
         "--positions"},
        {spec.pad_to.has_value(), "--pad-to"},
        {spec.unknown != UnknownTokens::error, "--unknown"},
        {spec.seed.has_value(), "--seed"},
        {spec.scale_by == ScaleBy::d_model, "--scale-by d_model (the width of embeddings)"},
        {(spec.lowercase || spec.chars) && !spec.sentence,
         "--lowercase or --chars (they cut a sentence into tokens, and no sentence names the "
         "rows)"},
    };
    for (const auto& [given, name] : others) {
        if (given) {
            throw Error(ErrorKind::usage,
                        fmt::format("--qkv gives Q, K and V as they are, so {} has nothing to "
                                    "change, expected --qkv without it (the walk-through starts "
                                    "from the scores: no embeddings, weights, heads, positions "
                                    "or padding)",
                                    name));
        }
    }
    Loaded out;
    Config& c = out.config;
    c.tokenizer.lowercase = spec.lowercase;
    if (spec.chars) {
        c.tokenizer.mode = TokenMode::chars;
    }
    c.mask = spec.mask.value_or(file.mask.value_or(MaskKind::none));
    if (spec.mask_path) {
        c.mask = MaskKind::file;
    }
    c.scale_by = spec.scale_by;
    c.softmax_over = spec.softmax_over;
    c.arith = spec.arith;
    c.n_heads = 1;
    c.d_k = file.qkv.q.cols();
    c.d_v = file.qkv.v.cols();
    c.d_model = c.d_k;  // no embeddings: d_model only sizes what is not there
    check_sizes_agree("--d-k", spec.d_k, c.d_k,
                      fmt::format("Q in {} has {} columns", shown(file.path), c.d_k));
    check_sizes_agree("--d-v", spec.d_v, c.d_v,
                      fmt::format("V in {} has {} columns", shown(file.path), c.d_v));
    validate(c);

    const std::size_t n = file.qkv.q.rows();
    Input& in = out.input;
    if (spec.sentence) {
        in.sentence = *spec.sentence;
        in.tokens = tokenize(in.sentence, c.tokenizer);
        if (in.tokens.size() != n) {
            throw Error(ErrorKind::usage,
                        fmt::format("the sentence has {} {}, but Q, K and V in {} have {} "
                                    "rows, expected one token per row",
                                    in.tokens.size(), in.tokens.size() == 1 ? "token" : "tokens",
                                    shown(file.path), n));
        }
    } else {
        if (file.tokens) {
            in.tokens = *file.tokens;
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                in.tokens.push_back(fmt::format("t{}", i));
            }
        }
        for (const auto& token : in.tokens) {
            in.sentence += (in.sentence.empty() ? "" : " ") + token;
        }
        in.tokens_named = true;
    }
    check_memory(c, n, budget_now(spec.max_memory));
    if (file.description) {
        in.description = described_for(*file.description, file.path, spec, c, std::nullopt,
                                       file.mask.value_or(MaskKind::none), PositionKind::none);
    }
    in.qkv = file.qkv;
    if (mask && spec.mask_path) {
        if (mask->rows() != n) {
            throw Error(ErrorKind::input,
                        fmt::format("{}: the mask is {}×{}, expected {}×{} (one row and one "
                                    "column per token)",
                                    shown(*spec.mask_path), mask->rows(), mask->cols(), n, n));
        }
        in.mask = mask;
        in.mask_source.kind = Source::Kind::file;
        in.mask_source.path = *spec.mask_path;
    }
    return out;
}

}  // namespace

Loaded assemble_input(const InputSpec& spec, const InputFiles& files) {
    if (files.qkv) {
        return assemble_qkv(spec, *files.qkv, files.mask);
    }
    const std::optional<ModelFile>& model = files.model;
    std::optional<EmbeddingTable> table;
    if (files.embeddings) {
        table = files.embeddings;
    } else if (model && model->embeddings) {
        table = model->embeddings;
    }
    std::optional<Weights> weights;
    std::string weights_path;
    if (files.weights && spec.weights_path) {
        weights = files.weights;
        weights_path = *spec.weights_path;
    } else if (model && model->weights) {
        weights = model->weights;
        weights_path = model->path;
    }

    Loaded out;
    Config& c = out.config;
    if (model && model->tokenizer) {
        c.tokenizer = *model->tokenizer;
    }
    c.tokenizer.lowercase = c.tokenizer.lowercase || spec.lowercase;
    if (spec.chars) {
        c.tokenizer.mode = TokenMode::chars;
    }
    c.mask = spec.mask.value_or(model && model->mask ? *model->mask : MaskKind::none);
    if (spec.mask_path) {
        c.mask = MaskKind::file;
    }
    c.positions =
        spec.positions.value_or(model && model->positions ? *model->positions : PositionKind::none);
    if (spec.positions_path) {
        c.positions = PositionKind::file;
    }
    c.seed = spec.seed.value_or(c.seed);
    c.scale_by = spec.scale_by;
    c.softmax_over = spec.softmax_over;
    c.arith = spec.arith;

    // heads: the weights file's word, else --heads, else 1
    c.n_heads = spec.n_heads.value_or(1);
    if (weights && weights->n_heads > 0) {
        check_sizes_agree("--heads", spec.n_heads, weights->n_heads,
                          fmt::format("{} says \"heads\": {}", weights_path, weights->n_heads));
        c.n_heads = weights->n_heads;
    }
    if (table) {
        c.d_model = table->vectors.cols();
        check_sizes_agree("--d-model", spec.d_model, c.d_model,
                          fmt::format("the vectors in {} have {} numbers", table->path, c.d_model));
    }
    if (weights) {
        if (table && weights->w_q.rows() != c.d_model) {
            throw Error(ErrorKind::input,
                        fmt::format("{}: W_Q has {} rows, expected d_model = {} (the width of "
                                    "the vectors in {})",
                                    weights_path, weights->w_q.rows(), c.d_model, table->path));
        }
        c.d_model = weights->w_q.rows();
        check_sizes_agree("--d-model", spec.d_model, c.d_model,
                          fmt::format("W_Q in {} has {} rows", weights_path, c.d_model));
        const bool q_splits = weights->w_q.cols() % c.n_heads == 0;
        const bool v_splits = weights->w_v.cols() % c.n_heads == 0;
        if (!q_splits || !v_splits) {
            // name only the matrix that does not split: W_Q (and so W_K), W_V, or both
            const std::string which =
                !q_splits && !v_splits ? fmt::format("the {} columns of W_Q and the {} of W_V",
                                                     weights->w_q.cols(), weights->w_v.cols())
                : !q_splits            ? fmt::format("the {} columns of W_Q", weights->w_q.cols())
                                       : fmt::format("the {} columns of W_V", weights->w_v.cols());
            throw Error(ErrorKind::usage,
                        fmt::format("--heads {} does not divide {} in {}, expected a number of "
                                    "heads that splits every weight matrix evenly",
                                    c.n_heads, which, shown(weights_path)));
        }
        c.d_k = weights->w_q.cols() / c.n_heads;
        c.d_v = weights->w_v.cols() / c.n_heads;
        check_sizes_agree("--d-k", spec.d_k, c.d_k,
                          fmt::format("W_Q in {} has {} columns per head", weights_path, c.d_k));
        check_sizes_agree("--d-v", spec.d_v, c.d_v,
                          fmt::format("W_V in {} has {} columns per head", weights_path, c.d_v));
        if (c.n_heads > 1 && weights->w_o.empty()) {
            throw Error(ErrorKind::input,
                        fmt::format("{} has no W_O, expected one for {} heads (W_O mixes the "
                                    "heads' outputs)\n  hint: add \"W_O\" to the weights, or "
                                    "use one head",
                                    weights_path, c.n_heads));
        }
    } else {
        if (!table) {
            // several heads: three columns per head unless told otherwise
            c.d_model = spec.d_model.value_or(c.n_heads > 1 ? 3 * c.n_heads : c.d_model);
        }
        // the default width of a head is d_model / heads, as in PyTorch; given --d-k, any
        if (c.n_heads > 1 && !spec.d_k && c.d_model % c.n_heads != 0) {
            throw Error(ErrorKind::usage,
                        fmt::format("d_model = {} is not divisible by --heads {}, expected a "
                                    "multiple of {} (without --d-k, each head gets d_model / "
                                    "heads columns, as in PyTorch's nn.MultiheadAttention), "
                                    "e.g. --d-model {}, or give the width of a head with --d-k",
                                    c.d_model, c.n_heads, c.n_heads,
                                    (c.d_model / c.n_heads + 1) * c.n_heads));
        }
        const std::size_t per_head = c.n_heads > 1 ? c.d_model / c.n_heads : c.d_k;
        c.d_k = spec.d_k.value_or(per_head);
        c.d_v = spec.d_v.value_or(c.n_heads > 1 ? c.d_k : c.d_v);
    }
    validate(c);

    std::string sentence;
    if (spec.sentence) {
        sentence = *spec.sentence;
    } else if (model && model->sentence) {
        sentence = *model->sentence;
    } else {
        throw Error(ErrorKind::usage,
                    model ? fmt::format("no sentence given, and {} has no \"sentence\", expected "
                                        "a sentence to explain\n  hint: attn explain \"This is "
                                        "book\" --model {}",
                                        model->path, model->path)
                          : std::string("the sentence is empty or missing, expected at least one "
                                        "word to explain\n  hint: attn explain \"This is book\""));
    }

    // padding: count the sentence's own tokens first
    const std::size_t n_real = tokenize(sentence, c.tokenizer).size();
    const auto pad_to = spec.pad_to ? spec.pad_to : (model ? model->pad_to : std::nullopt);
    if (pad_to) {
        if (*pad_to < n_real) {
            throw Error(ErrorKind::usage,
                        fmt::format("--pad-to is {}, but the sentence has {} tokens; expected at "
                                    "least {} (padding only adds tokens)",
                                    *pad_to, n_real, n_real));
        }
        c.n_pad = *pad_to - n_real;
    }

    // before anything large is allocated, with what the files read take already
    check_memory(c, n_real + c.n_pad, budget_now(spec.max_memory));
    Input& in = out.input;
    // tokens, and seeded numbers for what no file gives
    in = seeded_input(sentence, c, SeedParts{.embeddings = !table, .weights = !weights});
    if (model && model->description) {
        in.description = described_for(
            *model->description, model->path, spec, c, model->sentence,
            model->mask.value_or(MaskKind::none), model->positions.value_or(PositionKind::none),
            {model->weights && weights_path != model->path ? "--weights FILE" : "",
             model->embeddings && table && table->path != model->path ? "--embeddings FILE" : "",
             model->positions_table && spec.positions_path ? "--positions FILE" : ""});
    }
    in.training = model ? model->training : std::nullopt;  // what attn train learned of it
    if (table) {
        in.embeddings_source.kind = Source::Kind::file;
        in.embeddings_source.path = table->path;
        const std::vector<std::string> real(in.tokens.begin(),
                                            in.tokens.end() - static_cast<std::ptrdiff_t>(c.n_pad));
        const Matrix found =
            embeddings_of(*table, real, spec.unknown, c.seed, in.embeddings_source);
        in.x = Matrix(in.tokens.size(), c.d_model);  // <pad> rows stay zero
        std::copy(found.data().begin(), found.data().end(), in.x.data().begin());
    }
    // a table of positions: --positions FILE, else the model file's own (unless --positions
    // says none or sinusoidal)
    const bool model_table = c.positions == PositionKind::file && !spec.positions_path && model &&
                             model->positions_table;
    if ((files.positions && spec.positions_path) || model_table) {
        const Matrix& table_p = model_table ? *model->positions_table : *files.positions;
        const std::string from =
            model_table ? shown(model->path) + " (\"positions\")" : shown(*spec.positions_path);
        if (table_p.rows() < in.tokens.size() || table_p.cols() != c.d_model) {
            throw Error(
                ErrorKind::input,
                fmt::format("{}: the positions are {}×{}, expected at least {} rows (one "
                            "per token) of d_model = {} numbers",
                            from, table_p.rows(), table_p.cols(), in.tokens.size(), c.d_model));
        }
        in.positions = Matrix(in.tokens.size(), c.d_model);
        std::copy_n(table_p.data().begin(), in.positions.size(), in.positions.data().begin());
        in.positions_source.kind = Source::Kind::file;
        in.positions_source.path = model_table ? model->path : *spec.positions_path;
    }
    if (files.mask && spec.mask_path) {
        in.mask = files.mask;
        if (in.mask->rows() != in.tokens.size()) {
            throw Error(
                ErrorKind::input,
                fmt::format("{}: the mask is {}×{}, expected {}×{} (one row and one "
                            "column per token{})",
                            *spec.mask_path, in.mask->rows(), in.mask->cols(), in.tokens.size(),
                            in.tokens.size(), c.n_pad > 0 ? ", <pad> included" : ""));
        }
        in.mask_source.kind = Source::Kind::file;
        in.mask_source.path = *spec.mask_path;
    }
    if (weights) {
        in.weights = *weights;
        in.weights_source.kind = Source::Kind::file;
        in.weights_source.path = weights_path;
        in.weights_source.layout = weights->layout;
    }
    return out;
}

InputFiles read_input_files(const InputSpec& spec) {
    InputFiles files;
    // each file the spec names, read by its reader
    const auto read = [&spec](const std::optional<std::string>& path, auto& into, auto reader) {
        if (path) {
            into = reader(*path, spec.max_memory);  // its text and values within --max-memory
        }
    };
    read(spec.model_path, files.model, read_model);
    read(spec.embeddings_path, files.embeddings, read_embeddings);
    read(spec.weights_path, files.weights, read_weights);
    read(spec.positions_path, files.positions, read_positions);
    read(spec.mask_path, files.mask, read_mask);
    read(spec.qkv_path, files.qkv, read_qkv);
    return files;
}

Loaded load_input(const InputSpec& spec) {
    return assemble_input(spec, read_input_files(spec));
}

InputSpec spec_of(const WorksheetSettings& settings) {
    InputSpec spec;
    if (!settings.qkv || !settings.sentence.empty()) {
        spec.sentence = settings.sentence;
    }
    if (!settings.model && !settings.qkv) {
        // seeded numbers: the seed and the sizes remake them; else they come from the numbers
        spec.seed = settings.seed;
        spec.d_model = settings.d_model;
        spec.d_k = settings.d_k;
        spec.d_v = settings.d_v;
    }
    spec.mask = settings.mask;
    spec.arith = settings.arith;
    spec.lowercase = settings.tokenizer.lowercase;
    spec.chars = settings.tokenizer.mode == TokenMode::chars;
    return spec;
}

Loaded load_worksheet(const WorksheetSettings& settings, std::size_t max_memory) {
    InputSpec spec = spec_of(settings);
    spec.max_memory = max_memory;
    InputFiles files;
    files.model = settings.model;
    files.qkv = settings.qkv;
    return assemble_input(spec, files);
}

}  // namespace attn
