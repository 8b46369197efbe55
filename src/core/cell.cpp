// Parsing a cell name such as "scores[is,book]" or "head2.weights[0, 1]".
#include "attn/core/cell.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "attn/core/error.hpp"

namespace attn {
namespace {

std::string trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

std::string quoted_list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : ", ") + item;
    }
    return out;
}

// An index ("2") or a label ("book", "q1") of a row or column.
std::size_t resolve(const std::string& part, std::span<const std::string> labels,
                    std::string_view what, std::string_view cell) {
    std::size_t index = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
    if (!part.empty() && ec == std::errc() && ptr == part.data() + part.size()) {
        if (index >= labels.size()) {
            throw Error(ErrorKind::usage, "--why " + std::string(cell) + ": " + std::string(what) +
                                              " " + part + " is out of range, expected 0 to " +
                                              std::to_string(labels.size() - 1));
        }
        return index;
    }
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] == part) {
            found.push_back(i);
        }
    }
    if (found.size() == 1) {
        return found.front();
    }
    if (found.size() > 1) {
        std::vector<std::string> at;
        at.reserve(found.size());
        for (std::size_t i : found) {
            at.push_back(std::to_string(i));
        }
        std::string both;
        for (std::size_t k = 0; k < at.size(); ++k) {
            both += (k == 0 ? "" : k + 1 == at.size() ? " and " : ", ") + at[k];
        }
        throw Error(ErrorKind::usage, "--why " + std::string(cell) + ": '" + part +
                                          "' is ambiguous: " + std::string(what) + "s " + both +
                                          " are all '" + part +
                                          "', expected the index of the one you mean (e.g. " +
                                          at.front() + " instead of '" + part + "')");
    }
    std::vector<std::string> shown(
        labels.begin(),
        labels.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(labels.size(), 12)));
    throw Error(ErrorKind::usage,
                "--why " + std::string(cell) + ": no " + std::string(what) + " '" + part +
                    "', expected an index from 0 to " + std::to_string(labels.size() - 1) +
                    " or one of: " + quoted_list(shown) + (labels.size() > 12 ? ", ..." : ""));
}

}  // namespace

CellRef parse_cell(std::string_view raw, const Trace& trace) {
    const std::string cell = trim(raw);
    const std::string_view text = cell;
    const auto steps = teaching_steps(trace);
    std::vector<std::string> names;
    for (const auto& s : steps) {
        if (s.kind != StepKind::tokens && s.head <= 1) {
            names.push_back(s.id);
        }
    }
    const std::string valid =
        "expected NAME[ROW,COL] with NAME one of: " + quoted_list(names) +
        (trace.heads.size() > 1 ? " (and head2. ... for the other heads)" : "") +
        ", and ROW, COL an index or a label, e.g. scores[0,1] or weights[" + trace.tokens.front() +
        "," + trace.tokens.back() + "]";
    const auto open = text.find('[');
    const auto comma = text.find(',', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || comma == std::string_view::npos || text.empty() ||
        text.back() != ']') {
        throw Error(ErrorKind::usage, "--why '" + cell + "' is not a cell name, " + valid);
    }
    const std::string name = trim(text.substr(0, open));
    const std::string row = trim(text.substr(open + 1, comma - open - 1));
    const std::string col = trim(text.substr(comma + 1, text.size() - comma - 2));
    const auto step =
        std::find_if(steps.begin(), steps.end(), [&](const Step& s) { return s.id == name; });
    if (step == steps.end() || step->kind == StepKind::tokens) {
        throw Error(ErrorKind::usage, "--why " + cell + ": no matrix '" + name + "', " + valid);
    }
    return {step->id, resolve(row, step->row_labels, "row", cell),
            resolve(col, step->col_labels, "column", cell)};
}

}  // namespace attn
