// Fuzz target: attn's JSON reader (comments, positions, nesting limit, numbers).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/error.hpp"
#include "attn/json_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)attn::json::parse(std::string_view(reinterpret_cast<const char*>(data), size),
                                "fuzz.json");
    } catch (const attn::Error&) {
        // a clear error is the expected answer to bad input
    }
    return 0;
}
