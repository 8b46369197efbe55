#pragma once
/// Putting a run's input together: what the user chose, what the files held (already read by
/// io), and the defaults, in one pass and one order of precedence.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/model.hpp"

namespace attn {

/// A vocabulary of token vectors.
struct EmbeddingTable {
    std::vector<std::string> tokens;  ///< as written in the file, in file order
    Matrix vectors;                   ///< (vocabulary size, d_model), one row per token
    bool case_insensitive = false;    ///< look tokens up with their case folded
    std::string path;                 ///< the file it came from
};

/// Everything a model file may hold; each part is optional.
struct ModelFile {
    std::string path;
    std::optional<std::string> description;  ///< one line about the lesson
    std::optional<std::string> sentence;     ///< the sentence when none is given
    std::optional<MaskKind> mask;
    std::optional<TokenizerOptions> tokenizer;
    std::optional<EmbeddingTable> embeddings;
    std::optional<Weights> weights;
    std::optional<PositionKind> positions;  ///< "none" or "sinusoidal"
    std::optional<std::size_t> pad_to;      ///< pad the sentence to this many tokens
};

/// What to do with a token that is not in the embeddings file.
enum class UnknownTokens {
    error,  ///< stop with an error that lists every missing token
    random  ///< give it a seeded vector, and say so
};

/// What the user asked for: files to read and explicit choices. Anything not given comes
/// from the files, else from the defaults of Config.
struct InputSpec {
    std::optional<std::string> sentence;
    std::optional<std::string> embeddings_path;
    std::optional<std::string> weights_path;
    std::optional<std::string> model_path;
    UnknownTokens unknown = UnknownTokens::error;
    std::optional<std::uint64_t> seed;
    std::optional<std::size_t> d_model;
    std::optional<std::size_t> n_heads;
    std::optional<std::size_t> d_k;
    std::optional<std::size_t> d_v;
    std::optional<MaskKind> mask;  ///< none or causal; a mask file is mask_path
    std::optional<std::string> mask_path;
    std::optional<PositionKind> positions;  ///< none or sinusoidal; a table is positions_path
    std::optional<std::string> positions_path;
    std::optional<std::size_t> pad_to;
    bool no_scale = false;
    Arith arith = Arith::exact;
    std::size_t max_memory = default_max_memory;  ///< bytes; see check_memory()
    bool lowercase = false;
    bool chars = false;
};

/// The files an InputSpec names, as read (by io's read_input_files).
struct InputFiles {
    std::optional<ModelFile> model;
    std::optional<EmbeddingTable> embeddings;  ///< --embeddings
    std::optional<Weights> weights;            ///< --weights
    std::optional<Matrix> positions;           ///< --positions FILE
    std::optional<Mask> mask;                  ///< --mask FILE
};

/// The configuration and input of a run, ready for explain().
struct Loaded {
    Config config;
    Input input;
};

/// Decides the configuration (explicit choices, then the files, then the defaults; sizes
/// come from the files, and an explicit size that disagrees is an error), tokenizes, looks
/// the tokens up and seeds what no file gives. Throws attn::Error naming the file and the
/// sizes on both sides when shapes disagree.
Loaded assemble_input(const InputSpec& spec, const InputFiles& files);

/// The known spellings closest to `word` (edit distance on characters), at most three.
std::vector<std::string> nearest(const std::string& word, const std::vector<std::string>& known);

}  // namespace attn
