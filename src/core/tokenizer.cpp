#include "attn/core/tokenizer.hpp"

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"

namespace attn {
namespace {

enum class CharClass { space, word, symbol, extend };

bool is_space(char32_t cp) {
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

// Code points that extend the character before them instead of starting a new one.
bool is_extend(char32_t cp) {
    return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x0483 && cp <= 0x0489) ||
           (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x1DC0 && cp <= 0x1DFF) ||
           (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
           (cp >= 0xFE20 && cp <= 0xFE2F) || (cp >= 0x1F3FB && cp <= 0x1F3FF) ||
           (cp >= 0xE0020 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF) || cp == 0x200D;
}

bool is_symbol(char32_t cp) {
    if (cp < 0x80) {
        // ASCII punctuation and symbols; '_' counts as a word character, as in regex \w
        return cp != '_' && ((cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x40) ||
                             (cp >= 0x5B && cp <= 0x60) || (cp >= 0x7B && cp <= 0x7E));
    }
    return (cp >= 0xA1 && cp <= 0xBF && cp != 0xAA && cp != 0xB2 && cp != 0xB3 && cp != 0xB5 &&
            cp != 0xB9 && cp != 0xBA && cp != 0xBC && cp != 0xBD && cp != 0xBE) ||
           cp == 0xD7 || cp == 0xF7 || cp == 0x037E || cp == 0x0387 ||
           (cp >= 0x055A && cp <= 0x055F) || cp == 0x0589 || cp == 0x060C || cp == 0x061F ||
           cp == 0x06D4 || cp == 0x0964 || cp == 0x0965 || (cp >= 0x2010 && cp <= 0x2027) ||
           (cp >= 0x2030 && cp <= 0x205E) || (cp >= 0x20A0 && cp <= 0x20CF) ||
           (cp >= 0x2100 && cp <= 0x214F) || (cp >= 0x2190 && cp <= 0x2BFF) ||
           (cp >= 0x2E00 && cp <= 0x2E7F) || (cp >= 0x3001 && cp <= 0x3003) ||
           (cp >= 0x3008 && cp <= 0x3011) || (cp >= 0x3014 && cp <= 0x301F) ||
           (cp >= 0xFE10 && cp <= 0xFE19) || (cp >= 0xFE30 && cp <= 0xFE6F) ||
           (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
           (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65) ||
           (cp >= 0x1F000 && cp <= 0x1FAFF);
}

CharClass classify(char32_t cp) {
    if (is_space(cp)) {
        return CharClass::space;
    }
    if (is_extend(cp)) {
        return CharClass::extend;
    }
    if (is_symbol(cp)) {
        return CharClass::symbol;
    }
    return CharClass::word;
}

bool is_regional_indicator(char32_t cp) {
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

char32_t to_lower(char32_t cp) {
    if (cp >= 'A' && cp <= 'Z') {
        return cp + 32;
    }
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) {
        return cp + 32;  // Latin-1 capitals
    }
    if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) {
        return cp + 32;  // Greek capitals
    }
    if (cp >= 0x388 && cp <= 0x38A) {
        return cp + 37;  // Greek capitals with tonos: Έ Ή Ί
    }
    if (cp == 0x386) {
        return 0x3AC;
    }
    if (cp == 0x38C) {
        return 0x3CC;
    }
    if (cp == 0x38E || cp == 0x38F) {
        return cp + 63;
    }
    if (cp >= 0x410 && cp <= 0x42F) {
        return cp + 32;  // Cyrillic capitals
    }
    if (cp >= 0x400 && cp <= 0x40F) {
        return cp + 80;  // Cyrillic Ѐ..Џ
    }
    return cp;
}

// One user-perceived character: a base code point and what extends it.
struct Cluster {
    std::string text;
    CharClass cls;
};

std::vector<Cluster> clusters(std::string_view sentence, bool lowercase) {
    if (const auto bad = utf8::first_invalid(sentence)) {
        throw errors::invalid_utf8("the sentence", *bad,
                                   static_cast<unsigned char>(sentence[*bad]));
    }
    std::vector<Cluster> out;
    bool join_next = false;  // after a zero-width joiner the next code point joins too
    std::size_t i = 0;
    while (i < sentence.size()) {
        const auto d = *utf8::decode(sentence.substr(i));
        i += d.length;
        char32_t cp = lowercase ? to_lower(d.code_point) : d.code_point;
        CharClass cls = classify(cp);
        const bool joins = !out.empty() && out.back().cls != CharClass::space &&
                           (cls == CharClass::extend || join_next ||
                            (is_regional_indicator(cp) && out.back().text.size() == 4 &&
                             is_regional_indicator(utf8::decode(out.back().text)->code_point)));
        join_next = cp == 0x200D;
        if (joins) {
            utf8::append(out.back().text, cp);
            continue;
        }
        if (cls == CharClass::extend) {
            cls = CharClass::symbol;  // a mark with nothing to attach to stands alone
        }
        Cluster c{{}, cls};
        utf8::append(c.text, cp);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

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
        utf8::append(out, to_lower(d->code_point));
        i += d->length;
    }
    return out;
}

std::vector<std::string> tokenize(std::string_view sentence, const TokenizerOptions& options) {
    std::vector<std::string> tokens;
    const auto chars = clusters(sentence, options.lowercase);
    if (options.mode == TokenMode::chars) {
        for (const auto& c : chars) {
            if (c.cls != CharClass::space) {
                tokens.push_back(c.text);
            }
        }
    } else {
        std::string word;
        for (const auto& c : chars) {
            if (c.cls == CharClass::word) {
                word += c.text;
                continue;
            }
            if (!word.empty()) {
                tokens.push_back(std::move(word));
                word.clear();
            }
            if (c.cls == CharClass::symbol) {
                tokens.push_back(c.text);
            }
        }
        if (!word.empty()) {
            tokens.push_back(std::move(word));
        }
    }
    if (tokens.empty()) {
        throw errors::empty_sentence(to_string(options.mode));
    }
    return tokens;
}

}  // namespace attn
