// An open safetensors file: mapped read-only, its header checked (safetensors.cpp), its
// tensors converted to double exactly when asked for.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "attn/io/safetensors.hpp"

namespace attn::safetensors {
namespace {

[[noreturn]] void cannot_read(const std::string& path, int err) {
    throw Error(ErrorKind::input,
                fmt::format("cannot read {}: {}, expected a safetensors file", shown(path),
                            err == ENOENT ? "no such file"
                                          : std::strerror(err)));  // NOLINT(concurrency-mt-unsafe)
}

// Reads a little-endian unsigned number of `n` bytes.
std::uint64_t little_endian(const unsigned char* p, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) {
        v = (v << 8U) | p[i];
    }
    return v;
}

// The multi-index of flat element `i` of `shape`, for messages: "[0, 17]".
std::string index_in(std::uint64_t i, const Shape& shape) {
    Shape index(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        index[d] = shape[d] == 0 ? 0 : i % shape[d];
        i = shape[d] == 0 ? 0 : i / shape[d];
    }
    return File::shape_text(index);
}

}  // namespace

File::File(std::string path) : path_(std::move(path)) {
    // O_CLOEXEC: the descriptor is closed again below; no child process may inherit it
    const int fd =
        ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);  // NOLINT(cppcoreguidelines-pro-type-vararg)
    if (fd < 0) {
        cannot_read(path_, errno);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        cannot_read(path_, err);
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw Error(ErrorKind::input, fmt::format("cannot read {}: it is a directory, expected a "
                                                  "safetensors file",
                                                  shown(path_)));
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size < 8) {
        ::close(fd);
        throw Error(ErrorKind::input,
                    fmt::format("{} is {} bytes long, expected at least 8 (a safetensors file "
                                "starts with the length of its JSON header, a little-endian "
                                "64-bit number)",
                                shown(path_), size));
    }
    // a private, read-only mapping: the file's pages are read when touched, never copied
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_error = errno;
    ::close(fd);              // the mapping keeps the file open
    if (map == MAP_FAILED) {  // NOLINT(cppcoreguidelines-pro-type-cstyle-cast): MAP_FAILED
        cannot_read(path_, map_error);
    }
    map_ = map;
    map_size_ = size;
    // from here on the destructor does not run if the constructor throws: unmap by hand
    try {
        header_length_ = little_endian(static_cast<const unsigned char*>(map_), 8);
        if (header_length_ > max_header_bytes) {
            throw Error(ErrorKind::input,
                        fmt::format("{}: the JSON header is {} bytes long, expected at most {} "
                                    "(attn's limit, as the safetensors library's)",
                                    shown(path_), header_length_, max_header_bytes));
        }
        if (header_length_ > size - 8) {
            throw Error(ErrorKind::input,
                        fmt::format("{}: the JSON header is {} bytes long, past the end of the "
                                    "file, expected at most {} (the bytes after the 8-byte "
                                    "length)",
                                    shown(path_), header_length_, size - 8));
        }
        // the header's bytes as characters: char may alias any object
        const auto* first = static_cast<const char*>(map_) + 8;
        const std::string_view text(first, header_length_);
        header_ = parse_header(text, size - 8 - header_length_, shown(path_) + " (header)");
    } catch (...) {
        ::munmap(map_, map_size_);
        throw;
    }
}

File::~File() {
    if (map_ != nullptr) {
        ::munmap(map_, map_size_);
    }
}

File::File(File&& other) noexcept
    : path_(std::move(other.path_)),
      map_(std::exchange(other.map_, nullptr)),
      map_size_(std::exchange(other.map_size_, 0)),
      header_length_(other.header_length_),
      header_(std::move(other.header_)) {}

File& File::operator=(File&& other) noexcept {
    if (this != &other) {
        if (map_ != nullptr) {
            ::munmap(map_, map_size_);
        }
        path_ = std::move(other.path_);
        map_ = std::exchange(other.map_, nullptr);
        map_size_ = std::exchange(other.map_size_, 0);
        header_length_ = other.header_length_;
        header_ = std::move(other.header_);
    }
    return *this;
}

std::string File::shape_text(const Shape& shape) {
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

const Tensor* File::find(std::string_view name) const noexcept {
    const auto it = std::find_if(header_.tensors.begin(), header_.tensors.end(),
                                 [&](const Tensor& t) { return t.name == name; });
    return it == header_.tensors.end() ? nullptr : &*it;
}

const Tensor& File::at(std::string_view name) const {
    if (const Tensor* t = find(name)) {
        return *t;
    }
    std::vector<std::string> names;
    names.reserve(header_.tensors.size());
    for (const Tensor& t : header_.tensors) {
        names.push_back(t.name);
    }
    auto near = nearest(std::string(name), names);
    std::string hint;
    if (!near.empty()) {
        for (auto& n : near) {
            n = fmt::format("\"{}\"", shown(n));
        }
        hint = fmt::format("; the nearest: {}", fmt::join(near, ", "));
    }
    throw Error(ErrorKind::input,
                fmt::format("{} has no tensor \"{}\", expected one of its {} tensors{}",
                            shown(path_), shown(name), header_.tensors.size(), hint));
}

std::span<const unsigned char> File::bytes(const Tensor& t) const noexcept {
    const std::size_t data = 8 + header_length_;
    return {static_cast<const unsigned char*>(map_) + data + t.begin, t.end - t.begin};
}

std::vector<double> File::values(const Tensor& t, std::uint64_t first, std::uint64_t count) const {
    if (t.dtype != "F64" && t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16") {
        throw Error(ErrorKind::input,
                    fmt::format("{}: tensor \"{}\" has dtype {}, expected F64, F32, F16 or BF16 "
                                "(attn reads floating-point tensors)",
                                shown(path_), shown(t.name), t.dtype));
    }
    if (first > t.elements || count > t.elements - first) {
        throw Error(ErrorKind::internal,
                    fmt::format("{}: elements {} to {} of tensor \"{}\", which has {}",
                                shown(path_), first, first + count, shown(t.name), t.elements));
    }
    const unsigned char* p = bytes(t).data() + first * t.dtype_size;
    std::vector<double> out(count);
    for (std::size_t i = 0; i < out.size(); ++i, p += t.dtype_size) {
        const std::uint64_t bits = little_endian(p, t.dtype_size);
        double v = 0;
        if (t.dtype == "F16") {
            v = f16_to_double(static_cast<std::uint16_t>(bits));
        } else if (t.dtype == "BF16") {
            v = bf16_to_double(static_cast<std::uint16_t>(bits));
        } else if (t.dtype == "F32") {
            v = static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
        } else {
            v = std::bit_cast<double>(bits);
        }
        if (!std::isfinite(v)) {
            const std::uint64_t at = first + i;
            throw Error(ErrorKind::input,
                        fmt::format("{}: tensor \"{}\" holds {} at element {} ({} of shape {}), "
                                    "expected finite numbers (attn never computes with NaN or "
                                    "infinity)",
                                    shown(path_), shown(t.name),
                                    std::isnan(v) ? "NaN" : (v > 0 ? "infinity" : "-infinity"), at,
                                    index_in(at, t.shape), shape_text(t.shape)));
        }
        out[i] = v;
    }
    return out;
}

void File::check_shape(const Tensor& t, const Shape& expected, std::string_view meaning) const {
    if (t.shape != expected) {
        throw Error(ErrorKind::input,
                    fmt::format("{}: tensor \"{}\" has shape {}, expected {}{}", shown(path_),
                                shown(t.name), shape_text(t.shape), shape_text(expected),
                                meaning.empty() ? "" : fmt::format(" ({})", meaning)));
    }
    if (expected.empty() || expected.size() > 2) {
        throw Error(ErrorKind::internal,
                    fmt::format("a matrix of shape {} asked for: one or two dimensions expected",
                                shape_text(expected)));
    }
}

Matrix File::matrix(std::string_view name, const Shape& expected, std::string_view meaning) const {
    return matrix(at(name), expected, meaning);
}

Matrix File::matrix(const Tensor& t, const Shape& expected, std::string_view meaning) const {
    check_shape(t, expected, meaning);
    const std::size_t rows = expected.size() == 1 ? 1 : expected[0];
    const std::size_t cols = expected.back();
    Matrix m(rows, cols);
    m.data() = values(t);
    return m;
}

Matrix File::rows(const Tensor& t, const Shape& expected, std::string_view meaning,
                  const std::vector<std::size_t>& row_ids) const {
    check_shape(t, expected, meaning);
    if (expected.size() != 2) {
        throw Error(ErrorKind::internal, "rows of a tensor that is not 2-D asked for");
    }
    const std::size_t cols = expected[1];
    Matrix m(row_ids.size(), cols);
    for (std::size_t r = 0; r < row_ids.size(); ++r) {
        if (row_ids[r] >= expected[0]) {
            throw Error(ErrorKind::input,
                        fmt::format("{}: row {} of tensor \"{}\" asked for, which has {} rows "
                                    "({})",
                                    shown(path_), row_ids[r], shown(t.name), expected[0], meaning));
        }
        const auto row = values(t, std::uint64_t{row_ids[r]} * cols, cols);
        std::copy(row.begin(), row.end(), m.row(r).begin());
    }
    return m;
}

}  // namespace attn::safetensors
