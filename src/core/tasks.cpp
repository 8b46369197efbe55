// The built-in training tasks: their examples, drawn from a seed with attn's own generator, and
// how each is trained unless told otherwise.
#include <algorithm>
#include <set>

#include "attn/core/error.hpp"
#include "attn/core/random.hpp"
#include "attn/core/tokenizer.hpp"
#include "attn/core/train.hpp"

namespace attn {
namespace {

using Words = std::vector<std::string>;

// coreference: "<subject> <verb> the <noun> and <action> it <ending>", 1,536 sentences
const Words& subjects() {
    static const Words w{"he", "she", "tom", "anna"};
    return w;
}
const Words& verbs() {
    static const Words w{"took", "found", "saw", "got"};
    return w;
}
const Words& nouns() {
    static const Words w{"hat", "key", "book", "cup", "box", "coat"};
    return w;
}
const Words& actions() {
    static const Words w{"examined", "kept", "cleaned", "hid"};
    return w;
}
const Words& endings() {
    static const Words w{"carefully", "safe", "again", "later"};
    return w;
}

// The letters of previous-token (8) and match (6), and match's length.
constexpr std::size_t previous_token_letters = 8;
constexpr std::size_t previous_token_length = 8;
constexpr std::size_t match_letters = 6;
constexpr std::size_t match_length = 5;

Words letters(std::size_t n) {
    Words out;
    for (std::size_t i = 0; i < n; ++i) {
        out.emplace_back(1, static_cast<char>('a' + i));
    }
    return out;
}

// A whole number in [0, n): the modulo's bias is below n / 2^64, and it is the same everywhere.
std::size_t below(Rng& rng, std::size_t n) {
    const std::uint64_t r = rng.next_u64() % n;  // std::size_t is 64 bits where attn builds
    return r;
}

std::string joined(const Words& tokens) {
    std::string s;
    for (const auto& t : tokens) {
        s += (s.empty() ? "" : " ") + t;
    }
    return s;
}

// The tokens of example number `i`: the first few take every word of each list in turn (so
// that every word is trained on), the others are drawn from `rng`.
Words coreference_tokens(Rng& rng, std::size_t i, bool cover) {
    const auto pick = [&](const Words& list) -> const std::string& {
        return list[cover ? i % list.size() : below(rng, list.size())];
    };
    return {pick(subjects()), pick(verbs()), "the",          pick(nouns()), "and",
            pick(actions()),  "it",          pick(endings())};
}

Words previous_token_tokens(Rng& rng) {
    const Words abc = letters(previous_token_letters);
    Words t;
    for (std::size_t i = 0; i < previous_token_length; ++i) {
        t.push_back(abc[below(rng, abc.size())]);
    }
    return t;
}

// match_length − 1 different letters, then one of them again
Words match_tokens(Rng& rng) {
    Words abc = letters(match_letters);
    for (std::size_t i = 0; i + 1 < match_length; ++i) {  // a partial Fisher–Yates shuffle
        std::swap(abc[i], abc[i + below(rng, abc.size() - i)]);
    }
    Words t(abc.begin(), abc.begin() + static_cast<std::ptrdiff_t>(match_length - 1));
    t.push_back(t[below(rng, t.size())]);
    return t;
}

std::size_t index_of(const Words& list, const std::string& word) {
    const auto it = std::lower_bound(list.begin(), list.end(), word);
    if (it == list.end() || *it != word) {
        throw Error(ErrorKind::internal, "a task's token is not in its vocabulary: " + word);
    }
    return static_cast<std::size_t>(it - list.begin());
}

// The example of `tokens`: its ids, and the rows the task grades with their sources.
Example example_of(const TaskData& data, Words tokens) {
    Example e;
    e.tokens = std::move(tokens);
    for (const auto& t : e.tokens) {
        e.ids.push_back(index_of(data.vocabulary, t));
    }
    switch (data.task) {
        case Task::coreference: {
            // the row of "it", whose source is its noun: "hat and examined it"
            const auto it = std::find(e.tokens.begin(), e.tokens.end(), "it");
            const auto row = static_cast<std::size_t>(it - e.tokens.begin());
            e.graded.push_back(row);
            e.sources.push_back(row - 3);
            break;
        }
        case Task::previous_token:
            for (std::size_t r = 1; r < e.tokens.size(); ++r) {
                e.graded.push_back(r);
                e.sources.push_back(r - 1);
            }
            break;
        case Task::match: {
            const std::size_t last = e.tokens.size() - 1;
            const auto first = std::find(e.tokens.begin(), e.tokens.end(), e.tokens[last]);
            e.graded.push_back(last);
            e.sources.push_back(static_cast<std::size_t>(first - e.tokens.begin()));
            break;
        }
    }
    return e;
}

}  // namespace

TaskSetup task_setup(Task task) noexcept {
    TaskSetup s;
    switch (task) {
        case Task::coreference:
            // content alone finds the noun, no positions: a query of "it" that matches the
            // keys of the six nouns and no other word's. With the embeddings as seeded, that
            // takes room: 24 dimensions for 25 words
            s.d_model = 24;
            s.sentence = "He took the hat and examined it carefully";
            s.showcase_row = 6;
            break;
        case Task::previous_token:
            // only positions tell the token before from the others, so they are learned;
            // causal, as in a decoder
            s.mask = MaskKind::causal;
            s.positions = true;
            s.trainable.positions = true;
            s.sentence = "c a b b a g e d";
            s.showcase_row = 4;
            break;
        case Task::match:
            // content finds the two copies (the embeddings are learned for it), the seeded
            // positions tell the earlier one from the token itself
            s.d_k = 12;
            s.positions = true;
            s.trainable.embeddings = true;
            s.steps = 1000;
            s.sentence = "d b e a b";
            s.showcase_row = 4;
            break;
    }
    return s;
}

TaskData make_task(Task task, std::uint64_t seed, std::size_t train_size,
                   std::size_t held_out_size) {
    TaskData data;
    data.task = task;
    switch (task) {
        case Task::coreference:
            for (const Words* list : {&subjects(), &verbs(), &nouns(), &actions(), &endings()}) {
                data.vocabulary.insert(data.vocabulary.end(), list->begin(), list->end());
            }
            data.vocabulary.insert(data.vocabulary.end(), {"the", "and", "it"});
            break;
        case Task::previous_token:
            data.vocabulary = letters(previous_token_letters);
            break;
        case Task::match:
            data.vocabulary = letters(match_letters);
            break;
    }
    std::sort(data.vocabulary.begin(), data.vocabulary.end());

    // every example once: the showcase sentence never in training, held-out never trained on
    TokenizerOptions lower;
    lower.lowercase = true;
    std::set<std::string> seen{joined(tokenize(task_setup(task).sentence, lower))};
    Rng rng(stream_seed(seed, "task", to_string(task)));
    const std::size_t cover = std::max({subjects().size(), verbs().size(), nouns().size()});
    for (std::size_t i = 0; data.train.size() + data.held_out.size() < train_size + held_out_size;
         ++i) {
        if (i > 100 * (train_size + held_out_size)) {
            throw Error(ErrorKind::internal, "a task ran out of different examples");
        }
        const Words tokens = task == Task::coreference      ? coreference_tokens(rng, i, i < cover)
                             : task == Task::previous_token ? previous_token_tokens(rng)
                                                            : match_tokens(rng);
        if (!seen.insert(joined(tokens)).second) {
            continue;
        }
        auto& into = data.train.size() < train_size ? data.train : data.held_out;
        into.push_back(example_of(data, tokens));
        data.n_positions = std::max(data.n_positions, tokens.size());
    }
    return data;
}

Example showcase_example(const TaskData& data) {
    TokenizerOptions lower;
    lower.lowercase = true;
    return example_of(data, tokenize(task_setup(data.task).sentence, lower));
}

}  // namespace attn
