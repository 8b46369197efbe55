// Fuzz target: the --why cell-name parser, against a two-head trace of "This is book".
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/core/attention.hpp"
#include "attn/core/cell.hpp"
#include "attn/core/error.hpp"

namespace {

const attn::Trace& trace() {
    static const attn::Trace t = [] {
        attn::Config config;
        config.d_model = 4;
        config.n_heads = 2;
        config.d_k = 2;
        config.d_v = 2;
        config.mask = attn::MaskKind::causal;
        return attn::explain(attn::seeded_input("This is book", config), config);
    }();
    return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)attn::parse_cell(std::string_view(reinterpret_cast<const char*>(data), size),
                               trace());
    } catch (const attn::Error&) {
        // a clear error is the expected answer to a bad cell name
    }
    return 0;
}
