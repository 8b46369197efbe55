// GPT-2's byte-level BPE (OpenAI's gpt-2 encoder.py): pre-tokenisation, bytes_to_unicode and
// the merges by rank.
//
// Why a scanner written by hand, not a regex library: GPT-2's pattern needs \p{L} and \p{N}
// (Unicode letter and number categories), Unicode white space and a negative look-ahead,
// `\s+(?!\S)`. std::regex has none of the Unicode classes and no look-ahead on code points;
// PCRE2 or ICU would bring a second set of Unicode tables (attn's come from utf8proc, so the
// tokenizer and the display widths would disagree when the two libraries' Unicode versions
// differ) and a dependency of the core for one pattern. The pattern is seven alternatives
// whose matches are easy to state on code points (gpt2_pieces below), and the oracle test
// (tests/oracles) checks the scanner against GPT-2's JavaScript port on thousands of texts.
#include "attn/core/bpe.hpp"

#include <algorithm>
#include <array>
#include <queue>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"

namespace attn {
namespace {

// What GPT-2's pattern tells apart: \p{L}, \p{N}, \s and everything else.
enum class Class : std::uint8_t { letter, number, space, other };

// \s of the Python `regex` module that GPT-2 uses is Unicode's White_Space property: the
// categories Zs, Zl and Zp, and the controls U+0009 to U+000D and U+0085 (NEXT LINE).
// utf8proc has the categories but not White_Space, so the controls are listed here. (This is
// not JavaScript's \s, which also takes U+FEFF and not U+0085, nor Python re's, which also
// takes U+001C to U+001F.)
Class classify(char32_t cp) noexcept {
    if ((cp >= 0x09 && cp <= 0x0D) || cp == 0x85) {
        return Class::space;
    }
    using utf8::MajorCategory;
    const MajorCategory major = utf8::major_category(cp);
    return major == MajorCategory::letter      ? Class::letter
           : major == MajorCategory::number    ? Class::number
           : major == MajorCategory::separator ? Class::space
                                               : Class::other;
}

struct CodePoint {
    char32_t cp;
    std::size_t offset;  // byte offset in the text
    Class cls;
};

std::vector<CodePoint> decode_all(std::string_view text) {
    std::vector<CodePoint> out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto d = utf8::decode(text.substr(i));
        if (!d) {
            throw errors::invalid_utf8("the text", i, static_cast<unsigned char>(text[i]));
        }
        out.push_back({d->code_point, i, classify(d->code_point)});
        i += d->length;
    }
    return out;
}

// The length of a contraction ('s 't 're 've 'm 'll 'd, lowercase ASCII only, as in the
// pattern) starting at cps[i], or 0.
std::size_t contraction(const std::vector<CodePoint>& cps, std::size_t i) {
    const auto at = [&](std::size_t k) { return k < cps.size() ? cps[k].cp : U'\0'; };
    if (at(i) != U'\'') {
        return 0;
    }
    const char32_t a = at(i + 1);
    if (a == U's' || a == U't' || a == U'm' || a == U'd') {
        return 2;
    }
    const char32_t b = at(i + 2);
    if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) {
        return 3;
    }
    return 0;
}

// The end of the run of code points of class `cls` that starts at i.
std::size_t run_end(const std::vector<CodePoint>& cps, std::size_t i, Class cls) {
    while (i < cps.size() && cps[i].cls == cls) {
        ++i;
    }
    return i;
}

// The end (a code point index) of the piece that starts at cps[i]: the first alternative of
// the pattern that matches there, as a backtracking regex engine finds it.
std::size_t piece_end(const std::vector<CodePoint>& cps, std::size_t i) {
    if (const std::size_t n = contraction(cps, i); n > 0) {
        return i + n;  // 's|'t|'re|'ve|'m|'ll|'d
    }
    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: the optional space is U+0020 only, and
    // the classes do not overlap, so the class after the space (or of the first code point)
    // decides which alternative matches
    if (cps[i].cp == U' ' && i + 1 < cps.size() && cps[i + 1].cls != Class::space) {
        return run_end(cps, i + 1, cps[i + 1].cls);
    }
    if (cps[i].cls != Class::space) {
        return run_end(cps, i, cps[i].cls);
    }
    // `\s+(?!\S)`: the longest run of white space that is not followed by a non-space; at the
    // end of the text that is the whole run, before a non-space the run less its last code
    // point (which then starts the next piece, e.g. " word"). A single white space before a
    // non-space fails it, and `\s+` takes that one alone.
    const std::size_t end = run_end(cps, i, Class::space);
    if (end == cps.size() || end - i == 1) {
        return end;
    }
    return end - 1;
}

std::string display_of(std::string_view bytes) {
    std::string out;
    std::size_t i = 0;
    while (i < bytes.size()) {
        const auto d = utf8::decode(bytes.substr(i));
        if (!d) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(bytes[i]));
            ++i;
        } else if (d->code_point == U' ') {
            out += "\u2423";  // OPEN BOX: a visible space
            ++i;
        } else {
            out += shown(bytes.substr(i, d->length));
            i += d->length;
        }
    }
    return out;
}

}  // namespace

char32_t byte_to_unicode(unsigned char byte) noexcept {
    // printable Latin-1 stands for itself: '!'..'~', '¡'..'¬', '®'..'ÿ'
    const auto printable = [](unsigned b) {
        return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    };
    if (printable(byte)) {
        return byte;
    }
    // the others are U+0100, U+0101, ... in the order of the bytes
    char32_t n = 0;
    for (unsigned b = 0; b < byte; ++b) {
        n += printable(b) ? 0U : 1U;
    }
    return 0x100 + n;
}

std::vector<std::string_view> gpt2_pieces(std::string_view text) {
    const auto cps = decode_all(text);
    std::vector<std::string_view> pieces;
    for (std::size_t i = 0; i < cps.size();) {
        const std::size_t end = piece_end(cps, i);
        const std::size_t from = cps[i].offset;
        const std::size_t to = end < cps.size() ? cps[end].offset : text.size();
        pieces.push_back(text.substr(from, to - from));
        i = end;
    }
    return pieces;
}

Bpe::Bpe(const std::vector<std::pair<std::string, std::uint32_t>>& vocabulary,
         const std::vector<BpeMerge>& merges) {
    std::uint32_t largest = 0;
    for (const auto& [text, id] : vocabulary) {
        if (id > max_token_id) {
            throw Error(ErrorKind::input,
                        fmt::format("the vocabulary gives \"{}\" the id {}, expected at most {}",
                                    shown(text), id, max_token_id));
        }
        largest = std::max(largest, id);
    }
    texts_.resize(vocabulary.empty() ? 0 : std::size_t{largest} + 1);
    used_.resize(texts_.size(), false);
    for (const auto& [text, id] : vocabulary) {
        if (used_[id]) {
            throw Error(ErrorKind::input,
                        fmt::format("the vocabulary gives the id {} to both \"{}\" and \"{}\", "
                                    "expected one token per id",
                                    id, shown(texts_[id]), shown(text)));
        }
        if (!ids_.emplace(text, id).second) {
            throw Error(ErrorKind::input,
                        fmt::format("the vocabulary has the token \"{}\" twice (ids {} and {}), "
                                    "expected each token once",
                                    shown(text), ids_.at(text), id));
        }
        texts_[id] = text;
        used_[id] = true;
    }
    // the id of a token the vocabulary must have; `missing` says which and why when it has not
    const auto must_have = [&](const std::string& text, const auto& missing) {
        const auto it = ids_.find(text);
        if (it == ids_.end()) {
            throw Error(ErrorKind::input, missing());
        }
        return it->second;
    };
    byte_ids_.resize(256);
    for (unsigned b = 0; b < 256; ++b) {
        std::string text;
        utf8::append(text, byte_to_unicode(static_cast<unsigned char>(b)));
        byte_ids_[b] = must_have(text, [&] {
            return fmt::format(
                "the vocabulary has no token for the byte 0x{:02X} (written "
                "\"{}\"), expected one for each of the 256 bytes (GPT-2's "
                "byte-level BPE)",
                b, text);
        });
    }
    const auto id_of = [&](const std::string& symbol, std::size_t rank, const BpeMerge& m,
                           std::string_view what) {
        return must_have(symbol, [&] {
            return fmt::format(
                "merge {} (\"{}\" + \"{}\"): {} \"{}\" is not in the "
                "vocabulary, expected every merge to join two tokens into a token",
                rank + 1, shown(m.left), shown(m.right), what, shown(symbol));
        });
    };
    merges_.reserve(merges.size());
    for (std::size_t rank = 0; rank < merges.size(); ++rank) {
        const BpeMerge& m = merges[rank];
        const std::uint32_t left = id_of(m.left, rank, m, "the left part");
        const std::uint32_t right = id_of(m.right, rank, m, "the right part");
        const std::uint32_t result = id_of(m.left + m.right, rank, m, "the merged token");
        const auto key = (std::uint64_t{left} << 32U) | right;
        const auto [it, added] =
            merges_.emplace(key, Merge{static_cast<std::uint32_t>(rank), result});
        if (!added) {
            throw Error(ErrorKind::input,
                        fmt::format("merge {} (\"{}\" + \"{}\") repeats merge {}, expected each "
                                    "pair once",
                                    rank + 1, shown(m.left), shown(m.right), it->second.rank + 1));
        }
    }
}

// The merges of one piece, lowest rank first, as encoder.py's bpe(): find the pair of
// neighbours with the lowest rank, merge every occurrence of it from left to right (in
// "aaa" the first two a), and again until no neighbours have a merge. A heap of candidate
// pairs (rank, position) makes that O(n log n) rather than encoder.py's O(n²), which matters
// for a long word without spaces: all occurrences of the lowest rank are taken from the heap
// together and merged from left to right, so the result is the same as encoder.py's.
void Bpe::merge_piece(std::vector<std::uint32_t>& symbols) const {
    const std::size_t n = symbols.size();
    if (n < 2) {
        return;
    }
    constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> next(n);
    std::vector<std::size_t> prev(n);
    std::vector<bool> alive(n, true);
    for (std::size_t i = 0; i < n; ++i) {
        next[i] = i + 1 < n ? i + 1 : none;
        prev[i] = i > 0 ? i - 1 : none;
    }
    struct Candidate {
        std::uint32_t rank;
        std::size_t at;  // the left symbol's position
        std::uint32_t left;
        std::uint32_t right;
        bool operator>(const Candidate& o) const {
            return rank != o.rank ? rank > o.rank : at > o.at;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    const auto consider = [&](std::size_t at) {
        if (at == none || next[at] == none) {
            return;
        }
        const std::uint32_t left = symbols[at];
        const std::uint32_t right = symbols[next[at]];
        const auto it = merges_.find((std::uint64_t{left} << 32U) | right);
        if (it != merges_.end()) {
            heap.push({it->second.rank, at, left, right});
        }
    };
    const auto still_there = [&](const Candidate& c) {
        return alive[c.at] && symbols[c.at] == c.left && next[c.at] != none &&
               symbols[next[c.at]] == c.right;
    };
    for (std::size_t i = 0; i + 1 < n; ++i) {
        consider(i);
    }
    std::vector<Candidate> batch;
    while (!heap.empty()) {
        if (!still_there(heap.top())) {
            heap.pop();  // a pair that an earlier merge took apart
            continue;
        }
        const std::uint32_t rank = heap.top().rank;
        batch.clear();
        while (!heap.empty() && heap.top().rank == rank) {
            batch.push_back(heap.top());  // in order of position: left to right
            heap.pop();
        }
        const std::uint32_t result =
            merges_.at((std::uint64_t{batch.front().left} << 32U) | batch.front().right).result;
        for (const Candidate& c : batch) {
            if (!still_there(c)) {
                continue;  // overlaps the occurrence just merged ("aaa"), or stale
            }
            const std::size_t gone = next[c.at];
            symbols[c.at] = result;
            alive[gone] = false;
            next[c.at] = next[gone];
            if (next[gone] != none) {
                prev[next[gone]] = c.at;
            }
            // the new neighbours have other ranks: a merged symbol is longer than either part
            consider(prev[c.at]);
            consider(c.at);
        }
    }
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (alive[i]) {
            symbols[out++] = symbols[i];
        }
    }
    symbols.resize(out);
}

std::vector<BpeToken> Bpe::tokenize(std::string_view text, std::size_t token_limit) const {
    std::vector<BpeToken> tokens;
    std::vector<std::uint32_t> symbols;
    for (const std::string_view piece : gpt2_pieces(text)) {
        const auto piece_offset = static_cast<std::size_t>(piece.data() - text.data());
        symbols.clear();
        for (const char c : piece) {
            symbols.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        }
        merge_piece(symbols);
        std::size_t offset = piece_offset;
        for (const std::uint32_t id : symbols) {
            BpeToken t;
            t.id = id;
            t.text = texts_[id];
            // the token's bytes: its text is one character per byte
            std::size_t n = 0;
            for (std::string_view rest = t.text; !rest.empty(); ++n) {
                rest.remove_prefix(utf8::decode(rest)->length);
            }
            t.offset = offset;
            t.bytes = std::string(text.substr(offset, n));
            t.display = display_of(t.bytes);
            t.leading_space = !t.bytes.empty() && t.bytes.front() == ' ';
            offset += n;
            tokens.push_back(std::move(t));
        }
    }
    if (tokens.size() > token_limit) {
        const BpeToken& first_over = tokens[token_limit];
        throw Error(ErrorKind::input,
                    fmt::format("the text is {} tokens long, expected at most {} (the model's "
                                "context, n_ctx): token {}, \"{}\", starts at byte {}",
                                tokens.size(), token_limit, token_limit + 1, first_over.display,
                                first_over.offset));
    }
    return tokens;
}

std::vector<std::uint32_t> Bpe::encode(std::string_view text, std::size_t token_limit) const {
    std::vector<std::uint32_t> ids;
    std::vector<std::uint32_t> symbols;
    for (const std::string_view piece : gpt2_pieces(text)) {
        symbols.clear();
        for (const char c : piece) {
            symbols.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        }
        merge_piece(symbols);
        ids.insert(ids.end(), symbols.begin(), symbols.end());
    }
    if (ids.size() > token_limit) {
        (void)tokenize(text, token_limit);  // words the error, with the token past the limit
    }
    return ids;
}

const std::string& Bpe::token_text(std::uint32_t id) const {
    if (id >= texts_.size() || !used_[id]) {
        throw Error(ErrorKind::input,
                    fmt::format("the token id {} is not in the vocabulary, expected one of its "
                                "{} ids",
                                id, ids_.size()));
    }
    return texts_[id];
}

std::string Bpe::decode(const std::vector<std::uint32_t>& ids) const {
    // unicode_to_byte: the inverse of byte_to_unicode, for the characters U+0000 to U+0143
    std::array<int, 0x144> byte_of{};
    byte_of.fill(-1);
    for (unsigned b = 0; b < 256; ++b) {
        byte_of.at(byte_to_unicode(static_cast<unsigned char>(b))) = static_cast<int>(b);
    }
    std::string out;
    for (const std::uint32_t id : ids) {
        std::string_view rest = token_text(id);
        while (!rest.empty()) {
            const auto d = utf8::decode(rest);
            if (!d || d->code_point >= byte_of.size() || byte_of.at(d->code_point) < 0) {
                throw Error(ErrorKind::input,
                            fmt::format("the token \"{}\" (id {}) has a character that stands for "
                                        "no byte, expected the characters of bytes_to_unicode "
                                        "only (a byte-level vocabulary)",
                                        shown(token_text(id)), id));
            }
            out += static_cast<char>(byte_of.at(d->code_point));
            rest.remove_prefix(d->length);
        }
    }
    return out;
}

}  // namespace attn
