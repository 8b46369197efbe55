// Matrix operations of self-attention. Shapes in comments use the legend of ops.hpp.
#include "attn/ops.hpp"

#include <cmath>
#include <limits>

#include "attn/error.hpp"

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

Matrix matmul(const Matrix& a, const Matrix& b) {
    if (a.cols() != b.rows()) {
        throw errors::shape_mismatch("matrix product", "left", a.rows(), a.cols(), "right",
                                     b.rows(), b.cols());
    }
    // c (n, m) = a (n, p) · b (p, m); loop order i-k-j walks b and c row by row.
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

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
    if (a.cols() != b.cols()) {
        throw errors::shape_mismatch("matrix product with a transpose", "left", a.rows(), a.cols(),
                                     "right (before transposing)", b.rows(), b.cols());
    }
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
    // base 0 stands for e: std::exp; another base uses std::pow, exact for the small integer
    // exponents of the by-hand rules (3^-2 = 1/9)
    const auto power = [base](double x) { return base == 0.0 ? std::exp(x) : std::pow(base, x); };
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

double variance(const Matrix& a) {
    double sum = 0.0;
    std::size_t n = 0;
    for (double x : a.data()) {
        if (std::isfinite(x)) {
            sum += x;
            ++n;
        }
    }
    if (n == 0) {
        return 0.0;
    }
    const double mean = sum / static_cast<double>(n);
    double ss = 0.0;
    for (double x : a.data()) {
        if (std::isfinite(x)) {
            ss += (x - mean) * (x - mean);
        }
    }
    return ss / static_cast<double>(n);
}

}  // namespace attn
