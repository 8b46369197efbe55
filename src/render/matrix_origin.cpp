// Where a matrix came from, said in its explanation: seeded, read from a file, or read from a
// model file that attn train made, where it was either learned or kept as seeded (the file's
// "training" says which: core/model.hpp, Training).
#include <algorithm>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "toolkit.hpp"

namespace attn::lesson {

namespace {

// What attn train did to `part` of this run: nothing known (its numbers do not come from a
// model file that attn train made), trained it, or kept it as seeded.
enum class Learned { unknown, trained, kept };

Learned learned(const Trace& t, std::string_view part) {
    const Source& s = part == "embeddings"  ? t.embeddings_source
                      : part == "positions" ? t.positions_source
                                            : t.weights_source;
    if (!t.training || s.kind != Source::Kind::file || t.training->file != s.path) {
        return Learned::unknown;
    }
    const auto& trained = t.training->trained;
    return std::find(trained.begin(), trained.end(), part) != trained.end() ? Learned::trained
                                                                            : Learned::kept;
}

// "Here it was learned: ..." for a trained part; "here it is read from F, where attn train T
// kept it as seeded: it trained ... only." for a kept one (`Here` capitalised or not).
std::string training_words(const Trace& t, std::string_view part, Learned how_learned,
                           std::string_view here) {
    const Training& how = *t.training;
    const bool plural = part == "embeddings" || part == "positions";
    const std::string file = toolkit::terminal(how.file);
    if (how_learned == Learned::trained) {
        return fmt::format(
            "{} {} learned: attn train {} trained {} ({} steps from seed {}), and {} holds the "
            "result.",
            here, plural ? "they were" : "it was", how.task, plural ? "them" : "it", how.steps,
            how.seed, file);
    }
    std::vector<std::string> changed;
    changed.reserve(how.trained.size());
    for (const auto& name : how.trained) {
        changed.push_back(name == "embeddings"  ? "the embeddings"
                          : name == "positions" ? "the positions"
                                                : name);
    }
    return fmt::format(
        "{} {} read from {}, where attn train {} kept {} as seeded: it trained {} "
        "only.",
        here, plural ? "they are" : "it is", file, how.task, plural ? "them" : "it",
        join_list(changed));
}

}  // namespace

std::string training_origin(const Trace& t, std::string_view part) {
    const Learned how = learned(t, part);
    return how == Learned::unknown ? std::string() : training_words(t, part, how, "Here");
}

std::string matrix_origin(const Trace& t, std::string_view part) {
    const Source& s = t.weights_source;
    if (s.kind != Source::Kind::file) {
        return fmt::format("In a trained model it is learned; here it is seeded from --seed {}.",
                           t.config.seed);
    }
    switch (learned(t, part)) {
        case Learned::trained:
            return training_words(t, part, Learned::trained, "Here");
        case Learned::kept:
            return "In a trained model it is learned; " +
                   training_words(t, part, Learned::kept, "here");
        case Learned::unknown:
            break;
    }
    return fmt::format("In a trained model it is learned; here it is read from {}.",
                       toolkit::terminal(s.path));
}

}  // namespace attn::lesson
