// The words for a run whose rule is not the right one (--no-scale, --scale-by d_model,
// --softmax-over columns or all): what made its weights, whether that changed them, and where
// the right rule's weights are. One description, which --why on A_right, the SVG's title and
// the HTML page's grid and summary all use.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lesson.hpp"

namespace attn::lesson {

std::string rule_mistake(const Trace& t) {
    // named by queries and keys, never by rows and columns, which the layout swaps
    // (both mistakes when a run makes both)
    const std::string scaling = t.rule.scale_by == ScaleBy::d_model ? "scores divided by √d_model"
                                : t.rule.scale_by == ScaleBy::none  ? "scores that were not scaled"
                                                                    : "";
    const std::string softmax =
        t.rule.over == SoftmaxOver::all       ? "one softmax over the whole matrix"
        : t.rule.over == SoftmaxOver::columns ? "one softmax per key (over its queries)"
                                              : "";
    return scaling.empty() ? softmax : softmax.empty() ? scaling : scaling + " and " + softmax;
}

bool same_as_right(const Trace& t) {
    // a head under the right rule has no correct_attention: nothing to compare
    return std::ranges::all_of(t.heads, [](const Head& head) {
        return head.correct_attention.empty() ||
               head.correct_attention.data() == head.attention.data();
    });
}

std::string right_weights_step(const Trace& t) {
    for (const auto& step : teaching_steps(t)) {
        if (step.op == StepOp::correct_weights) {
            // several heads number their steps alike: each head's is the same number
            return fmt::format("{}step {}", t.heads.size() > 1 ? "each head's " : "", step.number);
        }
    }
    return "";
}

RuleCaveat not_the_rule(const Trace& t) {
    const std::string made_by = rule_mistake(t);
    if (made_by.empty()) {
        return {};
    }
    const std::string where = right_weights_step(t);
    if (same_as_right(t)) {
        return {"", fmt::format("made from {}, which here gives exactly the right rule's weights{}",
                                made_by, where.empty() ? "" : " (A_right, " + where + ")")};
    }
    return {"Not attention's weights: A from " + made_by,
            where.empty() ? std::string("the right rule's weights differ from these")
                          : fmt::format("the right rule's weights, A_right, are {} of the "
                                        "walk-through",
                                        where)};
}

std::string RuleCaveat::detail_sentence() const {
    if (detail.empty()) {
        return "";
    }
    std::string sentence = detail + ".";
    sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
    return sentence;
}

}  // namespace attn::lesson
