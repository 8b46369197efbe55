// Fuzz target: the safetensors reader (io/safetensors.hpp): the 8-byte length, the JSON header
// and its checks (dtypes, shapes, data_offsets without gap or overlap), the read-only mapping,
// and every tensor converted to double; and the GPT-2 lookup with and without "transformer.".
#include <cstddef>
#include <cstdint>
#include <string>

#include "attn/core/error.hpp"
#include "attn/io/checkpoint.hpp"
#include "attn/io/safetensors.hpp"
#include "fuzz_file.hpp"

// An input that starts with 'J' is "J" + header + NUL + data, and the target writes the
// header's length in front of the header (leaving the NUL out), so that the fuzzer can change
// the JSON freely. Any other input is written as it is, so the length is fuzzed too.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.empty() && bytes.front() == 'J') {
        const std::size_t nul = bytes.find('\0');
        const std::size_t header = (nul == std::string::npos ? bytes.size() : nul) - 1;
        std::string length;
        for (std::size_t i = 0; i < 8; ++i) {
            length += static_cast<char>((std::uint64_t{header} >> (8 * i)) & 0xFFU);
        }
        bytes = length + bytes.substr(1, header) +
                (nul == std::string::npos ? std::string() : bytes.substr(nul + 1));
    }
    const std::string& path =
        attn_fuzz::write_scratch(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    try {
        const attn::safetensors::File file(path);
        std::uint64_t end = 0;
        for (const auto& t : file.tensors()) {
            // the tensors follow each other in the data, which the mapping holds
            if (t.begin != end || t.end - t.begin != t.elements * t.dtype_size ||
                file.bytes(t).size() != t.end - t.begin) {
                __builtin_trap();
            }
            end = t.end;
            try {
                (void)file.values(t);
            } catch (const attn::Error&) {
                // another dtype, NaN or an infinity: a clear error
            }
        }
        try {
            (void)attn::gpt2_tensor(file, "wte.weight");
        } catch (const attn::Error&) {
            // no such tensor
        }
    } catch (const attn::Error&) {
        // a clear error is the expected answer to a bad file
    }
    return 0;
}
