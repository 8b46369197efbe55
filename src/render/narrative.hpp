#pragma once
// The notes of narrative.cpp that are written in their own files: score_notes.cpp (the scores
// and the scaled scores), weights_notes.cpp and gpt2_notes.cpp.

#include <string>

#include "attn/core/trace.hpp"
#include "lesson.hpp"

namespace attn::lesson {

/// The note under the scores of `head`: the largest score taken apart into lengths and an angle.
void scores_notes(const Trace& t, const Head& head, int precision, Notes& n);

/// Whether a score q · k with |q| = q_norm and |k| = k_norm may be too small for a double to
/// hold with full precision (|q|·|k| below 2^-969): it is then stored as 0 or subnormal.
bool score_underflows(double q_norm, double k_norm);

/// A token as prose names it: 'the', or 'the' (token 3) when the sentence has it more than
/// once.
std::string token_name(const Trace& t, std::size_t i);

/// How many of `head`'s scores (those the mask allows) may underflow (score_underflows).
std::size_t underflowed_scores(const Trace& t, const Head& head);

/// The note under the scaled scores of `head` (`sub` its subscript, "_2", or ""): what the
/// scaling did to the variance of the scores, and whether it is close to 1, from the numbers.
void scaled_notes(const Trace& t, const Head& head, const std::string& sub, int precision,
                  Notes& n);

/// The notes under the attention weights of `head` (step `step`), numbers printed with
/// `precision` digits.
void weights_notes(const Trace& t, const Step& step, const Head& head, int precision, Notes& n);

/// The notes under a GPT-2 checkpoint's layers_below step: a line per layer below, with the
/// lengths of what its attention and its MLP added, and of the vectors after it.
void layers_below_notes(const Trace& t, int precision, Notes& n);

}  // namespace attn::lesson
