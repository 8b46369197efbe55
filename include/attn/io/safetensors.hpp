#pragma once
/// Reading safetensors files (Hugging Face's format for checkpoints): an 8-byte little-endian
/// length, a JSON header naming each tensor's dtype, shape and data_offsets, then the data.
///
///     const attn::safetensors::File file("gpt2/model.safetensors");
///     const attn::Matrix w = file.matrix("h.0.attn.c_attn.weight", {768, 2304},
///                                        "n_embd × 3·n_embd");
///
/// The file is mapped read-only (mmap) and never copied: a tensor's values are converted to
/// doubles, exactly, only when asked for, straight from the mapping, which lives as long as
/// the File. Every check of the header happens when the File is opened, and every error is an
/// attn::Error (input) that names the file, the tensor and what was found and expected
/// (docs/design.md, "GPT-2 checkpoints").

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/core/matrix.hpp"

namespace attn::safetensors {

/// The largest JSON header attn reads: 100,000,000 bytes, the safetensors library's own limit.
inline constexpr std::uint64_t max_header_bytes = 100'000'000;

/// A tensor's shape: the size of each dimension (none for a scalar).
using Shape = std::vector<std::uint64_t>;

/// One tensor of the header.
struct Tensor {
    std::string name;
    std::string dtype;           ///< as the header writes it: "F32", "F16", "BF16", "I64", ...
    std::size_t dtype_size = 0;  ///< bytes per element
    Shape shape;
    std::uint64_t elements = 0;  ///< the product of the shape (1 for a scalar)
    std::uint64_t begin = 0;     ///< data_offsets: bytes from the start of the data
    std::uint64_t end = 0;
};

/// What the header says, checked against the size of the data that follows it.
struct Header {
    std::vector<Tensor> tensors;                                ///< in the order of their data
    std::vector<std::pair<std::string, std::string>> metadata;  ///< "__metadata__", in order
};

/// Parses and checks a header: `text` is the header's JSON and `data_bytes` the length of the
/// data after it. `where` names the header in messages ("FILE (header)"). Throws attn::Error
/// (input) for JSON that is not an object of tensors, a tensor without dtype, shape or
/// data_offsets (or with other keys), an unknown dtype, and data_offsets that run backwards,
/// past the data, hold other than shape × dtype size bytes, overlap another tensor's or leave
/// a gap (the format has none).
Header parse_header(std::string_view text, std::uint64_t data_bytes, const std::string& where);

/// The value of an IEEE-754 binary16 (F16) number, exactly: subnormals, ±0, ±infinity, NaN.
double f16_to_double(std::uint16_t bits) noexcept;
/// The value of a bfloat16 (BF16) number, exactly: the upper half of a binary32.
double bf16_to_double(std::uint16_t bits) noexcept;

/// An open safetensors file: the header, checked, and the data, mapped read-only. Move-only;
/// the mapping is released with the File.
class File {
  public:
    /// Opens, maps and checks `path`. Throws attn::Error (input) for a missing file, a
    /// directory, a file shorter than 8 bytes, a header length past the end of the file or
    /// larger than max_header_bytes, and every error of parse_header().
    explicit File(std::string path);
    ~File();
    File(File&& other) noexcept;
    File& operator=(File&& other) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    /// The tensors, in the order of their data.
    [[nodiscard]] const std::vector<Tensor>& tensors() const noexcept { return header_.tensors; }
    /// The header's "__metadata__" (empty when it has none).
    [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& metadata()
        const noexcept {
        return header_.metadata;
    }
    /// The length of the JSON header in bytes.
    [[nodiscard]] std::uint64_t header_bytes() const noexcept { return header_length_; }

    /// The tensor called `name`, or nullptr.
    [[nodiscard]] const Tensor* find(std::string_view name) const noexcept;
    /// The tensor called `name`; throws attn::Error (input) naming it and the nearest names.
    [[nodiscard]] const Tensor& at(std::string_view name) const;

    /// A tensor's bytes as the file holds them (little-endian), inside the mapping.
    [[nodiscard]] std::span<const unsigned char> bytes(const Tensor& t) const noexcept;
    /// Elements [first, first + count) of a tensor of dtype F64, F32, F16 or BF16, converted
    /// exactly to double. Throws attn::Error (input) for another dtype, and for NaN or an
    /// infinity, naming the tensor and the element's index: attn never computes with them.
    [[nodiscard]] std::vector<double> values(const Tensor& t, std::uint64_t first,
                                             std::uint64_t count) const;
    /// Every element of a tensor, as values().
    [[nodiscard]] std::vector<double> values(const Tensor& t) const {
        return values(t, 0, t.elements);
    }
    /// The tensor called `name`, which must have the shape `expected` (one or two
    /// dimensions), as a matrix: a 1-D tensor of n elements is one row (1 × n). `meaning`
    /// says in a message where the expected shape comes from ("n_embd × 3·n_embd").
    [[nodiscard]] Matrix matrix(std::string_view name, const Shape& expected,
                                std::string_view meaning) const;
    /// The same for a tensor already found (as by checkpoint.hpp's GPT-2 lookup).
    [[nodiscard]] Matrix matrix(const Tensor& t, const Shape& expected,
                                std::string_view meaning) const;
    /// Only some rows of a 2-D tensor of shape `expected`, in the order given: the rows of
    /// the token and position embeddings that a text uses, without converting the others.
    [[nodiscard]] Matrix rows(const Tensor& t, const Shape& expected, std::string_view meaning,
                              const std::vector<std::size_t>& row_ids) const;

    /// Only columns [begin, begin + count) of a tensor of shape `expected` (of a 1-D tensor:
    /// those elements, as one row): W_Q, W_K or W_V out of GPT-2's c_attn, without converting
    /// the rest of it or copying it twice.
    [[nodiscard]] Matrix columns(const Tensor& t, const Shape& expected, std::string_view meaning,
                                 std::size_t begin, std::size_t count) const;

    /// x (T, k) · a 2-D tensor of shape `expected` (k, n), the tensor converted a block at a
    /// time as the product uses it (matmul_streamed) and its pages given back after: GPT-2's
    /// MLP weights, never held whole as doubles. Throws as values() does, naming the first
    /// element that is not finite.
    [[nodiscard]] Matrix times(const Matrix& x, const Tensor& t, const Shape& expected,
                               std::string_view meaning) const;

    /// Throws attn::Error (input) unless the tensor's dtype is one attn reads: F64, F32, F16
    /// or BF16 (from the header alone).
    void check_floats(const Tensor& t) const;

    /// "[768, 2304]", as messages write a shape.
    static std::string shape_text(const Shape& shape);

  private:
    void check_shape(const Tensor& t, const Shape& expected, std::string_view meaning) const;
    // Elements [first, first + count) of `t` converted into out[0, count): one loop per dtype,
    // straight from the mapping. Throws as values() does. With `own_pages` it maps their pages
    // in first and gives them back after; without, the caller does it for a larger span.
    void convert(const Tensor& t, std::uint64_t first, std::uint64_t count, double* out,
                 bool own_pages = true) const;
    // Gives the mapped pages of n bytes from p back to the system (they are read again from
    // the file if touched).
    static void release(const unsigned char* p, std::uint64_t n) noexcept;
    // Maps in the pages of n bytes from p at once, before they are read (fewer page faults).
    static void populate(const unsigned char* p, std::uint64_t n) noexcept;

    std::string path_;
    void* map_ = nullptr;  // the whole file, mapped read-only (PROT_READ)
    std::size_t map_size_ = 0;
    std::uint64_t header_length_ = 0;
    Header header_;
};

}  // namespace attn::safetensors
