// Looking tokens up in an embeddings table, and the spellings nearest to a missing one.
#include "attn/core/input.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "attn/core/tokenizer.hpp"
#include "attn/core/utf8.hpp"

namespace attn {
namespace {

// The edit distance of `a` and `b` (insertions, deletions, substitutions of characters) if it
// is at most `limit`, else limit + 1. Only the cells within `limit` of the diagonal can hold
// such a distance, and once a whole row is past `limit` the answer is known; `cells` counts
// the cells computed.
// `prev` and `cur` are two rows of work space, kept from call to call.
std::size_t bounded_distance(std::u32string_view a, std::u32string_view b, std::size_t limit,
                             std::size_t& cells, std::vector<std::size_t>& prev,
                             std::vector<std::size_t>& cur) {
    const std::size_t far = limit + 1;
    if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) {
        return far;
    }
    prev.resize(b.size() + 1);
    cur.resize(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        prev[j] = std::min(j, far);
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        const std::size_t lo = i > limit ? i - limit : 1;
        const std::size_t hi = std::min(b.size(), i + limit);
        cur[lo - 1] = lo == 1 ? std::min(i, far) : far;
        std::size_t row_least = cur[lo - 1];
        for (std::size_t j = lo; j <= hi; ++j) {
            cur[j] = std::min(
                {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0U : 1U), far});
            row_least = std::min(row_least, cur[j]);
        }
        if (hi < b.size()) {
            cur[hi + 1] = far;  // outside the band: the next row reads it as too far
        }
        cells += hi + 1 - lo;
        if (row_least > limit) {
            return far;
        }
        std::swap(prev, cur);
    }
    return std::min(prev[b.size()], far);
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

// A bit for each character `s` holds, the characters hashed to 64 bits.
std::uint64_t signature(const std::u32string& s) noexcept {
    std::uint64_t bits = 0;
    for (const char32_t c : s) {
        bits |= std::uint64_t{1} << ((static_cast<std::uint32_t>(c) * 0x9E3779B1U) >> 26U);
    }
    return bits;
}

// The bits set in `x`. std::popcount is a call into libgcc on the x86-64 baseline (no
// POPCNT instruction assumed), and the scan of a length counts two per spelling: inline
// arithmetic is several times faster there.
constexpr std::size_t bits_set(std::uint64_t x) noexcept {
    x -= (x >> 1U) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2U) & 0x3333333333333333ULL);
    x = (x + (x >> 4U)) & 0x0F0F0F0F0F0F0F0FULL;
    return static_cast<std::size_t>((x * 0x0101010101010101ULL) >> 56U);
}
static_assert(bits_set(0) == 0 && bits_set(~std::uint64_t{0}) == 64 && bits_set(0x8001) == 2);

// A spelling that may be near enough: its code points and its place in the table.
struct Candidate {
    std::u32string_view folded;
    std::size_t index;
};

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
    return Spellings(known).nearest(word);
}

Spellings::Spellings(std::vector<std::string> known) : known_(std::move(known)) {
    for (std::size_t i = 0; i < known_.size(); ++i) {
        const auto folded = code_points(fold_case(known_[i]));
        const std::size_t n = folded.size();
        if (by_length_.size() <= n) {
            by_length_.resize(n + 1);
        }
        Bucket& b = by_length_[n];
        b.chars.push_back(signature(folded));
        b.folded += folded;
        b.index.push_back(i);
    }
}

std::vector<std::string> Spellings::nearest(const std::string& word) const {
    const auto w = code_points(fold_case(word));
    // close enough to be a likely typo: at most a third of the word's length, at least 1
    const std::size_t most = std::max<std::size_t>(1, w.size() / 3);
    const std::uint64_t chars = signature(w);

    // The spellings that may be near enough, by a lower bound of their distance: the
    // difference in length, and the characters one holds and the other does not (each edit
    // removes at most one character of a word and adds at most one of the other). Only the
    // lengths within `most` of the word's are looked at.
    std::vector<std::vector<Candidate>> by_bound(most + 1);
    const std::size_t shortest = w.size() > most ? w.size() - most : 0;
    for (std::size_t n = shortest; n <= w.size() + most && n < by_length_.size(); ++n) {
        const std::size_t length_gap = n > w.size() ? n - w.size() : w.size() - n;
        const Bucket& b = by_length_[n];
        const std::uint64_t* sig = b.chars.data();
        for (std::size_t k = 0, count = b.chars.size(); k < count; ++k) {
            const std::size_t lacks = bits_set(chars & ~sig[k]);
            if (lacks > most) {
                continue;  // most spellings of a length are ruled out here, at half the cost
            }
            const std::size_t bound = std::max({length_gap, lacks, bits_set(sig[k] & ~chars)});
            if (bound <= most) {
                by_bound[bound].push_back(
                    {std::u32string_view(b.folded).substr(k * n, n), b.index[k]});
            }
        }
    }

    // The nearest three, (distance, place in the table), in order: the likeliest first, so
    // that the third's distance soon cuts the others short.
    std::vector<std::pair<std::size_t, std::size_t>> best;
    std::size_t cells = 0;
    std::vector<std::size_t> prev;
    std::vector<std::size_t> cur;
    for (std::size_t bound = 0; bound <= most && cells < max_cells; ++bound) {
        if (best.size() == 3 && bound > best.back().first) {
            break;  // none of the rest can be nearer than the three found
        }
        for (const Candidate& e : by_bound[bound]) {
            const std::size_t limit = best.size() == 3 ? best.back().first : most;
            const std::size_t d = bounded_distance(w, e.folded, limit, cells, prev, cur);
            if (d <= limit) {
                const std::pair<std::size_t, std::size_t> found{d, e.index};
                best.insert(std::upper_bound(best.begin(), best.end(), found), found);
                if (best.size() > 3) {
                    best.pop_back();
                }
            }
            if (cells >= max_cells) {
                break;
            }
        }
    }
    std::vector<std::string> out;
    out.reserve(best.size());
    for (const auto& [d, i] : best) {
        out.push_back(known_[i]);
    }
    return out;
}

}  // namespace attn
