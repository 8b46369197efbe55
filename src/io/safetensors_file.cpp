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
#include <span>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "attn/core/ops.hpp"
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

// The floating-point dtypes attn converts, found once per tensor rather than per element.
enum class Floats { f64, f32, f16, bf16, other };

Floats floats_of(std::string_view dtype) noexcept {
    return dtype == "F64"    ? Floats::f64
           : dtype == "F32"  ? Floats::f32
           : dtype == "F16"  ? Floats::f16
           : dtype == "BF16" ? Floats::bf16
                             : Floats::other;
}

// A little-endian unsigned number of N bytes: one load on a little-endian machine.
template <typename U>
U load(const unsigned char* p) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
        U v = 0;
        std::memcpy(&v, p, sizeof v);
        return v;
    } else {
        return static_cast<U>(little_endian(p, sizeof(U)));
    }
}

// Converts `count` elements of type F at `p` into `out`, exactly, in one loop without a branch
// on the type; returns false when one of them is NaN or an infinity (all exponent bits set),
// which the caller then finds and names.
template <Floats F>
bool convert_all(const unsigned char* p, std::size_t count, double* out) noexcept {
    unsigned bad = 0;
    for (std::size_t i = 0; i < count; ++i) {
        if constexpr (F == Floats::f32) {
            const auto bits = load<std::uint32_t>(p + 4 * i);
            out[i] = static_cast<double>(std::bit_cast<float>(bits));
            bad |= static_cast<unsigned>((bits & 0x7F800000U) == 0x7F800000U);
        } else if constexpr (F == Floats::f16) {
            const auto bits = load<std::uint16_t>(p + 2 * i);
            out[i] = f16_to_double(bits);
            bad |= static_cast<unsigned>((bits & 0x7C00U) == 0x7C00U);
        } else if constexpr (F == Floats::bf16) {
            const auto bits = load<std::uint16_t>(p + 2 * i);
            out[i] = bf16_to_double(bits);
            bad |= static_cast<unsigned>((bits & 0x7F80U) == 0x7F80U);
        } else {
            const auto bits = load<std::uint64_t>(p + 8 * i);
            out[i] = std::bit_cast<double>(bits);
            bad |= static_cast<unsigned>((bits & 0x7FF0000000000000U) == 0x7FF0000000000000U);
        }
    }
    return bad == 0;
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
        release(static_cast<const unsigned char*>(map_), 8 + header_length_);  // copied out
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
    std::vector<double> out(count);
    convert(t, first, count, out.data());
    return out;
}

void File::release(const unsigned char* p, std::uint64_t n) noexcept {
    // the mapped pages just read, given back: a file's pages count as resident memory while
    // they stay mapped in, and --max-memory bounds the whole run's. Read again, they come back
    // from the file (a private mapping that is never written holds nothing of its own).
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto at = reinterpret_cast<std::uintptr_t>(p);  // NOLINT: an address as a number
    const std::uintptr_t begin = at / page * page;
    const std::uintptr_t end = (at + n + page - 1) / page * page;
    // the page-aligned start of the same mapping, as madvise wants it
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);  // NOLINT
}

void File::populate(const unsigned char* p, std::uint64_t n) noexcept {
    // the mapped pages about to be read, mapped in by one call rather than one page fault per
    // few pages (MADV_POPULATE_READ, Linux 5.14; an older kernel says EINVAL, and the pages
    // fault in as they are read, as before)
    constexpr int populate_read = 22;  // MADV_POPULATE_READ, which Debian 12's headers lack
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto at = reinterpret_cast<std::uintptr_t>(p);  // NOLINT: an address as a number
    const std::uintptr_t begin = at / page * page;
    const std::uintptr_t end = (at + n + page - 1) / page * page;
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, populate_read);  // NOLINT
}

void File::convert(const Tensor& t, std::uint64_t first, std::uint64_t count, double* out,
                   bool own_pages) const {
    check_floats(t);
    const Floats type = floats_of(t.dtype);
    if (first > t.elements || count > t.elements - first) {
        throw Error(ErrorKind::internal,
                    fmt::format("{}: elements {} to {} of tensor \"{}\", which has {}",
                                shown(path_), first, first + count, shown(t.name), t.elements));
    }
    const unsigned char* p = bytes(t).data() + first * t.dtype_size;
    if (own_pages) {
        populate(p, count * t.dtype_size);
    }
    const bool finite = type == Floats::f32    ? convert_all<Floats::f32>(p, count, out)
                        : type == Floats::f16  ? convert_all<Floats::f16>(p, count, out)
                        : type == Floats::bf16 ? convert_all<Floats::bf16>(p, count, out)
                                               : convert_all<Floats::f64>(p, count, out);
    if (own_pages) {
        release(p, count * t.dtype_size);
    }
    if (finite) {
        return;
    }
    // the first number that is not finite, named with its index: attn never computes with it
    std::size_t i = 0;
    while (std::isfinite(out[i])) {
        ++i;
    }
    const std::uint64_t at = first + i;
    throw Error(ErrorKind::input,
                fmt::format("{}: tensor \"{}\" holds {} at element {} ({} of shape {}), "
                            "expected finite numbers (attn never computes with NaN or "
                            "infinity)",
                            shown(path_), shown(t.name),
                            std::isnan(out[i]) ? "NaN" : (out[i] > 0 ? "infinity" : "-infinity"),
                            at, index_in(at, t.shape), shape_text(t.shape)));
}

void File::check_floats(const Tensor& t) const {
    if (floats_of(t.dtype) == Floats::other) {
        throw Error(ErrorKind::input,
                    fmt::format("{}: tensor \"{}\" has dtype {}, expected F64, F32, F16 or BF16 "
                                "(attn reads floating-point tensors)",
                                shown(path_), shown(t.name), t.dtype));
    }
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
    convert(t, 0, t.elements, m.data().data());
    return m;
}

Matrix File::columns(const Tensor& t, const Shape& expected, std::string_view meaning,
                     std::size_t begin, std::size_t count) const {
    check_shape(t, expected, meaning);
    const std::size_t rows = expected.size() == 1 ? 1 : expected[0];
    const std::size_t cols = expected.back();
    if (begin > cols || count > cols - begin) {
        throw Error(ErrorKind::internal,
                    fmt::format("{}: columns {} to {} of tensor \"{}\", which has {}", shown(path_),
                                begin, begin + count, shown(t.name), cols));
    }
    Matrix m(rows, count);
    // a block of columns (c_attn's W_Q) is a short piece of every row: the pages of all the rows
    // mapped in once and given back once, not once per row (a row's piece is less than a page,
    // and 27,000 calls to madvise took most of a GPT-2 run's time)
    const std::uint64_t from = begin * t.dtype_size;
    const std::uint64_t to = (std::uint64_t{rows - 1} * cols + begin + count) * t.dtype_size;
    const unsigned char* span = bytes(t).data() + from;
    populate(span, to - from);
    for (std::size_t r = 0; r < rows; ++r) {
        convert(t, std::uint64_t{r} * cols + begin, count, m.row(r).data(), false);
    }
    release(span, to - from);
    return m;
}

Matrix File::times(const Matrix& x, const Tensor& t, const Shape& expected,
                   std::string_view meaning) const {
    check_shape(t, expected, meaning);
    if (expected.size() != 2 || x.cols() != expected[0]) {
        throw Error(ErrorKind::internal,
                    fmt::format("a product of a {}×{} matrix and tensor \"{}\" of shape {}",
                                x.rows(), x.cols(), shown(t.name), shape_text(expected)));
    }
    const std::size_t cols = expected[1];
    const std::span<const unsigned char> all = bytes(t);
    populate(all.data(), all.size());
    try {
        Matrix y = matmul_streamed(
            x, cols,
            [&](std::size_t row, std::size_t rows, std::size_t col, std::size_t n, double* out) {
                for (std::size_t r = 0; r < rows; ++r) {
                    convert(t, std::uint64_t{row + r} * cols + col, n, out + r * n, false);
                }
            });
        release(all.data(), all.size());
        return y;
    } catch (const Error&) {
        release(all.data(), all.size());
        // threads may meet different bad numbers first: name the first in the tensor, read
        // again in order a piece at a time (convert throws at the first it meets)
        std::vector<double> piece(std::min<std::uint64_t>(t.elements, 1U << 16U));
        for (std::uint64_t first = 0; first < t.elements; first += piece.size()) {
            convert(t, first, std::min<std::uint64_t>(piece.size(), t.elements - first),
                    piece.data());
        }
        throw;
    }
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
        convert(t, std::uint64_t{row_ids[r]} * cols, cols, m.row(r).data());
    }
    return m;
}

}  // namespace attn::safetensors
