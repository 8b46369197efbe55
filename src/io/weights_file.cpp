// Weights files: {"W_Q": [[...]], "W_K": [[...]], "W_V": [[...]], "W_O", biases, "heads"}, or
// the state_dict of PyTorch's nn.MultiheadAttention; also the "weights" of a model file.
#include "attn/io/model_file.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "attn/core/ops.hpp"
#include "reader.hpp"

namespace attn {
namespace reader {
namespace {

// A bias: an array of numbers, kept as a (1, n) matrix.
Matrix bias(const Reader& r, const Value& v, const std::string& where, std::size_t expected,
            std::string_view of) {
    const auto b = r.numbers(v, where);
    if (b.size() != expected) {
        r.fail(v, where,
               fmt::format("the bias has {} numbers, expected {} (one per column of {})", b.size(),
                           expected, of));
    }
    Matrix m(1, b.size());
    std::copy(b.begin(), b.end(), m.row(0).begin());
    return m;
}

void read_heads(const Reader& r, const Value& obj, const std::string& where, Weights& w) {
    const Value* h = obj.find("heads");
    if (h == nullptr) {
        return;
    }
    w.n_heads = r.size_value(*h, child(where, "heads"), Field::n_heads);
    if (w.w_q.cols() % w.n_heads != 0 || w.w_v.cols() % w.n_heads != 0) {
        r.fail(*h, child(where, "heads"),
               fmt::format("{} heads do not divide W_Q's {} and W_V's {} columns, expected a "
                           "number of heads that splits them evenly",
                           w.n_heads, w.w_q.cols(), w.w_v.cols()));
    }
}

// PyTorch's nn.MultiheadAttention state_dict: in_proj_weight (3E, E) holds W_q, W_k, W_v
// one under the other and y = x·Wᵀ + b, so attn's W_Q = in_proj_weight[0:E]ᵀ, etc.
Weights pytorch_weights(const Reader& r, const Value& obj, const std::string& where) {
    r.check_keys(obj, where,
                 {"schema", "description", "heads", "in_proj_weight", "in_proj_bias",
                  "out_proj.weight", "out_proj.bias"});
    const Value& in_w = obj.members.front().first == "in_proj_weight" ? obj.members.front().second
                                                                      : *obj.find("in_proj_weight");
    const Matrix in = r.matrix(in_w, child(where, "in_proj_weight"));
    const std::size_t e = in.cols();
    if (in.rows() != 3 * e) {
        r.fail(in_w, child(where, "in_proj_weight"),
               fmt::format("in_proj_weight is {}×{}, expected 3E×E = {}×{} (W_q, W_k and W_v "
                           "of PyTorch, one under the other)",
                           in.rows(), e, 3 * e, e));
    }
    const auto block_t = [&](const Matrix& m, std::size_t first_row, std::size_t n_rows) {
        Matrix out(m.cols(), n_rows);  // the rows [first_row, first_row + n_rows), transposed
        for (std::size_t row = 0; row < n_rows; ++row) {
            for (std::size_t c = 0; c < m.cols(); ++c) {
                out(c, row) = m(first_row + row, c);
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
            bias(r, *b, child(where, "in_proj_bias"), 3 * e, "in_proj_weight's rows");
        w.b_q = Matrix(1, e);
        w.b_k = Matrix(1, e);
        w.b_v = Matrix(1, e);
        for (std::size_t i = 0; i < e; ++i) {
            w.b_q(0, i) = all(0, i);
            w.b_k(0, i) = all(0, e + i);
            w.b_v(0, i) = all(0, 2 * e + i);
        }
    }
    const Value& out_w = r.require(obj, where, "out_proj.weight",
                                   "out_proj.weight (E×E), as in PyTorch's state_dict");
    const Matrix out = r.matrix(out_w, child(where, "out_proj.weight"));
    if (out.rows() != e || out.cols() != e) {
        r.fail(out_w, child(where, "out_proj.weight"),
               fmt::format("out_proj.weight is {}×{}, expected E×E = {}×{}", out.rows(), out.cols(),
                           e, e));
    }
    w.w_o = transpose(out);
    if (const Value* b = obj.find("out_proj.bias")) {
        w.b_o = bias(r, *b, child(where, "out_proj.bias"), e, "out_proj.weight's rows");
    }
    read_heads(r, obj, where, w);
    return w;
}

}  // namespace

Weights weights(const Reader& r, const Value& obj, const std::string& where) {
    r.expect_type(obj, where, Type::object,
                  "an object with \"W_Q\", \"W_K\" and \"W_V\" (each an array of rows)");
    if (obj.find("in_proj_weight") != nullptr) {
        return pytorch_weights(r, obj, where);
    }
    r.check_keys(
        obj, where,
        {"schema", "description", "heads", "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O"});
    const std::string_view expected = "W_Q, W_K and W_V, each an array of rows";
    const Value& q = r.require(obj, where, "W_Q", expected);
    const Value& k = r.require(obj, where, "W_K", expected);
    const Value& v = r.require(obj, where, "W_V", expected);
    Weights w;
    w.w_q = r.matrix(q, child(where, "W_Q"));
    w.w_k = r.matrix(k, child(where, "W_K"));
    w.w_v = r.matrix(v, child(where, "W_V"));
    const auto same_rows = [&](const Matrix& m, const Value& at, std::string_view name) {
        if (m.rows() != w.w_q.rows()) {
            r.fail(at, child(where, name),
                   fmt::format("{} has {} rows, expected {} like W_Q (every weight matrix has "
                               "d_model rows, one per embedding dimension)",
                               name, m.rows(), w.w_q.rows()));
        }
    };
    same_rows(w.w_k, k, "W_K");
    same_rows(w.w_v, v, "W_V");
    if (w.w_k.cols() != w.w_q.cols()) {
        r.fail(k, child(where, "W_K"),
               fmt::format("W_K has {} columns, expected d_k = {} like W_Q (queries and keys "
                           "must have the same width to be compared)",
                           w.w_k.cols(), w.w_q.cols()));
    }
    if (const Value* o = obj.find("W_O")) {
        w.w_o = r.matrix(*o, child(where, "W_O"));
        if (w.w_o.rows() != w.w_v.cols() || w.w_o.cols() != w.w_q.rows()) {
            r.fail(*o, child(where, "W_O"),
                   fmt::format("W_O is {}×{}, expected {}×{} (as many rows as W_V has columns, "
                               "as many columns as d_model)",
                               w.w_o.rows(), w.w_o.cols(), w.w_v.cols(), w.w_q.rows()));
        }
    }
    const auto read_bias = [&](std::string_view key, Matrix& into, std::size_t n,
                               std::string_view of) {
        if (const Value* b = obj.find(key)) {
            into = bias(r, *b, child(where, key), n, of);
        }
    };
    read_bias("b_Q", w.b_q, w.w_q.cols(), "W_Q");
    read_bias("b_K", w.b_k, w.w_k.cols(), "W_K");
    read_bias("b_V", w.b_v, w.w_v.cols(), "W_V");
    if (const Value* b = obj.find("b_O")) {
        if (w.w_o.empty()) {
            r.fail(*b, child(where, "b_O"), "there is b_O but no W_O, expected W_O with it");
        }
        w.b_o = bias(r, *b, child(where, "b_O"), w.w_o.cols(), "W_O");
    }
    read_heads(r, obj, where, w);
    return w;
}

}  // namespace reader

Weights read_weights(const std::string& path, std::size_t max_memory) {
    return reader::read_part_file(
        path, max_memory, "attn.weights",
        "a weights file: {\"W_Q\": [[...]], \"W_K\": [[...]], \"W_V\": [[...]]}", reader::weights);
}

}  // namespace attn
