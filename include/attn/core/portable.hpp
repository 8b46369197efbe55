#pragma once
/// Functions whose results are the same bits on every compiler, C library and CPU.
///
/// The C library's std::log and std::exp are accurate to about half an ulp, but not
/// necessarily correctly rounded, and their last bit may differ between C libraries (and
/// between glibc's code for CPUs with and without fused multiply-add). attn's seeded numbers,
/// its softmax and so everything a training run learns must not, so these are built only from
/// operations IEEE-754 rounds exactly: + − × ÷, sqrt, fma, frexp, ldexp and nearbyint.

namespace attn {

/// Natural logarithm of a positive finite x (within a few ulps of std::log).
double portable_log(double x) noexcept;

/// e^x, correctly rounded but for inputs closer to a rounding boundary than about 2^-70 ulp
/// (never seen in 8 million random tests; glibc's std::exp is off by one ulp in about 0.06% of
/// them). e^0 = 1 and e^−∞ = 0 exactly; overflow gives +∞, NaN stays NaN.
double portable_exp(double x) noexcept;

}  // namespace attn
