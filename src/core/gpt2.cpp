// GPT-2's forward pass up to one layer, recorded as Trace steps. Each layer's attention is
// the same pipeline as every other lesson (explain(), attention.cpp): ln_1's output is X,
// c_attn's three blocks of columns are W_Q, W_K and W_V with their biases, c_proj is W_O, the
// mask is causal and the scores are divided by √d_head. What is GPT-2's own (the embeddings,
// LayerNorm, the MLP and the residual stream) is here.
// Shapes: T tokens, d = n_embd, n_inner the MLP's width.
#include "attn/core/gpt2.hpp"

#include <cmath>
#include <numbers>
#include <utility>

#include <fmt/format.h>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/trace.hpp"

namespace attn {
namespace {

Matrix plus(const Matrix& a, const Matrix& b) {
    Matrix out = a;
    for (std::size_t i = 0; i < out.size(); ++i) {
        out.data()[i] += b.data()[i];
    }
    return out;
}

// The configuration of one layer's attention: every head, d_head wide, causal, ÷ √d_head.
Config attention_config(const Gpt2Config& c) {
    Config config;
    config.d_model = c.n_embd;
    config.n_heads = c.n_head;
    config.d_k = c.n_embd / c.n_head;
    config.d_v = config.d_k;
    config.mask = MaskKind::causal;
    config.positions = PositionKind::none;
    config.scale_by = ScaleBy::d_k;
    config.softmax_over = SoftmaxOver::rows;
    config.arith = Arith::exact;
    return config;
}

// Layer `layer`'s attention on x (the residual stream): ln_1, then explain() over the heads.
struct AttentionPart {
    Matrix mean, variance, gamma, beta;
    Trace trace;
};

AttentionPart attention_of(const Gpt2Request& request, const Gpt2Config& c,
                           const Gpt2Tensors& tensors, std::size_t layer, const Matrix& x) {
    const std::size_t d = c.n_embd;
    AttentionPart part;
    part.gamma = tensors.matrix(gpt2_name(layer, "ln_1.weight"), {d}, "n_embd");
    part.beta = tensors.matrix(gpt2_name(layer, "ln_1.bias"), {d}, "n_embd");
    Input in;
    in.sentence = request.sentence;
    in.tokens = request.tokens;
    in.tokens_named = false;
    in.x =
        gpt2_layer_norm(x, part.gamma, part.beta, c.layer_norm_epsilon, &part.mean, &part.variance);
    // c_attn: [d, 3·d], the columns of Q, then K, then V; its bias likewise; each block read
    // straight into its matrix
    const std::string w = gpt2_name(layer, "attn.c_attn.weight");
    const std::string b = gpt2_name(layer, "attn.c_attn.bias");
    const std::string_view w_shape = "n_embd × 3·n_embd";
    in.weights.w_q = tensors.columns(w, {d, 3 * d}, w_shape, 0, d);
    in.weights.w_k = tensors.columns(w, {d, 3 * d}, w_shape, d, d);
    in.weights.w_v = tensors.columns(w, {d, 3 * d}, w_shape, 2 * d, d);
    in.weights.b_q = tensors.columns(b, {3 * d}, "3·n_embd", 0, d);
    in.weights.b_k = tensors.columns(b, {3 * d}, "3·n_embd", d, d);
    in.weights.b_v = tensors.columns(b, {3 * d}, "3·n_embd", 2 * d, d);
    in.weights.w_o =
        tensors.matrix(gpt2_name(layer, "attn.c_proj.weight"), {d, d}, "n_embd × n_embd");
    in.weights.b_o = tensors.matrix(gpt2_name(layer, "attn.c_proj.bias"), {d}, "n_embd");
    in.weights.layout = "gpt2";
    in.weights.n_heads = c.n_head;
    in.embeddings_source = {Source::Kind::file, request.source, {}, ""};
    in.weights_source = {Source::Kind::file, request.source, {}, "gpt2"};
    part.trace = explain(std::move(in), attention_config(c));
    return part;
}

// The MLP's change (T, d) = c_proj(gelu_new(c_fc(ln_2(x)))).
Matrix mlp_of(const Gpt2Config& c, const Gpt2Tensors& tensors, std::size_t layer, const Matrix& x) {
    const std::size_t d = c.n_embd;
    const std::size_t inner = c.n_inner;
    const Matrix ln = gpt2_layer_norm(
        x, tensors.matrix(gpt2_name(layer, "ln_2.weight"), {d}, "n_embd"),
        tensors.matrix(gpt2_name(layer, "ln_2.bias"), {d}, "n_embd"), c.layer_norm_epsilon);
    // the MLP's weights (two thirds of a layer's) are multiplied straight from the file
    Matrix hidden =
        tensors.times(ln, gpt2_name(layer, "mlp.c_fc.weight"), {d, inner}, "n_embd × n_inner");
    add_bias(hidden, tensors.matrix(gpt2_name(layer, "mlp.c_fc.bias"), {inner}, "n_inner"));
    for (double& v : hidden.data()) {
        v = gelu_new(v);
    }
    Matrix out = tensors.times(hidden, gpt2_name(layer, "mlp.c_proj.weight"), {inner, d},
                               "n_inner × n_embd");
    add_bias(out, tensors.matrix(gpt2_name(layer, "mlp.c_proj.bias"), {d}, "n_embd"));
    return out;
}

}  // namespace

std::string gpt2_name(std::size_t layer, std::string_view part) {
    return fmt::format("h.{}.{}", layer, part);
}

Matrix gpt2_layer_norm(const Matrix& x, const Matrix& gamma, const Matrix& beta, double epsilon,
                       Matrix* mean, Matrix* variance) {
    const std::size_t d = x.cols();
    Matrix out(x.rows(), d);
    if (mean != nullptr) {
        *mean = Matrix(x.rows(), 1);
    }
    if (variance != nullptr) {
        *variance = Matrix(x.rows(), 1);
    }
    for (std::size_t r = 0; r < x.rows(); ++r) {
        const auto row = x.row(r);
        double sum = 0.0;
        for (double v : row) {
            sum += v;
        }
        const double mu = sum / static_cast<double>(d);
        double ss = 0.0;
        for (double v : row) {
            ss += (v - mu) * (v - mu);
        }
        // the biased variance (÷ d, not d − 1), as torch's layer_norm
        const double var = ss / static_cast<double>(d);
        const double root = std::sqrt(var + epsilon);
        for (std::size_t c = 0; c < d; ++c) {
            out(r, c) = (row[c] - mu) / root * gamma(0, c) + beta(0, c);
        }
        if (mean != nullptr) {
            (*mean)(r, 0) = mu;
        }
        if (variance != nullptr) {
            (*variance)(r, 0) = var;
        }
    }
    return out;
}

double gelu_new(double x) noexcept {
    const double k = std::sqrt(2.0 / std::numbers::pi);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

Trace explain_gpt2(const Gpt2Request& request, const Gpt2Config& c, const Gpt2Tensors& tensors) {
    const std::size_t n_tokens = request.token_ids.size();
    if (request.layer >= c.n_layer) {
        throw Error(ErrorKind::usage, Field::layer,
                    fmt::format("{} {}: out of range, expected a layer from 1 to {} (the model "
                                "has {} layers, h.0 to h.{})",
                                subject, request.layer + 1, c.n_layer, c.n_layer, c.n_layer - 1));
    }
    if (request.head && *request.head >= c.n_head) {
        throw Error(ErrorKind::usage, Field::head,
                    fmt::format("{} {}: out of range, expected a head from 1 to {} (or all)",
                                subject, *request.head + 1, c.n_head));
    }
    if (n_tokens == 0) {
        throw Error(ErrorKind::input, Field::sentence, "the sentence has no tokens");
    }
    if (n_tokens > c.n_positions) {
        throw Error(ErrorKind::input, Field::sentence,
                    fmt::format("the sentence has {} tokens, more than the model's context of {} "
                                "(n_positions)",
                                n_tokens, c.n_positions));
    }
    const std::size_t d = c.n_embd;
    Gpt2Walk walk;
    static_cast<Gpt2Choice&>(walk) = static_cast<const Gpt2Choice&>(request);  // the choice only
    walk.config = c;
    walk.mean_label = {"μ"};
    walk.variance_label = {"σ²"};
    walk.gamma_label = {"γ"};
    walk.beta_label = {"β"};

    // wte (T, d): row id of the token table; wpe (T, d): rows 0..T-1 of the position table
    std::vector<std::size_t> ids(request.token_ids.begin(), request.token_ids.end());
    std::vector<std::size_t> positions(n_tokens);
    for (std::size_t i = 0; i < n_tokens; ++i) {
        positions[i] = i;
    }
    walk.wte = tensors.rows("wte.weight", {c.vocab_size, d}, "vocab_size × n_embd", ids);
    walk.wpe = tensors.rows("wpe.weight", {c.n_positions, d}, "n_positions × n_embd", positions);
    walk.embeddings = plus(walk.wte, walk.wpe);

    // the layers below: x ← x + attention(ln_1(x)); x ← x + mlp(ln_2(x)), with the size of
    // each change to every token's vector
    Matrix x = walk.embeddings;
    walk.layer_changes = Matrix(2 * request.layer, n_tokens);
    walk.layer_norms = Matrix(2 * request.layer, n_tokens);
    const auto record = [&](std::size_t row, const Matrix& change) {
        const auto lengths = row_norms(change);
        const auto after = row_norms(x);
        for (std::size_t t = 0; t < n_tokens; ++t) {
            walk.layer_changes(row, t) = lengths[t];
            walk.layer_norms(row, t) = after[t];
        }
    };
    for (std::size_t l = 0; l < request.layer; ++l) {
        const Matrix attn = attention_of(request, c, tensors, l, x).trace.output;
        x = plus(x, attn);
        record(2 * l, attn);
        walk.change_labels.push_back(gpt2_name(l, "attn"));
        const Matrix mlp = mlp_of(c, tensors, l, x);
        x = plus(x, mlp);
        record(2 * l + 1, mlp);
        walk.change_labels.push_back(gpt2_name(l, "mlp"));
    }

    // the layer walked through: every step of its attention, then the MLP
    walk.residual = x;
    AttentionPart part = attention_of(request, c, tensors, request.layer, x);
    walk.ln_mean = std::move(part.mean);
    walk.ln_variance = std::move(part.variance);
    walk.ln_gamma = std::move(part.gamma);
    walk.ln_beta = std::move(part.beta);
    walk.residual_attn = plus(x, part.trace.output);
    walk.mlp = mlp_of(c, tensors, request.layer, walk.residual_attn);
    walk.residual_mlp = plus(walk.residual_attn, walk.mlp);

    Trace t = std::move(part.trace);
    t.gpt2 = std::move(walk);
    t.index_steps();
    return t;
}

}  // namespace attn
