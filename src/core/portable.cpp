// Functions whose bits are the same everywhere: only exactly rounded IEEE-754 operations.
#include "attn/core/portable.hpp"

#include <cmath>
#include <limits>

namespace attn {
namespace {

// A double-double: the unevaluated sum hi + lo, |lo| ≤ ½ ulp(hi), about 106 bits.
struct Dd {
    double hi = 0.0;
    double lo = 0.0;
};

// a + b exactly, as a rounded sum and its error (Knuth's two-sum).
Dd two_sum(double a, double b) {
    const double s = a + b;
    const double bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}

// a + b exactly when |a| ≥ |b| (Dekker's fast two-sum).
Dd fast_two_sum(double a, double b) {
    const double s = a + b;
    return {s, b - (s - a)};
}

// a · b exactly: fma rounds a·b − p once, so the error of p is exact.
Dd two_prod(double a, double b) {
    const double p = a * b;
    return {p, std::fma(a, b, -p)};
}

Dd add(Dd a, Dd b) {
    Dd s = two_sum(a.hi, b.hi);
    const Dd t = two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return fast_two_sum(s.hi, s.lo);
}

Dd mul(Dd a, Dd b) {
    Dd p = two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return fast_two_sum(p.hi, p.lo);
}

// e · 2^k rounded once to a double, also where the result is subnormal (where ldexp of the
// rounded e.hi would round a second time).
double scaled(Dd e, int k) {
    if (k >= -1021) {
        return std::ldexp(e.hi, k);  // exact: a normal result keeps all 53 bits
    }
    // round e · 2^(k+1074) to a whole number n, then n · 2^-1074 is exact
    const double m = std::ldexp(1.0, k + 1074);
    double n = std::nearbyint(e.hi * m);
    const double rest = (e.hi * m - n) + e.lo * m;
    const bool odd = std::fmod(n, 2.0) != 0.0;
    if (rest > 0.5 || (rest == 0.5 && odd)) {
        n += 1.0;
    } else if (rest < -0.5 || (rest == -0.5 && odd)) {
        n -= 1.0;
    }
    return std::ldexp(n, -1074);
}

}  // namespace

double portable_log(double x) noexcept {
    // x = m · 2^e with m in [0.5, 1) (frexp is exact); move m into [√½, √2) so that
    // t = (m - 1) / (m + 1) is at most 0.1716 in size, then
    // ln x = e·ln 2 + 2·atanh(t) = e·ln 2 + 2·(t + t³/3 + t⁵/5 + ...).
    int e = 0;
    double m = std::frexp(x, &e);
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        --e;
    }
    const double t = (m - 1.0) / (m + 1.0);
    const double t2 = t * t;
    // 13 terms: the next one is below 0.1716^27 / 27 < 1e-21, far under one ulp
    double series = 0.0;
    for (int k = 25; k >= 1; k -= 2) {
        series = series * t2 + 1.0 / k;
    }
    constexpr double ln2 = 0.69314718055994530942;
    return static_cast<double>(e) * ln2 + 2.0 * t * series;
}

double portable_exp(double x) noexcept {
    if (std::isnan(x)) {
        return x;
    }
    if (x > 709.782712893384) {  // e^x is above the largest double
        return std::numeric_limits<double>::infinity();
    }
    if (x < -745.2) {  // e^x is below half the smallest subnormal (and e^−∞ = 0)
        return 0.0;
    }
    if (x == 0.0) {
        return 1.0;
    }
    // x = k·ln 2 + r with k whole and |r| ≤ ½ ln 2, r in double-double: ln 2 in three parts
    // (159 bits), each product k·part exact or nearly so, and x − k·ln2_1 exact (Sterbenz)
    constexpr double ln2_1 = 0x1.62e42fefa39efp-1;
    constexpr double ln2_2 = 0x1.abc9e3b39803fp-56;
    constexpr double ln2_3 = 0x1.7b57a079a1934p-111;
    const double k = std::nearbyint(x * 0x1.71547652b82fep0);  // x / ln 2
    const Dd p1 = two_prod(k, ln2_1);
    Dd r = add(two_sum(x, -p1.hi), {-p1.lo, 0.0});
    const Dd p2 = two_prod(k, ln2_2);
    r = add(r, {-p2.hi, -p2.lo});
    r = add(r, {-k * ln2_3, 0.0});
    // e^r = (e^s)^1024 with s = r / 1024 (exact), |s| < 3.4e-4: e^s − 1 = s + s²/2 + tail,
    // the tail s³/6 + ... below 7e-12 and so needing only double precision
    const Dd s{r.hi * 0x1p-10, r.lo * 0x1p-10};
    const double t = s.hi;
    const double tail =
        t * t * t * (1.0 / 6.0 + t * (1.0 / 24.0 + t * (1.0 / 120.0 + t * (1.0 / 720.0))));
    const Dd square = mul(s, s);
    Dd em1 = add(add(s, {square.hi * 0.5, square.lo * 0.5}), {tail, 0.0});
    // squaring e^s ten times, kept as e^s − 1 so that no bits are lost near 1:
    // e^2s − 1 = 2·(e^s − 1) + (e^s − 1)²
    for (int i = 0; i < 10; ++i) {
        em1 = add(add(em1, em1), mul(em1, em1));
    }
    return scaled(add({1.0, 0.0}, em1), static_cast<int>(k));
}

}  // namespace attn
