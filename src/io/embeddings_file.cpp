// Embeddings files: {"vectors": {"token": [numbers], ...}, "case_insensitive": bool}, also
// the "embeddings" of a model file.
#include "attn/io/model_file.hpp"

#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "reader.hpp"

namespace attn {
namespace reader {

EmbeddingTable embeddings(const Reader& r, const Value& obj, const std::string& where) {
    r.expect_type(obj, where, Type::object,
                  "an object with \"vectors\": {\"token\": [numbers], ...}");
    r.check_keys(obj, where, {"schema", "description", "case_insensitive", "vectors"});
    EmbeddingTable table;
    table.path = r.path();
    if (const Value* ci = obj.find("case_insensitive")) {
        table.case_insensitive = r.bool_value(*ci, child(where, "case_insensitive"));
    }
    const std::string vectors_path = child(where, "vectors");
    const Value& vectors =
        r.require(obj, where, "vectors", "\"vectors\": {\"token\": [numbers], ...}");
    r.expect_type(vectors, vectors_path, Type::object,
                  "an object of token: [numbers], e.g. {\"book\": [0.8, -0.5]}");
    if (vectors.members.empty()) {
        r.fail(vectors, vectors_path, "there are no vectors, expected at least one token");
    }
    const std::string first_key = vectors.members.front().first;
    std::map<std::string, std::pair<std::string, const Value*>> folded;
    for (std::size_t i = 0; i < vectors.members.size(); ++i) {
        const auto& [token, value] = vectors.members[i];
        if (token.size() > max_token_bytes) {
            r.fail(value, child(vectors_path, token_preview(token)),
                   fmt::format("the token is {} bytes long, expected at most {} (no word is "
                               "that long)",
                               token.size(), max_token_bytes));
        }
        const std::string token_path = child(vectors_path, token);
        if (token.empty()) {
            r.fail(value, token_path, "the token is empty, expected at least one character");
        }
        if (token.find_first_of(" \t\n\r") != std::string::npos) {
            r.fail(value, token_path,
                   fmt::format("the token \"{}\" has white space, which no token can contain "
                               "(the tokenizer splits at white space)",
                               token));
        }
        const auto row = r.numbers(value, token_path);
        if (i == 0) {
            table.vectors = Matrix(vectors.members.size(), row.size());
        } else if (row.size() != table.vectors.cols()) {
            r.fail(value, token_path,
                   fmt::format("the vector of \"{}\" has {} numbers, expected {} like \"{}\" "
                               "(every embedding has d_model numbers)",
                               token, row.size(), table.vectors.cols(), first_key));
        }
        std::copy(row.begin(), row.end(), table.vectors.row(i).begin());
        table.tokens.push_back(token);
        if (table.case_insensitive) {
            const auto [it, inserted] = folded.emplace(fold_case(token), std::pair{token, &value});
            if (!inserted) {
                r.fail(value, token_path,
                       fmt::format("\"{}\" and \"{}\" (line {}) are the same token when "
                                   "case_insensitive is true, expected each token once",
                                   token, it->second.first, r.line_of(*it->second.second)));
            }
        }
    }
    return table;
}

}  // namespace reader

EmbeddingTable read_embeddings(const std::string& path, std::size_t max_memory) {
    return reader::read_part_file(path, max_memory, "attn.embeddings",
                                  "an embeddings file: {\"vectors\": {\"token\": [numbers], ...}}",
                                  reader::embeddings);
}

}  // namespace attn
