// Reading embeddings, weights, model files and dumps, and putting a run's input together.
// Every check says where (FILE:LINE:COLUMN: json.path), what was found and what was expected.
#include "attn/io/model_file.hpp"

#include "attn/core/check.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/utf8.hpp"
#include "attn/io/json_reader.hpp"

namespace attn {
namespace {

using json::Value;
using Type = json::Value::Type;

bool is_identifier(std::string_view key) {
    if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front())) != 0) {
        return false;
    }
    return std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    });
}

std::string child(const std::string& path, std::string_view key) {
    if (is_identifier(key)) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }
    std::string quoted;
    for (char c : key) {
        quoted += c == '"' ? "\\\"" : std::string(1, c);
    }
    return (path.empty() ? std::string("") : path) + "[\"" + quoted + "\"]";
}

std::string index(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

std::string list(const std::vector<std::string>& items, std::string_view last_sep = " and ") {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            out += i + 1 == items.size() ? std::string(last_sep) : ", ";
        }
        out += items[i];
    }
    return out;
}

// What kind of attn file a JSON object looks like, for hints when the wrong one is given.
std::string_view looks_like(const Value& v) {
    if (const auto* schema = v.find("schema"); schema != nullptr && schema->is(Type::string)) {
        return schema->text;
    }
    if (v.find("steps") != nullptr) {
        return "attn.trace";
    }
    if (v.find("embeddings") != nullptr || v.find("weights") != nullptr) {
        return "attn.model";
    }
    if (v.find("vectors") != nullptr) {
        return "attn.embeddings";
    }
    if (v.find("W_Q") != nullptr) {
        return "attn.weights";
    }
    return "";
}

std::string option_for(std::string_view schema) {
    if (schema == "attn.trace") {
        return "a JSON dump: replay it with --from";
    }
    if (schema == "attn.model") {
        return "a model file: give it with --model";
    }
    if (schema == "attn.embeddings") {
        return "an embeddings file: give it with --embeddings";
    }
    if (schema == "attn.weights") {
        return "a weights file: give it with --weights";
    }
    return "";
}

class Reader {
  public:
    explicit Reader(std::string path) : path_(std::move(path)) {}

    [[nodiscard]] const std::string& path() const { return path_; }

    [[noreturn]] void fail(const Value& at, const std::string& where,
                           const std::string& what) const {
        throw Error(ErrorKind::input,
                    fmt::format("{}:{}:{}: {}{}{}", path_, at.position.line, at.position.column,
                                where, where.empty() ? "" : ": ", what));
    }

    Value document(std::string_view schema, std::string_view expected) const {
        Value root = json::parse(json::read_file(path_, json::max_input_bytes), path_);
        if (!root.is(Type::object)) {
            fail(root, "",
                 fmt::format("the file holds {}, expected a JSON object ({})",
                             json::describe(root.type), expected));
        }
        const auto kind = looks_like(root);
        if (!kind.empty() && kind != schema) {
            const auto hint = option_for(kind);
            fail(root, "",
                 fmt::format("this looks like {}, expected {}",
                             hint.empty() ? fmt::format("a file of schema \"{}\"", kind) : hint,
                             expected));
        }
        return root;
    }

    void check_keys(const Value& obj, const std::string& where,
                    const std::vector<std::string>& allowed) const {
        for (const auto& [key, value] : obj.members) {
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                const auto near = nearest(key, allowed);
                fail(value, child(where, key),
                     fmt::format(
                         "unknown key \"{}\", expected one of: {}{}", key, list(allowed, ", "),
                         near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near.front())));
            }
        }
    }

    const Value& require(const Value& obj, const std::string& where, std::string_view key,
                         std::string_view expected) const {
        const Value* v = obj.find(key);
        if (v == nullptr) {
            fail(obj, where.empty() ? "the top level" : where,
                 fmt::format("\"{}\" is missing, expected {}", key, expected));
        }
        return *v;
    }

    void expect_type(const Value& v, const std::string& where, Type type,
                     std::string_view expected) const {
        if (!v.is(type)) {
            fail(v, where,
                 fmt::format("found {}{}, expected {}", json::describe(v.type), sample(v),
                             expected));
        }
    }

    std::string string_value(const Value& v, const std::string& where) const {
        expect_type(v, where, Type::string, "a string");
        return v.text;
    }

    bool bool_value(const Value& v, const std::string& where) const {
        expect_type(v, where, Type::boolean, "true or false");
        return v.boolean;
    }

    std::size_t size_value(const Value& v, const std::string& where) const {
        expect_type(v, where, Type::number, "a whole number");
        std::size_t n = 0;
        const auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
        if (v.text.empty() || ec != std::errc() || ptr != v.text.data() + v.text.size() || n < 1 ||
            n > max_width) {
            fail(v, where,
                 fmt::format("found {}, expected a whole number from 1 to {}", format_plain(v),
                             max_width));
        }
        return n;
    }

    // A row of numbers: [0.1, -0.3, ...]
    std::vector<double> numbers(const Value& v, const std::string& where) const {
        expect_type(v, where, Type::array, "an array of numbers");
        if (v.items.empty()) {
            fail(v, where, "found an empty array, expected at least one number");
        }
        if (const auto* values = v.items.numbers()) {
            return *values;  // held compactly by the reader: no Value per number
        }
        std::vector<double> out;
        out.reserve(v.items.size());
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            const Value& item = v.items[i];
            if (!item.is(Type::number)) {
                fail(item, index(where, i),
                     fmt::format("found {}{}, expected a number{}", json::describe(item.type),
                                 sample(item),
                                 item.is(Type::string) ? " (write numbers without quotes)" : ""));
            }
            out.push_back(item.number);
        }
        return out;
    }

    // A matrix: an array of rows, all of the same length.
    Matrix matrix(const Value& v, const std::string& where) const {
        expect_type(v, where, Type::array, "an array of rows, e.g. [[1, 0], [0, 1]]");
        if (v.items.empty()) {
            fail(v, where, "the matrix is empty, expected at least one row");
        }
        const auto first = numbers(v.items[0], index(where, 0));
        Matrix m(v.items.size(), first.size());
        std::copy(first.begin(), first.end(), m.row(0).begin());
        for (std::size_t r = 1; r < v.items.size(); ++r) {
            const auto row = numbers(v.items[r], index(where, r));
            if (row.size() != first.size()) {
                fail(v.items[r], index(where, r),
                     fmt::format("row {} has {} numbers, expected {} like row 0 (every row of a "
                                 "matrix has the same length)",
                                 r, row.size(), first.size()));
            }
            std::copy(row.begin(), row.end(), m.row(r).begin());
        }
        return m;
    }

    EmbeddingTable embeddings(const Value& obj, const std::string& where) const {
        expect_type(obj, where, Type::object,
                    "an object with \"vectors\": {\"token\": [numbers], ...}");
        check_keys(obj, where, {"schema", "description", "case_insensitive", "vectors"});
        EmbeddingTable table;
        table.path = path_;
        if (const Value* ci = obj.find("case_insensitive")) {
            table.case_insensitive = bool_value(*ci, child(where, "case_insensitive"));
        }
        const std::string vectors_path = child(where, "vectors");
        const Value& vectors =
            require(obj, where, "vectors", "\"vectors\": {\"token\": [numbers], ...}");
        expect_type(vectors, vectors_path, Type::object,
                    "an object of token: [numbers], e.g. {\"book\": [0.8, -0.5]}");
        if (vectors.members.empty()) {
            fail(vectors, vectors_path, "there are no vectors, expected at least one token");
        }
        const std::string first_key = vectors.members.front().first;
        std::map<std::string, std::pair<std::string, const Value*>> folded;
        for (std::size_t i = 0; i < vectors.members.size(); ++i) {
            const auto& [token, value] = vectors.members[i];
            const std::string token_path = child(vectors_path, token);
            if (token.empty()) {
                fail(value, token_path, "the token is empty, expected at least one character");
            }
            if (token.find_first_of(" \t\n\r") != std::string::npos) {
                fail(value, token_path,
                     fmt::format("the token \"{}\" has white space, which no token can contain "
                                 "(the tokenizer splits at white space)",
                                 token));
            }
            const auto row = numbers(value, token_path);
            if (i == 0) {
                table.vectors = Matrix(vectors.members.size(), row.size());
            } else if (row.size() != table.vectors.cols()) {
                fail(value, token_path,
                     fmt::format("the vector of \"{}\" has {} numbers, expected {} like \"{}\" "
                                 "(every embedding has d_model numbers)",
                                 token, row.size(), table.vectors.cols(), first_key));
            }
            std::copy(row.begin(), row.end(), table.vectors.row(i).begin());
            table.tokens.push_back(token);
            if (table.case_insensitive) {
                const auto [it, inserted] =
                    folded.emplace(fold_case(token), std::pair{token, &value});
                if (!inserted) {
                    fail(value, token_path,
                         fmt::format("\"{}\" and \"{}\" (line {}) are the same token when "
                                     "case_insensitive is true, expected each token once",
                                     token, it->second.first, it->second.second->position.line));
                }
            }
        }
        return table;
    }

    // A bias: an array of numbers, kept as a (1, n) matrix.
    Matrix bias(const Value& v, const std::string& where, std::size_t expected,
                std::string_view of) const {
        const auto b = numbers(v, where);
        if (b.size() != expected) {
            fail(v, where,
                 fmt::format("the bias has {} numbers, expected {} (one per column of {})",
                             b.size(), expected, of));
        }
        Matrix m(1, b.size());
        std::copy(b.begin(), b.end(), m.row(0).begin());
        return m;
    }

    Weights weights(const Value& obj, const std::string& where) const {
        expect_type(obj, where, Type::object,
                    "an object with \"W_Q\", \"W_K\" and \"W_V\" (each an array of rows)");
        if (obj.find("in_proj_weight") != nullptr) {
            return pytorch_weights(obj, where);
        }
        check_keys(obj, where,
                   {"schema", "description", "heads", "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K",
                    "b_V", "b_O"});
        const std::string_view expected = "W_Q, W_K and W_V, each an array of rows";
        const Value& q = require(obj, where, "W_Q", expected);
        const Value& k = require(obj, where, "W_K", expected);
        const Value& v = require(obj, where, "W_V", expected);
        Weights w;
        w.w_q = matrix(q, child(where, "W_Q"));
        w.w_k = matrix(k, child(where, "W_K"));
        w.w_v = matrix(v, child(where, "W_V"));
        const auto same_rows = [&](const Matrix& m, const Value& at, std::string_view name) {
            if (m.rows() != w.w_q.rows()) {
                fail(at, child(where, name),
                     fmt::format("{} has {} rows, expected {} like W_Q (every weight matrix has "
                                 "d_model rows, one per embedding dimension)",
                                 name, m.rows(), w.w_q.rows()));
            }
        };
        same_rows(w.w_k, k, "W_K");
        same_rows(w.w_v, v, "W_V");
        if (w.w_k.cols() != w.w_q.cols()) {
            fail(k, child(where, "W_K"),
                 fmt::format("W_K has {} columns, expected d_k = {} like W_Q (queries and keys "
                             "must have the same width to be compared)",
                             w.w_k.cols(), w.w_q.cols()));
        }
        if (const Value* o = obj.find("W_O")) {
            w.w_o = matrix(*o, child(where, "W_O"));
            if (w.w_o.rows() != w.w_v.cols() || w.w_o.cols() != w.w_q.rows()) {
                fail(*o, child(where, "W_O"),
                     fmt::format("W_O is {}×{}, expected {}×{} (as many rows as W_V has columns, "
                                 "as many columns as d_model)",
                                 w.w_o.rows(), w.w_o.cols(), w.w_v.cols(), w.w_q.rows()));
            }
        }
        const auto read_bias = [&](std::string_view key, Matrix& into, std::size_t n,
                                   std::string_view of) {
            if (const Value* b = obj.find(key)) {
                into = bias(*b, child(where, key), n, of);
            }
        };
        read_bias("b_Q", w.b_q, w.w_q.cols(), "W_Q");
        read_bias("b_K", w.b_k, w.w_k.cols(), "W_K");
        read_bias("b_V", w.b_v, w.w_v.cols(), "W_V");
        if (const Value* b = obj.find("b_O")) {
            if (w.w_o.empty()) {
                fail(*b, child(where, "b_O"), "there is b_O but no W_O, expected W_O with it");
            }
            w.b_o = bias(*b, child(where, "b_O"), w.w_o.cols(), "W_O");
        }
        read_heads(obj, where, w);
        return w;
    }

    // PyTorch's nn.MultiheadAttention state_dict: in_proj_weight (3E, E) holds W_q, W_k, W_v
    // one under the other and y = x·Wᵀ + b, so attn's W_Q = in_proj_weight[0:E]ᵀ, etc.
    Weights pytorch_weights(const Value& obj, const std::string& where) const {
        check_keys(obj, where,
                   {"schema", "description", "heads", "in_proj_weight", "in_proj_bias",
                    "out_proj.weight", "out_proj.bias"});
        const Value& in_w = obj.members.front().first == "in_proj_weight"
                                ? obj.members.front().second
                                : *obj.find("in_proj_weight");
        const Matrix in = matrix(in_w, child(where, "in_proj_weight"));
        const std::size_t e = in.cols();
        if (in.rows() != 3 * e) {
            fail(in_w, child(where, "in_proj_weight"),
                 fmt::format("in_proj_weight is {}×{}, expected 3E×E = {}×{} (W_q, W_k and W_v "
                             "of PyTorch, one under the other)",
                             in.rows(), e, 3 * e, e));
        }
        const auto block_t = [&](const Matrix& m, std::size_t first_row, std::size_t n_rows) {
            Matrix out(m.cols(), n_rows);  // the rows [first_row, first_row + n_rows), transposed
            for (std::size_t r = 0; r < n_rows; ++r) {
                for (std::size_t c = 0; c < m.cols(); ++c) {
                    out(c, r) = m(first_row + r, c);
                }
            }
            return out;
        };
        Weights w;
        w.layout = "pytorch";
        w.w_q = block_t(in, 0, e);
        w.w_k = block_t(in, e, e);
        w.w_v = block_t(in, 2 * e, e);
        if (const Value* b = obj.find("in_proj_bias")) {
            const Matrix all =
                bias(*b, child(where, "in_proj_bias"), 3 * e, "in_proj_weight's rows");
            w.b_q = Matrix(1, e);
            w.b_k = Matrix(1, e);
            w.b_v = Matrix(1, e);
            for (std::size_t i = 0; i < e; ++i) {
                w.b_q(0, i) = all(0, i);
                w.b_k(0, i) = all(0, e + i);
                w.b_v(0, i) = all(0, 2 * e + i);
            }
        }
        const Value& out_w = require(obj, where, "out_proj.weight",
                                     "out_proj.weight (E×E), as in PyTorch's state_dict");
        const Matrix out = matrix(out_w, child(where, "out_proj.weight"));
        if (out.rows() != e || out.cols() != e) {
            fail(out_w, child(where, "out_proj.weight"),
                 fmt::format("out_proj.weight is {}×{}, expected E×E = {}×{}", out.rows(),
                             out.cols(), e, e));
        }
        w.w_o = transpose(out);
        if (const Value* b = obj.find("out_proj.bias")) {
            w.b_o = bias(*b, child(where, "out_proj.bias"), e, "out_proj.weight's rows");
        }
        read_heads(obj, where, w);
        return w;
    }

    void read_heads(const Value& obj, const std::string& where, Weights& w) const {
        const Value* h = obj.find("heads");
        if (h == nullptr) {
            return;
        }
        w.n_heads = size_value(*h, child(where, "heads"));
        if (w.w_q.cols() % w.n_heads != 0 || w.w_v.cols() % w.n_heads != 0) {
            fail(*h, child(where, "heads"),
                 fmt::format("{} heads do not divide W_Q's {} and W_V's {} columns, expected a "
                             "number of heads that splits them evenly",
                             w.n_heads, w.w_q.cols(), w.w_v.cols()));
        }
    }

  private:
    static std::string format_plain(const Value& v) {
        return v.text.empty() ? fmt::format("{}", v.number) : v.text;
    }
    // A short quote of a wrong value, so the message shows what was found.
    static std::string sample(const Value& v) {
        if (v.is(Type::string)) {
            const std::string shown = v.text.size() > 20 ? v.text.substr(0, 20) + "..." : v.text;
            return fmt::format(" \"{}\"", shown);
        }
        if (v.is(Type::number)) {
            return " " + format_plain(v);
        }
        if (v.is(Type::boolean)) {
            return v.boolean ? " (true)" : " (false)";
        }
        return "";
    }

    std::string path_;
};

// A seed, read exactly from the number's text: seeds go up to 2^64 - 1, past a double's 2^53.
std::uint64_t seed_of(const Reader& r, const Value& seed, const std::string& where) {
    std::uint64_t value = 0;
    const auto [ptr, ec] =
        std::from_chars(seed.text.data(), seed.text.data() + seed.text.size(), value);
    if (!seed.is(Type::number) || seed.text.empty() || ec != std::errc() ||
        ptr != seed.text.data() + seed.text.size()) {
        r.fail(seed, where, "the seed is not a whole number, expected 0 to 2^64 - 1");
    }
    return value;
}

MaskKind mask_value(const Reader& r, const Value& v, const std::string& where,
                    bool allow_file = false) {
    const auto text = r.string_value(v, where);
    if (allow_file && text == "file") {
        return MaskKind::file;
    }
    if (text == "none") {
        return MaskKind::none;
    }
    if (text == "causal") {
        return MaskKind::causal;
    }
    r.fail(v, where, fmt::format("the mask is \"{}\", expected \"none\" or \"causal\"", text));
}

TokenizerOptions tokenizer_value(const Reader& r, const Value& v, const std::string& where) {
    r.expect_type(v, where, Type::object,
                  "{\"mode\": \"words\" or \"chars\", \"lowercase\": bool}");
    r.check_keys(v, where, {"mode", "lowercase"});
    TokenizerOptions t;
    if (const Value* mode = v.find("mode")) {
        const auto text = r.string_value(*mode, child(where, "mode"));
        if (text == "chars") {
            t.mode = TokenMode::chars;
        } else if (text != "words") {
            r.fail(*mode, child(where, "mode"),
                   fmt::format("the mode is \"{}\", expected \"words\" or \"chars\"", text));
        }
    }
    if (const Value* lower = v.find("lowercase")) {
        t.lowercase = r.bool_value(*lower, child(where, "lowercase"));
    }
    return t;
}

}  // namespace

EmbeddingTable read_embeddings(const std::string& path) {
    const Reader r(path);
    const Value root = r.document("attn.embeddings",
                                  "an embeddings file: {\"vectors\": {\"token\": [numbers], ...}}");
    return r.embeddings(root, "");
}

Weights read_weights(const std::string& path) {
    const Reader r(path);
    const Value root = r.document(
        "attn.weights", "a weights file: {\"W_Q\": [[...]], \"W_K\": [[...]], \"W_V\": [[...]]}");
    return r.weights(root, "");
}

Matrix read_positions(const std::string& path) {
    const Reader r(path);
    const Value root =
        r.document("attn.positions", "a positions file: {\"positions\": [[numbers], ...]}");
    r.check_keys(root, "", {"schema", "description", "positions"});
    return r.matrix(r.require(root, "", "positions", "\"positions\": one row per position"),
                    "positions");
}

Mask read_mask(const std::string& path) {
    const Reader r(path);
    const Value root =
        r.document("attn.mask", "a mask file: {\"mask\": [[true, false, ...], ...]}");
    r.check_keys(root, "", {"schema", "description", "mask"});
    const Value& rows = r.require(root, "", "mask", "\"mask\": one row of booleans per token");
    r.expect_type(rows, "mask", Type::array, "an array of rows of true and false");
    if (rows.items.empty()) {
        r.fail(rows, "mask", "the mask is empty, expected one row per token");
    }
    Mask m(rows.items.size(), rows.items.size(), true);
    for (std::size_t i = 0; i < rows.items.size(); ++i) {
        const Value& row = rows.items[i];
        const std::string where = index("mask", i);
        r.expect_type(row, where, Type::array, "an array of true and false");
        if (row.items.size() != rows.items.size()) {
            r.fail(row, where,
                   fmt::format("row {} has {} entries, expected {} (the mask is square: one row "
                               "and one column per token)",
                               i, row.items.size(), rows.items.size()));
        }
        for (std::size_t j = 0; j < row.items.size(); ++j) {
            const Value& cell = row.items[j];
            if (!cell.is(Type::boolean)) {
                r.fail(cell, index(where, j),
                       fmt::format("found {}, expected true (may attend) or false (blocked)",
                                   json::describe(cell.type)));
            }
            m.set(i, j, cell.boolean);
        }
    }
    return m;
}

ModelFile read_model(const std::string& path) {
    const Reader r(path);
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
    if (const Value* v = root.find("positions")) {
        const auto text = r.string_value(*v, "positions");
        if (text == "sinusoidal") {
            m.positions = PositionKind::sinusoidal;
        } else if (text == "none") {
            m.positions = PositionKind::none;
        } else {
            r.fail(*v, "positions",
                   fmt::format("the positions are \"{}\", expected \"none\" or \"sinusoidal\" "
                               "(a table goes in its own file, given with --positions FILE)",
                               text));
        }
    }
    if (const Value* v = root.find("pad_to")) {
        m.pad_to = r.size_value(*v, "pad_to");
    }
    if (const Value* v = root.find("embeddings")) {
        m.embeddings = r.embeddings(*v, "embeddings");
    }
    if (const Value* v = root.find("weights")) {
        m.weights = r.weights(*v, "weights");
    }
    if (!m.embeddings && !m.weights) {
        r.fail(root, "the top level",
               "there are neither \"embeddings\" nor \"weights\", expected at least one of them");
    }
    return m;
}

Loaded read_dump(const std::string& path) {
    const Reader r(path);
    const Value root = r.document("attn.trace", "a JSON dump written by attn explain --json");
    const Value& version = r.require(root, "", "schema_version", "the dump's schema_version");
    if (!version.is(Type::number) || version.text != std::to_string(json_schema_version)) {
        r.fail(version, "schema_version",
               fmt::format("the dump has schema version {}, expected {} (the version this attn "
                           "reads and writes)",
                           version.text.empty() ? "that is not a whole number" : version.text,
                           json_schema_version));
    }
    Loaded out;
    Config& c = out.config;
    const Value& config = r.require(root, "", "config", "the run's configuration");
    r.expect_type(config, "config", Type::object, "an object");
    const Value& seed = r.require(config, "config", "seed", "the seed");
    c.seed = seed_of(r, seed, "config.seed");
    c.d_model = r.size_value(r.require(config, "config", "d_model", "a size"), "config.d_model");
    if (const Value* heads = config.find("n_heads")) {
        c.n_heads = r.size_value(*heads, "config.n_heads");
    }
    c.d_k = r.size_value(r.require(config, "config", "d_k", "a size"), "config.d_k");
    c.d_v = r.size_value(r.require(config, "config", "d_v", "a size"), "config.d_v");
    c.mask = mask_value(r, r.require(config, "config", "mask", "\"none\" or \"causal\""),
                        "config.mask", true);
    if (const Value* p = config.find("positions")) {
        const auto text = r.string_value(*p, "config.positions");
        c.positions = text == "sinusoidal" ? PositionKind::sinusoidal
                      : text == "file"     ? PositionKind::file
                                           : PositionKind::none;
    }
    if (const Value* arith = config.find("arith")) {
        c.arith = r.string_value(*arith, "config.arith") == "hand" ? Arith::hand : Arith::exact;
    }
    if (const Value* scale = config.find("scale")) {
        c.scale_by = r.bool_value(*scale, "config.scale") ? ScaleBy::d_k : ScaleBy::none;
    }
    if (const Value* pad = config.find("n_pad")) {
        r.expect_type(*pad, "config.n_pad", Type::number, "a whole number");
        c.n_pad = static_cast<std::size_t>(pad->number);
    }
    c.tokenizer = tokenizer_value(r, r.require(config, "config", "tokenizer", "the tokenizer"),
                                  "config.tokenizer");

    Input& in = out.input;
    in.sentence = r.string_value(r.require(root, "", "sentence", "the sentence"), "sentence");
    if (const Value* d = root.find("description")) {
        in.description = r.string_value(*d, "description");
    }
    const Value& tokens = r.require(root, "", "tokens", "the tokens");
    r.expect_type(tokens, "tokens", Type::array, "an array of strings");
    for (std::size_t i = 0; i < tokens.items.size(); ++i) {
        in.tokens.push_back(r.string_value(tokens.items[i], index("tokens", i)));
    }
    if (const Value* sources = root.find("sources")) {
        const auto source = [&](std::string_view key) {
            Source s;
            const Value* v = sources->find(key);
            if (v == nullptr || !v->is(Type::object)) {
                return s;
            }
            const std::string where = child(child("sources", key), "kind");
            if (const Value* kind = v->find("kind");
                kind != nullptr && r.string_value(*kind, where) == "file") {
                s.kind = Source::Kind::file;
            }
            if (const Value* p = v->find("path")) {
                s.path = r.string_value(*p, child(child("sources", key), "path"));
            }
            if (const Value* l = v->find("layout")) {
                s.layout = r.string_value(*l, child(child("sources", key), "layout"));
            }
            if (const Value* seeded = v->find("seeded_tokens");
                seeded != nullptr && seeded->is(Type::array)) {
                for (const auto& t : seeded->items) {
                    s.seeded_tokens.push_back(t.text);
                }
            }
            return s;
        };
        in.embeddings_source = source("embeddings");
        in.weights_source = source("weights");
        in.positions_source = source("positions");
        in.mask_source = source("mask");
    }
    const Value& steps = r.require(root, "", "steps", "the steps");
    r.expect_type(steps, "steps", Type::array, "an array of steps");
    const auto find_step = [&](std::string_view id) -> std::pair<const Value*, std::size_t> {
        for (std::size_t i = 0; i < steps.items.size(); ++i) {
            const Value& s = steps.items[i];
            const Value* sid = s.find("id");
            if (s.is(Type::object) && sid != nullptr && sid->is(Type::string) && sid->text == id) {
                return {&s, i};
            }
        }
        return {nullptr, 0};
    };
    const auto optional_values = [&](std::string_view id) -> Matrix {
        const auto [s, i] = find_step(id);
        if (s == nullptr) {
            return {};
        }
        const std::string where = index("steps", i);
        return r.matrix(r.require(*s, where, "values", "the step's values"),
                        child(where, "values"));
    };
    const auto step_values = [&](std::string_view id) -> Matrix {
        for (std::size_t i = 0; i < steps.items.size(); ++i) {
            const Value& s = steps.items[i];
            const Value* sid = s.find("id");
            if (s.is(Type::object) && sid != nullptr && sid->is(Type::string) && sid->text == id) {
                const std::string where = index("steps", i);
                return r.matrix(r.require(s, where, "values", "the step's values"),
                                child(where, "values"));
            }
        }
        r.fail(steps, "steps",
               fmt::format("there is no step \"{}\", expected one (the dump "
                           "holds every step)",
                           id));
    };
    in.x = step_values("embeddings");
    in.weights.w_q = step_values("W_Q");
    in.weights.w_k = step_values("W_K");
    in.weights.w_v = step_values("W_V");
    in.weights.w_o = optional_values("W_O");
    in.weights.b_q = optional_values("b_Q");
    in.weights.b_k = optional_values("b_K");
    in.weights.b_v = optional_values("b_V");
    in.weights.b_o = optional_values("b_O");
    in.positions = optional_values("positions");
    if (c.mask == MaskKind::file || c.n_pad > 0) {
        // the recorded mask, padding included; explaining it again gives the same mask
        const auto [mask_step, at] = find_step("mask");
        if (mask_step == nullptr) {
            r.fail(steps, "steps", "there is no step \"mask\", expected one with this mask");
        }
        const Value& rows = r.require(*mask_step, index("steps", at), "values", "the mask");
        Mask m(rows.items.size(), rows.items.size(), true);
        for (std::size_t i = 0; i < rows.items.size(); ++i) {
            for (std::size_t j = 0; j < rows.items[i].items.size() && j < m.cols(); ++j) {
                m.set(i, j, rows.items[i].items[j].boolean);
            }
        }
        in.mask = m;
    }
    if (in.x.rows() != in.tokens.size()) {
        r.fail(tokens, "tokens",
               fmt::format("there are {} tokens but {} rows of embeddings, expected one row per "
                           "token",
                           in.tokens.size(), in.x.rows()));
    }
    return out;
}

}  // namespace attn

namespace attn {

AnswerSheet read_answers(const std::string& path) {
    const Reader r(path);
    const Value root =
        r.document("attn.answers", "an answers file written by attn worksheet and filled in");
    r.check_keys(root, "", {"schema", "schema_version", "instructions", "worksheet", "answers"});
    AnswerSheet sheet;
    sheet.path = path;
    const Value& w = r.require(root, "", "worksheet", "the worksheet's settings");
    r.expect_type(w, "worksheet", Type::object, "an object");
    r.check_keys(w, "worksheet",
                 {"sentence", "seed", "d_model", "d_k", "d_v", "mask", "arith", "tokenizer"});
    WorksheetSettings& spec = sheet.worksheet;
    spec.sentence =
        r.string_value(r.require(w, "worksheet", "sentence", "the sentence"), "worksheet.sentence");
    const Value& seed = r.require(w, "worksheet", "seed", "the seed");
    spec.seed = seed_of(r, seed, "worksheet.seed");
    spec.d_model =
        r.size_value(r.require(w, "worksheet", "d_model", "a size"), "worksheet.d_model");
    spec.d_k = r.size_value(r.require(w, "worksheet", "d_k", "a size"), "worksheet.d_k");
    spec.d_v = r.size_value(r.require(w, "worksheet", "d_v", "a size"), "worksheet.d_v");
    spec.mask = mask_value(r, r.require(w, "worksheet", "mask", "\"none\" or \"causal\""),
                           "worksheet.mask");
    if (const Value* a = w.find("arith")) {
        const auto text = r.string_value(*a, "worksheet.arith");
        if (text != "hand" && text != "exact") {
            r.fail(*a, "worksheet.arith",
                   fmt::format("the arithmetic is \"{}\", expected \"exact\" or \"hand\"", text));
        }
        spec.arith = text == "hand" ? Arith::hand : Arith::exact;
    }
    if (const Value* tok = w.find("tokenizer")) {
        spec.tokenizer = tokenizer_value(r, *tok, "worksheet.tokenizer");
    }
    const Value& answers = r.require(root, "", "answers", "the answers, one matrix per step");
    r.expect_type(answers, "answers", Type::object, "an object of step: [[...], ...]");
    for (const auto& [id, rows] : answers.members) {
        const std::string where = child("answers", id);
        r.expect_type(rows, where, Type::array, "an array of rows");
        std::vector<std::vector<Answer>> matrix;
        for (std::size_t i = 0; i < rows.items.size(); ++i) {
            const Value& row = rows.items[i];
            r.expect_type(row, index(where, i), Type::array, "an array of numbers");
            std::vector<Answer> cells;
            for (std::size_t j = 0; j < row.items.size(); ++j) {
                const Value& cell = row.items[j];
                Answer a;
                if (cell.is(Type::number)) {
                    a.kind = Answer::Kind::number;
                    a.value = cell.number;
                } else if (cell.is(Type::string) &&
                           (cell.text == "-inf" || cell.text == "−∞" || cell.text == "-∞")) {
                    a.kind = Answer::Kind::minus_infinity;
                } else if (!cell.is(Type::null)) {
                    r.fail(cell, index(index(where, i), j),
                           fmt::format("found {}{}, expected a number, \"-inf\" or null (not yet "
                                       "answered)",
                                       json::describe(cell.type),
                                       cell.is(Type::string) ? " \"" + cell.text + "\"" : ""));
                }
                cells.push_back(a);
            }
            matrix.push_back(std::move(cells));
        }
        sheet.step_ids.push_back(id);
        sheet.answers.push_back(std::move(matrix));
    }
    return sheet;
}

}  // namespace attn
