#pragma once
// The words a what-if (--set) and attn diff share between the notes under the steps
// (whatif_words.cpp) and the closing section (whatif_why.cpp), a private header of render.

#include <string>
#include <string_view>
#include <vector>

#include "attn/core/whatif.hpp"

namespace attn::lesson::whatif {

/// Numbers in prose: whole numbers without decimals, tiny ones in scientific notation.
std::string num(double x, int precision);

/// A change with its sign: "+0.2000", "−0.1358".
std::string signed_num(double x, int precision);

/// "from 0.2500 to 0.5000": two numbers at `precision` decimals, or at as many more as it
/// takes to tell them apart when they differ ("from 0.2500000000 to 0.2500000001").
std::string from_to(double before, double after, int precision);

/// The step's symbol as the prose writes it: "Q", "S′", "Q_1".
std::string sym(const Step& step);

/// Where a step changed, as shown (a transposed step's rows are the matrix's columns):
/// "in every cell", "in row 'is'", "in row 'is' and column 'is'", "in 2 cells of row 'is'".
std::string where(const StepDelta& d, const Step& step);

/// ", by up to +0.2000 at [is, d1]": the largest change of a step, where it is shown; ", by
/// +0.2000" for the one cell that changed.
std::string largest(const StepDelta& d, const Step& step, int precision);

/// "a; b; c": clauses that have commas of their own.
std::string clauses(const std::vector<std::string>& items);

/// "the run as given" / "a.json (A)"
std::string before_name(const Comparison& cmp);

/// Whether `step` is an input of the run, which --set may change (settable_ids).
bool is_input(const Step& step, const Trace& t);

/// The configuration two dumps differ in (attn diff): "seed 42 → 7", "mask none → causal".
std::vector<std::string> config_differences(const Config& a, const Config& b);

/// "Q changed in row 'is' (2 of 9 cells, by up to +0.9450 at [is, q2])": how a step differs.
std::string step_words(const StepDelta& d, const Step& step, std::string_view verb, int precision);

/// The first paragraph: what was changed.
std::string changes_paragraph(const Trace& t, const Comparison& cmp, int precision, Layout layout);

}  // namespace attn::lesson::whatif
