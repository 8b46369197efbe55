// A matrix product whose right factor is never held whole: GPT-2's MLP weights, read from a
// checkpoint a block at a time. Shapes in comments use the legend of ops.hpp.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"

namespace attn {
namespace {

constexpr std::size_t kRows = 4;           // rows of x (and y) per register block
constexpr std::size_t kLanes = 8;          // doubles in one Vec
constexpr std::size_t kCols = 2 * kLanes;  // columns of w (and y) per register block
constexpr std::size_t kSlice = 128;        // columns of w per task: its rows' pieces stay in L2
constexpr std::size_t kChunk = 64;         // rows of w converted at a time
static_assert(kSlice * kChunk == matmul_streamed_block_doubles);

using Vec = double __attribute__((vector_size(kLanes * sizeof(double))));

// y rows [i0, i0 + kRows) × columns [j, j + kCols) += x's columns [k0, k0 + r) · b, where b
// is r rows of w's piece, `width` apart. Each cell goes on from its sum so far, adding in
// order of k: the same sum in the same order as matmul's.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void add_block(const Matrix& x, std::size_t i0, std::size_t k0, std::size_t r, const double* b,
               std::size_t width, double* y, std::size_t m) {
    std::array<std::array<Vec, 2>, kRows> acc{};
    for (std::size_t i = 0; i < kRows; ++i) {
        std::memcpy(acc[i].data(), y + (i0 + i) * m, sizeof(Vec));
        std::memcpy(acc[i].data() + 1, y + (i0 + i) * m + kLanes, sizeof(Vec));
    }
    for (std::size_t k = 0; k < r; ++k) {
        Vec b_lo;
        Vec b_hi;
        std::memcpy(&b_lo, b + k * width, sizeof(Vec));
        std::memcpy(&b_hi, b + k * width + kLanes, sizeof(Vec));
        for (std::size_t i = 0; i < kRows; ++i) {
            const double a = x(i0 + i, k0 + k);
            acc[i][0] += a * b_lo;
            acc[i][1] += a * b_hi;
        }
    }
    for (std::size_t i = 0; i < kRows; ++i) {
        std::memcpy(y + (i0 + i) * m, acc[i].data(), sizeof(Vec));
        std::memcpy(y + (i0 + i) * m + kLanes, acc[i].data() + 1, sizeof(Vec));
    }
}

}  // namespace

Matrix matmul_streamed(const Matrix& x, std::size_t m, const BlockReader& read) {
    const std::size_t n = x.rows();
    const std::size_t p = x.cols();
    Matrix y(n, m);
    const std::size_t slices = (m + kSlice - 1) / kSlice;
    // each task owns columns [j0, j1) of y and walks every row of w, so every cell is summed
    // by one thread in order of k, whatever the number of threads
    parallel_for(slices, [&](std::size_t s) {
        const std::size_t j0 = s * kSlice;
        const std::size_t width = std::min(kSlice, m - j0);
        std::vector<double> b(kChunk * width);
        const std::size_t full_rows = n - n % kRows;
        const std::size_t full_cols = width - width % kCols;
        double* y_slice = y.data().data() + j0;
        for (std::size_t k0 = 0; k0 < p; k0 += kChunk) {
            const std::size_t r = std::min(kChunk, p - k0);
            read(k0, r, j0, width, b.data());
            for (std::size_t i0 = 0; i0 < full_rows; i0 += kRows) {
                for (std::size_t j = 0; j < full_cols; j += kCols) {
                    add_block(x, i0, k0, r, b.data() + j, width, y_slice + j, m);
                }
            }
            // the edges: rows past the last block of kRows, columns past the last of kCols
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t from = i < full_rows ? full_cols : 0;
                for (std::size_t j = from; j < width; ++j) {
                    double sum = y_slice[i * m + j];
                    for (std::size_t k = 0; k < r; ++k) {
                        sum += x(i, k0 + k) * b[k * width + j];
                    }
                    y_slice[i * m + j] = sum;
                }
            }
        }
    });
    return y;
}

}  // namespace attn
