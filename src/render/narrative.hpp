#pragma once
// The notes of narrative.cpp that are written in their own files: weights_notes.cpp and
// gpt2_notes.cpp.

#include "attn/core/trace.hpp"
#include "lesson.hpp"

namespace attn::lesson {

/// The notes under the attention weights of `head` (step `step`), numbers printed with
/// `precision` digits.
void weights_notes(const Trace& t, const Step& step, const Head& head, int precision, Notes& n);

/// The notes under a GPT-2 checkpoint's layers_below step: a line per layer below, with the
/// lengths of what its attention and its MLP added, and of the vectors after it.
void layers_below_notes(const Trace& t, int precision, Notes& n);

}  // namespace attn::lesson
