// Parsing a cell name such as "scores[is,book]" or "head2.weights[0, 1]".
#include "attn/core/cell.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"

namespace attn {
namespace {

// "a, b, c", each item shown safely
std::string shown_list(std::span<const std::string> items) {
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : ", ") + shown(item);
    }
    return out;
}

// " (did you mean 'book'?)" when one of `known` is near `word`, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
    const auto near = nearest(word, known);
    return near.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", shown(near.front()));
}

}  // namespace

std::string trim_blanks(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

// An index ("2") or a label ("book", "q1") of a row or column.
std::size_t parse_index(const std::string& part, std::span<const std::string> labels,
                        std::string_view what, std::string_view cell, Field field) {
    const auto cell_error = [field](const std::string& text) {
        return Error(ErrorKind::usage, field, text);
    };
    std::size_t index = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
    if (!part.empty() && ec == std::errc() && ptr == part.data() + part.size()) {
        if (index >= labels.size()) {
            throw cell_error(fmt::format("{} {}: {} {} is out of range, expected 0 to {}", subject,
                                         shown(cell), what, part, labels.size() - 1));
        }
        return index;
    }
    // "the#2": a repeated label with its index, as the walk-through's sentences name it
    if (const auto hash = part.rfind('#'); hash != std::string::npos && hash > 0) {
        std::size_t at = 0;
        const char* digits = part.data() + hash + 1;
        const auto [end, err] = std::from_chars(digits, part.data() + part.size(), at);
        if (err == std::errc() && end == part.data() + part.size() && end != digits &&
            at < labels.size() && labels[at] == part.substr(0, hash)) {
            return at;
        }
    }
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] == part) {
            found.push_back(i);
        }
    }
    if (found.empty()) {
        // a head's slice names its columns with the head's number ("2.q1"): in it, "q1" is
        // enough; in the whole matrix, where 1.q1 and 2.q1 both end so, it stays unknown
        std::vector<std::size_t> within;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const auto dot = labels[i].find('.');
            const bool numbered = dot != std::string::npos && dot > 0 &&
                                  labels[i].find_first_not_of("0123456789") == dot;
            if (numbered && std::string_view(labels[i]).substr(dot + 1) == part) {
                within.push_back(i);
            }
        }
        if (within.size() == 1) {
            return within.front();
        }
    }
    if (found.size() == 1) {
        return found.front();
    }
    if (found.size() > 1) {
        const std::string all = listed(found);
        throw cell_error(fmt::format(
            "{} {}: '{}' is ambiguous: {}s {} are all '{}', expected the index of the one you "
            "mean (e.g. {} or '{}#{}' instead of '{}')",
            subject, shown(cell), shown(part), what, all, shown(part), found.front(), shown(part),
            found.front(), shown(part)));
    }
    // the labels as they can be given: a repeated one with its index (the#0, the#2)
    const auto n_shown = std::min<std::size_t>(labels.size(), 12);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < n_shown; ++i) {
        const bool repeated = std::count(labels.begin(), labels.end(), labels[i]) > 1;
        names.push_back(repeated ? fmt::format("{}#{}", labels[i], i) : labels[i]);
    }
    throw cell_error(
        fmt::format("{} {}: no {} '{}'{}, expected an index from 0 to {} or one of: {}{}", subject,
                    shown(cell), what, shown(part),
                    did_you_mean(part, std::vector<std::string>(labels.begin(), labels.end())),
                    labels.size() - 1, shown_list(names), labels.size() > 12 ? ", ..." : ""));
}

namespace {

// The name a gradient step shows in its header, an alias of its id: dW_Q for grad.W_Q, dS′
// for grad.scaled_scores, head2.dQ for head2.grad.Q; empty for a step that is no gradient.
std::string gradient_name(const Step& s) {
    const auto grad = s.id.find("grad.");
    if (grad == std::string::npos || !s.symbol.base.starts_with("d")) {
        return {};
    }
    return s.id.substr(0, grad) + s.symbol.base + (s.symbol.sub.empty() ? "" : "_" + s.symbol.sub) +
           (s.symbol.prime ? "′" : "");
}

// Whether `name` names step `s`: its id, L for the loss, or the name a gradient shows (with ' for
// ′; a head's own as head2.dW_Q or as its header writes it, dW_Q_2)
bool is_named(const Step& s, const std::string& name) {
    if (s.id == name || (s.id == "loss" && name == "L")) {  // the loss as its header names it
        return true;
    }
    const std::string alias = gradient_name(s);
    if (alias.empty()) {
        return false;
    }
    std::vector<std::string> aliases{alias};
    if (s.symbol.head > 0) {
        aliases.push_back(alias.substr(alias.find('.') + 1) + "_" + std::to_string(s.symbol.head));
    }
    for (std::string a : aliases) {
        if (name == a) {
            return true;
        }
        if (const auto at = a.find("′"); at != std::string::npos) {
            a.replace(at, std::string_view("′").size(), "'");
            if (name == a) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

CellRef parse_cell(std::string_view raw, const Trace& trace, Layout layout,
                   const CellNames& allowed) {
    const std::string cell = trim_blanks(raw);
    const std::string_view text = cell;
    const auto& steps = steps_in(trace, layout);
    const auto cell_error = [&allowed](const std::string& message) {
        return Error(ErrorKind::usage, allowed.field, message);
    };
    std::vector<std::string> names;    // as listed: the first head's, a gradient with its alias
    std::vector<std::string> ids;      // their ids
    std::vector<std::string> all_ids;  // every name that may be given, for did-you-mean
    const auto may_name = [&](const Step& s) {
        return s.kind != StepKind::tokens &&
               (allowed.ids.empty() ||
                std::find(allowed.ids.begin(), allowed.ids.end(), s.id) != allowed.ids.end());
    };
    for (const auto& s : steps) {
        if (may_name(s)) {
            all_ids.push_back(s.id);
            const std::string alias = gradient_name(s);
            if (!alias.empty()) {
                all_ids.push_back(alias);
            }
            if (s.head <= 1) {
                ids.push_back(s.id);
                names.push_back(alias.empty() ? s.id : fmt::format("{} ({})", s.id, alias));
            }
        }
    }
    const bool other_heads = std::any_of(steps.begin(), steps.end(),
                                         [&](const Step& s) { return may_name(s) && s.head > 1; });
    // an example with the labels of a step that may be named (--why: the weights' tokens)
    const Step* first = allowed.ids.empty() ? nullptr : find_step(trace, ids.front(), layout);
    const std::string example =
        first == nullptr
            ? fmt::format("scores[0,1] or weights[{},{}]", shown(trace.tokens.front()),
                          shown(trace.tokens.back()))
            : fmt::format("{}[0,1] or {}[{},{}]", first->id, first->id,
                          shown(first->row_labels.front()), shown(first->col_labels.back()));
    const std::string valid = fmt::format(
        "expected NAME[ROW,COL] with NAME one of: {}{}, and ROW, COL an index or a label, e.g. {}",
        shown_list(names), other_heads ? " (and head2. ... for the other heads)" : "", example);
    const auto open = text.find('[');
    // a step of one cell (the loss) needs no [ROW,COL]
    if (open == std::string_view::npos) {
        const auto one = std::find_if(steps.begin(), steps.end(), [&](const Step& s) {
            return may_name(s) && is_named(s, cell) && s.shape.rows == 1 && s.shape.cols == 1;
        });
        if (one != steps.end()) {
            return {one->id, 0, 0, layout};
        }
    }
    const auto comma = text.find(',', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || comma == std::string_view::npos || text.empty() ||
        text.back() != ']') {
        throw cell_error(
            fmt::format("{} '{}' is not a cell name, {}", subject, shown(cell), valid));
    }
    std::string name = trim_blanks(text.substr(0, open));
    for (const auto& [alias, id] : allowed.aliases) {
        name = name == alias ? id : name;
    }
    const std::string row = trim_blanks(text.substr(open + 1, comma - open - 1));
    const std::string col = trim_blanks(text.substr(comma + 1, text.size() - comma - 2));
    const auto step =
        std::find_if(steps.begin(), steps.end(), [&](const Step& s) { return is_named(s, name); });
    if (step == steps.end() || !may_name(*step)) {
        throw cell_error(fmt::format("{} {}: no matrix '{}'{}, {}", subject, shown(cell),
                                     shown(name), did_you_mean(name, all_ids), valid));
    }
    return {step->id, parse_index(row, step->row_labels, "row", cell, allowed.field),
            parse_index(col, step->col_labels, "column", cell, allowed.field), layout};
}

}  // namespace attn
