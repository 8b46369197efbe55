// Where a weight matrix came from, said in its explanation: seeded, read from a file, or read
// from a model file that attn train made, where it was either learned or kept as seeded (the
// file's "training" says which: core/model.hpp, Training).
#include <algorithm>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "toolkit.hpp"

namespace attn::lesson {

std::string matrix_origin(const Trace& t, std::string_view part) {
    const Source& s = t.weights_source;
    if (s.kind != Source::Kind::file) {
        return fmt::format("In a trained model it is learned; here it is seeded from --seed {}.",
                           t.config.seed);
    }
    const std::string file = toolkit::terminal(s.path);
    // a model file made by attn train, whose weights this run uses
    if (t.training && t.training->file == s.path) {
        const Training& how = *t.training;
        const auto& trained = how.trained;
        if (std::find(trained.begin(), trained.end(), part) != trained.end()) {
            return fmt::format(
                "Here it was learned: attn train {} trained it ({} steps from seed {}), and {} "
                "holds the result.",
                how.task, how.steps, how.seed, file);
        }
        // what it did train, of the parts this run's numbers could come from
        std::vector<std::string> changed;
        changed.reserve(trained.size());
        for (const auto& name : trained) {
            changed.push_back(name == "embeddings"  ? "the embeddings"
                              : name == "positions" ? "the positions"
                                                    : name);
        }
        return fmt::format(
            "In a trained model it is learned; here it is read from {}, where attn train {} "
            "kept it as seeded: it trained {} only.",
            file, how.task, join_list(changed));
    }
    return fmt::format("In a trained model it is learned; here it is read from {}.", file);
}

}  // namespace attn::lesson
