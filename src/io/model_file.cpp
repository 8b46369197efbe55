// Model files: {"embeddings": {...}, "weights": {...}, "sentence", "mask", "tokenizer",
// "positions", "pad_to"}, a whole lesson in one file (docs/json-format.md).
#include "attn/io/model_file.hpp"

#include <string>

#include <fmt/format.h>

#include "reader.hpp"

namespace attn {

ModelFile read_model(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    const Value root =
        r.document("attn.model", "a model file: {\"embeddings\": {...}, \"weights\": {...}}");
    r.check_keys(root, "",
                 {"schema", "description", "sentence", "mask", "tokenizer", "positions", "pad_to",
                  "embeddings", "weights"});
    ModelFile m;
    m.path = path;
    if (const Value* v = root.find("description")) {
        m.description = r.string_value(*v, "description");
    }
    if (const Value* v = root.find("sentence")) {
        m.sentence = r.string_value(*v, "sentence");
    }
    if (const Value* v = root.find("mask")) {
        m.mask = mask_value(r, *v, "mask");
    }
    if (const Value* v = root.find("tokenizer")) {
        m.tokenizer = tokenizer_value(r, *v, "tokenizer");
    }
    if (const Value* v = root.find("positions"); v != nullptr && v->type == Value::Type::array) {
        // a table, as a positions file holds it (attn train writes learned ones so)
        m.positions_table = r.matrix(*v, "positions");
        m.positions = PositionKind::file;
    } else if (v != nullptr) {
        const auto text = r.string_value(*v, "positions");
        if (text == "sinusoidal") {
            m.positions = PositionKind::sinusoidal;
        } else if (text == "none") {
            m.positions = PositionKind::none;
        } else {
            r.fail(*v, "positions",
                   fmt::format("the positions are \"{}\", expected \"none\", \"sinusoidal\" "
                               "or a table, one row of numbers per position",
                               shown(text)));
        }
    }
    if (const Value* v = root.find("pad_to")) {
        m.pad_to = r.size_value(*v, "pad_to", Field::pad_to);
    }
    if (const Value* v = root.find("embeddings")) {
        m.embeddings = reader::embeddings(r, *v, "embeddings");
    }
    if (const Value* v = root.find("weights")) {
        m.weights = reader::weights(r, *v, "weights");
    }
    if (!m.embeddings && !m.weights) {
        r.fail(root, "the top level",
               "there are neither \"embeddings\" nor \"weights\", expected at least one of them");
    }
    return m;
}

}  // namespace attn
