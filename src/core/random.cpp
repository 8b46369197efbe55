#include "attn/core/random.hpp"

#include <cmath>

namespace attn {
namespace {

std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
}

}  // namespace

std::uint64_t Rng::next_u64() noexcept {
    state_ += 0x9E3779B97F4A7C15ULL;
    return mix(state_);
}

double Rng::uniform() noexcept {
    // the top 53 bits as k / 2^53: exact, and the same on every platform
    return static_cast<double>(next_u64() >> 11U) * 0x1.0p-53;
}

double Rng::normal() noexcept {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    double u = 0.0;
    double v = 0.0;
    double s = 0.0;
    do {
        u = 2.0 * uniform() - 1.0;
        v = 2.0 * uniform() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    // sqrt is exactly rounded by IEEE-754; portable_log replaces std::log
    const double factor = std::sqrt(-2.0 * portable_log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
}

std::uint64_t stream_seed(std::uint64_t seed, std::string_view domain,
                          std::string_view text) noexcept {
    std::uint64_t h = 0xCBF29CE484222325ULL;  // FNV-1a 64 offset basis
    const auto eat = [&h](unsigned char byte) {
        h ^= byte;
        h *= 0x100000001B3ULL;  // FNV prime
    };
    for (int i = 0; i < 8; ++i) {
        eat(static_cast<unsigned char>(seed >> (8 * i)));
    }
    for (char c : domain) {
        eat(static_cast<unsigned char>(c));
    }
    eat(0);
    for (char c : text) {
        eat(static_cast<unsigned char>(c));
    }
    return mix(h);
}

}  // namespace attn
