// A file's description, as this run may show it: written for the file's own settings, it is
// kept but says so when the run changes them, so that its claims are not passed off as true
// for the numbers of this run.
#include <algorithm>
#include <filesystem>
#include <iterator>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "plan.hpp"

namespace attn {

std::string described_for(const std::string& description, const std::string& path,
                          const InputSpec& spec, const Config& c,
                          const std::optional<std::string>& file_sentence, MaskKind file_mask,
                          PositionKind file_positions, const std::vector<std::string>& replaced) {
    // another file's numbers in place of the file's own (--weights FILE with a model)
    std::vector<std::string> changes;
    std::copy_if(replaced.begin(), replaced.end(), std::back_inserter(changes),
                 [](const std::string& r) { return !r.empty(); });
    if (spec.sentence && file_sentence && *spec.sentence != *file_sentence) {
        changes.emplace_back("the sentence");
    }
    if (c.mask != file_mask) {
        changes.push_back(spec.mask_path ? std::string("--mask FILE")
                                         : fmt::format("--mask {}", to_string(c.mask)));
    }
    if (c.positions != file_positions) {
        changes.push_back(spec.positions_path
                              ? std::string("--positions FILE")
                              : fmt::format("--positions {}", to_string(c.positions)));
    }
    if (c.scale_by != ScaleBy::d_k) {
        changes.push_back(fmt::format("--scale-by {}", to_string(c.scale_by)));
    }
    if (c.softmax_over != SoftmaxOver::rows) {
        changes.push_back(fmt::format("--softmax-over {}", to_string(c.softmax_over)));
    }
    // a description that speaks of working by hand was written for hand arithmetic
    const bool for_hand = description.find("by hand") != std::string::npos ||
                          description.find("--arith hand") != std::string::npos;
    if (c.arith != Arith::exact && !for_hand) {
        changes.push_back(fmt::format("--arith {}", to_string(c.arith)));
    }
    if (spec.pad_to) {
        changes.emplace_back("--pad-to");
    }
    if (spec.lowercase || spec.chars) {
        changes.emplace_back(spec.chars ? "--chars" : "--lowercase");
    }
    // a description that names the option as this run gives it was written for it
    std::erase_if(changes, [&description](const std::string& change) {
        return change.starts_with("--") && description.find(change) != std::string::npos;
    });
    if (changes.empty()) {
        return description;
    }
    return fmt::format("{} [the words of {}, written for its own settings, which {} {} here]",
                       description, std::filesystem::path(path).filename().string(),
                       listed(changes), changes.size() == 1 ? "changes" : "change");
}

}  // namespace attn
