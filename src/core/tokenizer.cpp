#include "attn/core/tokenizer.hpp"

#include <utf8proc.h>

#include <array>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"

namespace attn {
namespace {

// The code points that Unicode's full default lowercase mapping (SpecialCasing.txt) treats
// apart from the simple one-to-one mapping utf8proc_tolower gives: İ is the only character
// whose lowercase is two code points, and Σ depends on its context.
constexpr char32_t capital_i_with_dot = 0x0130;  // İ → i + U+0307
constexpr char32_t combining_dot_above = 0x0307;
constexpr char32_t capital_sigma = 0x03A3;  // Σ → σ, or ς at the end of a word
constexpr char32_t small_final_sigma = 0x03C2;
// VARIATION SELECTOR-16, which asks for a character's emoji form
constexpr std::string_view emoji_presentation = "\uFE0F";

utf8proc_category_t category(char32_t cp) {
    return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

// What a code point is to the words tokenizer.
enum class CharClass { space, word, mark, symbol };

CharClass classify(char32_t cp) {
    const auto c = category(cp);
    if (c == UTF8PROC_CATEGORY_PC) {
        return CharClass::word;  // connector punctuation: '_', as in the regex \w
    }
    if (c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF) {
        return CharClass::space;  // controls; invisible: soft hyphen, zero-width space, BOM, ...
    }
    // and else by the major category: punctuation, symbols, private use and unassigned code
    // points (and surrogates, never here) are symbols
    using utf8::MajorCategory;
    const MajorCategory major = utf8::major_category(cp);
    return major == MajorCategory::letter || major == MajorCategory::number ? CharClass::word
           : major == MajorCategory::mark                                   ? CharClass::mark
           : major == MajorCategory::separator                              ? CharClass::space
                                                                            : CharClass::symbol;
}

// One user-perceived character (an extended grapheme cluster) and what it is to the words
// tokenizer.
struct Cluster {
    std::string_view text;
    CharClass cls;
};

// The clusters of valid UTF-8 `text`, each with the class of its first code point that is
// not white space or a format character. A cluster starts with one of those only when marks
// or joiners follow it (a space with a combining accent on it), which then stand alone
// without the space, or when it is a prepended sign (the Arabic number sign before its
// digits), which stays with the characters it is written before.
std::vector<Cluster> clusters(std::string_view text) {
    std::vector<Cluster> out;
    while (!text.empty()) {
        std::string_view cluster = text.substr(0, utf8::grapheme_length(text));
        text.remove_prefix(cluster.size());
        CharClass cls = CharClass::space;
        std::size_t skipped = 0;
        while (skipped < cluster.size()) {
            const auto d = *utf8::decode(cluster.substr(skipped));
            cls = classify(d.code_point);
            if (cls != CharClass::space) {
                break;
            }
            skipped += d.length;
        }
        if (cls == CharClass::space) {
            out.push_back({cluster, cls});
            continue;
        }
        if (cls == CharClass::mark) {
            // nothing to attach to: the marks stand alone, without the space before them
            cluster.remove_prefix(skipped);
            cls = CharClass::symbol;
        } else if (cluster.find(emoji_presentation) != std::string_view::npos) {
            cls = CharClass::symbol;  // an emoji, even a keycap 1️⃣ that starts with a digit
        }
        out.push_back({cluster, cls});
    }
    return out;
}

bool cased(char32_t cp) {
    const auto c = category(cp);
    return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT;
}

// Unicode's Case_Ignorable, as far as the general category tells it (the property also
// holds the apostrophe, full stop and colon, which attn's word tokens never contain).
bool case_ignorable(char32_t cp) {
    const auto c = category(cp);
    return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
           c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK;
}

// A code point of a text, or a byte that is not UTF-8 (kept as it is).
struct Unit {
    char32_t code_point;
    std::size_t offset;
    bool valid;
};

std::vector<Unit> units(std::string_view text) {
    std::vector<Unit> out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        if (const auto d = utf8::decode(text.substr(i))) {
            out.push_back({d->code_point, i, true});
            i += d->length;
        } else {
            out.push_back({0, i, false});
            ++i;
        }
    }
    return out;
}

// Unicode's Final_Sigma condition for the Σ at `i`: a cased letter before it and none after
// it, skipping case-ignorable code points on both sides.
bool ends_word(const std::vector<Unit>& u, std::size_t i) {
    bool after_letter = false;
    for (std::size_t j = i; j-- > 0;) {
        if (!u[j].valid || !case_ignorable(u[j].code_point)) {
            after_letter = u[j].valid && cased(u[j].code_point);
            break;
        }
    }
    if (!after_letter) {
        return false;
    }
    for (std::size_t j = i + 1; j < u.size(); ++j) {
        if (!u[j].valid || !case_ignorable(u[j].code_point)) {
            return !(u[j].valid && cased(u[j].code_point));
        }
    }
    return true;
}

}  // namespace

std::string to_lower(std::string_view text) {
    const auto u = units(text);
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t i = 0; i < u.size(); ++i) {
        const char32_t cp = u[i].code_point;
        if (!u[i].valid) {
            out += text[u[i].offset];
        } else if (cp == capital_i_with_dot) {
            utf8::append(out, U'i');
            utf8::append(out, combining_dot_above);
        } else if (cp == capital_sigma && ends_word(u, i)) {
            utf8::append(out, small_final_sigma);
        } else {
            utf8::append(
                out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
        }
    }
    return out;
}

std::string fold_case(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto d = utf8::decode(text.substr(i));
        if (!d) {
            out += text[i++];  // not UTF-8: leave the byte as it is
            continue;
        }
        i += d->length;
        // a full case folding is at most three code points (ΐ → ι + U+0308 + U+0301)
        std::array<utf8proc_int32_t, 4> folded{};
        int boundclass = 0;  // used by UTF8PROC_CHARBOUND only
        const utf8proc_ssize_t n = utf8proc_decompose_char(
            static_cast<utf8proc_int32_t>(d->code_point), folded.data(),
            static_cast<utf8proc_ssize_t>(folded.size()), UTF8PROC_CASEFOLD, &boundclass);
        if (n < 0 || static_cast<std::size_t>(n) > folded.size()) {
            utf8::append(out, d->code_point);  // cannot happen with Unicode 15's folding
            continue;
        }
        for (utf8proc_ssize_t k = 0; k < n; ++k) {
            utf8::append(out, static_cast<char32_t>(folded.at(static_cast<std::size_t>(k))));
        }
    }
    return out;
}

std::vector<std::string> tokenize(std::string_view sentence, const TokenizerOptions& options) {
    if (const auto bad = utf8::first_invalid(sentence)) {
        throw errors::invalid_utf8("the sentence", *bad,
                                   static_cast<unsigned char>(sentence[*bad]));
    }
    const std::string lowered = options.lowercase ? to_lower(sentence) : std::string();
    const std::string_view text = options.lowercase ? std::string_view(lowered) : sentence;
    std::vector<std::string> tokens;
    if (options.mode == TokenMode::chars) {
        for (const auto& c : clusters(text)) {
            if (c.cls != CharClass::space) {
                tokens.emplace_back(c.text);
            }
        }
    } else {
        std::string word;
        for (const auto& c : clusters(text)) {
            if (c.cls == CharClass::word) {
                word += c.text;
                continue;
            }
            if (!word.empty()) {
                tokens.push_back(std::move(word));
                word.clear();
            }
            if (c.cls == CharClass::symbol) {
                tokens.emplace_back(c.text);
            }
        }
        if (!word.empty()) {
            tokens.push_back(std::move(word));
        }
    }
    if (tokens.empty()) {
        throw errors::empty_sentence(to_string(options.mode));
    }
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].size() > max_token_bytes) {
            throw Error(
                ErrorKind::input, Field::sentence,
                fmt::format("the sentence's token {} ('{}') is {} bytes long, expected "
                            "at most {}\n  hint: a word that long is no word to show; "
                            "split it with spaces, or use --chars",
                            i, shown(token_preview(tokens[i])), tokens[i].size(), max_token_bytes));
        }
    }
    return tokens;
}

std::string token_preview(std::string_view token) {
    constexpr std::size_t shown_bytes = 24;
    if (token.size() <= shown_bytes) {
        return std::string(token);
    }
    std::size_t n = shown_bytes;
    while (n > 0 && (static_cast<unsigned char>(token[n]) & 0xC0U) == 0x80U) {
        --n;  // not inside a character
    }
    return std::string(token.substr(0, n)) + "…";
}

}  // namespace attn
