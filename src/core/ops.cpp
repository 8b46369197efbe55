// Matrix operations of self-attention. Shapes in comments use the legend of ops.hpp.
#include "attn/core/ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "attn/core/error.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/portable.hpp"

namespace attn {

Matrix::Matrix(std::initializer_list<std::initializer_list<double>> rows)
    : rows_(rows.size()), cols_(rows.size() == 0 ? 0 : rows.begin()->size()) {
    data_.reserve(rows_ * cols_);
    for (const auto& r : rows) {
        if (r.size() != cols_) {
            throw Error(ErrorKind::internal, "Matrix: rows of different lengths");
        }
        data_.insert(data_.end(), r.begin(), r.end());
    }
}

namespace {

// The inner sizes of a · b, and of a · bᵀ, must agree.
void check_product(const Matrix& a, const Matrix& b) {
    if (a.cols() != b.rows()) {
        throw errors::shape_mismatch("matrix product", "left", a.rows(), a.cols(), "right",
                                     b.rows(), b.cols());
    }
}

void check_product_transposed(const Matrix& a, const Matrix& b) {
    if (a.cols() != b.cols()) {
        throw errors::shape_mismatch("matrix product with a transpose", "left", a.rows(), a.cols(),
                                     "right (before transposing)", b.rows(), b.cols());
    }
}

}  // namespace

// ---- Reference kernels: the arithmetic exactly as the lesson writes it. ----------------

Matrix matmul_reference(const Matrix& a, const Matrix& b) {
    check_product(a, b);
    // c (n, m) = a (n, p) · b (p, m); loop order i-k-j walks b and c row by row. Each cell
    // starts at 0 and adds a(i, k) · b(k, j) for k = 0, 1, ..., p - 1, in that order.
    Matrix c(a.rows(), b.cols());
    for (std::size_t i = 0; i < a.rows(); ++i) {
        auto c_row = c.row(i);
        for (std::size_t k = 0; k < a.cols(); ++k) {
            const double a_ik = a(i, k);
            const auto b_row = b.row(k);
            for (std::size_t j = 0; j < b.cols(); ++j) {
                c_row[j] += a_ik * b_row[j];
            }
        }
    }
    return c;
}

Matrix matmul_transposed_reference(const Matrix& a, const Matrix& b) {
    check_product_transposed(a, b);
    // c (n, m) = a (n, p) · bᵀ (p, m): each cell is the dot product of a row of a and a row
    // of b, summed left to right so that it equals the worked arithmetic term by term.
    Matrix c(a.rows(), b.rows());
    for (std::size_t i = 0; i < a.rows(); ++i) {
        const auto a_row = a.row(i);
        for (std::size_t j = 0; j < b.rows(); ++j) {
            const auto b_row = b.row(j);
            double sum = 0.0;
            for (std::size_t k = 0; k < a.cols(); ++k) {
                sum += a_row[k] * b_row[k];
            }
            c(i, j) = sum;
        }
    }
    return c;
}

// ---- Fast kernels: the same operations in the same order, so the same bits. -------------
//
// Every cell c(i, j) is still 0 + a(i,0)·b(0,j) + a(i,1)·b(1,j) + ..., added in order of k
// with each product rounded before it is added (no fused multiply-add: -ffp-contract=off),
// exactly as in matmul_reference. What changes is only which cells are computed together:
// a block of kRows × kCols cells stays in vector registers while k runs, so each element of
// a and b is loaded once per block instead of once per cell. The block loop is compiled for
// AVX-512, AVX2 and plain x86-64 and the best one for the CPU is picked when attn starts
// (target_clones). Blocks of rows are shared out across the cores (parallel_for).

namespace {

constexpr std::size_t kRows = 4;           // rows of a (and c) per register block
constexpr std::size_t kLanes = 8;          // doubles in one Vec
constexpr std::size_t kCols = 2 * kLanes;  // columns of b (and c) per register block

// Eight doubles that the compiler keeps in one AVX-512 register, two AVX2 registers or four
// SSE2 ones; + and * act lane by lane, each lane rounding exactly as a scalar would.
using Vec = double __attribute__((vector_size(kLanes * sizeof(double))));

// c rows [i0, i0 + kRows) × columns [j0, j0 + kCols) of a (n, p) · b (p, m), all row-major.
// The resolver that picks a clone runs while the program is loaded, before a sanitizer's
// runtime has started, so the AddressSanitizer build compiles the portable version only.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void block_full(const double* a, const double* b, double* c, std::size_t p, std::size_t m,
                std::size_t i0, std::size_t j0) {
    std::array<std::array<Vec, 2>, kRows> acc{};
    for (std::size_t k = 0; k < p; ++k) {
        Vec b_lo;
        Vec b_hi;
        std::memcpy(&b_lo, b + k * m + j0, sizeof(Vec));
        std::memcpy(&b_hi, b + k * m + j0 + kLanes, sizeof(Vec));
        for (std::size_t r = 0; r < kRows; ++r) {
            const double a_rk = a[(i0 + r) * p + k];
            acc[r][0] += a_rk * b_lo;
            acc[r][1] += a_rk * b_hi;
        }
    }
    for (std::size_t r = 0; r < kRows; ++r) {
        std::memcpy(c + (i0 + r) * m + j0, acc[r].data(), sizeof(Vec));
        std::memcpy(c + (i0 + r) * m + j0 + kLanes, acc[r].data() + 1, sizeof(Vec));
    }
}

// The cells of a partial block at the edges (fewer rows or columns), one at a time.
void block_edge(const double* a, const double* b, double* c, std::size_t p, std::size_t m,
                std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
    for (std::size_t i = i0; i < i1; ++i) {
        for (std::size_t j = j0; j < j1; ++j) {
            double sum = 0.0;
            for (std::size_t k = 0; k < p; ++k) {
                sum += a[i * p + k] * b[k * m + j];
            }
            c[i * m + j] = sum;
        }
    }
}

// Below this many multiply-adds a product is done on the calling thread alone: starting
// threads costs more than it saves.
constexpr std::size_t kParallelWork = std::size_t{1} << 20U;

Matrix multiply(const Matrix& a, const Matrix& b) {
    const std::size_t n = a.rows();
    const std::size_t p = a.cols();
    const std::size_t m = b.cols();
    Matrix c(n, m);
    const double* pa = a.data().data();
    const double* pb = b.data().data();
    double* pc = c.data().data();
    const std::size_t full_cols = m - m % kCols;
    const std::size_t n_blocks = (n + kRows - 1) / kRows;
    const auto row_block = [&](std::size_t blk) {
        const std::size_t i0 = blk * kRows;
        const std::size_t i1 = std::min(n, i0 + kRows);
        if (i1 - i0 == kRows) {
            for (std::size_t j0 = 0; j0 < full_cols; j0 += kCols) {
                block_full(pa, pb, pc, p, m, i0, j0);
            }
            block_edge(pa, pb, pc, p, m, i0, i1, full_cols, m);
        } else {
            block_edge(pa, pb, pc, p, m, i0, i1, 0, m);
        }
    };
    if (n * p * m < kParallelWork) {
        for (std::size_t blk = 0; blk < n_blocks; ++blk) {
            row_block(blk);
        }
    } else {
        // hand out groups of row blocks, enough groups to balance two to a few dozen cores
        const std::size_t per_group = std::max<std::size_t>(1, n_blocks / 64);
        parallel_for((n_blocks + per_group - 1) / per_group, [&](std::size_t g) {
            for (std::size_t blk = g * per_group; blk < std::min(n_blocks, (g + 1) * per_group);
                 ++blk) {
                row_block(blk);
            }
        });
    }
    return c;
}

}  // namespace

Matrix matmul(const Matrix& a, const Matrix& b) {
    check_product(a, b);
    return multiply(a, b);
}

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
    check_product_transposed(a, b);
    // a · bᵀ as a · (bᵀ): the copy of b transposed is (p, m), small beside the (n, m) result,
    // and each cell is then the same sum in the same order as matmul_transposed_reference.
    return multiply(a, transpose(b));
}

Matrix transpose(const Matrix& a) {
    Matrix t(a.cols(), a.rows());
    for (std::size_t i = 0; i < a.rows(); ++i) {
        for (std::size_t j = 0; j < a.cols(); ++j) {
            t(j, i) = a(i, j);
        }
    }
    return t;
}

Matrix scaled(const Matrix& a, double factor) {
    Matrix s = a;
    for (double& x : s.data()) {
        x *= factor;
    }
    return s;
}

void add_to(Matrix& a, const Matrix& b) {
    for (std::size_t i = 0; i < a.size(); ++i) {
        a.data()[i] += b.data()[i];
    }
}

Mask causal_mask(std::size_t n_tokens) {
    // row i (a query) may see columns j <= i (keys at or before it)
    Mask m(n_tokens, n_tokens, false);
    for (std::size_t i = 0; i < n_tokens; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            m.set(i, j, true);
        }
    }
    return m;
}

Matrix apply_mask(const Matrix& s, const Mask& mask) {
    if (s.rows() != mask.rows() || s.cols() != mask.cols()) {
        throw errors::shape_mismatch("masking", "scores", s.rows(), s.cols(), "mask", mask.rows(),
                                     mask.cols());
    }
    Matrix out = s;
    for (std::size_t i = 0; i < s.rows(); ++i) {
        for (std::size_t j = 0; j < s.cols(); ++j) {
            if (!mask.allowed(i, j)) {
                // -inf, not a large negative number: exp(-inf) is exactly 0, so a masked key
                // gets exactly zero weight whatever the other scores are.
                out(i, j) = -std::numeric_limits<double>::infinity();
            }
        }
    }
    return out;
}

SoftmaxResult softmax_rows(const Matrix& s) {
    return softmax_rows_base(s, 0.0);
}

SoftmaxResult softmax_rows_base(const Matrix& s, double base) {
    // base 0 stands for e: portable_exp (the same bits on every machine, unlike std::exp);
    // another base uses std::pow, exact for the small integer exponents of the by-hand rules
    // (3^-2 = 1/9)
    const auto power = [base](double x) {
        return base == 0.0 ? portable_exp(x) : std::pow(base, x);
    };
    SoftmaxResult result{Matrix(s.rows(), s.cols()), {}};
    for (std::size_t i = 0; i < s.rows(); ++i) {
        const auto in = s.row(i);
        auto out = result.weights.row(i);
        double max = -std::numeric_limits<double>::infinity();
        for (double x : in) {
            max = std::max(max, x);
        }
        if (max == -std::numeric_limits<double>::infinity()) {
            // every key is masked: no defined softmax; leave the row at zero (documented)
            result.empty_rows.push_back(i);
            continue;
        }
        // Subtract the row max only for numerical stability: the result is the same in exact
        // arithmetic, but e^(s - max) <= 1 never overflows (e^1000 would), and
        // exp(-inf - max) == 0 exactly for masked cells.
        double sum = 0.0;
        for (std::size_t j = 0; j < in.size(); ++j) {
            out[j] = power(in[j] - max);
            sum += out[j];
        }
        for (double& w : out) {
            w /= sum;
        }
    }
    return result;
}

std::vector<double> row_sums(const Matrix& a) {
    std::vector<double> sums(a.rows(), 0.0);
    for (std::size_t i = 0; i < a.rows(); ++i) {
        for (double x : a.row(i)) {
            sums[i] += x;
        }
    }
    return sums;
}

namespace {

// The power of two 2^e with the largest |x| of `xs` (finite ones) in [0.5, 1) once divided by
// it (0 when there is none, or all are 0). Dividing by a power of two is exact, so sums of
// squares of the scaled numbers cannot overflow and, scaled back, are the same bits as the
// plain sums wherever those do not overflow.
template <typename Numbers>
int scale_exponent(const Numbers& xs) {
    double largest = 0.0;
    for (double x : xs) {
        if (std::isfinite(x)) {
            largest = std::max(largest, std::abs(x));
        }
    }
    int e = 0;
    if (largest > 0.0) {
        std::frexp(largest, &e);
    }
    return e;
}

// x · 2^-e by one multiplication where 2^-e is a normal double, else by std::ldexp: the same
// bits either way (both round x · 2^-e once), and a multiplication is far cheaper than a call
class Unscale {
  public:
    explicit Unscale(int e) noexcept
        : e_(e), factor_(std::ldexp(1.0, -e)), normal_(std::isnormal(factor_)) {}
    double operator()(double x) const noexcept {
        return normal_ ? x * factor_ : std::ldexp(x, -e_);
    }

  private:
    int e_;
    double factor_;
    bool normal_;
};

}  // namespace

std::vector<double> row_norms(const Matrix& a) {
    std::vector<double> out;
    out.reserve(a.rows());
    for (std::size_t r = 0; r < a.rows(); ++r) {
        // ‖row‖ = 2^e · ‖row / 2^e‖: finite whenever the row is, even past 1e154
        const int e = scale_exponent(a.row(r));
        const Unscale unscale(e);
        double ss = 0.0;
        for (double x : a.row(r)) {
            const double y = unscale(x);
            ss += y * y;
        }
        out.push_back(std::ldexp(std::sqrt(ss), e));
    }
    return out;
}

Matrix columns(const Matrix& m, std::size_t begin, std::size_t n) {
    Matrix out(m.rows(), n);
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < n; ++c) {
            out(r, c) = m(r, begin + c);
        }
    }
    return out;
}

void add_bias(Matrix& m, const Matrix& b) {
    if (b.empty()) {
        return;
    }
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            m(r, c) += b(0, c);
        }
    }
}

double Variance::value() const noexcept {
    return std::ldexp(scaled, exponent);
}

namespace {
// The sum of the finite entries divided by 2^e (exactly, e = scale_exponent), and how many
// there are: a sum that cannot overflow however large the entries are.
struct ScaledSum {
    double sum = 0.0;
    std::size_t n = 0;
    int e = 0;
};
ScaledSum scaled_sum(const Matrix& a) {
    ScaledSum s;
    s.e = scale_exponent(a.data());
    const Unscale unscale(s.e);
    for (double x : a.data()) {
        if (std::isfinite(x)) {
            s.sum += unscale(x);
            ++s.n;
        }
    }
    return s;
}
}  // namespace

Variance variance_of(const Matrix& a) {
    // of the entries divided by 2^e (exactly), so that neither the sum nor the squares overflow
    // however large the entries are; the variance is then 2^(2e) times that
    const ScaledSum s = scaled_sum(a);
    const int e = s.e;
    const std::size_t n = s.n;
    if (n == 0) {
        return {};
    }
    const double mean = s.sum / static_cast<double>(n);
    const Unscale unscale(e);
    double ss = 0.0;
    for (double x : a.data()) {
        if (std::isfinite(x)) {
            const double d = unscale(x) - mean;
            ss += d * d;
        }
    }
    return {ss / static_cast<double>(n), 2 * e};
}

Variance product_variance(const Matrix& a, const Matrix& b) {
    const int ea = scale_exponent(a.data());
    const int eb = scale_exponent(b.data());
    Matrix as = a;
    Matrix bs = b;
    const Unscale unscale_a(ea);
    const Unscale unscale_b(eb);
    for (double& x : as.data()) {
        x = unscale_a(x);
    }
    for (double& x : bs.data()) {
        x = unscale_b(x);
    }
    Variance v = variance_of(matmul_transposed(as, bs));
    v.exponent += 2 * (ea + eb);
    return v;
}

std::pair<double, int> scaled_mean(const Matrix& a) {
    const ScaledSum s = scaled_sum(a);
    return {s.n == 0 ? 0.0 : s.sum / static_cast<double>(s.n), s.n == 0 ? 0 : s.e};
}

}  // namespace attn
