// Fuzz target: attn's JSON reader, nlohmann/json's SAX parser and the handler that builds the
// tree (comments, positions, nesting limit, numbers, and the messages for syntax errors), and
// the compact arrays of numbers: their values must be their elements' values, every element
// must sit after the array's own position, and every position inside the text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "attn/core/error.hpp"
#include "attn/io/json_reader.hpp"

namespace {

using attn::json::Value;

std::string_view text;

void walk(const Value& v) {
    if (v.position.offset >= text.size()) {  // a value takes at least one character
        std::abort();
    }
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
    text = std::string_view(reinterpret_cast<const char*>(data), size);
    try {
        walk(attn::json::parse(text, "fuzz.json"));
    } catch (const attn::Error&) {
        // a clear error is the expected answer to bad input
    }
    return 0;
}
