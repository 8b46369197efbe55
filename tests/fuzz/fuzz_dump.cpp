// Fuzz target: the reader of JSON dumps (--from), its verification (the run recomputed from
// the dump's inputs, rendered to JSON and compared member by member with the dump as it is
// written), and the reader of answer sheets (attn check).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "attn/core/attention.hpp"
#include "attn/core/check.hpp"
#include "attn/core/error.hpp"
#include "attn/io/model_file.hpp"
#include "attn/render/render.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = attn_fuzz::write_scratch(data, size);
    try {
        const auto loaded = attn::read_dump(path);
        const auto trace = attn::explain(loaded.input, loaded.config);
        attn::verify_dump(path,
                          [&trace](const attn::Sink& sink) { attn::render_json(trace, sink); });
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
