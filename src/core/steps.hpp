#pragma once
// The builder of a Trace's step list (steps.cpp), which Trace::index_steps (trace.cpp) calls.

#include <vector>

#include "attn/core/trace.hpp"

namespace attn {

/// The steps of `trace` in teaching order, pointing into it; in the column layout of the
/// by-hand exercises (tokens are columns) when `columns`.
std::vector<Step> build_steps(const Trace& trace, bool columns);

/// Appends the steps of trace.backward (backward_steps.cpp): the target, the loss, every
/// gradient and the update, numbered after `steps`.
void append_backward_steps(const Trace& trace, std::vector<Step>& steps);

}  // namespace attn
