// A GPT-2 checkpoint folder: finding its files, reading config.json, and looking tensors up
// with or without the "transformer." prefix.
#include "attn/io/checkpoint.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "json_file.hpp"

namespace attn {
namespace {

using reader::JsonFile;
using reader::Type;
using reader::Value;

// "model_type", "activation_function", ...: where given, the value GPT-2 has.
void expect_string(const JsonFile& r, const Value& root, std::string_view key,
                   std::string_view expected, std::string_view why) {
    const Value* v = root.find(key);
    if (v != nullptr && (!v->is(Type::string) || v->text != expected)) {
        r.fail(*v, std::string(key),
               fmt::format("found {}{}, expected \"{}\" ({})", json::describe(v->type),
                           JsonFile::quote(*v), expected, why));
    }
}

void expect_bool(const JsonFile& r, const Value& root, std::string_view key, bool expected,
                 std::string_view why) {
    const Value* v = root.find(key);
    if (v != nullptr && (!v->is(Type::boolean) || v->boolean != expected)) {
        r.fail(*v, std::string(key),
               fmt::format("found {}{}, expected {} ({})", json::describe(v->type),
                           JsonFile::quote(*v), expected ? "true" : "false", why));
    }
}

bool exists(const std::string& path, bool folder) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && ((S_ISDIR(st.st_mode) != 0) == folder);
}

std::string and_list(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    }
    return out;
}

constexpr std::string_view checkpoint_files =
    "model.safetensors, config.json, and vocab.json with merges.txt or tokenizer.json";

}  // namespace

Gpt2Config read_gpt2_config(const std::string& path) {
    const auto r = JsonFile::read(path, "a GPT-2 config.json");
    const Value& root = r.root();
    expect_string(r, root, "model_type", "gpt2", "attn reads GPT-2 checkpoints");
    expect_string(r, root, "activation_function", "gelu_new",
                  "GPT-2's tanh approximation of GELU, which attn computes");
    expect_bool(r, root, "scale_attn_weights", true, "scores divided by √d_head, as in GPT-2");
    expect_bool(r, root, "scale_attn_by_inverse_layer_idx", false,
                "scores divided by √d_head only, as in GPT-2");
    expect_bool(r, root, "add_cross_attention", false, "GPT-2 has self-attention only");
    const auto size_of = [&](const Value& v, std::string_view key, std::size_t max,
                             std::string_view meaning) {
        return r.whole(v, std::string(key), 1, max,
                       fmt::format("a whole number from 1 to {} ({})", max, meaning));
    };
    const auto size = [&](std::string_view key, std::size_t max, std::string_view meaning) {
        const Value& v = r.require(root, "", key, fmt::format("a whole number ({})", meaning));
        return size_of(v, key, max, meaning);
    };
    Gpt2Config c;
    c.n_embd = size("n_embd", max_gpt2_embd, "the width of each token's vector");
    c.n_head = size("n_head", max_gpt2_heads, "attention heads per layer");
    c.n_layer = size("n_layer", max_gpt2_layers, "transformer blocks");
    c.vocab_size = size("vocab_size", max_gpt2_vocabulary, "tokens in the vocabulary");
    const std::string_view positions = "the most tokens of a text";
    if (root.find("n_positions") != nullptr || root.find("n_ctx") == nullptr) {
        c.n_positions = size("n_positions", max_gpt2_positions, positions);
    } else {
        c.n_positions = size("n_ctx", max_gpt2_positions, positions);  // older configs
    }
    if (c.n_embd % c.n_head != 0) {
        r.fail(*root.find("n_head"), "n_head",
               fmt::format("found {}, which does not divide n_embd = {}, expected a divisor of "
                           "n_embd (each head gets n_embd / n_head columns)",
                           c.n_head, c.n_embd));
    }
    c.n_inner = 4 * c.n_embd;
    if (const Value* inner = root.find("n_inner"); inner != nullptr && !inner->is(Type::null)) {
        c.n_inner = size_of(*inner, "n_inner", max_gpt2_inner,
                            "the width of the MLP, or null for 4 · n_embd");
    }
    if (const Value* eps = root.find("layer_norm_epsilon")) {
        r.expect_type(*eps, "layer_norm_epsilon", Type::number,
                      "a number above 0 and below 1 (added to the variance in each layer norm)");
        if (!(eps->number > 0 && eps->number < 1)) {
            r.fail(*eps, "layer_norm_epsilon",
                   fmt::format("found {}, expected a number above 0 and below 1 (added to the "
                               "variance in each layer norm)",
                               eps->text.empty() ? fmt::format("{}", eps->number) : eps->text));
        }
        c.layer_norm_epsilon = eps->number;
    }
    return c;
}

CheckpointFiles find_checkpoint(const std::string& folder) {
    if (!exists(folder, true)) {
        throw Error(
            ErrorKind::input,
            fmt::format("cannot read the checkpoint {}: {}, expected a folder with {}",
                        shown(folder), exists(folder, false) ? "it is a file" : "no such folder",
                        checkpoint_files));
    }
    const std::string base = folder.ends_with('/') ? folder : folder + "/";
    CheckpointFiles f;
    f.folder = folder;
    std::vector<std::string> missing;
    const auto look = [&](std::string_view name, std::string& into, bool required) {
        const std::string path = base + std::string(name);
        if (exists(path, false)) {
            into = path;
        } else if (required) {
            missing.emplace_back(name);
        }
    };
    look("model.safetensors", f.model, true);
    look("config.json", f.config, true);
    look("vocab.json", f.vocab, false);
    look("merges.txt", f.merges, false);
    look("tokenizer.json", f.tokenizer, false);
    if (f.vocab.empty() || f.merges.empty()) {
        if (f.tokenizer.empty()) {
            std::vector<std::string> tokenizer;
            if (f.vocab.empty()) {
                tokenizer.emplace_back("vocab.json");
            }
            if (f.merges.empty()) {
                tokenizer.emplace_back("merges.txt");
            }
            missing.push_back(and_list(tokenizer) + " (or tokenizer.json)");
        }
        f.vocab.clear();  // one without the other is no tokenizer
        f.merges.clear();
    }
    if (!missing.empty()) {
        std::string hint;
        if (f.model.empty() && exists(base + "pytorch_model.bin", false)) {
            hint =
                "\n  hint: it has pytorch_model.bin, a Python pickle, which attn does not read; "
                "save the model with save_pretrained(folder, safe_serialization=True) to get "
                "model.safetensors";
        }
        throw Error(ErrorKind::input,
                    fmt::format("the checkpoint {} has no {}, expected a GPT-2 checkpoint folder "
                                "with {}{}",
                                shown(folder), and_list(missing), checkpoint_files, hint));
    }
    return f;
}

Bpe read_tokenizer(const CheckpointFiles& files) {
    if (!files.vocab.empty() && !files.merges.empty()) {
        return read_bpe(files.vocab, files.merges);
    }
    return read_bpe_tokenizer_json(files.tokenizer);
}

const safetensors::Tensor& gpt2_tensor(const safetensors::File& file, std::string_view name) {
    constexpr std::string_view prefix = "transformer.";
    const std::string other = name.starts_with(prefix) ? std::string(name.substr(prefix.size()))
                                                       : std::string(prefix) + std::string(name);
    if (const auto* t = file.find(name)) {
        return *t;
    }
    if (const auto* t = file.find(other)) {
        return *t;
    }
    std::vector<std::string> names;
    names.reserve(file.tensors().size());
    for (const auto& t : file.tensors()) {
        names.push_back(t.name);
    }
    std::vector<std::string> near = nearest(std::string(name), names);
    for (const auto& n : nearest(other, names)) {
        if (std::find(near.begin(), near.end(), n) == near.end()) {
            near.push_back(n);
        }
    }
    std::string hint;
    for (std::size_t i = 0; i < near.size(); ++i) {
        hint += fmt::format("{}\"{}\"", i == 0 ? "; the nearest: " : ", ", shown(near[i]));
    }
    throw Error(ErrorKind::input,
                fmt::format("{} has no tensor \"{}\" (nor \"{}\"), expected a GPT-2 checkpoint's "
                            "tensors{}",
                            shown(file.path()), shown(name), shown(other), hint));
}

namespace {

safetensors::Shape shape_of(const std::vector<std::size_t>& shape) {
    return {shape.begin(), shape.end()};
}

}  // namespace

Matrix CheckpointTensors::matrix(const std::string& name, const std::vector<std::size_t>& shape,
                                 std::string_view meaning) const {
    return file_.matrix(gpt2_tensor(file_, name), shape_of(shape), meaning);
}

Matrix CheckpointTensors::rows(const std::string& name, const std::vector<std::size_t>& shape,
                               std::string_view meaning,
                               const std::vector<std::size_t>& ids) const {
    return file_.rows(gpt2_tensor(file_, name), shape_of(shape), meaning, ids);
}

Matrix CheckpointTensors::columns(const std::string& name, const std::vector<std::size_t>& shape,
                                  std::string_view meaning, std::size_t begin,
                                  std::size_t count) const {
    return file_.columns(gpt2_tensor(file_, name), shape_of(shape), meaning, begin, count);
}

Matrix CheckpointTensors::times(const Matrix& x, const std::string& name,
                                const std::vector<std::size_t>& shape,
                                std::string_view meaning) const {
    return file_.times(x, gpt2_tensor(file_, name), shape_of(shape), meaning);
}

std::string CheckpointTensors::prefix() const {
    return file_.find("wte.weight") == nullptr && file_.find("transformer.wte.weight") != nullptr
               ? "transformer."
               : "";
}

Gpt2Checkpoint open_gpt2_checkpoint(const std::string& folder) {
    CheckpointFiles files = find_checkpoint(folder);
    Gpt2Config config = read_gpt2_config(files.config);
    Bpe bpe = read_tokenizer(files);
    safetensors::File model(files.model);
    // every tensor the walk may read, with its shape and dtype, before any number is read: a
    // file that does not fit its config.json fails now, whatever layer is asked for
    const std::size_t d = config.n_embd;
    const std::size_t inner = config.n_inner;
    struct Expected {
        std::string name;
        safetensors::Shape shape;
        std::string_view meaning;
    };
    std::vector<Expected> expected = {
        {"wte.weight", {config.vocab_size, d}, "vocab_size × n_embd"},
        {"wpe.weight", {config.n_positions, d}, "n_positions × n_embd"}};
    for (std::size_t l = 0; l < config.n_layer; ++l) {
        const auto add = [&](std::string_view part, safetensors::Shape shape,
                             std::string_view meaning) {
            expected.push_back({gpt2_name(l, part), std::move(shape), meaning});
        };
        add("ln_1.weight", {d}, "n_embd");
        add("ln_1.bias", {d}, "n_embd");
        add("attn.c_attn.weight", {d, 3 * d}, "n_embd × 3·n_embd");
        add("attn.c_attn.bias", {3 * d}, "3·n_embd");
        add("attn.c_proj.weight", {d, d}, "n_embd × n_embd");
        add("attn.c_proj.bias", {d}, "n_embd");
        add("ln_2.weight", {d}, "n_embd");
        add("ln_2.bias", {d}, "n_embd");
        add("mlp.c_fc.weight", {d, inner}, "n_embd × n_inner");
        add("mlp.c_fc.bias", {inner}, "n_inner");
        add("mlp.c_proj.weight", {inner, d}, "n_inner × n_embd");
        add("mlp.c_proj.bias", {d}, "n_embd");
    }
    for (const auto& e : expected) {
        const auto& t = gpt2_tensor(model, e.name);
        if (t.shape != e.shape) {
            throw Error(ErrorKind::input,
                        fmt::format("{}: tensor \"{}\" has shape {}, expected {} ({}, from {})",
                                    shown(model.path()), shown(t.name),
                                    safetensors::File::shape_text(t.shape),
                                    safetensors::File::shape_text(e.shape), e.meaning,
                                    shown(files.config)));
        }
        model.check_floats(t);
    }
    return {std::move(files), config, std::move(bpe), std::move(model)};
}

}  // namespace attn
