// Where a matrix came from, said in its explanation: seeded, read from a file, or read from a
// model file that attn train made, where it was either learned or kept as seeded (the file's
// "training" says which: core/model.hpp, Training).
#include <algorithm>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "toolkit.hpp"

namespace attn::lesson {

std::string training_origin(const Trace& t, std::string_view part) {
    const Source& s = part == "embeddings"  ? t.embeddings_source
                      : part == "positions" ? t.positions_source
                                            : t.weights_source;
    // only a model file made by attn train, whose numbers of this part this run uses
    if (!t.training || s.kind != Source::Kind::file || t.training->file != s.path) {
        return {};
    }
    const Training& how = *t.training;
    const bool plural = part == "embeddings" || part == "positions";
    const std::string file = toolkit::terminal(s.path);
    const auto& trained = how.trained;
    if (std::find(trained.begin(), trained.end(), part) != trained.end()) {
        return fmt::format(
            "Here {} learned: attn train {} trained {} ({} steps from seed {}), and {} holds the "
            "result.",
            plural ? "they were" : "it was", how.task, plural ? "them" : "it", how.steps, how.seed,
            file);
    }
    std::vector<std::string> changed;
    changed.reserve(trained.size());
    for (const auto& name : trained) {
        changed.push_back(name == "embeddings"  ? "the embeddings"
                          : name == "positions" ? "the positions"
                                                : name);
    }
    return fmt::format(
        "Here {} read from {}, where attn train {} kept {} as seeded: it trained {} "
        "only.",
        plural ? "they are" : "it is", file, how.task, plural ? "them" : "it", join_list(changed));
}

std::string matrix_origin(const Trace& t, std::string_view part) {
    const Source& s = t.weights_source;
    if (s.kind != Source::Kind::file) {
        return fmt::format("In a trained model it is learned; here it is seeded from --seed {}.",
                           t.config.seed);
    }
    std::string learned = training_origin(t, part);
    if (learned.starts_with("Here it was learned")) {
        return learned;
    }
    if (!learned.empty()) {  // "Here it is read from F, where attn train kept it as seeded"
        return "In a trained model it is learned; h" + learned.substr(1);
    }
    return fmt::format("In a trained model it is learned; here it is read from {}.",
                       toolkit::terminal(s.path));
}

}  // namespace attn::lesson
