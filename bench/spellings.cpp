// Spelling suggestions for unknown tokens: attn's Spellings index against comparing every
// pair, as attn did before (the baseline), on 40,000 known spellings and 4,000 unknown
// tokens (half of them typos of known ones). Both give the same answers (checked here on
// the tokens the baseline has time for); the CPU time per 1,000 unknown tokens and the ratio
// are printed. bench/run builds and runs it; docs/performance.md has the results.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "attn/core/input.hpp"
#include "attn/core/tokenizer.hpp"
#include "attn/core/utf8.hpp"

namespace {

// The baseline: attn's nearest() before Spellings (core/input.cpp at ee44e9f).
std::size_t edit_distance(const std::u32string& a, const std::u32string& b) {
    std::vector<std::size_t> prev(b.size() + 1);
    std::vector<std::size_t> cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        prev[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min(
                {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0U : 1U)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::u32string code_points(std::string_view s) {
    std::u32string out;
    std::size_t i = 0;
    while (i < s.size()) {
        const auto d = attn::utf8::decode(s.substr(i));
        out += d ? d->code_point : static_cast<char32_t>(static_cast<unsigned char>(s[i]));
        i += d ? d->length : 1;
    }
    return out;
}

std::vector<std::string> every_pair(const std::string& word,
                                    const std::vector<std::string>& known) {
    const auto w = code_points(attn::fold_case(word));
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& k : known) {
        const auto d = edit_distance(w, code_points(attn::fold_case(k)));
        if (d <= std::max<std::size_t>(1, w.size() / 3)) {
            scored.emplace_back(d, k);
        }
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i) {
        out.push_back(scored[i].second);
    }
    return out;
}

// CPU time, not wall time: on a shared machine a neighbour's work must not count.
double cpu_seconds() {
    timespec t{};
    (void)clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

int main() {
    // words of 2 to 14 letters, the letters drawn with English-like frequencies
    std::uint64_t state = 42;
    const auto next = [&state](std::uint64_t n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 33U) % n;
    };
    const std::string letters =
        "eeeeeeeeeeeettttttttaaaaaaaooooooiiiiiiinnnnnnnsssssshhhhhhrrrrrr"
        "ddddllllcccuuummwwffggyyppbbvkjxqz";
    const auto word = [&] {
        std::string w;
        for (std::size_t i = 0, n = 2 + next(13); i < n; ++i) {
            w += letters[next(letters.size())];
        }
        return w;
    };
    std::vector<std::string> known(40000);
    for (auto& k : known) {
        k = word();
    }
    std::vector<std::string> unknown(4000);
    for (std::size_t i = 0; i < unknown.size(); ++i) {
        std::string w = i % 2 == 0 ? known[next(known.size())] : word();
        if (i % 2 == 0) {  // a typo: one letter changed
            w[next(w.size())] = letters[next(letters.size())];
        }
        unknown[i] = w;
    }

    double start = cpu_seconds();
    const attn::Spellings spellings(known);
    std::vector<std::vector<std::string>> fast;
    fast.reserve(unknown.size());
    for (const auto& w : unknown) {
        fast.push_back(spellings.nearest(w));
    }
    const double fast_s = cpu_seconds() - start;

    // the baseline takes about 10 ms a token: 200 of them
    constexpr std::size_t sample = 200;
    start = cpu_seconds();
    std::size_t differ = 0;
    for (std::size_t i = 0; i < sample; ++i) {
        differ += every_pair(unknown[i], known) == fast[i] ? 0 : 1;
    }
    const double slow_s = cpu_seconds() - start;

    const double fast_per_1000 = fast_s * 1000.0 / static_cast<double>(unknown.size());
    const double slow_per_1000 = slow_s * 1000.0 / static_cast<double>(sample);
    std::printf("%zu unknown tokens against %zu known spellings\n", unknown.size(), known.size());
    std::printf("%-38s %12s\n", "", "CPU s per 1,000");
    std::printf("%-38s %12.3f\n", "every pair (before; 200 tokens timed)", slow_per_1000);
    std::printf("%-38s %12.3f\n", "Spellings (the index build included)", fast_per_1000);
    std::printf("ratio: Spellings is %.0fx faster; answers differ for %zu of %zu tokens\n",
                slow_per_1000 / fast_per_1000, differ, sample);
    return differ == 0 ? 0 : 1;
}
