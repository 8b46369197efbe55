// The matrix-product kernels on the shapes of the benchmark's case d (2048 tokens, d_model
// 512, 8 heads of 64): attn's reference loops, attn's fast kernel and OpenBLAS's dgemm, each
// the median of several runs, as ratios against the fast kernel. This is the measurement
// behind the choice of kernel in docs/design.md. bench/run builds and runs it; it needs
// Debian's libopenblas-dev, which attn itself does not.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/random.hpp"

namespace {

attn::Matrix noise(std::size_t rows, std::size_t cols, std::uint64_t seed) {
    attn::Rng rng(seed);
    attn::Matrix m(rows, cols);
    for (double& x : m.data()) {
        x = rng.normal();
    }
    return m;
}

double median_seconds(int runs, const std::function<void()>& f) {
    std::vector<double> times;
    f();  // warm-up
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        f();
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

attn::Matrix blas(const attn::Matrix& a, const attn::Matrix& b, bool transpose_b) {
    const auto n = static_cast<int>(a.rows());
    const auto k = static_cast<int>(a.cols());
    const auto m = static_cast<int>(transpose_b ? b.rows() : b.cols());
    attn::Matrix c(a.rows(), static_cast<std::size_t>(m));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, n, m, k, 1.0,
                a.data().data(), k, b.data().data(), static_cast<int>(b.cols()), 0.0,
                c.data().data(), m);
    return c;
}

double max_relative_difference(const attn::Matrix& a, const attn::Matrix& b) {
    double worst = 0.0;
    double scale = 1e-300;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
        scale = std::max(scale, std::abs(b.data()[i]));
    }
    return worst / scale;
}

}  // namespace

int main() {
    struct Shape {
        const char* what;
        std::size_t n, p, m;
        bool transpose_b;
    };
    const Shape shapes[] = {
        {"Q = X W_Q, all heads (2048x512 by 512x512)", 2048, 512, 512, false},
        {"one head's S = Q K^T (2048x64 by 64x2048)", 2048, 64, 2048, true},
        {"one head's Z = A V (2048x2048 by 2048x64)", 2048, 2048, 64, false},
    };
    std::printf("threads: %zu (attn's kernel splits rows; OpenBLAS uses its own)\n\n",
                attn::worker_threads());
    std::printf("%-46s %10s %10s %10s  %s\n", "product", "fast s", "reference", "OpenBLAS",
                "OpenBLAS vs reference");
    for (const auto& s : shapes) {
        const auto a = noise(s.n, s.p, 1);
        const auto b = s.transpose_b ? noise(s.m, s.p, 2) : noise(s.p, s.m, 2);
        const auto fast = [&] {
            return s.transpose_b ? attn::matmul_transposed(a, b) : attn::matmul(a, b);
        };
        const auto reference = [&] {
            return s.transpose_b ? attn::matmul_transposed_reference(a, b)
                                 : attn::matmul_reference(a, b);
        };
        const double t_fast = median_seconds(5, [&] { (void)fast(); });
        const double t_ref = median_seconds(3, [&] { (void)reference(); });
        const double t_blas = median_seconds(5, [&] { (void)blas(a, b, s.transpose_b); });
        const bool same = fast() == reference();
        std::printf("%-46s %10.4f %9.2fx %9.2fx  %s; max relative difference %.1e\n", s.what,
                    t_fast, t_ref / t_fast, t_blas / t_fast,
                    same ? "fast == reference bit for bit" : "FAST DIFFERS FROM REFERENCE",
                    max_relative_difference(blas(a, b, s.transpose_b), reference()));
    }
    std::printf(
        "\n(columns 3 and 4: time as a multiple of the fast kernel's; below 1 is faster)\n");
    return 0;
}
