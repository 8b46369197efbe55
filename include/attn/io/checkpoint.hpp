#pragma once
/// A GPT-2 checkpoint folder as Hugging Face saves one: model.safetensors, config.json and
/// the tokenizer's files (vocab.json and merges.txt, or tokenizer.json).
///
///     const auto files = attn::find_checkpoint("gpt2");
///     const auto config = attn::read_gpt2_config(files.config);
///     const attn::Bpe bpe = attn::read_tokenizer(files);
///     const attn::safetensors::File model(files.model);
///     const auto& w = attn::gpt2_tensor(model, "h.0.attn.c_attn.weight");  // or transformer.h...
///
/// Every error is an attn::Error (input) naming the file, and for JSON files the line, the
/// column and the JSON path, with what was found and what was expected.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attn/core/bpe.hpp"
#include "attn/core/gpt2.hpp"
#include "attn/io/safetensors.hpp"

namespace attn {

/// The largest sizes attn reads from a GPT-2 config.json (GPT-2 XL: n_embd 1600, 25 heads,
/// 48 layers, 1024 positions, 50257 tokens).
inline constexpr std::size_t max_gpt2_embd = 4096;
inline constexpr std::size_t max_gpt2_heads = 64;
inline constexpr std::size_t max_gpt2_layers = 128;
inline constexpr std::size_t max_gpt2_positions = 8192;
inline constexpr std::size_t max_gpt2_vocabulary = std::size_t{max_token_id} + 1;
/// The MLP's width (n_inner) may be up to 4 × the largest n_embd.
inline constexpr std::size_t max_gpt2_inner = 4 * max_gpt2_embd;

/// Reads a Hugging Face GPT-2 config.json: n_embd, n_head, n_layer, n_positions (or the
/// older n_ctx), vocab_size, layer_norm_epsilon (default 1e-5) and n_inner (default null).
/// Other keys are allowed and ignored, but "model_type" must be "gpt2" where it is given,
/// and "activation_function" "gelu_new" (the tanh approximation GPT-2 uses). Each size must
/// be within the limits above and n_head must divide n_embd.
Gpt2Config read_gpt2_config(const std::string& path);

/// The files of a checkpoint folder. `vocab` and `merges` are empty when the folder has only
/// tokenizer.json.
struct CheckpointFiles {
    std::string folder;
    std::string model;      ///< model.safetensors
    std::string config;     ///< config.json
    std::string vocab;      ///< vocab.json
    std::string merges;     ///< merges.txt
    std::string tokenizer;  ///< tokenizer.json, when there is one
};

/// Finds model.safetensors, config.json and the tokenizer's files in `folder`: vocab.json
/// with merges.txt, else tokenizer.json. Throws attn::Error (input) naming the folder and
/// every file that is missing.
CheckpointFiles find_checkpoint(const std::string& folder);

/// GPT-2's tokenizer from vocab.json (token → id) and merges.txt (one merge per line, in
/// order of rank, after a first line "#version: ..."). Errors name the file and the place.
Bpe read_bpe(const std::string& vocab_path, const std::string& merges_path);
/// GPT-2's tokenizer from a tokenizer.json's "model": {"type": "BPE", "vocab": {...},
/// "merges": [...]} (merges as "a b" strings or ["a", "b"] pairs).
Bpe read_bpe_tokenizer_json(const std::string& path);
/// The tokenizer of a checkpoint: vocab.json and merges.txt where the folder has them,
/// else tokenizer.json.
Bpe read_tokenizer(const CheckpointFiles& files);

/// The tensor of a GPT-2 checkpoint called `name` ("h.0.attn.c_attn.weight", "wte.weight"),
/// with or without the "transformer." prefix that GPT2LMHeadModel's files add: the name as
/// given, then with the prefix added or removed. Throws attn::Error (input) naming both
/// names and the nearest ones when neither is there.
const safetensors::Tensor& gpt2_tensor(const safetensors::File& file, std::string_view name);

/// The weights of a GPT-2 checkpoint for explain_gpt2 (core): each tensor found with or
/// without the prefix, its shape checked, converted to double when asked for, straight from
/// the mapping.
class CheckpointTensors final : public Gpt2Tensors {
  public:
    explicit CheckpointTensors(const safetensors::File& file) : file_(file) {}
    [[nodiscard]] Matrix matrix(const std::string& name, const std::vector<std::size_t>& shape,
                                std::string_view meaning) const override;
    [[nodiscard]] Matrix rows(const std::string& name, const std::vector<std::size_t>& shape,
                              std::string_view meaning,
                              const std::vector<std::size_t>& ids) const override;
    [[nodiscard]] Matrix columns(const std::string& name, const std::vector<std::size_t>& shape,
                                 std::string_view meaning, std::size_t begin,
                                 std::size_t count) const override;
    [[nodiscard]] Matrix times(const Matrix& x, const std::string& name,
                               const std::vector<std::size_t>& shape,
                               std::string_view meaning) const override;
    /// "transformer." when the file's tensor names have the prefix, else "".
    [[nodiscard]] std::string prefix() const;

  private:
    const safetensors::File& file_;
};

/// A GPT-2 checkpoint folder, opened: its files, sizes, tokenizer and mapped weights.
struct Gpt2Checkpoint {
    CheckpointFiles files;
    Gpt2Config config;
    Bpe bpe;
    safetensors::File model;
};

/// Opens a checkpoint folder: finds its files, reads config.json and the tokenizer, maps
/// model.safetensors and checks that wte, wpe and every layer's tensors are there with the
/// shapes config.json gives (from the header alone: no weight is read). Throws attn::Error
/// (input) naming the file and what was found and expected.
Gpt2Checkpoint open_gpt2_checkpoint(const std::string& folder);

}  // namespace attn
