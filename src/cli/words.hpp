#pragma once
// Small text helpers of the command line: trimming and lowercasing what was typed.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace attn::cli {

/// `s` without spaces and tabs at either end.
inline std::string trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

/// `s` with ASCII capitals lowercased (option values, units).
inline std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace attn::cli
