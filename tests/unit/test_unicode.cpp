// Unicode beyond Latin: decoding, grapheme clusters and display width (attn/core/utf8.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "attn/core/utf8.hpp"

using attn::utf8::display_width;
using attn::utf8::grapheme_length;

namespace {

// `text` cut into grapheme clusters.
std::vector<std::string> graphemes(std::string_view text) {
    std::vector<std::string> out;
    while (!text.empty()) {
        const auto n = grapheme_length(text);
        REQUIRE(n > 0);
        out.emplace_back(text.substr(0, n));
        text.remove_prefix(n);
    }
    return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("utf8proc gives Unicode 15 or later", "[unicode]") {
    CHECK(std::string(attn::utf8::unicode_version()) >= "15.0.0");
    CHECK_FALSE(attn::utf8::utf8proc_version().empty());
}

TEST_CASE("decode and append agree on every length of sequence", "[unicode]") {
    for (const char32_t cp : {U'A', U'é', U'€', U'𝄞', U'\U0010FFFF'}) {
        std::string s;
        attn::utf8::append(s, cp);
        const auto d = attn::utf8::decode(s);
        REQUIRE(d);
        CHECK(d->code_point == cp);
        CHECK(d->length == s.size());
    }
    CHECK_FALSE(attn::utf8::decode(""));
}

TEST_CASE("invalid UTF-8 is found at the first byte that cannot start a character", "[unicode]") {
    using attn::utf8::first_invalid;
    CHECK_FALSE(first_invalid("plain ASCII, Ελληνικά, 日本語, 🇫🇷"));
    CHECK(first_invalid("ok \xFF bad") == 3U);
    CHECK(first_invalid("\x80") == 0U);               // a stray continuation byte
    CHECK(first_invalid("ab\xC3") == 2U);             // truncated
    CHECK(first_invalid("\xC0\xAF") == 0U);           // overlong "/"
    CHECK(first_invalid("\xE0\x80\xAF") == 0U);       // overlong, three bytes
    CHECK(first_invalid("\xED\xA0\x80") == 0U);       // a UTF-16 surrogate
    CHECK(first_invalid("x\xF4\x90\x80\x80") == 1U);  // above U+10FFFF
    CHECK(first_invalid("€\xE2\x82") == 3U);          // a truncated second €
}

TEST_CASE("grapheme clusters: marks, Indic and Thai vowels stay with their letter", "[unicode]") {
    CHECK(graphemes("e\xCC\x81") == Strings{"e\xCC\x81"});
    CHECK(graphemes("Z\xCD\x91\xCC\xB2!") == Strings{"Z\xCD\x91\xCC\xB2", "!"});
    // Thai: sara i and mai han-akat are marks on the consonant before them
    CHECK(graphemes("สวัสดี") == Strings{"ส", "วั", "ส", "ดี"});
    // Devanagari: the virama and the vowel sign e stay on their consonant; Unicode 15.1
    // also joins a consonant + virama to the consonant after it (a conjunct)
    const auto namaste = graphemes("नमस्ते");
    if (std::string(attn::utf8::unicode_version()) < "15.1") {
        CHECK(namaste == Strings{"न", "म", "स्", "ते"});
    } else {
        CHECK(namaste == Strings{"न", "म", "स्ते"});
    }
    // decomposed Hangul: the jamo of one syllable
    CHECK(graphemes("\u1100\u1161\u11A8\u1100") == Strings{"\u1100\u1161\u11A8", "\u1100"});
    CHECK(graphemes("\r\n") == Strings{"\r\n"});
}

TEST_CASE("grapheme clusters: emoji sequences and flags stay whole", "[unicode]") {
    CHECK(graphemes("👨‍👩‍👧👍🏽") == Strings{"👨‍👩‍👧", "👍🏽"});
    CHECK(graphemes("🧑🏿‍💻❤️‍🔥") == Strings{"🧑🏿‍💻", "❤️‍🔥"});
    // regional indicators pair up in order, so three are a flag and a lone letter
    CHECK(graphemes("🇫🇷🇩🇪") == Strings{"🇫🇷", "🇩🇪"});
    CHECK(graphemes("🇫🇷🇩") == Strings{"🇫🇷", "🇩"});
    // a subdivision flag: black flag, tag letters, cancel tag
    CHECK(graphemes("🏴󠁧󠁢󠁳󠁣󠁴󠁿x") ==
          Strings{"🏴󠁧󠁢󠁳󠁣󠁴󠁿", "x"});
    CHECK(graphemes("1️⃣") == Strings{"1️⃣"});
}

TEST_CASE("grapheme clusters: an invalid byte is a cluster of its own", "[unicode]") {
    CHECK(grapheme_length("") == 0);
    CHECK(grapheme_length("\xFF\xCC\x81") == 1);
    CHECK(grapheme_length("e\xCC\x81\xFF") == 3);
}

TEST_CASE("display width: East Asian wide characters take 2 columns", "[unicode]") {
    CHECK(display_width("東京") == 4);
    CHECK(display_width("日本語です。") == 12);
    CHECK(display_width("한국어") == 6);
    CHECK(display_width("ＡＢ") == 4);    // full-width Latin
    CHECK(display_width("ｶﾞ") == 2);      // half-width katakana and its voiced mark
    CHECK(display_width("\u3000") == 2);  // the ideographic space
    // decomposed Hangul is as wide as the syllable it spells
    CHECK(display_width("\u1100\u1161\u11A8") == display_width("각"));
    CHECK(display_width("각") == 2);
}

TEST_CASE("display width: combining marks and joiners take none", "[unicode]") {
    CHECK(display_width("e\xCC\x81") == 1);
    CHECK(display_width("Z\xCD\x91\xCC\xB2") == 1);
    CHECK(display_width("नमस्ते") == 4);
    CHECK(display_width("สวัสดี") == 4);
    CHECK(display_width("a\u200Db") == 2);
    CHECK(display_width("\u00AD") == 1);  // a soft hyphen may show as a hyphen
}

TEST_CASE("display width: an emoji sequence or a flag is one glyph of 2 columns", "[unicode]") {
    CHECK(display_width("🙂") == 2);
    CHECK(display_width("👨‍👩‍👧") == 2);
    CHECK(display_width("🧑🏿‍💻") == 2);
    CHECK(display_width("❤️‍🔥") == 2);
    CHECK(display_width("👍🏽") == 2);  // a skin tone adds nothing
    CHECK(display_width("🇫🇷") == 2);
    CHECK(display_width("🇫🇷🇩🇪") == 4);
    CHECK(display_width("🏴󠁧󠁢󠁳󠁣󠁴󠁿") == 2);
    CHECK(display_width("❤️") == 2);  // U+FE0F asks for the emoji form
    CHECK(display_width("1️⃣") == 2);
    CHECK(display_width("❤") == 1);  // without it, a text symbol
    CHECK(display_width("❤\uFE0E") == 1);
    CHECK(display_width("🏽") == 2);  // a skin tone on its own shows as a swatch
}

TEST_CASE("display width: ASCII and symbols take 1, an invalid byte 1", "[unicode]") {
    CHECK(display_width("") == 0);
    CHECK(display_width("book") == 4);
    CHECK(display_width("−∞ │ …") == 6);
    CHECK(display_width("a\xFF"
                        "b") == 3);
    CHECK(display_width("\xE2\x82") == 2);
    CHECK(attn::utf8::code_point_width(U'日') == 2);
    CHECK(attn::utf8::code_point_width(U'\u0301') == 0);
    CHECK(attn::utf8::code_point_width(U'a') == 1);
}
