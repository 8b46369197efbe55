#pragma once
/// The ranges of the sizes a user may choose, in one table that the command line and the file
/// readers both check against.

#include <cstddef>
#include <string_view>

#include "attn/core/error.hpp"

namespace attn {

/// The widest embedding, head or value attn computes with.
inline constexpr std::size_t max_width = 4096;
/// The most tokens in one walk-through.
inline constexpr std::size_t max_tokens = 8192;
/// The most attention heads.
inline constexpr std::size_t max_heads = 64;

/// The range of one size and what it is, for messages.
struct Limit {
    long long min = 0;
    long long max = 0;
    std::string_view meaning;
};

/// The range of a size field: d_model, n_heads, d_k, d_v, pad_to, tokens, precision, width,
/// threads, train_steps, epochs. Other fields have no range (min > max).
Limit limit(Field field) noexcept;

/// Throws errors::bad_size (usage, naming the field) unless `value` is within limit(field).
void check_limit(Field field, long long value);

}  // namespace attn
