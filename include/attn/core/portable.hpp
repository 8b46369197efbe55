#pragma once
/// Functions whose results are the same bits on every compiler, C library and CPU.
///
/// The C library's std::log and std::exp are accurate to about half an ulp, but not
/// necessarily correctly rounded, and their last bit may differ between C libraries (and
/// between glibc's code for CPUs with and without fused multiply-add). attn's seeded numbers,
/// its softmax and so everything a training run learns must not, so these are built only from
/// operations IEEE-754 rounds exactly: + − × ÷, sqrt, fma, frexp, ldexp and nearbyint.

#include <optional>

namespace attn {

/// Natural logarithm of a positive finite x (within a few ulps of std::log).
double portable_log(double x) noexcept;

/// e^x correctly rounded (the nearest double; checked on 300,000 inputs against Python's
/// decimal at 60 digits when it was written, and by the tests against long double), where
/// glibc's std::exp is off by one ulp in about 0.06% of inputs. e^0 = 1 and e^−∞ = 0 exactly;
/// overflow gives +∞, NaN stays NaN. Computed by detail::exp_by_table where that is sure of
/// the last bit, else by detail::exp_by_squaring; both give the same bits.
double portable_exp(double x) noexcept;

namespace detail {

/// The slow way to e^x (about 1400 instructions at -O2), for every x: x reduced by k·ln 2 in
/// double-double, e^(r/1024) by its series, squared ten times, and 1 + (e^r − 1) rounded once
/// with the rest rounded to odd so that even a tail below the double-double's precision
/// decides a tie.
double exp_by_squaring(double x) noexcept;

/// The fast way (about 180 instructions at -O2): x reduced by n·(ln 2)/128, 2^((n mod 128)/128)
/// from a table, e^r − 1 by a polynomial, all in double-double (within about 2^-78 of e^x),
/// then Ziv's rounding test. Nothing where that test cannot be sure of the correct rounding
/// (about 1 random input in 1000) or outside (−708.3, 709.7), where the
/// result may overflow or be subnormal; otherwise the same bits as exp_by_squaring.
std::optional<double> exp_by_table(double x) noexcept;

}  // namespace detail

}  // namespace attn
