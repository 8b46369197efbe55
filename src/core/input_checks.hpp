#pragma once
// The checks of a run's input and of the numbers it computes (input_checks.cpp), which the
// pipeline (attention.cpp) calls.

#include <string>
#include <string_view>
#include <vector>

#include "attn/core/attention.hpp"

namespace attn {

/// Throws attn::Error when the shapes of `in` do not fit `config` or each other.
void check_shapes(const Input& in, const Config& config);

/// Throws attn::Error (input) at the first cell of `m` (named `name`, its rows and columns
/// labelled `rows` and `cols`) that is not finite, naming the largest number of the run's
/// inputs: the embeddings, positions and weights as `t` holds them, and Q, K and V when `in`
/// gives them.
void check_finite(const Matrix& m, std::string_view name, const std::vector<std::string>& rows,
                  const std::vector<std::string>& cols, const Trace& t, const Input& in);

}  // namespace attn
