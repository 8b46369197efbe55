// safetensors files: the header checked as the format's own library checks it, the data
// mapped read-only and converted to double exactly, one tensor at a time.
#include "attn/io/safetensors.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/io/json_reader.hpp"
#include "json_file.hpp"

namespace attn::safetensors {
namespace {

using json::Value;
using Type = json::Value::Type;

struct DtypeInfo {
    std::string_view name;
    std::size_t size;
};

// The safetensors format's dtypes; attn converts the four floating-point ones to double.
constexpr std::array<DtypeInfo, 15> dtypes{{{"BOOL", 1},
                                            {"U8", 1},
                                            {"I8", 1},
                                            {"F8_E5M2", 1},
                                            {"F8_E4M3", 1},
                                            {"I16", 2},
                                            {"U16", 2},
                                            {"F16", 2},
                                            {"BF16", 2},
                                            {"I32", 4},
                                            {"U32", 4},
                                            {"F32", 4},
                                            {"I64", 8},
                                            {"U64", 8},
                                            {"F64", 8}}};
constexpr std::uint64_t max_size = std::numeric_limits<std::uint64_t>::max();

std::string dtype_list() {
    std::string out;
    for (const auto& d : dtypes) {
        out += (out.empty() ? "" : ", ") + std::string(d.name);
    }
    return out;
}

constexpr std::string_view tensor_form =
    R"({"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, end]})";

Tensor read_tensor(const reader::JsonFile& c, const std::string& name, const Value& v,
                   const std::string& path) {
    c.expect_type(v, path, Type::object, fmt::format("a tensor: {}", tensor_form));
    for (const auto& [key, value] : v.members) {
        if (key != "dtype" && key != "shape" && key != "data_offsets") {
            c.fail(value, reader::child(path, key),
                   fmt::format("unknown key \"{}\", expected dtype, shape and data_offsets only",
                               shown(key)));
        }
    }
    const auto require = [&](std::string_view key) -> const Value& {
        const Value* found = v.find(key);
        if (found == nullptr) {
            c.fail(v, path,
                   fmt::format("\"{}\" is missing, expected a tensor: {}", key, tensor_form));
        }
        return *found;
    };
    Tensor t;
    t.name = name;
    const Value& dtype = require("dtype");
    const std::string dtype_path = reader::child(path, "dtype");
    const auto* const known = std::find_if(
        dtypes.begin(), dtypes.end(), [&](const DtypeInfo& d) { return d.name == dtype.text; });
    if (!dtype.is(Type::string) || known == dtypes.end()) {
        c.fail(dtype, dtype_path,
               fmt::format("found {}{}, expected one of {}", json::describe(dtype.type),
                           dtype.is(Type::string) ? " \"" + shown(dtype.text) + "\"" : "",
                           dtype_list()));
    }
    t.dtype = dtype.text;
    t.dtype_size = known->size;

    const Value& shape = require("shape");
    const std::string shape_path = reader::child(path, "shape");
    if (!shape.is(Type::array)) {
        c.fail(shape, shape_path,
               fmt::format("found {}, expected an array of sizes, e.g. [768, 2304]",
                           json::describe(shape.type)));
    }
    t.elements = 1;
    bool overflow = false;
    for (std::size_t i = 0; i < shape.items.size(); ++i) {
        const std::uint64_t n = c.whole(shape.items[i], reader::index(shape_path, i), 0, max_size,
                                        "a size, a whole number");
        t.shape.push_back(n);
        overflow = __builtin_mul_overflow(t.elements, n, &t.elements) || overflow;
    }
    std::uint64_t bytes = 0;
    if (overflow || __builtin_mul_overflow(t.elements, t.dtype_size, &bytes)) {
        c.fail(shape, shape_path,
               fmt::format("{} holds more bytes than 2^64, expected a tensor that fits in a file",
                           File::shape_text(t.shape)));
    }

    const Value& offsets = require("data_offsets");
    const std::string offsets_path = reader::child(path, "data_offsets");
    if (!offsets.is(Type::array) || offsets.items.size() != 2) {
        c.fail(offsets, offsets_path,
               fmt::format("found {}{}, expected two byte offsets: [begin, end]",
                           json::describe(offsets.type),
                           offsets.is(Type::array)
                               ? fmt::format(" of {} elements", offsets.items.size())
                               : ""));
    }
    t.begin = c.whole(offsets.items[0], reader::index(offsets_path, 0), 0, max_size,
                      "a byte offset, a whole number");
    t.end = c.whole(offsets.items[1], reader::index(offsets_path, 1), 0, max_size,
                    "a byte offset, a whole number");
    if (t.begin > t.end) {
        c.fail(offsets, offsets_path,
               fmt::format("[{}, {}] runs backwards, expected [begin, end] with begin ≤ end",
                           t.begin, t.end));
    }
    if (t.end - t.begin != bytes) {
        c.fail(offsets, offsets_path,
               fmt::format("[{}, {}] holds {} bytes, expected {} (shape {} of {}: {} elements of "
                           "{} bytes)",
                           t.begin, t.end, t.end - t.begin, bytes, File::shape_text(t.shape),
                           t.dtype, t.elements, t.dtype_size));
    }
    return t;
}

}  // namespace

Header parse_header(std::string_view text, std::uint64_t data_bytes, const std::string& where) {
    const reader::JsonFile c(where, std::string(text));
    const Value& root = c.root();
    if (!root.is(Type::object)) {
        c.fail(root, "",
               fmt::format("the header holds {}, expected a JSON object with a member per tensor",
                           json::describe(root.type)));
    }
    Header header;
    std::vector<const Value*> offsets;  // each tensor's data_offsets, for the messages below
    for (const auto& [name, value] : root.members) {
        const std::string path = reader::child("", name);
        if (name == "__metadata__") {
            if (!value.is(Type::object)) {
                c.fail(value, path,
                       fmt::format("found {}, expected an object of strings (the file's metadata)",
                                   json::describe(value.type)));
            }
            for (const auto& [key, item] : value.members) {
                if (!item.is(Type::string)) {
                    c.fail(item, reader::child(path, key),
                           fmt::format("found {}, expected a string (metadata maps strings to "
                                       "strings)",
                                       json::describe(item.type)));
                }
                header.metadata.emplace_back(key, item.text);
            }
            continue;
        }
        header.tensors.push_back(read_tensor(c, name, value, path));
        offsets.push_back(value.find("data_offsets"));
    }
    // In the order of their data, the tensors must follow each other without gap or overlap
    // and end where the data ends, as the format says (and its library checks).
    std::vector<std::size_t> order(header.tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    const auto& ts = header.tensors;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return ts[a].begin != ts[b].begin ? ts[a].begin < ts[b].begin : ts[a].end < ts[b].end;
    });
    std::uint64_t covered = 0;  // the data is covered up to here
    for (std::size_t k = 0; k < order.size(); ++k) {
        const Tensor& t = ts[order[k]];
        const std::string path = reader::child(reader::child("", t.name), "data_offsets");
        if (t.end > data_bytes) {
            c.fail(*offsets[order[k]], path,
                   fmt::format("[{}, {}] runs past the end of the data, which is {} bytes long "
                               "(the file less the 8-byte length and the header)",
                               t.begin, t.end, data_bytes));
        }
        if (k > 0 && t.begin < covered) {
            const Tensor& before = ts[order[k - 1]];
            c.fail(*offsets[order[k]], path,
                   fmt::format("[{}, {}] overlaps tensor \"{}\" at [{}, {}], expected each "
                               "tensor's bytes apart from the others'",
                               t.begin, t.end, shown(before.name), before.begin, before.end));
        }
        if (t.begin > covered) {
            c.fail(*offsets[order[k]], path,
                   k == 0 ? fmt::format("[{}, {}] leaves bytes 0 to {} of the data unused, "
                                        "expected the first tensor to start at 0 (the format has "
                                        "no gaps)",
                                        t.begin, t.end, t.begin)
                          : fmt::format("[{}, {}] leaves bytes {} to {} of the data unused after "
                                        "tensor \"{}\", expected it to start at {} (the format "
                                        "has no gaps)",
                                        t.begin, t.end, covered, t.begin,
                                        shown(ts[order[k - 1]].name), covered));
        }
        covered = t.end;
    }
    if (covered != data_bytes) {
        throw Error(ErrorKind::input,
                    fmt::format("{}: the data is {} bytes long, but the tensors end at byte {}, "
                                "expected them to cover it to its end (the format has no gaps)",
                                where, data_bytes, covered));
    }
    std::vector<Tensor> sorted;
    sorted.reserve(order.size());
    for (const std::size_t i : order) {
        sorted.push_back(std::move(header.tensors[i]));
    }
    header.tensors = std::move(sorted);
    return header;
}

double f16_to_double(std::uint16_t bits) noexcept {
    const std::uint64_t sign = std::uint64_t{bits & 0x8000U} << 48U;
    const unsigned exponent = (bits >> 10U) & 0x1FU;
    const std::uint64_t mantissa = bits & 0x3FFU;
    if (exponent == 0) {
        // zero and subnormals: m · 2^-24, exact (a power of two times a 10-bit number)
        const double v = static_cast<double>(mantissa) * 0x1p-24;
        return sign != 0 ? -v : v;
    }
    if (exponent == 31) {
        return (sign != 0 ? -1.0 : 1.0) * (mantissa == 0
                                               ? std::numeric_limits<double>::infinity()
                                               : std::numeric_limits<double>::quiet_NaN());
    }
    // (1024 + m) · 2^(e − 25): the same number as a double, its exponent moved from F16's bias
    // (15) to a double's (1023) and its 10 bits of mantissa to the top of the 52: built from
    // the bits, without a call, for the millions of numbers of a checkpoint
    return std::bit_cast<double>(sign | (std::uint64_t{exponent + 1008U} << 52U) |
                                 (mantissa << 42U));
}

double bf16_to_double(std::uint16_t bits) noexcept {
    // a bfloat16 is the upper half of a binary32 with the same sign, exponent and the first
    // 7 bits of its mantissa
    return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16U));
}

}  // namespace attn::safetensors
