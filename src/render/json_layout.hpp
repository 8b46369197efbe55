#pragma once
// Readable JSON for the small files people open and edit (attn init's model file, the answers
// template of attn worksheet): the values are nlohmann::ordered_json's, each scalar written by
// nlohmann/json; this lays them out with a line per member, a line per row of a matrix and
// // comments where asked. The dump (json.cpp) streams millions of numbers and keeps its own
// writer.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/core/matrix.hpp"
#include "attn/core/model.hpp"

namespace attn::json_layout {

using Json = nlohmann::ordered_json;

/// A comment: its text (one line or several, separated by '\n') goes on lines of its own,
/// each starting with "// ", before the member at `at` (a JSON pointer such as
/// "/weights/W_Q").
struct Comment {
    std::string at;
    std::string text;
};

/// `value` as readable JSON:
/// - an array or object that holds only numbers, strings, booleans and nulls is written on
///   one line, "[1.5, -0.25]" or {"mode": "words", "lowercase": false};
/// - any other array or object has a line per element or member, indented by two spaces a
///   level, so a matrix is written a row per line;
/// - `comments` go before the members they name.
/// Keys and strings are escaped by nlohmann/json (UTF-8 passes through; invalid UTF-8 throws
/// nlohmann::json::type_error, so callers pass validated text).
std::string write(const Json& value, const std::vector<Comment>& comments = {});

/// A row of numbers, [1.5, -0.25]: each double written so that reading it gives it back.
Json row(std::span<const double> values);
/// A matrix, an array of rows.
Json matrix(const Matrix& m);
/// An embeddings table's "vectors": row i of `x` for `tokens[i]`, one vector for a repeated
/// token, none for <pad> (a zero vector that no table holds).
Json vectors(const std::vector<std::string>& tokens, const Matrix& x);
/// Weights as a model file holds them (the reader: reader::weights): "heads" when more than
/// one, W_Q, W_K, W_V, W_O when there is one, and the biases there are.
Json weights(const Weights& w, std::size_t n_heads);

}  // namespace attn::json_layout
