#pragma once
/// attn's own seeded random numbers: bit-identical on every compiler and platform.
///
/// The standard library's engines are portable but its distributions (std::normal_distribution
/// and friends) are not: libstdc++, libc++ and MSVC give different numbers for the same seed.
/// attn therefore uses splitmix64 for the bits, the polar method for normal numbers and its
/// own logarithm built from + - * / only, all of them exactly rounded IEEE-754 operations.

#include <cstdint>
#include <string_view>

#include "attn/core/portable.hpp"  // portable_log, which normal() uses

namespace attn {

/// splitmix64 (Steele, Lea & Flood 2014): a 64-bit state advanced by a constant and mixed.
///
///     Rng rng(42);
///     double z = rng.normal();  // the same on every platform
class Rng {
  public:
    explicit Rng(std::uint64_t seed) noexcept : state_(seed) {}

    /// The next 64 random bits.
    std::uint64_t next_u64() noexcept;
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() noexcept;
    /// Standard normal N(0, 1) by Marsaglia's polar method.
    double normal() noexcept;

  private:
    std::uint64_t state_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

/// A seed for one named stream: FNV-1a over the seed's 8 bytes, `domain`, a zero byte and
/// `text`, then the splitmix64 finaliser. The embedding of a token is drawn from the stream
/// ("embedding", token), so the same word gets the same vector wherever it appears.
std::uint64_t stream_seed(std::uint64_t seed, std::string_view domain,
                          std::string_view text) noexcept;

}  // namespace attn
