// Fuzz target: the reader of JSON dumps (--from) and of answer sheets (attn check).
#include <cstddef>
#include <cstdint>

#include "attn/core/attention.hpp"
#include "attn/core/check.hpp"
#include "attn/core/error.hpp"
#include "attn/io/model_file.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = attn_fuzz::write_scratch(data, size);
    try {
        const auto loaded = attn::read_dump(path);
        (void)attn::explain(loaded.input, loaded.config);
    } catch (const attn::Error&) {
        // a clear error is the expected answer to bad input
    }
    try {
        (void)attn::read_answers(path);
    } catch (const attn::Error&) {
        // likewise
    }
    return 0;
}
