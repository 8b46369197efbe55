#pragma once
// What reading a dump (dump_file.cpp) and checking it (dump_verify.cpp) share: a private
// header of io.

#include <cstddef>
#include <functional>
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
/// A what-if's dump: the seeded numbers with the recorded changes made (each change's value
/// before must be the seed's).
void check_provenance(const reader::Reader& r, const reader::Value& root, const Loaded& loaded,
                      const WhatIfRecord& what_if);

/// The "what_if" member of a dump (dump_whatif.cpp), each change checked as it is read: a step
/// --set may change, whole indices, values of the step's kind (numbers, true or false, tokens),
/// no cell twice, "mask_before" when a mask cell changed. Empty without the member.
WhatIfRecord read_what_if(const reader::Reader& r, const reader::Value& root);

/// The tokens the sentence gives (`expected`) with the record's swaps made: each swap's token
/// before must be the sentence's.
void swap_tokens(const reader::Reader& r, const reader::Value& root, const WhatIfRecord& what_if,
                 std::vector<std::string>& expected);

/// Each change's place exists in the dump's inputs and holds its value after; a mask changed
/// from a causal or padding mask is that mask but for the changed cells, whose values before
/// must be its own.
void check_what_if(const reader::Reader& r, const reader::Value& root, const Loaded& loaded,
                   const WhatIfRecord& what_if);

/// Sets the recorded changes of step `id` ("embeddings", "W_Q", ...) in `fresh`, the numbers
/// the seed gives, where `seeded(row)` says the row came from the seed: there, each change's
/// value before must be fresh's. `embeddings_before` gives a swapped token's row before.
void set_recorded(const reader::Reader& r, const reader::Value& root, const WhatIfRecord& what_if,
                  std::string_view id, Matrix& fresh,
                  const std::function<bool(std::size_t)>& seeded, std::string_view claim);

}  // namespace attn::dump
