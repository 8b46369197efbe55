// The renderers' escaping: one function per output format for every string that did not come
// from attn itself (toolkit.hpp, Escaping), and attn's glyphs in ASCII for --ascii.
#include <array>
#include <cctype>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "attn/core/error.hpp"
#include "toolkit.hpp"

namespace attn::toolkit {
namespace {

using Glyph = std::pair<std::string_view, std::string_view>;

// `s` with each `from` of `table` replaced by its `to` (first match wins, left to right);
// every other byte goes through `other`.
template <typename Other>
std::string replace_glyphs(std::string_view s, std::span<const Glyph> table, Other other) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        bool done = false;
        for (const auto& [from, to] : table) {
            if (s.substr(i, from.size()) == from) {
                out += to;
                i += from.size();
                done = true;
                break;
            }
        }
        if (!done) {
            other(out, s[i++]);
        }
    }
    return out;
}

}  // namespace

std::string terminal(std::string_view text) {
    return shown(text);
}

std::string xml(std::string_view text) {
    const std::string safe = shown(text);  // XML 1.0 forbids most control characters
    std::string out;
    out.reserve(safe.size());
    for (char ch : safe) {
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += ch;
        }
    }
    return out;
}

std::string html(std::string_view text) {
    std::string out = xml(text);
    for (auto at = out.find("\u00A0"); at != std::string::npos; at = out.find("\u00A0")) {
        out.replace(at, 2, "&nbsp;");
    }
    return out;
}

std::string latex_text(std::string_view text) {
    static constexpr std::array<Glyph, 38> glyphs{{
        {"│", "$|$"},
        {"Σ", "$\\Sigma$"},
        {"−∞", "$-\\infty$"},
        {"∞", "$\\infty$"},
        {"·", "$\\cdot$"},
        {"ᵀ", "$^\\top$"},
        {"√", "$\\surd$"},
        {"×", "$\\times$"},
        {"→", "$\\to$"},
        {"…", "\\dots{}"},
        {"≤", "$\\le$"},
        {"≥", "$\\ge$"},
        {"≈", "$\\approx$"},
        {"−", "$-$"},
        {"′", "$'$"},
        {"ₘ", "$_m$"},
        {"⌊", "$\\lfloor$"},
        {"⌋", "$\\rfloor$"},
        {"\u00A0", "~"},
        {"—", "---"},
        {"–", "--"},
        {"‘", "`"},
        {"’", "'"},
        {"“", "``"},
        {"”", "''"},
        {"⋮", "$\\vdots$"},
        {"∂", "$\\partial$"},
        {"η", "$\\eta$"},
        {"⊙", "$\\odot$"},
        {"←", "$\\leftarrow$"},
        {"²", "$^2$"},
        {"θ", "$\\theta$"},
        {"γ", "$\\gamma$"},
        {"β", "$\\beta$"},
        {"μ", "$\\mu$"},
        {"σ", "$\\sigma$"},
        {"ε", "$\\varepsilon$"},
        {"≠", "$\\neq$"},
    }};
    return replace_glyphs(shown(text), glyphs, [](std::string& out, char ch) {
        switch (ch) {
            case '\\':
                out += "\\textbackslash{}";
                break;
            case '<':
                out += "\\textless{}";
                break;
            case '>':
                out += "\\textgreater{}";
                break;
            case '{':
                out += "\\{";
                break;
            case '}':
                out += "\\}";
                break;
            case '$':
                out += "\\$";
                break;
            case '&':
                out += "\\&";
                break;
            case '#':
                out += "\\#";
                break;
            case '%':
                out += "\\%";
                break;
            case '_':
                out += "\\_";
                break;
            case '^':
                out += "\\^{}";
                break;
            case '~':
                out += "\\~{}";
                break;
            case '-':
                out += "-{}";  // "--seed" stays two hyphens, not an en dash
                break;
            default:
                out += ch;
        }
    });
}

std::string markdown(std::string_view text) {
    std::string s = shown(text);
    for (auto at = s.find("\u00A0"); at != std::string::npos; at = s.find("\u00A0")) {
        s.replace(at, 2, " ");
    }
    std::string out;
    out.reserve(s.size());
    const auto letter = [&s](std::size_t i) {
        return i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])) != 0;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char ch = s[i];
        // emphasis, strikethrough, code, tables, raw HTML, character references, links and
        // images (no "[" opens one), and maths ("$x$" where renderers support it)
        const bool markup = ch == '|' || ch == '*' || ch == '_' || ch == '`' || ch == '\\' ||
                            ch == '<' || ch == '[' || ch == ']' || ch == '~' || ch == '&' ||
                            ch == '$';
        // and the autolinks of renderers that find addresses in plain text (GitHub's,
        // markdown-it's linkify): an escaped character breaks "http://", "e.com", "a@b" (a
        // point between letters: numbers such as 0.25 are left as they are)
        const bool address = (ch == ':' && s.compare(i + 1, 2, "//") == 0) || ch == '@' ||
                             (ch == '.' && i > 0 && letter(i - 1) && letter(i + 1));
        if (markup || address) {
            out += '\\';
        }
        out += ch;
    }
    return out;
}

std::string to_ascii(std::string_view text) {
    static constexpr std::array<Glyph, 34> table{{
        {"θ", "theta"}, {"│", "|"},   {"⌊", "floor("}, {"⌋", ")"},  {"−∞", "-inf"}, {"∞", "inf"},
        {"·", "*"},     {"ᵀ", "^T"},  {"√", "sqrt"},   {"×", "x"},  {"→", "->"},    {"←", "<-"},
        {"…", "..."},   {"⋮", ":"},   {"Σ", "sum "},   {"≤", "<="}, {"≥", ">="},    {"≈", "~"},
        {"−", "-"},     {"—", "--"},  {"–", "-"},      {"′", "'"},  {"ₘ", "_m"},    {"‘", "'"},
        {"’", "'"},     {"“", "\""},  {"”", "\""},     {"━", "="},  {"✓", "[ok]"},  {"✗", "[x]"},
        {"∂", "d"},     {"η", "eta"}, {"⊙", "(.)"},    {"²", "^2"},
    }};
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        bool replaced = false;
        if (static_cast<unsigned char>(text[i]) >= 0x80) {
            for (const auto& [from, to] : table) {
                if (text.substr(i, from.size()) != from) {
                    continue;
                }
                out += to;
                i += from.size();
                replaced = true;
                if (from == "√") {
                    // "√d_k" becomes "sqrt(d_k)" and "√3" "sqrt(3)"; "√(x)" stays "sqrt(x)"
                    std::size_t end = i;
                    while (end < text.size() &&
                           (std::isalnum(static_cast<unsigned char>(text[end])) != 0 ||
                            text[end] == '_' || text[end] == '.')) {
                        ++end;
                    }
                    while (end > i && text[end - 1] == '.') {
                        --end;  // a full stop after "√d_k" ends the sentence
                    }
                    if (end > i) {
                        out += '(';
                        out += text.substr(i, end - i);
                        out += ')';
                        i = end;
                    }
                }
                break;
            }
        }
        if (!replaced) {
            out += text[i];
            ++i;
        }
    }
    return out;
}
}  // namespace attn::toolkit
