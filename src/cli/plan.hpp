#pragma once
// The run plan: what the user asked for (flags, or a worksheet's settings), the files that
// names, and the one order of precedence that puts a run's input together: explicit choices,
// then the files, then the defaults. cli → plan → io (read the files) → core (explain).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/check.hpp"
#include "attn/core/input.hpp"

namespace attn {

/// What the user asked for: files to read and explicit choices. Anything not given comes
/// from the files, else from the defaults of Config.
struct InputSpec {
    std::optional<std::string> sentence;
    std::optional<std::string> embeddings_path;
    std::optional<std::string> weights_path;
    std::optional<std::string> model_path;
    std::optional<std::string> qkv_path;  ///< Q, K and V given: no embeddings or weights
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
    ScaleBy scale_by = ScaleBy::d_k;
    SoftmaxOver softmax_over = SoftmaxOver::rows;
    Arith arith = Arith::exact;
    std::size_t max_memory = default_max_memory;  ///< bytes; see check_memory()
    bool lowercase = false;
    bool chars = false;
};

/// The files an InputSpec names, as read by io.
struct InputFiles {
    std::optional<ModelFile> model;
    std::optional<EmbeddingTable> embeddings;  ///< --embeddings
    std::optional<Weights> weights;            ///< --weights
    std::optional<Matrix> positions;           ///< --positions FILE
    std::optional<Mask> mask;                  ///< --mask FILE
    std::optional<QkvFile> qkv;                ///< --qkv
};

/// Reads every file `spec` names.
InputFiles read_input_files(const InputSpec& spec);

/// Decides the configuration (explicit choices, then the files, then the defaults; sizes
/// come from the files, and an explicit size that disagrees is an error), tokenizes, looks
/// the tokens up and seeds what no file gives. Throws attn::Error naming the flag or the file
/// and the sizes on both sides when they disagree.
Loaded assemble_input(const InputSpec& spec, const InputFiles& files);

/// The rows of `tokens` in `table`; a missing token is seeded (--unknown random, recorded in
/// `source`'s seeded tokens) or an error that lists every missing token with its likeliest
/// spellings. `whose` says where the tokens come from, `first` the index of the first.
Matrix embeddings_of(const EmbeddingTable& table, const std::vector<std::string>& tokens,
                     UnknownTokens unknown, std::uint64_t seed, Source& source,
                     std::string_view whose = "of the sentence", std::size_t first = 0);

/// A file's description as this run shows it (description.cpp): written for the file's own
/// settings (its sentence, mask and positions, its weights and embeddings, the right rule, exact
/// arithmetic), it is kept but says which of them this run changes ("[the words of F, written
/// for its own settings, which --mask causal changes here]"). `replaced`: what replaced the
/// file's own numbers ("--weights FILE"; empty strings are skipped).
std::string described_for(const std::string& description, const std::string& path,
                          const InputSpec& spec, const Config& c,
                          const std::optional<std::string>& file_sentence, MaskKind file_mask,
                          PositionKind file_positions,
                          const std::vector<std::string>& replaced = {});

/// The row of X that `token`, swapped in at index `at` by a what-if (--set tokens[I]=...),
/// gets as the run's own tokens got theirs: from the embeddings file or the model file `spec`
/// names, else seeded from the seed. A token missing from the file is an error listing it with
/// its nearest spellings, or seeded with --unknown random (and added to `source`'s seeded
/// tokens).
std::vector<double> embedding_for(const std::string& token, std::size_t at, const InputSpec& spec,
                                  const InputFiles& files, const Config& config, Source& source);

/// read_input_files, then assemble_input.
Loaded load_input(const InputSpec& spec);

/// The spec that remakes a worksheet from its recorded settings.
InputSpec spec_of(const WorksheetSettings& settings);

/// The input a worksheet was made from, remade from its recorded settings and numbers (a
/// model's or Q, K and V, read from the answers file) within `max_memory`.
Loaded load_worksheet(const WorksheetSettings& settings, std::size_t max_memory);

}  // namespace attn
