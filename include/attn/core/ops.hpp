#pragma once
/// The matrix operations of self-attention. Pure functions: values in, values out.
///
/// Shape legend used in every comment of this module and of attention.cpp:
///   T       number of tokens (rows of X)
///   d_model width of an embedding
///   d_k     width of a query / key vector
///   d_v     width of a value vector

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "attn/core/matrix.hpp"
#include "attn/core/variance.hpp"

namespace attn {

/// c (n, m) = a (n, p) · b (p, m). Throws attn::Error when the inner sizes differ.
/// The fast kernel (register blocks, vector instructions, threads); its result is the same
/// bit for bit as matmul_reference's, which the tests check.
Matrix matmul(const Matrix& a, const Matrix& b);

/// c (n, m) = a (n, p) · bᵀ where b is (m, p): the scores Q·Kᵀ. Fast; the same bits as
/// matmul_transposed_reference.
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

/// The readable kernels, three plain loops each: every cell is 0 + a(i,0)·b(0,j) + ... added
/// in order of k, the worked arithmetic of the lesson. The fast kernels above must agree.
Matrix matmul_reference(const Matrix& a, const Matrix& b);
Matrix matmul_transposed_reference(const Matrix& a, const Matrix& b);

/// Writes rows [row, row + rows) × columns [col, col + cols) of a matrix into out, row-major
/// (rows × cols doubles). Called from several threads at once.
using BlockReader = std::function<void(std::size_t row, std::size_t rows, std::size_t col,
                                       std::size_t cols, double* out)>;

/// y (n, m) = x (n, p) · w (p, m) where w is never held whole: `read` gives it a block at a
/// time (GPT-2's MLP weights, converted from a checkpoint as they are used). Each cell is the
/// same sum in the same order as matmul's, so the same bits.
Matrix matmul_streamed(const Matrix& x, std::size_t m, const BlockReader& read);
/// The doubles matmul_streamed holds on each thread besides x and y: one block of w.
inline constexpr std::size_t matmul_streamed_block_doubles = std::size_t{64} * 128;

/// aᵀ (m, n) of a (n, m).
Matrix transpose(const Matrix& a);

/// Every element times `factor`.
Matrix scaled(const Matrix& a, double factor);

/// a (r, c) += b (r, c), element by element: how gradients are summed.
void add_to(Matrix& a, const Matrix& b);

/// The causal mask (T, T): row i may attend to columns 0..i (itself and earlier tokens).
Mask causal_mask(std::size_t n_tokens);

/// s with every blocked cell (mask false) replaced by -inf. Shapes must agree.
Matrix apply_mask(const Matrix& s, const Mask& mask);

/// The result of a row-wise softmax, with the rows that had no finite entry.
struct SoftmaxResult {
    Matrix weights;                       ///< same shape as the input, rows sum to 1
    std::vector<std::size_t> empty_rows;  ///< rows that were entirely -inf: all zeros here
};

/// Row-wise softmax, numerically stable: e^(s - max) / Σ e^(s - max).
/// A row that is entirely -inf (every key masked) has no defined softmax; attn gives it
/// zero weights (as PyTorch's scaled_dot_product_attention does) and lists it in empty_rows.
SoftmaxResult softmax_rows(const Matrix& s);

/// Row-wise softmax with another base: base^(s - max) / Σ base^(s - max). Base 3 is the
/// by-hand rule of --arith hand (3^x in place of e^x).
SoftmaxResult softmax_rows_base(const Matrix& s, double base);

/// The sum of each row.
std::vector<double> row_sums(const Matrix& a);

/// The length of each row, ‖row‖: |q_i| for the queries, |k_j| for the keys.
std::vector<double> row_norms(const Matrix& a);

/// Columns [begin, begin + n) of m: one head's block of a weight matrix, or one of the blocks
/// of GPT-2's c_attn.
Matrix columns(const Matrix& m, std::size_t begin, std::size_t n);

/// m (T, n) + b (1, n) added to every row; m unchanged for an empty b.
void add_bias(Matrix& m, const Matrix& b);

/// Population variance of all finite elements (0 for an empty matrix), computed on the
/// elements divided by a power of two, so that it is finite whenever they are (numpy's var()
/// overflows to inf from entries near 1e154 on).
Variance variance_of(const Matrix& a);

/// The variance of the exact products a·bᵀ (the scores Q·Kᵀ), which a double may not hold
/// when they underflow: computed on a and b divided by powers of two (exactly), then scaled
/// back in the Variance's exponent.
Variance product_variance(const Matrix& a, const Matrix& b);

/// The mean of all finite elements as m · 2^e (computed on the elements divided by 2^e, so the
/// sum never overflows); {0, 0} for none.
std::pair<double, int> scaled_mean(const Matrix& a);

}  // namespace attn
