// Looking tokens up in an embeddings table, and the spellings nearest to a missing one.
#include "attn/core/input.hpp"

#include <algorithm>
#include <unordered_map>

#include "attn/core/tokenizer.hpp"
#include "attn/core/utf8.hpp"

namespace attn {
namespace {

std::size_t edit_distance(const std::u32string& a, const std::u32string& b) {
    std::vector<std::size_t> prev(b.size() + 1);
    std::vector<std::size_t> cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        prev[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min(
                {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0U : 1U)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::u32string code_points(std::string_view s) {
    std::u32string out;
    std::size_t i = 0;
    while (i < s.size()) {
        const auto d = utf8::decode(s.substr(i));
        out += d ? d->code_point : static_cast<char32_t>(static_cast<unsigned char>(s[i]));
        i += d ? d->length : 1;
    }
    return out;
}

}  // namespace

LookUp look_up(const EmbeddingTable& table, const std::vector<std::string>& tokens) {
    std::unordered_map<std::string, std::size_t> row_of;
    row_of.reserve(table.tokens.size());
    for (std::size_t i = 0; i < table.tokens.size(); ++i) {
        row_of.emplace(table.case_insensitive ? fold_case(table.tokens[i]) : table.tokens[i], i);
    }
    LookUp out{Matrix(tokens.size(), table.vectors.cols()), {}};
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const auto it = row_of.find(table.case_insensitive ? fold_case(tokens[t]) : tokens[t]);
        if (it == row_of.end()) {
            out.missing.push_back(t);
            continue;
        }
        const auto row = table.vectors.row(it->second);
        std::copy(row.begin(), row.end(), out.x.row(t).begin());
    }
    return out;
}

std::vector<std::string> nearest(const std::string& word, const std::vector<std::string>& known) {
    const auto w = code_points(fold_case(word));
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& k : known) {
        const auto d = edit_distance(w, code_points(fold_case(k)));
        // close enough to be a likely typo: at most a third of the word's length, at least 1
        if (d <= std::max<std::size_t>(1, w.size() / 3)) {
            scored.emplace_back(d, k);
        }
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i) {
        out.push_back(scored[i].second);
    }
    return out;
}

}  // namespace attn
