#pragma once
// The sentences that quote a trace's own numbers (variances, contributions, repeated tokens),
// shared by every renderer that writes prose. Written in Unicode; callers transliterate.

#include <string>
#include <vector>

#include "attn/core/trace.hpp"

namespace attn::narrative {

/// Sentences for one step: `before` goes under the explanation, `after` under the matrix.
struct Notes {
    std::vector<std::string> before;
    std::vector<std::string> after;
};

/// The notes of `step` of `trace`, numbers printed with `precision` digits.
Notes notes(const Trace& trace, const Step& step, int precision, bool columns = false);

/// Lines that describe the run as a whole: sentence, sizes, where the numbers came from.
std::vector<std::string> summary(const Trace& trace);

/// Warnings about the numbers (rows with every key masked), for stderr and the JSON dump.
std::vector<std::string> warnings(const Trace& trace);

/// A token quoted for prose: 'book'.
std::string quoted(const std::string& token);

}  // namespace attn::narrative
