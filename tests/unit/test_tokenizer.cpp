#include <catch2/catch.hpp>

#include "attn/core/error.hpp"
#include "attn/core/tokenizer.hpp"
#include "attn/core/utf8.hpp"

using attn::tokenize;
using attn::TokenizerOptions;
using attn::TokenMode;
using Tokens = std::vector<std::string>;

TEST_CASE("words: words and punctuation are separate tokens", "[tokenizer]") {
    CHECK(tokenize("This is book", {}) == Tokens{"This", "is", "book"});
    CHECK(tokenize("Hello, world!", {}) == Tokens{"Hello", ",", "world", "!"});
    CHECK(tokenize("  spaced\tout\n", {}) == Tokens{"spaced", "out"});
    CHECK(tokenize("don't stop...", {}) == Tokens{"don", "'", "t", "stop", ".", ".", "."});
    CHECK(tokenize("snake_case 42x", {}) == Tokens{"snake_case", "42x"});
    CHECK(tokenize("(a+b)", {}) == Tokens{"(", "a", "+", "b", ")"});
}

TEST_CASE("words: UTF-8 letters stay in their word, never split", "[tokenizer]") {
    CHECK(tokenize("Καλημέρα κόσμε!", {}) == Tokens{"Καλημέρα", "κόσμε", "!"});
    CHECK(tokenize("naïve café", {}) == Tokens{"naïve", "café"});
    // a decomposed é (e + U+0301) stays one word
    CHECK(tokenize("cafe\xCC\x81 ok", {}) == Tokens{"cafe\xCC\x81", "ok"});
    CHECK(tokenize("日本語です。", {}) == Tokens{"日本語です", "。"});
    CHECK(tokenize("«quoted»", {}) == Tokens{"«", "quoted", "»"});
}

TEST_CASE("words: emoji are symbol tokens and keep their modifiers", "[tokenizer]") {
    CHECK(tokenize("I ❤️ cats🐈", {}) == Tokens{"I", "❤️", "cats", "🐈"});
    // skin tone modifier, ZWJ family, flag of two regional indicators
    CHECK(tokenize("👍🏽", {}) == Tokens{"👍🏽"});
    CHECK(tokenize("👩‍💻 rocks", {}) == Tokens{"👩‍💻", "rocks"});
    CHECK(tokenize("🇬🇷🇫🇷", {}) == Tokens{"🇬🇷", "🇫🇷"});
}

TEST_CASE("lowercase folds ASCII, Latin-1, Greek and Cyrillic", "[tokenizer]") {
    TokenizerOptions lower;
    lower.lowercase = true;
    CHECK(tokenize("The cat sat on THE mat", lower) ==
          Tokens{"the", "cat", "sat", "on", "the", "mat"});
    CHECK(tokenize("ÉCOLE Ωμέγα Άλφα МОСКВА", lower) == Tokens{"école", "ωμέγα", "άλφα", "москва"});
    CHECK(tokenize("Straße ß", lower) == Tokens{"straße", "ß"});
}

TEST_CASE("chars: one token per character, spaces dropped", "[tokenizer]") {
    TokenizerOptions chars;
    chars.mode = TokenMode::chars;
    CHECK(tokenize("This is", chars) == Tokens{"T", "h", "i", "s", "i", "s"});
    CHECK(tokenize("αβ γ", chars) == Tokens{"α", "β", "γ"});
    CHECK(tokenize("e\xCC\x81!", chars) == Tokens{"e\xCC\x81", "!"});
    CHECK(tokenize("a👩‍💻b", chars) == Tokens{"a", "👩‍💻", "b"});
    chars.lowercase = true;
    CHECK(tokenize("AbΓ", chars) == Tokens{"a", "b", "γ"});
}

TEST_CASE("an empty sentence is an input error", "[tokenizer]") {
    for (const char* s : {"", "   ", "\t\n"}) {
        INFO("sentence: '" << s << "'");
        try {
            (void)tokenize(s, {});
            FAIL("no error");
        } catch (const attn::Error& e) {
            CHECK(e.kind() == attn::ErrorKind::input);
            CHECK(e.exit_code() == 2);
            CHECK_THAT(e.what(), Catch::Contains("the sentence has no tokens"));
        }
    }
}

TEST_CASE("invalid UTF-8 is an input error naming the byte and its offset", "[tokenizer]") {
    try {
        (void)tokenize("ok \xFF bad", {});
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK_THAT(e.what(), Catch::Contains("not valid UTF-8") && Catch::Contains("0xFF") &&
                                 Catch::Contains("byte offset 3"));
    }
    // overlong "/" and a lone surrogate are rejected too
    CHECK_THROWS_AS(tokenize("\xC0\xAF", {}), attn::Error);
    CHECK_THROWS_AS(tokenize("\xED\xA0\x80", {}), attn::Error);
    CHECK_THROWS_AS(tokenize("truncated \xE2\x82", {}), attn::Error);
}

TEST_CASE("display width counts wide characters twice and marks not at all", "[utf8]") {
    CHECK(attn::utf8::display_width("book") == 4);
    CHECK(attn::utf8::display_width("日本") == 4);
    CHECK(attn::utf8::display_width("e\xCC\x81") == 1);
    CHECK(attn::utf8::display_width("👩‍💻") == 2);
    CHECK(attn::utf8::display_width("−∞") == 2);
}

namespace {

TokenizerOptions chars_mode(bool lowercase = false) {
    TokenizerOptions o;
    o.mode = TokenMode::chars;
    o.lowercase = lowercase;
    return o;
}

TokenizerOptions lowercased() {
    TokenizerOptions o;
    o.lowercase = true;
    return o;
}

bool starts_with_mark(const std::string& token) {
    // the Devanagari virama, vowel sign e, and the Thai vowels and tone marks of the tests
    for (const char* mark : {"\u094D", "\u0947", "\u0E31", "\u0E35", "\u0E49", "\u0301"}) {
        if (token.rfind(mark, 0) == 0) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("chars: Devanagari keeps its virama and vowel signs on their consonant",
          "[tokenizer][unicode]") {
    const auto tokens = tokenize("नमस्ते", chars_mode());
    for (const auto& t : tokens) {
        INFO("token: " << t);
        CHECK(t != "\u094D");  // no lone virama
        CHECK_FALSE(starts_with_mark(t));
    }
    if (std::string(attn::utf8::unicode_version()) < "15.1") {
        CHECK(tokens == Tokens{"न", "म", "स्", "ते"});
    } else {
        CHECK(tokens == Tokens{"न", "म", "स्ते"});  // Unicode 15.1 joins the conjunct
    }
    CHECK(tokenize("नमस्ते दुनिया", {}) == Tokens{"नमस्ते", "दुनिया"});
    CHECK(tokenize("हिन्दी।", {}) == Tokens{"हिन्दी", "।"});  // the danda is punctuation
}

TEST_CASE("chars: Thai keeps its vowels and tone marks on their consonant",
          "[tokenizer][unicode]") {
    CHECK(tokenize("สวัสดี", chars_mode()) == Tokens{"ส", "วั", "ส", "ดี"});
    // sara am is a spacing mark in the grapheme rules: "water" is one character
    CHECK(tokenize("น้ำ", chars_mode()) == Tokens{"น้ำ"});
    CHECK(tokenize("เก่ง", chars_mode()) == Tokens{"เ", "ก่", "ง"});  // sara e comes first
    CHECK(tokenize("สวัสดี ครับ", {}) == Tokens{"สวัสดี", "ครับ"});
}

TEST_CASE("words: letters, marks and numbers of every script make words", "[tokenizer][unicode]") {
    CHECK(tokenize("x² ½ ٣٤٥ Ⅻ", {}) == Tokens{"x²", "½", "٣٤٥", "Ⅻ"});
    CHECK(tokenize("مرحبا بالعالم", {}) == Tokens{"مرحبا", "بالعالم"});
    CHECK(tokenize("שָׁלוֹם", {}) == Tokens{"שָׁלוֹם"});  // Hebrew points are marks
    CHECK(tokenize("한국어 東京", {}) == Tokens{"한국어", "東京"});
    // connector punctuation joins words, as '_' does
    CHECK(tokenize("a＿b a_b", {}) == Tokens{"a＿b", "a_b"});
}

TEST_CASE("words: punctuation and symbols of every script are tokens of their own",
          "[tokenizer][unicode]") {
    CHECK(tokenize("¿Qué? ¡Sí!", {}) == Tokens{"¿", "Qué", "?", "¡", "Sí", "!"});
    CHECK(tokenize("5€ 3×4 a·b", {}) == Tokens{"5", "€", "3", "×", "4", "a", "·", "b"});
    CHECK(tokenize("「東京」", {}) == Tokens{"「", "東京", "」"});
    CHECK(tokenize("a\uE000b", {}) == Tokens{"a", "\uE000", "b"});  // private use
}

TEST_CASE("words: every separator, control and format character separates tokens",
          "[tokenizer][unicode]") {
    // no-break, em and ideographic spaces, line separator, NEL
    CHECK(tokenize("a\u00A0b\u2003c\u3000d\u2028e\u0085f", {}) ==
          Tokens{"a", "b", "c", "d", "e", "f"});
    // zero-width space, byte order mark, soft hyphen: invisible, never inside a token
    CHECK(tokenize("\uFEFFa\u200Bb c\u00ADd", {}) == Tokens{"a", "b", "c", "d"});
    CHECK_THROWS_AS(tokenize("\u200B\uFEFF\u2060", {}), attn::Error);
    // but a prepended format character stays with what it is written before: the Arabic
    // number sign and its digits are one character
    CHECK(tokenize("\u0600\u0661\u0662 x", chars_mode()) == Tokens{"\u0600\u0661", "\u0662", "x"});
    CHECK(tokenize("\u0600\u0661\u0662 x", {}) == Tokens{"\u0600\u0661\u0662", "x"});
}

TEST_CASE("a combining mark with no character before it is a token of its own",
          "[tokenizer][unicode]") {
    CHECK(tokenize("\u0301a", {}) == Tokens{"\u0301", "a"});
    CHECK(tokenize("a \u0301b", {}) == Tokens{"a", "\u0301", "b"});
    CHECK(tokenize("a \u0301b", chars_mode()) == Tokens{"a", "\u0301", "b"});
    // but after a letter it continues the word: Z with two marks, and decomposed é
    CHECK(tokenize("Z\u0351\u0332oé", {}) == Tokens{"Z\u0351\u0332oé"});
    CHECK(tokenize("Z\u0351\u0332o", chars_mode()) == Tokens{"Z\u0351\u0332", "o"});
}

TEST_CASE("emoji: ZWJ sequences, skin tones, keycaps and flags are one token each",
          "[tokenizer][unicode]") {
    CHECK(tokenize("👨‍👩‍👧", {}) == Tokens{"👨‍👩‍👧"});
    CHECK(tokenize("our 👨‍👩‍👧 family", chars_mode()).at(3) == "👨‍👩‍👧");
    CHECK(tokenize("hi👋🏿there 👍🏻", {}) ==
          Tokens{"hi", "👋🏿", "there", "👍🏻"});
    CHECK(tokenize("👋🏿👋🏻", chars_mode()) == Tokens{"👋🏿", "👋🏻"});
    CHECK(tokenize("🧑🏽‍💻❤️‍🔥", {}) ==
          Tokens{"🧑🏽‍💻", "❤️‍🔥"});
    CHECK(tokenize("🇫🇷🇩🇪", {}) == Tokens{"🇫🇷", "🇩🇪"});
    CHECK(tokenize("🇫🇷🇩🇪", chars_mode()) == Tokens{"🇫🇷", "🇩🇪"});
    CHECK(tokenize("🏴󠁧󠁢󠁳󠁣󠁴󠁿!", {}) ==
          Tokens{"🏴󠁧󠁢󠁳󠁣󠁴󠁿", "!"});
    // a keycap is an emoji even though it starts with a digit
    CHECK(tokenize("a1️⃣2", {}) == Tokens{"a", "1️⃣", "2"});
}

TEST_CASE("lowercase: Turkish letters follow Unicode's default mappings", "[tokenizer][unicode]") {
    CHECK(tokenize("ÇAĞ", lowercased()) == Tokens{"çağ"});
    // İ becomes i + U+0307 (so that it stays canonically the same letter), I becomes i and
    // ı stays ı: the mappings of every locale, not Turkish ones
    CHECK(tokenize("İSTANBUL IĞDIR ılık", lowercased()) ==
          Tokens{"i\u0307stanbul", "iğdir", "ılık"});
    CHECK(attn::to_lower("İ") == "i\u0307");
    CHECK(tokenize("İ", chars_mode(true)) == Tokens{"i\u0307"});  // one character still
}

TEST_CASE("lowercase: Greek capital sigma ends a word as ς", "[tokenizer][unicode]") {
    using attn::to_lower;
    CHECK(to_lower("ΟΔΟΣ") == "οδος");
    CHECK(tokenize("ΟΔΟΣ ΣΑΣ, ΣΟΦΙΑ.", lowercased()) == Tokens{"οδος", "σας", ",", "σοφια", "."});
    CHECK(tokenize("ΟΔΟΣ", chars_mode(true)) == Tokens{"ο", "δ", "ο", "ς"});
    CHECK(to_lower("Σ") == "σ");                // no letter before it: not the end of a word
    CHECK(to_lower("ΑΣ\u0301") == "ας\u0301");  // marks after it do not count
    CHECK(to_lower("ΑΣ\u0301Β") == "ασ\u0301β");
    CHECK(to_lower("ΣΣ") == "σς");
    // Unicode also skips a full stop (it is case-ignorable) and says ασ.β; attn's words
    // tokenizer ends the word there, and so does its rule (docs/design.md, Unicode)
    CHECK(to_lower("ΑΣ.Β") == "ας.β");
    CHECK(to_lower("Ἀθῆναι ΚΌΣΜΟΣ") == "ἀθῆναι κόσμος");
    CHECK(to_lower("ΣA\xFF") == "σa\xFF");  // bytes that are not UTF-8 are kept
}

TEST_CASE("fold_case: Unicode case folding, for case-insensitive lookup", "[tokenizer][unicode]") {
    using attn::fold_case;
    CHECK(fold_case("ΟΔΟΣ") == "οδοσ");
    CHECK(fold_case("οδος") == "οδοσ");
    CHECK(fold_case("οδοσ") == "οδοσ");
    CHECK(fold_case("Straße") == "strasse");
    CHECK(fold_case("STRASSE") == "strasse");
    CHECK(fold_case("ÇAĞ") == "çağ");
    CHECK(fold_case("ǅ") == "ǆ");
    CHECK(fold_case("ΐ") == "ι\u0308\u0301");
    // Turkish: the default folding, so I and i match, and ı matches only itself
    CHECK(fold_case("I") == "i");
    CHECK(fold_case("İ") == "i\u0307");
    CHECK(fold_case("ı") == "ı");
    CHECK(fold_case("A\xFF") == "a\xFF");
    // folding what --lowercase gives is folding the original
    for (const char* s : {"İSTANBUL", "ΟΔΟΣ ΣΑΣ", "Straße", "ǄEMAL", "МОСКВА", "ÉCOLE"}) {
        INFO(s);
        CHECK(fold_case(attn::to_lower(s)) == fold_case(s));
    }
}
