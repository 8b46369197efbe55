// Fuzz target: the readers of embeddings, weights, model, mask and positions files, and
// load_input on a model file (tokenize, look up, check the shapes and the memory estimate).
#include <cstddef>
#include <cstdint>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/io/model_file.hpp"
#include "fuzz_file.hpp"
#include "plan.hpp"  // the run plan (src/cli): InputSpec, load_input

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = attn_fuzz::write_scratch(data, size);
    const auto expect_error = [](auto&& read) {
        try {
            read();
        } catch (const attn::Error&) {
            // a clear error is the expected answer to bad input
        }
    };
    expect_error([&] { (void)attn::read_embeddings(path); });
    expect_error([&] { (void)attn::read_weights(path); });
    expect_error([&] { (void)attn::read_mask(path); });
    expect_error([&] { (void)attn::read_positions(path); });
    expect_error([&] { (void)attn::read_model(path); });
    expect_error([&] {
        attn::InputSpec spec;
        spec.model_path = path;
        spec.max_memory = std::size_t{64} << 20U;  // small, so the fuzzer stays fast
        const auto loaded = attn::load_input(spec);
        (void)attn::explain(loaded.input, loaded.config);  // overflow and NaN checks
    });
    return 0;
}
