// --steps: choosing steps by id, number, group or head.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "cli.hpp"
#include "words.hpp"

namespace attn::cli {
namespace {
// The error for ids that are not steps of this run: every one named (not only the first), each
// with the id it is nearest to ("wieghts": weights) or begins ("scaled": scaled_scores), or
// what the run has instead (a head or a number past the last).
std::string unknown_steps_message(const std::vector<std::string>& unknown,
                                  const std::vector<Step>& steps, const std::string& valid) {
    std::vector<std::string> ids;
    std::size_t n_heads = 0;
    std::size_t last_number = 0;
    for (const auto& s : steps) {
        ids.push_back(lower(s.id));
        ids.push_back(lower(std::string(base_id(s.id))));
        n_heads = std::max(n_heads, s.head);
        last_number = std::max<std::size_t>(
            last_number,
            std::stoul("0" + s.number.substr(0, s.number.find_first_not_of("0123456789"))));
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    // the id as the list spells it (W_Q, not w_q)
    const auto as_spelled = [&steps](const std::string& match) {
        for (const auto& s : steps) {
            for (const std::string& id : {s.id, std::string(base_id(s.id))}) {
                if (lower(id) == match) {
                    return id;
                }
            }
        }
        return match;
    };
    std::string names;
    std::string needs_mask;          // the first id of a step that only a masked run has
    std::vector<std::string> notes;  // what the run has instead
    std::vector<std::string> meant;  // "'weights'" or "'weights' for 'wieghts'"
    for (std::size_t i = 0; i < unknown.size(); ++i) {
        const std::string& item = unknown[i];
        const std::string text = lower(item);
        names += (i == 0                    ? ""
                  : i + 1 == unknown.size() ? " and "
                                            : ", ") +
                 fmt::format("'{}'", item);
        const std::string base = lower(std::string(base_id(item)));
        if (base == "mask" || base == "masked_scores") {
            if (needs_mask.empty()) {
                needs_mask = item;
            }
            continue;
        }
        // a head this run does not have (head3.weights with two heads)
        const std::size_t dot = text.find('.');
        const std::string digits = !text.starts_with("head")  ? ""
                                   : dot == std::string::npos ? text.substr(4)
                                                              : text.substr(4, dot - 4);
        if (!digits.empty() && digits.size() < 7 &&
            digits.find_first_not_of("0123456789") == std::string::npos &&
            std::stoul(digits) > n_heads) {
            notes.push_back(fmt::format("this run has {}",
                                        n_heads <= 1 ? std::string("one head, whose steps have no "
                                                                   "headN. prefix")
                                                     : fmt::format("heads 1 to {}", n_heads)));
            continue;
        }
        // a number past the last
        if (std::isdigit(static_cast<unsigned char>(item.front())) != 0) {
            notes.push_back(fmt::format("the steps are numbered 1 to {}", last_number));
            continue;
        }
        auto near = nearest(text, ids);
        for (const auto& id : ids) {  // or the start of an id: "scaled" for scaled_scores
            if (near.empty() && text.size() >= 3 && id.starts_with(text)) {
                near.push_back(id);
            }
        }
        if (!near.empty()) {
            meant.push_back(unknown.size() == 1
                                ? fmt::format("'{}'", as_spelled(near.front()))
                                : fmt::format("'{}' for '{}'", as_spelled(near.front()), item));
        }
    }
    notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
    std::string after;
    for (const auto& note : notes) {
        after += "; " + note;
    }
    for (std::size_t i = 0; i < meant.size(); ++i) {
        after += (i == 0 ? "; did you mean " : ", ") + meant[i];
    }
    if (!meant.empty()) {
        after += "?";
    }
    return fmt::format(
        "--steps: {} {} this run{}, expected one of: {}, or their numbers (e.g. "
        "5 or 3a){}",
        names, unknown.size() == 1 ? "is not a step of" : "are not steps of",
        needs_mask.empty() ? ""
                           : fmt::format(" ({} needs --mask causal)",
                                         unknown.size() == 1 ? "it" : "'" + needs_mask + "'"),
        valid, after);
}
}  // namespace

StepSelection select_steps(const std::string& spec, const std::vector<Step>& steps) {
    std::string valid;
    std::size_t n_heads = 0;
    for (const auto& s : steps) {
        if (s.head <= 1) {  // list each head's steps once, as head1.*
            valid += (valid.empty() ? "" : ", ") + s.id;
        }
        n_heads = std::max(n_heads, s.head);
    }
    if (n_heads > 1) {
        valid += n_heads == 2 ? std::string(
                                    " (likewise head2.*; head1 and head2 for all of a "
                                    "head's steps; a step without head1., such as weights, "
                                    "for both heads' side by side)")
                              : fmt::format(
                                    " (likewise head2.* to head{}.*; head1 to head{} "
                                    "for all of a head's steps; a step without head1., such "
                                    "as weights, for every head's side by side)",
                                    n_heads, n_heads);
    }
    std::vector<std::string> selected;
    std::vector<std::string> together;
    std::vector<std::string> unknown;  // every id not found, reported together
    std::size_t pos = 0;
    while (pos <= spec.size()) {
        const auto end = std::min(spec.find(',', pos), spec.size());
        const std::string item = trim(spec.substr(pos, end - pos));
        pos = end + 1;
        if (item.empty()) {
            continue;
        }
        // a step of its own by that id (the final "output") is that step, not every head's
        const bool own_step = std::any_of(steps.begin(), steps.end(), [&](const Step& s) {
            return s.head == 0 && lower(item) == lower(s.id);
        });
        bool found = false;
        for (const auto& s : steps) {
            // an id (any case), a full number ("3a"), a group number ("3" = 3a, 3b, 3c), or
            // a head ("head2" = all of head 2's steps)
            const std::string group = s.number.substr(0, s.number.find_first_not_of("0123456789"));
            const bool head_match = s.head > 0 && lower(item) == fmt::format("head{}", s.head);
            // "weights" in a run of several heads: that step of every head, shown together;
            // so is a per-head step named by its number ("7", "5a"), which every head shares
            // (the heads' outputs Z_h, whose id "output" names the layer's output, so)
            const bool by_number = item == s.number || item == group;
            const bool every_head =
                n_heads > 1 && s.head > 0 &&
                ((!own_step && lower(item) == lower(std::string(base_id(s.id)))) || by_number);
            if (every_head &&
                std::find(together.begin(), together.end(), base_id(s.id)) == together.end()) {
                together.emplace_back(base_id(s.id));
            }
            if (lower(item) == lower(s.id) || by_number || head_match || every_head) {
                found = true;
                if (std::find(selected.begin(), selected.end(), s.id) == selected.end()) {
                    selected.push_back(s.id);
                }
            }
        }
        if (!found) {
            unknown.push_back(item);
        }
    }
    if (!unknown.empty()) {
        throw Error(ErrorKind::usage, unknown_steps_message(unknown, steps, valid));
    }
    if (selected.empty()) {
        throw Error(ErrorKind::usage, "--steps is empty, expected one or more of: " + valid);
    }
    // keep teaching order whatever order they were given in
    std::vector<std::string> ordered;
    for (const auto& s : steps) {
        if (std::find(selected.begin(), selected.end(), s.id) != selected.end()) {
            ordered.push_back(s.id);
        }
    }
    return {ordered, together};
}

}  // namespace attn::cli
