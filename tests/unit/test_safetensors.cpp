// The safetensors reader (io/safetensors.hpp) on files written here, byte by byte: exact
// conversions of F32, F16, BF16 and F64 (values worked out from the IEEE-754 and bfloat16
// definitions) and every error with its exact message.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/io/safetensors.hpp"
#include "input_error.hpp"

using namespace attn::test;  // error_of

namespace fs = std::filesystem;
using attn::safetensors::File;

namespace {

// A folder of this test's own, removed at the end.
struct Folder {
    fs::path path = fs::temp_directory_path() / ("attn-safetensors-" + std::to_string(::getpid()) +
                                                 "-" + std::to_string(counter++));
    Folder() { fs::create_directories(path); }
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    ~Folder() { fs::remove_all(path); }
    static inline int counter = 0;
};

std::string little_endian(std::uint64_t v, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += static_cast<char>((v >> (8 * i)) & 0xFFU);
    }
    return out;
}

// A file: the header's length (8 bytes, little-endian), the header, the data.
std::string write(const Folder& folder, const std::string& name, const std::string& header,
                  const std::string& data) {
    const std::string path = (folder.path / name).string();
    std::ofstream out(path, std::ios::binary);
    out << little_endian(header.size(), 8) << header << data;
    return path;
}

std::string raw(const Folder& folder, const std::string& name, const std::string& bytes) {
    const std::string path = (folder.path / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

// The message of opening a file with this header and data.
std::string open_error(const std::string& header, const std::string& data = "") {
    const Folder folder;
    const std::string path = write(folder, "t.safetensors", header, data);
    std::string message = error_of([&] { File{path}; });
    // the folder differs from run to run: messages start with the file's path
    if (message.starts_with(path)) {
        message.replace(0, path.size(), "t.safetensors");
    }
    return message;
}

}  // namespace

TEST_CASE("safetensors: F16 and BF16 convert exactly, by their definitions", "[safetensors]") {
    using attn::safetensors::bf16_to_double;
    using attn::safetensors::f16_to_double;
    // F16: sign, 5 bits of exponent (bias 15), 10 of mantissa; subnormals are m · 2^-24
    CHECK(f16_to_double(0x3C00) == 1.0);
    CHECK(f16_to_double(0xC000) == -2.0);
    CHECK(f16_to_double(0x3555) == 0.333251953125);  // 1365 · 2^-12
    CHECK(f16_to_double(0x0001) == std::ldexp(1.0, -24));
    CHECK(f16_to_double(0x03FF) == 1023 * std::ldexp(1.0, -24));
    CHECK(f16_to_double(0x0400) == std::ldexp(1.0, -14));
    CHECK(f16_to_double(0x7BFF) == 65504.0);
    CHECK(f16_to_double(0xFBFF) == -65504.0);
    CHECK(f16_to_double(0x0000) == 0.0);
    CHECK_FALSE(std::signbit(f16_to_double(0x0000)));
    CHECK(std::signbit(f16_to_double(0x8000)));
    CHECK(f16_to_double(0x8000) == 0.0);
    CHECK(std::isinf(f16_to_double(0x7C00)));
    CHECK(f16_to_double(0xFC00) < 0);
    CHECK(std::isnan(f16_to_double(0x7E00)));
    // BF16: the upper half of a binary32
    CHECK(bf16_to_double(0x3F80) == 1.0);
    CHECK(bf16_to_double(0x4049) == 3.140625);  // 1.5703125 · 2
    CHECK(bf16_to_double(0x0001) == std::ldexp(1.0, -133));
    CHECK(bf16_to_double(0x0080) == std::ldexp(1.0, -126));
    CHECK(bf16_to_double(0x7F7F) == std::ldexp(255.0, 120));  // (2 - 2^-7) · 2^127
    CHECK(std::signbit(bf16_to_double(0x8000)));
    CHECK(std::isinf(bf16_to_double(0x7F80)));
    CHECK(std::isnan(bf16_to_double(0x7FC0)));
}

TEST_CASE("safetensors: every F16 bit pattern converts as the definition says", "[safetensors]") {
    // f16_to_double builds the double from the bits; the definition, with ldexp, for each of
    // the 65536 patterns
    for (unsigned bits = 0; bits <= 0xFFFFU; ++bits) {
        const bool negative = (bits & 0x8000U) != 0;
        const unsigned e = (bits >> 10U) & 0x1FU;
        const unsigned m = bits & 0x3FFU;
        const double got = attn::safetensors::f16_to_double(static_cast<std::uint16_t>(bits));
        if (e == 31 && m != 0) {
            CHECK(std::isnan(got));
            continue;
        }
        double want = e == 0 ? std::ldexp(static_cast<double>(m), -24)
                      : e == 31
                          ? std::numeric_limits<double>::infinity()
                          : std::ldexp(static_cast<double>(m + 1024U), static_cast<int>(e) - 25);
        want = negative ? -want : want;
        if (got != want || std::signbit(got) != negative) {
            FAIL_CHECK("F16 bits " << bits << ": " << got << ", expected " << want);
        }
    }
}

TEST_CASE("safetensors: columns of a tensor, read alone, are those of the whole", "[safetensors]") {
    const Folder folder;
    std::string data;
    for (std::uint32_t i = 0; i < 3 * 6; ++i) {  // F32 [3, 6]: 0.5, 1.5, ...
        data += little_endian(std::bit_cast<std::uint32_t>(static_cast<float>(i) + 0.5F), 4);
    }
    for (std::uint32_t i = 0; i < 6; ++i) {  // F16 [6]: 1 each
        data += little_endian(0x3C00U, 2);
    }
    const std::string header =
        R"({"w": {"dtype": "F32", "shape": [3, 6], "data_offsets": [0, 72]}, )"
        R"("b": {"dtype": "F16", "shape": [6], "data_offsets": [72, 84]}})";
    const File file(write(folder, "c.safetensors", header, data));
    const attn::Matrix whole = file.matrix("w", {3, 6}, "");
    for (std::size_t begin = 0; begin <= 6; ++begin) {
        for (std::size_t count = 0; begin + count <= 6; ++count) {
            const attn::Matrix part = file.columns(file.at("w"), {3, 6}, "", begin, count);
            REQUIRE(part.rows() == 3);
            REQUIRE(part.cols() == count);
            for (std::size_t r = 0; r < 3; ++r) {
                for (std::size_t c = 0; c < count; ++c) {
                    CHECK(part(r, c) == whole(r, begin + c));
                }
            }
        }
    }
    const attn::Matrix b = file.columns(file.at("b"), {6}, "", 2, 3);
    CHECK(b.rows() == 1);
    CHECK(b.cols() == 3);
    CHECK(b(0, 0) == 1.0);
    CHECK(error_of([&] {
              (void)file.columns(file.at("w"), {6, 3}, "n × m", 0, 1);
          }) == file.path() + ": tensor \"w\" has shape [3, 6], expected [6, 3] (n × m)");
    CHECK_THROWS(file.columns(file.at("w"), {3, 6}, "", 4, 3));
}

TEST_CASE("safetensors: tensors of every float dtype, read from the mapping", "[safetensors]") {
    const Folder folder;
    std::string data;
    // F32 [2, 2]: 1, 2^-149 (the smallest subnormal), FLT_MAX, -0
    for (const std::uint32_t bits : {0x3F800000U, 0x00000001U, 0x7F7FFFFFU, 0x80000000U}) {
        data += little_endian(bits, 4);
    }
    // F16 [3]: 2^-24, 65504, -0
    for (const unsigned bits : {0x0001U, 0x7BFFU, 0x8000U}) {
        data += little_endian(bits, 2);
    }
    // BF16 [2]: 3.140625, 2^-133
    for (const unsigned bits : {0x4049U, 0x0001U}) {
        data += little_endian(bits, 2);
    }
    // F64 []: 0.1 (a scalar)
    data += little_endian(0x3FB999999999999AULL, 8);
    // I64 [1]
    data += little_endian(7, 8);
    const std::string header =
        R"({"__metadata__": {"format": "pt"}, "b": {"dtype": "F16", "shape": [3], )"
        R"("data_offsets": [16, 22]}, "a": {"dtype": "F32", "shape": [2, 2], "data_offsets": )"
        R"([0, 16]}, "c": {"dtype": "BF16", "shape": [2], "data_offsets": [22, 26]}, "d": )"
        R"({"dtype": "F64", "shape": [], "data_offsets": [26, 34]}, "e": {"dtype": "I64", )"
        R"("shape": [1], "data_offsets": [34, 42]}}    )";  // padded with spaces, as writers do
    const File file(write(folder, "ok.safetensors", header, data));
    REQUIRE(file.tensors().size() == 5);
    CHECK(file.tensors()[0].name == "a");  // in the order of their data
    CHECK(file.tensors()[1].name == "b");
    CHECK(file.metadata() == std::vector<std::pair<std::string, std::string>>{{"format", "pt"}});
    CHECK(file.header_bytes() == header.size());

    const attn::Matrix a = file.matrix("a", {2, 2}, "");
    CHECK(a(0, 0) == 1.0);
    CHECK(a(0, 1) == std::ldexp(1.0, -149));
    CHECK(a(1, 0) == std::ldexp(16777215.0, 104));  // (2 - 2^-23) · 2^127
    CHECK(a(1, 1) == 0.0);
    CHECK(std::signbit(a(1, 1)));
    const attn::Matrix b = file.matrix("b", {3}, "");
    CHECK(b.rows() == 1);
    CHECK(b.row(0)[0] == std::ldexp(1.0, -24));
    CHECK(b.row(0)[1] == 65504.0);
    CHECK(std::signbit(b.row(0)[2]));
    CHECK(file.values(file.at("c")) == std::vector<double>{3.140625, std::ldexp(1.0, -133)});
    CHECK(file.values(file.at("d")) == std::vector<double>{0.1});
    CHECK(file.values(file.at("a"), 2, 1) == std::vector<double>{std::ldexp(16777215.0, 104)});
    const attn::Matrix picked = file.rows(file.at("a"), {2, 2}, "", {1, 0, 1});
    CHECK(picked.rows() == 3);
    CHECK(picked(0, 0) == a(1, 0));
    CHECK(picked(1, 1) == a(0, 1));
    CHECK(file.bytes(file.at("e")).size() == 8);
    CHECK(file.bytes(file.at("e"))[0] == 7);

    // the file can move; the mapping goes with it
    File moved = File(write(folder, "ok2.safetensors", header, data));
    const File other = std::move(moved);
    CHECK(other.values(other.at("d")) == std::vector<double>{0.1});
}

TEST_CASE("safetensors: errors in reading values name the tensor and the element",
          "[safetensors]") {
    const Folder folder;
    std::string data = little_endian(0x3C00, 2) + little_endian(0x7E00, 2) +
                       little_endian(0x3F800000U, 4) + little_endian(0xFF800000U, 4) +
                       little_endian(0x7F80, 2) + little_endian(1, 4);
    const std::string header =
        R"({"h.0.attn.c_attn.bias": {"dtype": "F16", "shape": [1, 2], "data_offsets": [0, 4]},)"
        R"( "f": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]},)"
        R"( "g": {"dtype": "BF16", "shape": [1], "data_offsets": [12, 14]},)"
        R"( "i": {"dtype": "I32", "shape": [1], "data_offsets": [14, 18]}})";
    const std::string path = write(folder, "v.safetensors", header, data);
    const File file(path);
    CHECK(error_of([&] { (void)file.values(file.at("h.0.attn.c_attn.bias")); }) ==
          path +
              ": tensor \"h.0.attn.c_attn.bias\" holds NaN at element 1 ([0, 1] of shape "
              "[1, 2]), expected finite numbers (attn never computes with NaN or infinity)");
    CHECK(error_of([&] { (void)file.values(file.at("f")); }) ==
          path +
              ": tensor \"f\" holds -infinity at element 1 ([1] of shape [2]), expected finite "
              "numbers (attn never computes with NaN or infinity)");
    CHECK(error_of([&] { (void)file.values(file.at("g")); }) ==
          path +
              ": tensor \"g\" holds infinity at element 0 ([0] of shape [1]), expected finite "
              "numbers (attn never computes with NaN or infinity)");
    CHECK(error_of([&] { (void)file.values(file.at("i")); }) ==
          path +
              ": tensor \"i\" has dtype I32, expected F64, F32, F16 or BF16 (attn reads "
              "floating-point tensors)");
    CHECK(error_of([&] {
              (void)file.matrix("f", {2, 1}, "n_embd × 1");
          }) == path + ": tensor \"f\" has shape [2], expected [2, 1] (n_embd × 1)");
    CHECK(error_of([&] {
              (void)file.matrix("h.0.attn.c_atn.bias", {1, 2}, "");
          }) == path +
                    " has no tensor \"h.0.attn.c_atn.bias\", expected one of its 4 tensors; the "
                    "nearest: \"h.0.attn.c_attn.bias\"");
    CHECK(error_of([&] { (void)file.at("zzzzzzzz"); }) ==
          path + " has no tensor \"zzzzzzzz\", expected one of its 4 tensors");
    CHECK(error_of([&] {
              (void)file.rows(file.at("h.0.attn.c_attn.bias"), {1, 2}, "T × n", {1});
          }) ==
          path + ": row 1 of tensor \"h.0.attn.c_attn.bias\" asked for, which has 1 rows (T × n)");
}

TEST_CASE("safetensors: a file that cannot be one is an error naming it", "[safetensors]") {
    const Folder folder;
    const std::string missing = (folder.path / "none.safetensors").string();
    CHECK(error_of([&] { File{missing}; }) ==
          "cannot read " + missing + ": no such file, expected a safetensors file");
    CHECK(error_of([&] { File{folder.path.string()}; }) ==
          "cannot read " + folder.path.string() +
              ": it is a directory, expected a safetensors file");
    const std::string short_file = raw(folder, "short.safetensors", std::string("\x05\0\0\0\0", 5));
    CHECK(error_of([&] { File{short_file}; }) ==
          short_file +
              " is 5 bytes long, expected at least 8 (a safetensors file starts with the "
              "length of its JSON header, a little-endian 64-bit number)");
    const std::string empty = raw(folder, "empty.safetensors", "");
    CHECK(error_of([&] { File{empty}; }) ==
          empty +
              " is 0 bytes long, expected at least 8 (a safetensors file starts with the "
              "length of its JSON header, a little-endian 64-bit number)");
    const std::string past = raw(folder, "past.safetensors", little_endian(30, 8) + "{}");
    CHECK(error_of([&] { File{past}; }) ==
          past +
              ": the JSON header is 30 bytes long, past the end of the file, expected at most "
              "2 (the bytes after the 8-byte length)");
    const std::string huge = raw(folder, "huge.safetensors", little_endian(100'000'001, 8) + "{}");
    CHECK(error_of([&] { File{huge}; }) ==
          huge +
              ": the JSON header is 100000001 bytes long, expected at most 100000000 (attn's "
              "limit, as the safetensors library's)");
}

TEST_CASE("safetensors: every error of the header, with its place", "[safetensors]") {
    CHECK(open_error(R"({"a": )") ==
          "t.safetensors (header):1:7: not JSON: the end of the file, expected a value (is the "
          "file cut short?)");
    CHECK(open_error("[1, 2]") ==
          "t.safetensors (header):1:1: the header holds an array, expected a JSON object with a "
          "member per tensor");
    CHECK(
        open_error(R"({"a": 3})") ==
        "t.safetensors (header):1:7: a: found a number 3, expected a tensor: {\"dtype\": \"F32\", "
        "\"shape\": [rows, cols], \"data_offsets\": [begin, end]}");
    CHECK(open_error(R"({"a": {"shape": [1], "data_offsets": [0, 4]}})", "1234") ==
          "t.safetensors (header):1:7: a: \"dtype\" is missing, expected a tensor: {\"dtype\": "
          "\"F32\", \"shape\": [rows, cols], \"data_offsets\": [begin, end]}");
    CHECK(open_error(R"({"w.x": {"dtype": "F32", "data_offsets": [0, 4]}})", "1234") ==
          "t.safetensors (header):1:9: [\"w.x\"]: \"shape\" is missing, expected a tensor: "
          "{\"dtype\": \"F32\", \"shape\": [rows, cols], \"data_offsets\": [begin, end]}");
    CHECK(open_error(R"({"a": {"dtype": "F32", "shape": [1]}})", "1234") ==
          "t.safetensors (header):1:7: a: \"data_offsets\" is missing, expected a tensor: "
          "{\"dtype\": \"F32\", \"shape\": [rows, cols], \"data_offsets\": [begin, end]}");
    CHECK(open_error(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": 1}})",
                     "1234") ==
          "t.safetensors (header):1:67: a.x: unknown key \"x\", expected dtype, shape and "
          "data_offsets only");
    CHECK(open_error(R"({"a": {"dtype": "F12", "shape": [1], "data_offsets": [0, 4]}})", "1234") ==
          "t.safetensors (header):1:17: a.dtype: found a string \"F12\", expected one of BOOL, U8, "
          "I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, I64, U64, F64");
    CHECK(open_error(R"({"a": {"dtype": "F32", "shape": [1, -2], "data_offsets": [0, 4]}})",
                     "1234") ==
          "t.safetensors (header):1:37: a.shape[1]: found a number -2, expected a size, a whole "
          "number");
    CHECK(open_error(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", "1234") ==
          "t.safetensors (header):1:54: a.data_offsets: found an array of 1 elements, expected two "
          "byte offsets: [begin, end]");
    CHECK(open_error(R"({"a": {"dtype": "F32", "shape": [0], "data_offsets": [4, 0]}})", "1234") ==
          "t.safetensors (header):1:54: a.data_offsets: [4, 0] runs backwards, expected [begin, "
          "end] with begin ≤ end");
    CHECK(open_error(R"({"a": {"dtype": "F32", "shape": [3, 10], "data_offsets": [0, 96]}})") ==
          "t.safetensors (header):1:58: a.data_offsets: [0, 96] holds 96 bytes, expected 120 "
          "(shape [3, 10] of F32: 30 elements of 4 bytes)");
    CHECK(open_error(R"({"a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", "12") ==
          "t.safetensors (header):1:54: a.data_offsets: [0, 4] runs past the end of the data, "
          "which is 2 bytes long (the file less the 8-byte length and the header)");
    CHECK(open_error(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}, )"
                     R"("b": {"dtype": "U8", "shape": [2], "data_offsets": [3, 5]}})",
                     "12345") ==
          "t.safetensors (header):1:113: b.data_offsets: [3, 5] overlaps tensor \"a\" at [0, 4], "
          "expected each tensor's bytes apart from the others'");
    CHECK(open_error(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}, )"
                     R"("b": {"dtype": "U8", "shape": [1], "data_offsets": [5, 6]}})",
                     "123456") ==
          "t.safetensors (header):1:113: b.data_offsets: [5, 6] leaves bytes 4 to 5 of the data "
          "unused after tensor \"a\", expected it to start at 4 (the format has no gaps)");
    CHECK(open_error(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [1, 3]}})", "123") ==
          "t.safetensors (header):1:53: a.data_offsets: [1, 3] leaves bytes 0 to 1 of the data "
          "unused, expected the first tensor to start at 0 (the format has no gaps)");
    CHECK(open_error(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}})", "123") ==
          "t.safetensors (header): the data is 3 bytes long, but the tensors end at byte 2, "
          "expected them to cover it to its end (the format has no gaps)");
    CHECK(open_error(R"({"__metadata__": {"format": 1}})") ==
          "t.safetensors (header):1:29: __metadata__.format: found a number, expected a string "
          "(metadata maps strings to strings)");
    CHECK(open_error(R"({"__metadata__": []})") ==
          "t.safetensors (header):1:18: __metadata__: found an array, expected an object of "
          "strings (the file's metadata)");
    CHECK(open_error(R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], )"
                     R"("data_offsets": [0, 4]}})",
                     "1234") ==
          "t.safetensors (header):1:33: a.shape: [4294967296, 4294967296] holds more bytes than "
          "2^64, expected a tensor that fits in a file");
    // a header with no tensors and no data is a valid, empty file
    CHECK(open_error("{}") == "(no error)");
}
