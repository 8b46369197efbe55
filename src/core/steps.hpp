#pragma once
// The builder of a Trace's step list (steps.cpp), which Trace::index_steps (trace.cpp) calls.

#include <span>
#include <string>
#include <vector>

#include "attn/core/trace.hpp"

namespace attn {

/// The steps of `trace` in teaching order, pointing into it; in the column layout of the
/// by-hand exercises (tokens are columns) when `columns`.
std::vector<Step> build_steps(const Trace& trace, bool columns);

/// The shape (rows, columns) of `m`.
Shape shape_of(const Matrix& m);

/// A step of matrix `m` (shape from m, head 0): its id, number, operation, symbol, formula,
/// operands' shapes and row and column labels. The forward (steps.cpp) and backward
/// (backward_steps.cpp) step lists both make their steps with it.
Step matrix_step(std::string id, std::string number, StepOp op, Symbol symbol, Formula formula,
                 std::vector<Shape> operands, const Matrix& m, std::span<const std::string> rows,
                 std::span<const std::string> cols);

/// Appends the steps of trace.backward (backward_steps.cpp): the target, the loss, every
/// gradient and the update, numbered after `steps`.
void append_backward_steps(const Trace& trace, std::vector<Step>& steps);

}  // namespace attn
