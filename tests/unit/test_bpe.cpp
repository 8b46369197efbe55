// GPT-2's byte-level BPE (core/bpe.hpp) on a vocabulary made by hand: the 256 byte tokens
// with id = byte value, and a few merges whose results were worked out by hand below. The
// pre-tokenisation pieces are those of the Python `regex` module with GPT-2's pattern
// (regex 2022.10.31, Debian's python3-regex), checked by hand against the pattern.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "attn/core/bpe.hpp"
#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"
#include "input_error.hpp"

using namespace attn::test;  // error_of

using attn::Bpe;
using attn::BpeMerge;
using Ids = std::vector<std::uint32_t>;
using Pieces = std::vector<std::string_view>;
using Vocabulary = std::vector<std::pair<std::string, std::uint32_t>>;

namespace {

std::string char_of_byte(unsigned b) {
    std::string s;
    attn::utf8::append(s, attn::byte_to_unicode(static_cast<unsigned char>(b)));
    return s;
}

// the 256 byte tokens, id = byte, then the merges' results from 256 on
Vocabulary byte_vocabulary() {
    Vocabulary v;
    for (unsigned b = 0; b < 256; ++b) {
        v.emplace_back(char_of_byte(b), b);
    }
    return v;
}

const std::vector<BpeMerge>& tiny_merges() {
    static const std::vector<BpeMerge> merges{
        {"h", "e"},     // 1 → "he" 256
        {"Ġ", "t"},     // 2 → "Ġt" 257
        {"Ġt", "he"},   // 3 → "Ġthe" 258
        {"a", "a"},     // 4 → "aa" 259
        {"l", "l"},     // 5 → "ll" 260
        {"he", "ll"},   // 6 → "hell" 261
        {"hell", "o"},  // 7 → "hello" 262
        {"Ġ", "Ġ"},     // 8 → "ĠĠ" 263
        {"e", "l"},     // 9 → "el" 264 (ranked after "ll": "hello" never uses it)
    };
    return merges;
}

Bpe tiny() {
    Vocabulary v = byte_vocabulary();
    for (const auto& [text, id] : Vocabulary{{"he", 256},
                                             {"Ġt", 257},
                                             {"Ġthe", 258},
                                             {"aa", 259},
                                             {"ll", 260},
                                             {"hell", 261},
                                             {"hello", 262},
                                             {"ĠĠ", 263},
                                             {"el", 264}}) {
        v.emplace_back(text, id);
    }
    return {v, tiny_merges()};
}

}  // namespace

TEST_CASE("bytes_to_unicode: printable Latin-1 stands for itself, the rest from U+0100", "[bpe]") {
    CHECK(attn::byte_to_unicode('!') == U'!');
    CHECK(attn::byte_to_unicode('~') == U'~');
    CHECK(attn::byte_to_unicode(0xA1) == U'¡');
    CHECK(attn::byte_to_unicode(0xAC) == U'¬');
    CHECK(attn::byte_to_unicode(0xAE) == U'®');
    CHECK(attn::byte_to_unicode(0xFF) == U'ÿ');
    // bytes 0x00-0x20 are U+0100-U+0120, DEL and 0x80-0xA0 follow, the soft hyphen is last
    CHECK(attn::byte_to_unicode(0x00) == 0x100);
    CHECK(attn::byte_to_unicode('\n') == U'Ċ');
    CHECK(attn::byte_to_unicode(' ') == U'Ġ');
    CHECK(attn::byte_to_unicode(0x7F) == 0x121);
    CHECK(attn::byte_to_unicode(0x80) == 0x122);
    CHECK(attn::byte_to_unicode(0xA0) == 0x142);
    CHECK(attn::byte_to_unicode(0xAD) == 0x143);
}

TEST_CASE("pieces: GPT-2's pattern as the Python regex module cuts it", "[bpe]") {
    using attn::gpt2_pieces;
    CHECK(gpt2_pieces("").empty());
    CHECK(gpt2_pieces("I'M don't we'll they're 'tis'") ==
          Pieces{"I", "'", "M", " don", "'t", " we", "'ll", " they", "'re", " '", "tis", "'"});
    // numbers: digits of any script, letter numbers (Ⅷ, Nl)
    CHECK(gpt2_pieces("abc123 4.5e10 ١٢٣ Ⅷx") ==
          Pieces{"abc", "123", " 4", ".", "5", "e", "10", " ١٢٣", " Ⅷ", "x"});
    // runs of white space: all but the last before a word, all of it at the end
    CHECK(gpt2_pieces("a  b") == Pieces{"a", " ", " b"});
    CHECK(gpt2_pieces("a \t b") == Pieces{"a", " \t", " b"});
    CHECK(gpt2_pieces("end \n") == Pieces{"end", " \n"});
    CHECK(gpt2_pieces("   ") == Pieces{"   "});
    CHECK(gpt2_pieces("  !!") == Pieces{" ", " !!"});
    CHECK(gpt2_pieces("\n\nHello") == Pieces{"\n", "\n", "Hello"});
    CHECK(gpt2_pieces(" \n  end  ") == Pieces{" \n ", " end", "  "});
    CHECK(gpt2_pieces("x  hello\t\tworld") == Pieces{"x", " ", " hello", "\t", "\t", "world"});
    // only U+0020 joins the word after it; other white space stands alone
    CHECK(gpt2_pieces("\u3000x") == Pieces{"\u3000", "x"});
    CHECK(gpt2_pieces("x\u00a0y \u00a0z") == Pieces{"x", "\u00a0", "y", " ", "\u00a0", "z"});
    CHECK(gpt2_pieces("x\u2028y\u2029") == Pieces{"x", "\u2028", "y", "\u2029"});
    // \s is White_Space: U+0085 is white space, U+FEFF and U+001C are not
    CHECK(gpt2_pieces("a\u0085b a\ufeffb x\x1cy") ==
          Pieces{"a", "\u0085", "b", " a", "\ufeff", "b", " x", "\x1c", "y"});
    // a combining mark is neither a letter nor a number: it starts a run of punctuation
    CHECK(gpt2_pieces("cafe\u0301!") == Pieces{"cafe", "\u0301!"});
    CHECK(gpt2_pieces("a\u2014b ...?!") == Pieces{"a", "\u2014", "b", " ...?!"});
    CHECK(gpt2_pieces("日本語の  テキスト") == Pieces{"日本語の", " ", " テキスト"});
}

TEST_CASE("pieces: text that is not UTF-8 is an input error naming the byte", "[bpe]") {
    CHECK(error_of([] { (void)attn::gpt2_pieces("ab\xff"); }) ==
          "the text is not valid UTF-8: byte 0xFF at byte offset 2 does not start or continue a "
          "UTF-8 character, expected UTF-8 text\n  hint: convert it first, e.g. with iconv -f "
          "latin1 -t utf-8");
}

TEST_CASE("bpe: merges by rank, worked by hand", "[bpe]") {
    const Bpe bpe = tiny();
    CHECK(bpe.vocabulary_size() == 265);
    CHECK(bpe.merge_count() == 9);
    // "hello": h e l l o → he (1) → ll (5; "el", 9, is ranked later) → hell (6) → hello (7)
    // " the": Ġ t h e → he (1) → Ġt (2) → Ġthe (3)
    CHECK(bpe.encode("hello the") == Ids{262, 258});
    // without the space, "t" has no merge with "he"
    CHECK(bpe.encode("the") == Ids{'t', 256});
    // every occurrence of a pair, from left to right: "aaa" is aa + a, "aaaaa" aa + aa + a
    CHECK(bpe.encode("aaa") == Ids{259, 'a'});
    CHECK(bpe.encode("aaaa") == Ids{259, 259});
    CHECK(bpe.encode("aaaaa") == Ids{259, 259, 'a'});
    // "hel": he (1) first, so "el" (9) never forms
    CHECK(bpe.encode("hel") == Ids{256, 'l'});
    // "xel": no "he", so "el" merges
    CHECK(bpe.encode("xel") == Ids{'x', 264});
    // white space: "   " is one piece, Ġ Ġ Ġ → ĠĠ + Ġ
    CHECK(bpe.encode("   ") == Ids{263, ' '});
    // a contraction and bytes of a two-byte character: é is C3 A9
    CHECK(bpe.encode("it's é") == Ids{'i', 't', '\'', 's', ' ', 0xC3, 0xA9});
    CHECK(bpe.encode("") == Ids{});
}

TEST_CASE("bpe: tokens carry their vocabulary text, bytes, display form and offset", "[bpe]") {
    const Bpe bpe = tiny();
    const auto tokens = bpe.tokenize("hello the\n\xF0\x9F\x99\x82");
    REQUIRE(tokens.size() == 7);
    CHECK(tokens[0].text == "hello");
    CHECK(tokens[0].bytes == "hello");
    CHECK(tokens[0].offset == 0);
    CHECK_FALSE(tokens[0].leading_space);
    CHECK(tokens[1].id == 258);
    CHECK(tokens[1].text == "Ġthe");
    CHECK(tokens[1].bytes == " the");
    CHECK(tokens[1].display == "␣the");
    CHECK(tokens[1].offset == 5);
    CHECK(tokens[1].leading_space);
    CHECK(tokens[2].text == "Ċ");
    CHECK(tokens[2].display == "\\n");
    CHECK(tokens[2].offset == 9);
    // 🙂 is four bytes without merges: each token is part of a character
    CHECK(tokens[3].text == "ð");
    CHECK(tokens[3].display == "\\xf0");
    CHECK(tokens[4].text == "Ł");  // 0x9F is not printable: U+0100 + 33 + 1 + 31
    CHECK(tokens[6].offset == 13);
    CHECK(bpe.decode({262, 258, 10, 0xF0, 0x9F, 0x99, 0x82}) == "hello the\n\xF0\x9F\x99\x82");
    CHECK(bpe.token_text(263) == "ĠĠ");
}

TEST_CASE("bpe: a text longer than the context is an error naming the token past it", "[bpe]") {
    const Bpe bpe = tiny();
    CHECK(bpe.encode("hello the aa", 4) == Ids{262, 258, ' ', 259});
    CHECK(error_of([&] { (void)bpe.encode("hello the aa", 2); }) ==
          "the text is 4 tokens long, expected at most 2 (the model's context, n_ctx): token 3, "
          "\"␣\", starts at byte 9");
    CHECK(error_of([&] { (void)bpe.tokenize("aaaaa", 1); }) ==
          "the text is 3 tokens long, expected at most 1 (the model's context, n_ctx): token 2, "
          "\"aa\", starts at byte 2");
}

TEST_CASE("bpe: a bad vocabulary or merges list is an input error", "[bpe]") {
    Vocabulary v = byte_vocabulary();
    CHECK(error_of([&] {
              Vocabulary w = v;
              w.erase(w.begin() + ' ');
              Bpe{w, {}};
          }) ==
          "the vocabulary has no token for the byte 0x20 (written \"Ġ\"), expected one for "
          "each of the 256 bytes (GPT-2's byte-level BPE)");
    CHECK(error_of([&] {
              Vocabulary w = v;
              w.emplace_back("he", 65);
              Bpe{w, {}};
          }) ==
          "the vocabulary gives the id 65 to both \"A\" and \"he\", expected one token per id");
    CHECK(error_of([&] {
              Vocabulary w = v;
              w.emplace_back("A", 300);
              Bpe{w, {}};
          }) ==
          "the vocabulary has the token \"A\" twice (ids 65 and 300), expected each token "
          "once");
    CHECK(error_of([&] {
              Vocabulary w = v;
              w.emplace_back("he", 1U << 20U);
              Bpe{w, {}};
          }) == "the vocabulary gives \"he\" the id 1048576, expected at most 1048575");
    CHECK(error_of([&] {
              Bpe{v, {{"h", "e"}}};
          }) ==
          "merge 1 (\"h\" + \"e\"): the merged token \"he\" is not in the vocabulary, expected "
          "every merge to join two tokens into a token");
    v.emplace_back("he", 256);
    CHECK(error_of([&] {
              Bpe{v, {{"h", "e"}, {"hx", "e"}}};
          }) ==
          "merge 2 (\"hx\" + \"e\"): the left part \"hx\" is not in the vocabulary, expected "
          "every merge to join two tokens into a token");
    CHECK(error_of([&] {
              Bpe{v, {{"h", "e"}, {"h", "e"}}};
          }) == "merge 2 (\"h\" + \"e\") repeats merge 1, expected each pair once");
    const Bpe ok(v, {{"h", "e"}});
    CHECK(error_of([&] { (void)ok.token_text(257); }) ==
          "the token id 257 is not in the vocabulary, expected one of its 257 ids");
    v.emplace_back("€", 257);  // U+20AC: no byte is written so
    const Bpe euro(v, {{"h", "e"}});
    CHECK(euro.decode({256}) == "he");
    CHECK(error_of([&] { (void)euro.decode({257}); }) ==
          "the token \"€\" (id 257) has a character that stands for no byte, expected the "
          "characters of bytes_to_unicode only (a byte-level vocabulary)");
}

TEST_CASE("bpe: a word of 200,001 letters without a space: pairs from the left", "[bpe]") {
    // 200,000 letters without a space: encoder.py's algorithm is quadratic in the length of
    // a piece; the heap makes this take milliseconds. The result follows by hand: aa pairs.
    const Bpe bpe = tiny();
    const std::string word(200001, 'a');
    const auto ids = bpe.encode(word);
    REQUIRE(ids.size() == 100001);
    CHECK(ids.front() == 259);
    CHECK(ids[99999] == 259);
    CHECK(ids.back() == 'a');
}
