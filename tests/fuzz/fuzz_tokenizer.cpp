// Fuzz target: the tokenizer in both modes, with and without case folding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/core/error.hpp"
#include "attn/core/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto mode : {attn::TokenMode::words, attn::TokenMode::chars}) {
        for (const bool lowercase : {false, true}) {
            try {
                const auto tokens = attn::tokenize(text, {mode, lowercase});
                for (const auto& token : tokens) {
                    if (token.empty()) {
                        __builtin_trap();  // a token is never empty
                    }
                }
            } catch (const attn::Error&) {
                // invalid UTF-8 is reported, as it should be
            }
        }
    }
    (void)attn::fold_case(text);
    return 0;
}
