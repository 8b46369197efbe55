#pragma once
// The notes of narrative.cpp that are written in their own files: weights_notes.cpp.

#include "attn/core/trace.hpp"
#include "lesson.hpp"

namespace attn::lesson {

/// The notes under the attention weights of `head` (step `step`), numbers printed with
/// `precision` digits.
void weights_notes(const Trace& t, const Step& step, const Head& head, int precision, Notes& n);

}  // namespace attn::lesson
