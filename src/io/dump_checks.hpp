#pragma once
// What reading a dump (dump_file.cpp) and checking it (dump_verify.cpp) share: a private
// header of io.

#include <cstddef>
#include <string_view>
#include <utility>

#include "attn/io/model_file.hpp"
#include "reader.hpp"

namespace attn::dump {

/// The step with id `id` in a dump's `steps` array and its index; {nullptr, 0} when there is
/// none.
std::pair<const reader::Value*, std::size_t> find_step(const reader::Value& steps,
                                                       std::string_view id);

/// Provenance: the numbers `loaded` (read from the dump `root`) says were seeded must be what
/// its seed gives (the embeddings, the seeded tokens' rows, the weights) and sinusoidal
/// positions what the formula gives, so that the walk-through never claims a seed beside
/// another seed's numbers. Throws attn::Error (input) at the first number that differs.
void check_provenance(const reader::Reader& r, const reader::Value& root, const Loaded& loaded);

}  // namespace attn::dump
