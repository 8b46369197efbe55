// Fuzz target: the tokenizer in both modes, with and without lowercasing, and the case
// mappings and widths it relies on.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/core/error.hpp"
#include "attn/core/tokenizer.hpp"
#include "attn/core/utf8.hpp"

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
                    if (mode == attn::TokenMode::chars &&
                        attn::utf8::grapheme_length(token) != token.size()) {
                        __builtin_trap();  // a character token is one grapheme cluster
                    }
                    (void)attn::utf8::display_width(token);
                }
            } catch (const attn::Error&) {
                // invalid UTF-8 is reported, as it should be
            }
        }
    }
    (void)attn::fold_case(text);
    (void)attn::to_lower(text);
    (void)attn::utf8::display_width(text);
    return 0;
}
