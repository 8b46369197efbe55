#pragma once
/// A variance that never overflows (variance_of() in ops.hpp computes it).

namespace attn {

/// A population variance, kept so that it never overflows: entries near 1e200 are finite, but
/// their variance, near 1e400, is past the largest double. It is `scaled` · 2^`exponent`,
/// `scaled` being the variance of the entries divided by a power of two.
struct Variance {
    double scaled = 0.0;
    int exponent = 0;
    /// The variance as a double: +∞ only when it is past the largest double (0 below the
    /// smallest).
    [[nodiscard]] double value() const noexcept;
};

}  // namespace attn
