// --npz: every step's matrix as numpy arrays in one .npz, numpy's own format: a zip archive
// (stored, not compressed) of .npy files, one per step, named by step id ("head1.weights.npy",
// which numpy.load gives as "head1.weights"). Both formats are small enough to write here:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html and the zip
// specification's local headers, central directory and end record (no zip64: an archive of
// 4 GiB or more, or more than 65535 steps, is refused).
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/render/render.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

// CRC-32 (IEEE 802.3, the zip format's), from a table made once: `crc` is the CRC of the
// bytes before (0 at the start), so that a file's CRC is computed a piece at a time.
std::uint32_t crc32(std::string_view bytes, std::uint32_t crc) {
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
    std::uint32_t c = crc ^ 0xFFFFFFFFU;
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

// The header of a .npy file (format version 1.0): the magic, the header's length, a Python
// dict literal padded with spaces to a multiple of 64 bytes and ending in a newline; the data
// follows in C order. `shape` is a Python tuple: "(3, 4)", "(8,)". `descr` is '<f8'
// (little-endian double), '|b1' (booleans, one byte each) or '<i8'.
std::string npy_header(std::string_view descr, std::string_view shape) {
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
    return out;
}

// One array of the archive: its file name, its size, and what writes its bytes (the .npy
// header, then a row at a time), called twice: once for its CRC, once to write it.
struct Entry {
    std::string name;
    std::uint64_t size = 0;
    std::function<void(const Sink&)> write;
};

Entry step_entry(const Step& step) {
    const bool mask = step.kind == StepKind::mask;
    std::string header =
        npy_header(mask ? "|b1" : "<f8", fmt::format("({}, {})", step.shape.rows, step.shape.cols));
    const std::uint64_t item = mask ? 1 : 8;
    const std::uint64_t size = header.size() + item * step.shape.rows * step.shape.cols;
    return {step.id + ".npy", size, [&step, mask, header = std::move(header)](const Sink& sink) {
                sink(header);
                std::string row;
                for (std::size_t r = 0; r < step.shape.rows; ++r) {
                    row.clear();
                    for (std::size_t c = 0; c < step.shape.cols; ++c) {
                        if (mask) {
                            row += step.allowed(r, c) ? '\x01' : '\x00';
                            continue;
                        }
                        const double v = step.value(r, c);
                        std::uint64_t bits = 0;
                        std::memcpy(&bits, &v, sizeof bits);
                        for (unsigned b = 0; b < 8; ++b) {  // little-endian on any machine
                            row += static_cast<char>((bits >> (8U * b)) & 0xFFU);
                        }
                    }
                    sink(row);
                }
            }};
}

}  // namespace

void render_npz(const Trace& trace, const Sink& sink) {
    std::vector<Entry> entries;
    for (const Step& step : teaching_steps(trace)) {
        if (step.kind != StepKind::tokens) {  // the tokens have no numbers: they are in the dump
            entries.push_back(step_entry(step));
        }
    }
    if (trace.gpt2) {
        // the token ids, as int64
        std::string bytes = npy_header("<i8", fmt::format("({},)", trace.gpt2->token_ids.size()));
        for (const auto id : trace.gpt2->token_ids) {
            put32(bytes, id);
            put32(bytes, 0);
        }
        const std::uint64_t size = bytes.size();
        entries.push_back(
            {"token_ids.npy", size, [bytes = std::move(bytes)](const Sink& s) { s(bytes); }});
    }
    // the zip format's limits without zip64, checked before anything is written
    if (entries.size() > 0xFFFFU) {
        throw Error(ErrorKind::usage,
                    fmt::format("--npz: {} arrays, more than a zip without zip64 holds (65535)",
                                entries.size()));
    }
    std::uint64_t total = 22;  // the end record
    for (const auto& e : entries) {
        total += 30 + 46 + 2 * e.name.size() + e.size;  // local header, directory entry, data
    }
    if (total > std::numeric_limits<std::uint32_t>::max()) {
        throw Error(ErrorKind::usage,
                    "--npz: the arrays take 4 GiB or more, more than a zip without zip64 "
                    "holds, expected fewer tokens or --steps");
    }

    constexpr std::uint32_t dos_date = (1U << 5U) | 1U;  // 1980-01-01, the earliest
    toolkit::Spool out(sink);  // an array at a time, a row at a time: never held whole
    std::uint32_t offset = 0;  // of the next local header
    std::string directory;
    for (const auto& e : entries) {
        std::uint32_t crc = 0;
        e.write([&crc](std::string_view piece) { crc = crc32(piece, crc); });
        const auto size = static_cast<std::uint32_t>(e.size);
        const auto name_length = static_cast<std::uint32_t>(e.name.size());
        // local file header
        std::string header;
        put32(header, 0x04034b50U);
        put16(header, 20);  // version needed: 2.0
        put16(header, 0);   // flags
        put16(header, 0);   // method: stored
        put16(header, 0);   // time
        put16(header, dos_date);
        put32(header, crc);
        put32(header, size);
        put32(header, size);
        put16(header, name_length);
        put16(header, 0);  // extra field
        header += e.name;
        out += header;
        e.write([&out](std::string_view piece) { out += piece; });
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
        offset += static_cast<std::uint32_t>(header.size()) + size;
    }
    const std::uint32_t directory_offset = offset;
    std::string end = directory;
    put32(end, 0x06054b50U);  // end of central directory
    put16(end, 0);
    put16(end, 0);
    put16(end, static_cast<std::uint32_t>(entries.size()));
    put16(end, static_cast<std::uint32_t>(entries.size()));
    put32(end, static_cast<std::uint32_t>(directory.size()));
    put32(end, directory_offset);
    put16(end, 0);  // comment length
    out += end;
    out.flush();
}

std::string render_npz(const Trace& trace) {
    return toolkit::collect([&](const Sink& sink) { render_npz(trace, sink); });
}

}  // namespace attn
