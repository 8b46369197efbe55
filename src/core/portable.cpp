// Functions whose bits are the same everywhere: only exactly rounded IEEE-754 operations.
#include "attn/core/portable.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
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

// 1 + e rounded once to a double. head.hi + head.lo is 1 + e.hi exactly; the rest,
// head.lo + e.lo, is rounded to odd (its last bit set when it is inexact), so that a tail too
// small to survive a double-double still breaks a tie: e^(2^-53) = 1 + 2^-53 + 2^-107 + ...
// rounds up to 1 + 2^-52, where fl(hi + lo) of the double-double would give 1.
double one_plus(Dd e) {
    const Dd head = two_sum(1.0, e.hi);
    Dd rest = two_sum(head.lo, e.lo);
    if (rest.lo != 0.0 && (std::bit_cast<std::uint64_t>(rest.hi) & 1U) == 0) {
        rest.hi = std::nextafter(rest.hi, rest.lo > 0.0 ? std::numeric_limits<double>::infinity()
                                                        : -std::numeric_limits<double>::infinity());
    }
    return head.hi + rest.hi;
}

// (1 + em1) · 2^k rounded once to a double, also where the result is subnormal (where ldexp
// of a rounded 1 + em1 would round a second time).
double scaled_by_power_of_two(Dd em1, int k) {
    if (k >= -1021) {
        return std::ldexp(one_plus(em1), k);  // exact: a normal result keeps all 53 bits
    }
    const Dd e = add({1.0, 0.0}, em1);
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

// 2^(j/128) for j = 0..127 as double-doubles: hi the nearest double, lo the nearest double to
// the rest (made and checked with 60 digits of Python's decimal; a wrong entry would make the
// test that compares exp_by_table with exp_by_squaring on every entry fail)
constexpr std::array<Dd, 128> exp2_table{{
    {0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.0163da9fb3335p+0, 0x1.b61299ab8cdb7p-54},
    {0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56},
    {0x1.04315e86e7f85p+0, -0x1.0a31c1977c96ep-54},
    {0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55},
    {0x1.0706b29ddf6dep+0, -0x1.c91dfe2b13c27p-55},
    {0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57},
    {0x1.09e3ecac6f383p+0, 0x1.1487818316136p-54},
    {0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54},
    {0x1.0cc922b7247f7p+0, 0x1.01edc16e24f71p-54},
    {0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59},
    {0x1.0fb66affed31bp+0, -0x1.b9bedc44ebd7bp-57},
    {0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54},
    {0x1.12abdc06c31ccp+0, -0x1.1b514b36ca5c7p-58},
    {0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54},
    {0x1.15a98c8a58e51p+0, 0x1.2406ab9eeab0ap-55},
    {0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55},
    {0x1.18af9388c8deap+0, -0x1.11023d1970f6cp-54},
    {0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55},
    {0x1.1bbe084045cd4p+0, -0x1.95386352ef607p-54},
    {0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54},
    {0x1.1ed5022fcd91dp+0, -0x1.1df98027bb78cp-54},
    {0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55},
    {0x1.21f49917ddc96p+0, 0x1.2a97e9494a5eep-55},
    {0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54},
    {0x1.251ce4fb2a63fp+0, 0x1.ac155bef4f4a4p-55},
    {0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55},
    {0x1.284dfe1f56381p+0, -0x1.a4c3a8c3f0d7ep-54},
    {0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55},
    {0x1.2b87fd0dad990p+0, -0x1.10adcd6381aa4p-59},
    {0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54},
    {0x1.2ecafa93e2f56p+0, 0x1.1ca0f45d52383p-56},
    {0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55},
    {0x1.32170fc4cd831p+0, 0x1.a9ce78e18047cp-55},
    {0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54},
    {0x1.356c55f929ff1p+0, -0x1.b5cee5c4e4628p-55},
    {0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54},
    {0x1.38cae6d05d866p+0, -0x1.e958d3c9904bdp-54},
    {0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56},
    {0x1.3c32dc313a8e5p+0, -0x1.efff8375d29c3p-54},
    {0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55},
    {0x1.3fa4504ac801cp+0, -0x1.7d023f956f9f3p-54},
    {0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58},
    {0x1.431f5d950a897p+0, -0x1.1c7dde35f7999p-55},
    {0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59},
    {0x1.46a41ed1d0057p+0, 0x1.c944bd1648a76p-54},
    {0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56},
    {0x1.4a32af0d7d3dep+0, 0x1.9cb62f3d1be56p-54},
    {0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56},
    {0x1.4dcb299fddd0dp+0, 0x1.8ecdbbc6a7833p-54},
    {0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54},
    {0x1.516daa2cf6642p+0, -0x1.f768569bd93efp-55},
    {0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55},
    {0x1.551a4ca5d920fp+0, -0x1.d689cefede59bp-55},
    {0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54},
    {0x1.58d12d497c7fdp+0, 0x1.295e15b9a1de8p-55},
    {0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54},
    {0x1.5c9268a5946b7p+0, 0x1.c4b1b816986a2p-60},
    {0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54},
    {0x1.605e1b976dc09p+0, -0x1.3e2429b56de47p-54},
    {0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54},
    {0x1.6434634ccc320p+0, -0x1.c483c759d8933p-55},
    {0x1.6623882552225p+0, -0x1.bb60987591c34p-54},
    {0x1.68155d44ca973p+0, 0x1.038ae44f73e65p-57},
    {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54},
    {0x1.6c012750bdabfp+0, -0x1.2895667ff0b0dp-56},
    {0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57},
    {0x1.6ff7df9519484p+0, -0x1.83c0f25860ef6p-55},
    {0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55},
    {0x1.73f9a48a58174p+0, -0x1.0a8d96c65d53cp-54},
    {0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54},
    {0x1.780694fde5d3fp+0, 0x1.866b80a02162dp-54},
    {0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55},
    {0x1.7c1ed0130c132p+0, 0x1.f124cd1164dd6p-54},
    {0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56},
    {0x1.80427543e1a12p+0, -0x1.27c86626d972bp-54},
    {0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54},
    {0x1.8471a4623c7adp+0, -0x1.8d684a341cdfbp-55},
    {0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54},
    {0x1.88ac7d98a6699p+0, 0x1.994c2f37cb53ap-54},
    {0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54},
    {0x1.8cf3216b5448cp+0, -0x1.0d55e32e9e3aap-56},
    {0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55},
    {0x1.9145b0b91ffc6p+0, -0x1.dd6792e582524p-54},
    {0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57},
    {0x1.95a44cbc8520fp+0, -0x1.64b7c96a5f039p-56},
    {0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54},
    {0x1.9a0f170ca07bap+0, -0x1.173bd91cee632p-54},
    {0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56},
    {0x1.9e86319e32323p+0, 0x1.824ca78e64c6ep-56},
    {0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54},
    {0x1.a309bec4a2d33p+0, 0x1.6305c7ddc36abp-54},
    {0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54},
    {0x1.a799e1330b358p+0, 0x1.bcb7ecac563c7p-54},
    {0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54},
    {0x1.ac36bbfd3f37ap+0, -0x1.f9234cae76cd0p-55},
    {0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54},
    {0x1.b0e07298db666p+0, -0x1.bdef54c80e425p-54},
    {0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57},
    {0x1.b59728de5593ap+0, -0x1.c71dfbbba6de3p-54},
    {0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56},
    {0x1.ba5b030a1064ap+0, -0x1.efcd30e54292ep-54},
    {0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55},
    {0x1.bf2c25bd71e09p+0, -0x1.efdca3f6b9c73p-54},
    {0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55},
    {0x1.c40ab5fffd07ap+0, 0x1.b4537e083c60ap-54},
    {0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54},
    {0x1.c8f6d9406e7b5p+0, 0x1.1acbc48805c44p-56},
    {0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56},
    {0x1.cdf0b555dc3fap+0, -0x1.dd83b53829d72p-55},
    {0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54},
    {0x1.d2f87080d89f2p+0, -0x1.d487b719d8578p-54},
    {0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55},
    {0x1.d80e316c98398p+0, -0x1.11ec18beddfe8p-54},
    {0x1.da9e603db3285p+0, 0x1.c2300696db532p-54},
    {0x1.dd321f301b460p+0, 0x1.2da5778f018c3p-54},
    {0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54},
    {0x1.e264614f5a129p+0, -0x1.7b627817a1496p-54},
    {0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55},
    {0x1.e7a51fbc74c83p+0, 0x1.2d522ca0c8de2p-54},
    {0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54},
    {0x1.ecf482d8e67f1p+0, -0x1.c93f3b411ad8cp-54},
    {0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54},
    {0x1.f252b376bba97p+0, 0x1.3a1a5bf0d8e43p-54},
    {0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54},
    {0x1.f7bfdad9cbe14p+0, -0x1.dbb12d006350ap-54},
    {0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55},
    {0x1.fd3c22b8f71f1p+0, 0x1.2eb74966579e7p-57},
}};

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

// Compiled twice: with the FMA instructions, for CPUs that have them (std::fma in two_prod is
// then one instruction, not a call into libm: a third of a softmax's time), and without. An
// fma is exactly rounded either way, so both give the same bits.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("fma", "default")))
#endif
std::optional<double>
detail::exp_by_table(double x) noexcept {
    // inside this range the result is a normal double (below −708.39 it may be subnormal)
    if (!(x > -708.3 && x < 709.7)) {
        return std::nullopt;
    }
    // x = n·(ln 2)/128 + r with n whole and |r| ≤ (ln 2)/256; (ln 2)/128 in three parts, the
    // first two of 32 bits so that n·c_hi and n·c_mid are exact (|n| < 2^17), and
    // x − n·c_hi exact (Sterbenz)
    constexpr double inv = 0x1.71547652b82fep+7;  // 128 / ln 2
    constexpr double c_hi = 0x1.62e42fee00000p-8;
    constexpr double c_mid = 0x1.a39ef35600000p-40;
    constexpr double c_lo = 0x1.93c7673007e5fp-72;
    constexpr double round_shift = 0x1.8p52;  // adding and taking it away rounds to a whole number
    const double n = (x * inv + round_shift) - round_shift;
    const double a = x - n * c_hi;
    Dd r = two_sum(a, -(n * c_mid));
    r.lo -= n * c_lo;
    r = fast_two_sum(r.hi, r.lo);
    const auto whole = static_cast<std::int64_t>(n);
    const std::int64_t j = whole & 127;  // n = 128·k + j with 0 ≤ j < 128
    const std::int64_t k = (whole - j) / 128;
    // e^r − 1 = r + r²/2 + r³/6 + ... + r⁷/5040 (the next term is below 2^-83), r + r²/2 in
    // double-double and the rest, below 2^-27, in double
    const Dd square = two_prod(r.hi, r.hi);
    const double t = r.hi;
    const double cube_on =
        t * square.hi *
        (1.0 / 6 + t * (1.0 / 24 + t * (1.0 / 120 + t * (1.0 / 720 + t * (1.0 / 5040)))));
    Dd em1 = fast_two_sum(r.hi, 0.5 * square.hi);
    em1.lo += r.lo + (0.5 * square.lo + r.hi * r.lo + cube_on);
    // 2^(j/128) · (1 + em1) = 2^(j/128) + 2^(j/128)·em1
    const Dd power = exp2_table[static_cast<std::size_t>(j)];
    Dd product = two_prod(power.hi, em1.hi);
    product.lo += power.hi * em1.lo + power.lo * em1.hi;
    Dd sum = fast_two_sum(power.hi, product.hi);
    sum.lo += power.lo + product.lo;
    sum = fast_two_sum(sum.hi, sum.lo);
    // Ziv's test: sum is within about 2^-78 of e^x / 2^k (relative), far less than the margin
    // 2^-10·|sum.lo|; if moving sum.lo by that margin cannot change how sum.hi + sum.lo
    // rounds, sum.hi is e^x / 2^k correctly rounded; otherwise it is too close to call here
    if (sum.hi != sum.hi + sum.lo * (1.0 + 0x1p-10)) {
        return std::nullopt;
    }
    // · 2^k, exact: the result is normal
    const double scale = std::bit_cast<double>(static_cast<std::uint64_t>(1023 + k) << 52);
    return sum.hi * scale;
}

double detail::exp_by_squaring(double x) noexcept {
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
    return scaled_by_power_of_two(em1, static_cast<int>(k));
}

double portable_exp(double x) noexcept {
    // the table's way (about 180 instructions) when it is sure of the last bit, else the slow
    // way (about 1400): the same bits either way
    if (const auto fast = detail::exp_by_table(x)) {
        return *fast;
    }
    return detail::exp_by_squaring(x);
}

}  // namespace attn
