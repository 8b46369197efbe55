// What a worksheet leaves blank by default, and the memory checking a sheet may take: the
// parts of attn check that plan, apart from the checking itself (check.cpp).
#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "attn/core/check.hpp"
#include "attn/core/trace.hpp"

namespace attn {

std::size_t check_bytes(const Trace& t, const AnswerSheet& sheet) {
    std::size_t cells = 0;
    std::size_t largest = 0;
    for (const auto& step : teaching_steps(t)) {
        if (std::find(sheet.step_ids.begin(), sheet.step_ids.end(), step.id) !=
            sheet.step_ids.end()) {
            const std::size_t n = step.shape.rows * step.shape.cols;
            cells += n;
            largest = std::max(largest, n);
        }
    }
    // a vector grown by doubling holds at most twice its cells, and three times while it
    // moves; six matrices of the largest step: a variant's scaled, masked and weights, the
    // student's own answers as a matrix and what follows from them
    constexpr std::size_t per_cell =
        sizeof(WrongCell) + 2 * sizeof(std::pair<std::size_t, std::size_t>);
    return 3 * cells * per_cell + 6 * largest * sizeof(double);
}

std::vector<std::string> default_blank_steps(const Trace& trace) {
    std::vector<std::string> out;
    for (const auto& s : teaching_steps(trace)) {
        switch (s.op) {
            case StepOp::q:
            case StepOp::k:
            case StepOp::v:
                if (!trace.qkv_given) {  // given Q, K and V have nothing to work out
                    out.push_back(s.id);
                }
                break;
            case StepOp::scores:
            case StepOp::scaled_scores:
            case StepOp::masked_scores:
            case StepOp::weights:
            case StepOp::output:
                out.push_back(s.id);
                break;
            default:
                break;
        }
    }
    return out;
}

}  // namespace attn
