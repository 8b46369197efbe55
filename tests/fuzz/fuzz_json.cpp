// Fuzz target: attn's JSON reader (comments, positions, nesting limit, numbers), and the
// compact arrays of numbers: their values must be their elements' values, and every
// element must sit after the array's own position.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "attn/core/error.hpp"
#include "attn/io/json_reader.hpp"

namespace {

using attn::json::Value;

void walk(const Value& v) {
    const auto* numbers = v.items.numbers();
    if (numbers != nullptr && numbers->size() != v.items.size()) {
        std::abort();
    }
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        const Value& item = v.items[i];
        if (item.position.offset <= v.position.offset) {
            std::abort();
        }
        if (numbers != nullptr &&
            (!item.is(Value::Type::number) ||
             std::memcmp(&(*numbers)[i], &item.number, sizeof item.number) != 0)) {
            std::abort();
        }
        walk(item);
    }
    for (const auto& member : v.members) {
        walk(member.second);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        walk(attn::json::parse(std::string_view(reinterpret_cast<const char*>(data), size),
                               "fuzz.json"));
    } catch (const attn::Error&) {
        // a clear error is the expected answer to bad input
    }
    return 0;
}
