// Reading every file a run names, and putting the run's input together.
#include "attn/io/model_file.hpp"

namespace attn {

InputFiles read_input_files(const InputSpec& spec) {
    InputFiles files;
    if (spec.model_path) {
        files.model = read_model(*spec.model_path);
    }
    if (spec.embeddings_path) {
        files.embeddings = read_embeddings(*spec.embeddings_path);
    }
    if (spec.weights_path) {
        files.weights = read_weights(*spec.weights_path);
    }
    if (spec.positions_path) {
        files.positions = read_positions(*spec.positions_path);
    }
    if (spec.mask_path) {
        files.mask = read_mask(*spec.mask_path);
    }
    return files;
}

Loaded load_input(const InputSpec& spec) {
    return assemble_input(spec, read_input_files(spec));
}

}  // namespace attn
