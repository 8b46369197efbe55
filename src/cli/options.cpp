// What `attn explain`'s options mean for the run plan (to_spec) and for the look of the output
// (to_style), and the checks every option declaration shares (decimal_only, non_empty_path).
// The options themselves are declared in options.json. Every value is checked once, here,
// against the core's tables: enums by parse_enum, sizes by check_limit.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "attn/core/error.hpp"
#include "attn/core/limits.hpp"
#include "cli.hpp"
#include "declare.hpp"
#include "words.hpp"

namespace attn::cli {

Wanted Wanted::named_in(std::span<const std::string> args) {
    Wanted wanted;
    wanted.every_ = false;
    for (const std::string& arg : args) {
        if (arg == "--") {
            break;  // the rest are positionals
        }
        if (arg.starts_with("--")) {
            wanted.names_.push_back(arg.substr(2, arg.find('=') - 2));
        } else if (arg.size() == 2 && arg[0] == '-' &&
                   std::isalpha(static_cast<unsigned char>(arg[1])) != 0) {
            wanted.names_.push_back(arg.substr(1));
        } else if (arg.size() > 1 && arg[0] == '-') {
            return all();  // "-abc", "-1": CLI11 decides by the options declared
        }
    }
    return wanted;
}

bool Wanted::operator()(const OptionSpec& spec) const {
    if (every_ || spec.required || !spec.names.starts_with('-')) {
        return true;
    }
    std::string_view names = spec.names;
    while (!names.empty()) {
        const std::size_t comma = std::min(names.find(','), names.size());
        std::string_view name = names.substr(0, comma);
        name.remove_prefix(std::min(name.find_first_not_of('-'), name.size()));
        if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
            return true;
        }
        names.remove_prefix(std::min(comma + 1, names.size()));
    }
    return false;
}

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

double checked_lr(double lr) {
    if (!(std::isfinite(lr) && lr > 0.0)) {
        throw Error(ErrorKind::usage,
                    fmt::format("--lr is {}, expected a finite number above 0 (such as 0.1)", lr));
    }
    return lr;
}

namespace {

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
        throw errors::bad_choice(field, value, std::string(allowed) + near_choice<E>(value));
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
    spec.max_memory = max_memory_of(o.max_memory);
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
    style.theme = theme_of(o.theme, io);
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

std::size_t max_memory_of(const std::string& text) {
    return text.empty() ? default_max_memory : parse_bytes(Field::max_memory, text);
}

}  // namespace attn::cli
