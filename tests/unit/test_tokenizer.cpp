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
