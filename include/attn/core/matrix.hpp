#pragma once
/// attn::Matrix: a dense rows × cols matrix of doubles, row-major, a regular value type.

#include <cassert>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

#include "attn/core/pages.hpp"

namespace attn {

/// A dense matrix of doubles stored row by row. Rows are tokens wherever a matrix has one
/// row per token (X, Q, K, V, scores, weights, output).
///
///     Matrix m{{1, 2, 3}, {4, 5, 6}};   // 2 × 3
///     m(1, 2) == 6.0;
class Matrix {
  public:
    /// The numbers, row by row (a large block in 2 MiB pages: attn/core/pages.hpp).
    using Numbers = std::vector<double, PageAllocator<double>>;

    Matrix() = default;
    /// A rows × cols matrix filled with `fill`.
    Matrix(std::size_t rows, std::size_t cols, double fill = 0.0)
        : rows_(rows), cols_(cols), data_(rows * cols, fill) {}
    /// A matrix from nested lists; every row must have the same length.
    Matrix(std::initializer_list<std::initializer_list<double>> rows);

    [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
    [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
    [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }
    [[nodiscard]] bool empty() const noexcept { return data_.empty(); }

    double& operator()(std::size_t r, std::size_t c) noexcept {
        assert(r < rows_ && c < cols_);
        return data_[r * cols_ + c];
    }
    double operator()(std::size_t r, std::size_t c) const noexcept {
        assert(r < rows_ && c < cols_);
        return data_[r * cols_ + c];
    }

    /// One row as a contiguous view.
    [[nodiscard]] std::span<const double> row(std::size_t r) const noexcept {
        assert(r < rows_);
        return {data_.data() + r * cols_, cols_};
    }
    [[nodiscard]] std::span<double> row(std::size_t r) noexcept {
        assert(r < rows_);
        return {data_.data() + r * cols_, cols_};
    }

    [[nodiscard]] const Numbers& data() const noexcept { return data_; }
    [[nodiscard]] Numbers& data() noexcept { return data_; }

    friend bool operator==(const Matrix&, const Matrix&) = default;

  private:
    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    Numbers data_;
};

/// A boolean matrix; in attn a mask cell is `true` when the query (row) MAY attend to the
/// key (column), as in PyTorch's scaled_dot_product_attention (see docs/walkthrough.md).
class Mask {
  public:
    Mask() = default;
    Mask(std::size_t rows, std::size_t cols, bool fill)
        : rows_(rows), cols_(cols), data_(rows * cols, fill ? 1 : 0) {}

    [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
    [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
    [[nodiscard]] bool allowed(std::size_t r, std::size_t c) const noexcept {
        assert(r < rows_ && c < cols_);
        return data_[r * cols_ + c] != 0;
    }
    void set(std::size_t r, std::size_t c, bool allowed) noexcept {
        assert(r < rows_ && c < cols_);
        data_[r * cols_ + c] = allowed ? 1 : 0;
    }

    friend bool operator==(const Mask&, const Mask&) = default;

  private:
    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    std::vector<unsigned char> data_;
};

}  // namespace attn
