// "training" in a model file (and in a dump of a lesson made from one): how attn train made
// the file's numbers, so that the output can say which matrices were learned (docs/json-format.md).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "attn/core/train.hpp"
#include "reader.hpp"

namespace attn::reader {

namespace {

// A count of graded tokens: a whole number written as one, from 0 to 2^32.
std::size_t count_value(const Reader& r, const Value& v, const std::string& where) {
    std::size_t n = 0;
    const auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
    if (!v.is(Type::number) || v.text.empty() || ec != std::errc() ||
        ptr != v.text.data() + v.text.size() || n > (std::size_t{1} << 32U)) {
        r.fail(v, where,
               fmt::format(
                   "found {}, expected a whole number from 0 (a count of graded tokens)",
                   v.is(Type::number) ? format_plain(v) : std::string(json::describe(v.type))));
    }
    return n;
}

}  // namespace

Training training(const Reader& r, const Value& obj, const std::string& where, bool in_dump) {
    constexpr std::string_view shape =
        "an object: {\"command\", \"task\", \"seed\", \"steps\", \"learning_rate\", "
        "\"trained\", \"held_out\"}";
    r.expect_type(obj, where, Type::object, shape);
    std::vector<std::string> keys{"command",       "task",    "seed",    "steps",
                                  "learning_rate", "trained", "held_out"};
    if (in_dump) {
        keys.emplace_back("file");
    }
    r.check_keys(obj, where, keys);
    Training t;
    const Value& command = r.require(obj, where, "command", "the attn train command that made it");
    t.command = r.string_value(command, child(where, "command"));
    if (!t.command.starts_with("attn train ")) {
        r.fail(command, child(where, "command"),
               fmt::format("found \"{}\", expected the attn train command that made the file "
                           "(\"attn train TASK ...\")",
                           shown(t.command)));
    }
    t.task = std::string(to_string(enum_value<Task>(
        r, r.require(obj, where, "task", "coreference, previous-token or match"),
        child(where, "task"), {Task::coreference, Task::previous_token, Task::match}, "task")));
    t.seed = seed_of(r, r.require(obj, where, "seed", "a whole number"), child(where, "seed"));
    t.steps = r.size_value(r.require(obj, where, "steps", "a whole number"), child(where, "steps"),
                           Field::train_steps);
    const Value& lr = r.require(obj, where, "learning_rate", "a number above 0");
    if (!lr.is(Type::number) || !std::isfinite(lr.number) || lr.number <= 0) {
        r.fail(lr, child(where, "learning_rate"),
               fmt::format(
                   "found {}, expected a number above 0",
                   lr.is(Type::number) ? format_plain(lr) : std::string(json::describe(lr.type))));
    }
    t.learning_rate = lr.number;
    const std::string list_where = child(where, "trained");
    const Value& list = r.require(obj, where, "trained", "an array of what training changed");
    r.expect_type(list, list_where, Type::array,
                  "an array of what training changed, of \"W_Q\", \"W_K\", \"W_V\", \"W_O\", "
                  "\"embeddings\" and \"positions\"");
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const Value& item = list.items[i];
        const std::string name = r.string_value(item, index(list_where, i));
        const auto* const part = std::find(trainable_parts.begin(), trainable_parts.end(), name);
        if (part == trainable_parts.end()) {
            r.fail(item, index(list_where, i),
                   fmt::format("found \"{}\", expected one of \"W_Q\", \"W_K\", \"W_V\", "
                               "\"W_O\", \"embeddings\" or \"positions\"",
                               shown(name)));
        }
        if (std::find(t.trained.begin(), t.trained.end(), name) != t.trained.end()) {
            r.fail(item, index(list_where, i),
                   fmt::format("\"{}\" is listed twice, expected each part once", name));
        }
        t.trained.push_back(name);
    }
    if (t.trained.empty()) {
        r.fail(list, list_where, "found an empty array, expected at least one part trained");
    }
    // in the order of trainable_parts, as the output names them
    std::sort(t.trained.begin(), t.trained.end(), [](const std::string& a, const std::string& b) {
        return std::find(trainable_parts.begin(), trainable_parts.end(), a) <
               std::find(trainable_parts.begin(), trainable_parts.end(), b);
    });
    const std::string held_where = child(where, "held_out");
    const Value& held =
        r.require(obj, where, "held_out", "{\"right\": N, \"of\": M}, the held-out accuracy");
    r.expect_type(held, held_where, Type::object,
                  "{\"right\": N, \"of\": M}, the held-out graded tokens right after training");
    r.check_keys(held, held_where, {"right", "of"});
    t.held_out_right =
        count_value(r, r.require(held, held_where, "right", "a count"), child(held_where, "right"));
    const Value& of = r.require(held, held_where, "of", "a count");
    t.held_out_total = count_value(r, of, child(held_where, "of"));
    if (t.held_out_total == 0 || t.held_out_right > t.held_out_total) {
        r.fail(of, child(held_where, "of"),
               fmt::format("found {} right of {}, expected at least one graded token and no "
                           "more right than there are",
                           t.held_out_right, t.held_out_total));
    }
    // the command is the one that made these numbers: its task, seed, steps and rate are the
    // record's (a file edited by hand may disagree, and the output would quote both)
    std::vector<std::string> words;
    for (std::size_t at = 0; at < t.command.size();) {
        const std::size_t end = std::min(t.command.find(' ', at), t.command.size());
        words.push_back(t.command.substr(at, end - at));
        at = end + 1;
    }
    // an option's value, written "--seed 7" or "--seed=7"; "" when the command leaves it out
    // (attn train's default then, which the record cannot be checked against)
    const auto option = [&words](std::string_view name) -> std::string {
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (words[i] == name && i + 1 < words.size()) {
                return words[i + 1];
            }
            if (words[i].starts_with(std::string(name) + "=")) {
                return words[i].substr(name.size() + 1);
            }
        }
        return "";
    };
    const auto disagree = [&](std::string_view what, const std::string& in_command,
                              const std::string& recorded) {
        r.fail(command, child(where, "command"),
               fmt::format("the command's {} is {}, but the record's is {}; expected a command "
                           "that agrees with \"task\", \"seed\", \"steps\" and "
                           "\"learning_rate\"",
                           what, in_command.empty() ? "not given" : shown(in_command), recorded));
    };
    if (words.size() < 3 || words[2] != t.task) {
        disagree("task", words.size() < 3 ? "" : words[2], t.task);
    }
    if (const std::string seed = option("--seed");
        !seed.empty() && seed != std::to_string(t.seed)) {
        disagree("--seed", seed, std::to_string(t.seed));
    }
    if (const std::string steps = option("--steps");
        !steps.empty() && steps != std::to_string(t.steps)) {
        disagree("--steps", steps, std::to_string(t.steps));
    }
    double lr_given = 0;
    const std::string lr_text = option("--lr");
    const auto [end, ec] =
        std::from_chars(lr_text.data(), lr_text.data() + lr_text.size(), lr_given);
    if (!lr_text.empty() && (ec != std::errc() || end != lr_text.data() + lr_text.size() ||
                             lr_given != t.learning_rate)) {
        disagree("--lr", lr_text, fmt::format("{}", t.learning_rate));
    }
    if (in_dump) {
        t.file = r.string_value(r.require(obj, where, "file", "the model file's path"),
                                child(where, "file"));
    } else {
        t.file = r.path();
    }
    return t;
}

}  // namespace attn::reader
