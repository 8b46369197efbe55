// --npz: every step's matrix as numpy arrays in one .npz, numpy's own format: a zip archive
// (stored, not compressed) of .npy files, one per step, named by step id ("head1.weights.npy",
// which numpy.load gives as "head1.weights"). Both formats are small enough to write here:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html and the zip
// specification's local headers, central directory and end record (no zip64: an archive of
// 4 GiB or more, or more than 65535 steps, is refused).
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/render/render.hpp"

namespace attn {
namespace {

// CRC-32 (IEEE 802.3, the zip format's), from a table made once
std::uint32_t crc32(std::string_view bytes) {
    static const auto table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t n = 0; n < 256; ++n) {
            std::uint32_t c = n;
            for (int k = 0; k < 8; ++k) {
                c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1U) : c >> 1U;
            }
            t[n] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xFFFFFFFFU;
    for (const char ch : bytes) {
        c = table[(c ^ static_cast<unsigned char>(ch)) & 0xFFU] ^ (c >> 8U);
    }
    return c ^ 0xFFFFFFFFU;
}

void put16(std::string& out, std::uint32_t v) {
    out += static_cast<char>(v & 0xFFU);
    out += static_cast<char>((v >> 8U) & 0xFFU);
}

void put32(std::string& out, std::uint32_t v) {
    put16(out, v & 0xFFFFU);
    put16(out, v >> 16U);
}

// One .npy file (format version 1.0): the magic, the header's length, a Python dict literal
// padded with spaces to a multiple of 64 bytes and ending in a newline, then the data in C
// order. `shape` is a Python tuple: "(3, 4)", "(8,)". `descr` is '<f8' (little-endian double) or
// '|b1' (booleans, one byte each).
std::string npy(std::string_view descr, std::string_view shape, std::string_view data) {
    std::string header =
        fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
    const std::size_t preamble = 10;  // magic (6), version (2), header length (2)
    const std::size_t padded = (preamble + header.size() + 1 + 63) / 64 * 64;
    header.append(padded - preamble - header.size() - 1, ' ');
    header += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    put16(out, static_cast<std::uint32_t>(header.size()));
    out += header;
    out += data;
    return out;
}

std::string matrix_shape(const Step& step) {
    return fmt::format("({}, {})", step.shape.rows, step.shape.cols);
}

std::string doubles(const Step& step) {
    std::string out;
    out.reserve(step.shape.rows * step.shape.cols * 8);
    for (std::size_t r = 0; r < step.shape.rows; ++r) {
        for (std::size_t c = 0; c < step.shape.cols; ++c) {
            const double v = step.value(r, c);
            std::uint64_t bits = 0;
            std::memcpy(&bits, &v, sizeof bits);
            for (int b = 0; b < 8; ++b) {
                out += static_cast<char>((bits >> (8U * static_cast<unsigned>(b))) & 0xFFU);
            }
        }
    }
    return out;
}

}  // namespace

std::string render_npz(const Trace& trace) {
    struct Entry {
        std::string name;
        std::string data;
    };
    std::vector<Entry> entries;
    for (const Step& step : teaching_steps(trace)) {
        if (step.kind == StepKind::tokens) {
            continue;  // no numbers: the tokens are in the JSON dump
        }
        if (step.kind == StepKind::mask) {
            std::string bytes;
            for (std::size_t r = 0; r < step.shape.rows; ++r) {
                for (std::size_t c = 0; c < step.shape.cols; ++c) {
                    bytes += step.allowed(r, c) ? '\x01' : '\x00';
                }
            }
            entries.push_back({step.id + ".npy", npy("|b1", matrix_shape(step), bytes)});
            continue;
        }
        entries.push_back({step.id + ".npy", npy("<f8", matrix_shape(step), doubles(step))});
    }
    if (trace.gpt2) {
        // the token ids, as int64
        std::string bytes;
        for (const auto id : trace.gpt2->token_ids) {
            put32(bytes, id);
            put32(bytes, 0);
        }
        entries.push_back({"token_ids.npy",
                           npy("<i8", fmt::format("({},)", trace.gpt2->token_ids.size()), bytes)});
    }

    constexpr std::uint32_t dos_date = (1U << 5U) | 1U;  // 1980-01-01, the earliest
    std::string out;
    std::string directory;
    const auto limit = std::numeric_limits<std::uint32_t>::max();
    if (entries.size() > 0xFFFFU) {
        throw Error(ErrorKind::usage,
                    fmt::format("--npz: {} arrays, more than a zip without zip64 holds (65535)",
                                entries.size()));
    }
    for (const auto& e : entries) {
        if (out.size() + e.data.size() + 100 > limit) {
            throw Error(ErrorKind::usage,
                        "--npz: the arrays take 4 GiB or more, more than a zip without zip64 "
                        "holds, expected fewer tokens or --steps");
        }
        const std::uint32_t crc = crc32(e.data);
        const auto size = static_cast<std::uint32_t>(e.data.size());
        const auto offset = static_cast<std::uint32_t>(out.size());
        const auto name_length = static_cast<std::uint32_t>(e.name.size());
        // local file header
        put32(out, 0x04034b50U);
        put16(out, 20);  // version needed: 2.0
        put16(out, 0);   // flags
        put16(out, 0);   // method: stored
        put16(out, 0);   // time
        put16(out, dos_date);
        put32(out, crc);
        put32(out, size);
        put32(out, size);
        put16(out, name_length);
        put16(out, 0);  // extra field
        out += e.name;
        out += e.data;
        // its central directory entry
        put32(directory, 0x02014b50U);
        put16(directory, 20);  // made by: 2.0
        put16(directory, 20);
        put16(directory, 0);
        put16(directory, 0);
        put16(directory, 0);
        put16(directory, dos_date);
        put32(directory, crc);
        put32(directory, size);
        put32(directory, size);
        put16(directory, name_length);
        put16(directory, 0);  // extra
        put16(directory, 0);  // comment
        put16(directory, 0);  // disk
        put16(directory, 0);  // internal attributes
        put32(directory, 0);  // external attributes
        put32(directory, offset);
        directory += e.name;
    }
    const auto directory_offset = static_cast<std::uint32_t>(out.size());
    out += directory;
    put32(out, 0x06054b50U);  // end of central directory
    put16(out, 0);
    put16(out, 0);
    put16(out, static_cast<std::uint32_t>(entries.size()));
    put16(out, static_cast<std::uint32_t>(entries.size()));
    put32(out, static_cast<std::uint32_t>(directory.size()));
    put32(out, directory_offset);
    put16(out, 0);  // comment length
    return out;
}

}  // namespace attn
