// Model files: {"embeddings": {...}, "weights": {...}, "sentence", "mask", "tokenizer",
// "positions", "pad_to"}, a whole lesson in one file (docs/json-format.md).
#include "attn/io/model_file.hpp"

#include <string>

#include <fmt/format.h>

#include "reader.hpp"

namespace attn {

namespace reader {

ModelFile model(const Reader& r, const Value& root, const std::string& at) {
    r.expect_type(root, at.empty() ? "the top level" : at, Type::object,
                  "an object: {\"embeddings\": {...}, \"weights\": {...}}");
    r.check_keys(root, at,
                 {"schema", "description", "training", "sentence", "mask", "tokenizer", "positions",
                  "pad_to", "embeddings", "weights"});
    ModelFile m;
    m.path = r.path();
    if (const Value* v = root.find("description")) {
        m.description = r.string_value(*v, child(at, "description"));
    }
    if (const Value* v = root.find("training")) {
        m.training = reader::training(r, *v, child(at, "training"), false);
    }
    if (const Value* v = root.find("sentence")) {
        m.sentence = r.string_value(*v, child(at, "sentence"));
    }
    if (const Value* v = root.find("mask")) {
        m.mask = mask_value(r, *v, child(at, "mask"));
    }
    if (const Value* v = root.find("tokenizer")) {
        m.tokenizer = tokenizer_value(r, *v, child(at, "tokenizer"));
    }
    if (const Value* v = root.find("positions"); v != nullptr && v->type == Value::Type::array) {
        // a table, as a positions file holds it (attn train writes learned ones so)
        m.positions_table = r.matrix(*v, child(at, "positions"));
        m.positions = PositionKind::file;
    } else if (v != nullptr) {
        const auto text = r.string_value(*v, child(at, "positions"));
        if (text == "sinusoidal") {
            m.positions = PositionKind::sinusoidal;
        } else if (text == "none") {
            m.positions = PositionKind::none;
        } else {
            r.fail(*v, child(at, "positions"),
                   fmt::format("the positions are \"{}\", expected \"none\", \"sinusoidal\" "
                               "or a table, one row of numbers per position",
                               shown(text)));
        }
    }
    if (const Value* v = root.find("pad_to")) {
        m.pad_to = r.size_value(*v, child(at, "pad_to"), Field::pad_to);
    }
    if (const Value* v = root.find("embeddings")) {
        m.embeddings = reader::embeddings(r, *v, child(at, "embeddings"));
    }
    if (const Value* v = root.find("weights")) {
        m.weights = reader::weights(r, *v, child(at, "weights"));
    }
    if (m.training) {  // what it says was trained is in the file
        const Value& list = r.require(*root.find("training"), child(at, "training"), "trained", "");
        for (std::size_t i = 0; i < m.training->trained.size(); ++i) {
            const std::string& part = m.training->trained[i];
            const bool held = part == "embeddings"  ? m.embeddings.has_value()
                              : part == "positions" ? m.positions_table.has_value()
                              : part == "W_O"       ? m.weights && !m.weights->w_o.empty()
                                                    : m.weights.has_value();
            if (!held) {
                r.fail(list, child(child(at, "training"), "trained"),
                       fmt::format("\"{}\" is said to be trained, but the file has no {}; "
                                   "expected only parts the file holds",
                                   part, part == "positions" ? "table of positions" : part));
            }
        }
    }
    if (!m.embeddings && !m.weights) {
        r.fail(root, at.empty() ? "the top level" : at,
               "there are neither \"embeddings\" nor \"weights\", expected at least one of them");
    }
    return m;
}

}  // namespace reader

ModelFile read_model(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    return reader::model(
        r, r.document("attn.model", "a model file: {\"embeddings\": {...}, \"weights\": {...}}"),
        "");
}

}  // namespace attn
