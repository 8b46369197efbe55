// The single-head self-attention pipeline: one function per step of the lesson.
// Shapes use the legend of ops.hpp: T tokens, d_model, d_k, d_v.
#include "attn/core/attention.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>
#include <utility>

#include "attn/core/limits.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"
#include "input_checks.hpp"

namespace attn {
namespace {

std::vector<std::string> numbered(std::string_view prefix, std::size_t n) {
    std::vector<std::string> labels;
    labels.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        labels.push_back(std::string(prefix) + std::to_string(i));
    }
    return labels;
}

// Groups of two or more rows of m that are exactly equal, each group in index order and the
// groups ordered by their first index. Sorting rows costs O(T log T · width), not O(T² · width).
std::vector<std::vector<std::size_t>> identical_rows(const Matrix& m) {
    std::vector<std::size_t> order(m.rows());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto less = [&m](std::size_t a, std::size_t b) {
        const auto ra = m.row(a);
        const auto rb = m.row(b);
        if (std::lexicographical_compare(ra.begin(), ra.end(), rb.begin(), rb.end())) {
            return true;
        }
        if (std::lexicographical_compare(rb.begin(), rb.end(), ra.begin(), ra.end())) {
            return false;
        }
        return a < b;
    };
    std::sort(order.begin(), order.end(), less);
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i + 1;
        while (j < order.size() && std::ranges::equal(m.row(order[i]), m.row(order[j]))) {
            ++j;
        }
        if (j - i > 1) {
            groups.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(i),
                                order.begin() + static_cast<std::ptrdiff_t>(j));
        }
        i = j;
    }
    std::sort(groups.begin(), groups.end());
    return groups;
}

// One head's steps 4 to 9, the numbers only: projections, scores, scaling, mask, softmax,
// output.
Head head_numbers(const Trace& t, std::size_t h, const Input& input) {
    const Config& config = t.config;
    Head head;
    head.index = h;
    head.k_begin = h * config.d_k;
    head.v_begin = h * config.d_v;

    // this head's slices: w_q (d_model, d_k) = columns [h·d_k, (h+1)·d_k) of W_Q
    head.w_q = columns(t.w_q, head.k_begin, config.d_k);
    head.w_k = columns(t.w_k, head.k_begin, config.d_k);
    head.w_v = columns(t.w_v, head.v_begin, config.d_v);

    // q (T, d_k) = x (T, d_model) · w_q (d_model, d_k) + b_q (1, d_k); likewise k, v; or
    // as given, when a lesson starts from Q, K and V
    head.q = input.qkv ? input.qkv->q : matmul(t.x_in, head.w_q);
    head.k = input.qkv ? input.qkv->k : matmul(t.x_in, head.w_k);
    head.v = input.qkv ? input.qkv->v : matmul(t.x_in, head.w_v);
    if (!t.b_q.empty()) {
        add_bias(head.q, columns(t.b_q, head.k_begin, config.d_k));
    }
    if (!t.b_k.empty()) {
        add_bias(head.k, columns(t.b_k, head.k_begin, config.d_k));
    }
    if (!t.b_v.empty()) {
        add_bias(head.v, columns(t.b_v, head.v_begin, config.d_v));
    }

    // scores (T, T) = q (T, d_k) · kᵀ (d_k, T)
    head.scores = matmul_transposed(head.q, head.k);

    // scaled scores, masked scores and weights (T, T), as the trace's rule says
    const Mask* mask = t.mask ? &*t.mask : nullptr;
    auto w = attention_weights(head.scores, mask, t.rule);
    head.scaled_scores = std::move(w.scaled);
    head.masked_scores = std::move(w.masked);
    head.attention = std::move(w.weights);
    // the groups softmax could not normalise: rows, columns or the whole matrix, by the rule
    switch (t.rule.over) {
        case SoftmaxOver::rows:
            head.empty_rows = std::move(w.empty);
            break;
        case SoftmaxOver::columns:
            head.empty_columns = std::move(w.empty);
            break;
        case SoftmaxOver::all:
            head.all_masked = !w.empty.empty();
            break;
    }

    // output (T, d_v) = attention (T, T) · v (T, d_v)
    head.output = matmul(head.attention, head.v);
    return head;
}

// What the walk-through says of one head beside its numbers: the labels, that every number is
// finite (the first that is not, in the order of the steps, is an error), the variances, norms
// and sums the explanations quote, and the weights of the right rule or of exact arithmetic.
void head_facts(const Trace& t, Head& head, const Input& input) {
    const Config& config = t.config;
    const std::string prefix = config.n_heads > 1 ? std::to_string(head.index + 1) + "." : "";
    head.q_labels = numbered(prefix + "q", config.d_k);
    head.k_labels = numbered(prefix + "k", config.d_k);
    head.v_labels = numbered(prefix + "v", config.d_v);
    head.z_labels = numbered(prefix + "z", config.d_v);
    const std::string name =
        config.n_heads > 1 ? "head " + std::to_string(head.index + 1) + ": " : "";
    check_finite(head.q, name + "Q", t.tokens, head.q_labels, t, input);
    check_finite(head.k, name + "K", t.tokens, head.k_labels, t, input);
    check_finite(head.v, name + "V", t.tokens, head.v_labels, t, input);
    check_finite(head.scores, name + "S", t.tokens, t.tokens, t, input);
    check_finite(head.scaled_scores, name + "S′", t.tokens, t.tokens, t, input);
    head.variance_q = variance_of(head.q);
    head.variance_k = variance_of(head.k);
    head.variance_scores = variance_of(head.scores);
    head.variance_scaled = variance_of(head.scaled_scores);
    head.variance_right_scaled =
        t.rule.scale_by == ScaleBy::d_k
            ? head.variance_scaled
            : variance_of(attention_weights(head.scores, nullptr, t.rule.right(config.d_k)).scaled);

    const Mask* mask = t.mask ? &*t.mask : nullptr;
    if (t.rule.arith == Arith::hand) {
        // how far the hand rules land from the exact weights
        head.exact_attention = attention_weights(head.scores, mask, t.rule.exact()).weights;
        for (std::size_t i = 0; i < head.attention.size(); ++i) {
            head.hand_difference =
                std::max(head.hand_difference,
                         std::abs(head.exact_attention.data()[i] - head.attention.data()[i]));
        }
    }

    head.q_norms = row_norms(head.q);
    head.k_norms = row_norms(head.k);
    head.row_sums = row_sums(head.attention);
    head.col_sums.assign(head.attention.cols(), 0.0);
    for (std::size_t r = 0; r < head.attention.rows(); ++r) {
        const auto row = head.attention.row(r);
        for (std::size_t c = 0; c < row.size(); ++c) {
            head.col_sums[c] += row[c];
        }
    }
    if (!t.rule.is_right()) {
        // a mistake shown on purpose: the right weights beside the ones asked for
        head.correct_attention =
            attention_weights(head.scores, mask, t.rule.right(config.d_k)).weights;
    }
    if (!t.rule.scales()) {
        // the --no-scale lesson: how peaked each row is, and how peaked scaling keeps it
        const Matrix& would_be = head.correct_attention;
        const auto stats = [](const Matrix& a, std::vector<double>& max, std::vector<double>& ent) {
            for (std::size_t r = 0; r < a.rows(); ++r) {
                double m = 0.0;
                double e = 0.0;
                for (double x : a.row(r)) {
                    m = std::max(m, x);
                    e -= x > 0.0 ? x * std::log(x) : 0.0;
                }
                max.push_back(m);
                ent.push_back(e);
            }
        };
        stats(head.attention, head.max_weight, head.entropy);
        stats(would_be, head.scaled_max_weight, head.scaled_entropy);
    }

    if (!head.correct_attention.empty()) {
        const Matrix right = matmul(head.correct_attention, head.v);
        for (std::size_t i = 0; i < right.size(); ++i) {
            head.correct_output_difference = std::max(
                head.correct_output_difference, std::abs(right.data()[i] - head.output.data()[i]));
        }
    }
    check_finite(head.output, name + "Z", t.tokens, head.z_labels, t, input);
}

// Steps 1-3 (the inputs, recorded as given: X, X′ = X + P, the weights and biases, the mask),
// every head's numbers, and the projection: the numbers of forward(). With `facts`, also what
// explain() adds for the explanations (labels, checks, variances, sums, equal rows).
Trace run(Input&& input, const Config& config, bool facts) {
    validate(config);
    check_shapes(input, config);

    Trace t;
    t.config = config;
    t.rule = weights_rule(config);
    static_cast<Provenance&>(t) = static_cast<const Provenance&>(input);  // its metadata only
    t.qkv_given = input.qkv.has_value();
    t.qkv_path = input.qkv ? input.qkv->path : std::string();
    if (facts) {
        t.dim_labels = numbered("d", config.d_model);
        t.q_labels = numbered("q", config.n_heads * config.d_k);
        t.k_labels = numbered("k", config.n_heads * config.d_k);
        t.v_labels = numbered("v", config.n_heads * config.d_v);
        t.bias_label = {"b"};
    }

    // Steps 1-3: tokens, embeddings X (T, d_model), weights W_Q, W_K (d_model, H·d_k),
    // W_V (d_model, H·d_v) and their biases: the inputs, recorded as given.
    t.x = std::move(input.x);
    // X′ (T, d_model) = X + P: the same token at another position gets another vector
    t.x_in = t.x;
    if (!input.positions.empty()) {
        t.positions = input.positions;
        for (std::size_t i = 0; i < t.x_in.size(); ++i) {
            t.x_in.data()[i] += t.positions.data()[i];
        }
    }
    // the weights are the input's, moved: a checkpoint's are megabytes
    t.w_q = std::move(input.weights.w_q);
    t.w_k = std::move(input.weights.w_k);
    t.w_v = std::move(input.weights.w_v);
    t.b_q = std::move(input.weights.b_q);
    t.b_k = std::move(input.weights.b_k);
    t.b_v = std::move(input.weights.b_v);
    // the mask (T, T): causal or a file's, and-ed with the padding (no one attends to <pad>)
    const std::size_t n_tokens = t.tokens.size();
    if (input.mask) {
        t.mask = *input.mask;
    } else if (config.mask == MaskKind::causal) {
        t.mask = causal_mask(n_tokens);
    }
    if (config.n_pad > 0) {
        if (!t.mask) {
            t.mask = Mask(n_tokens, n_tokens, true);
        }
        for (std::size_t i = 0; i < n_tokens; ++i) {
            for (std::size_t j = n_tokens - config.n_pad; j < n_tokens; ++j) {
                t.mask->set(i, j, false);
            }
        }
    }

    // Steps 4-9 for every head: each sees all of X, through its own slices of the weights.
    // The heads are independent, so they run side by side on the cores; an error is the
    // lowest-numbered head's, whichever thread found it first.
    t.heads.resize(config.n_heads);
    std::vector<std::exception_ptr> errors(config.n_heads);
    parallel_for(config.n_heads, [&](std::size_t h) {
        try {
            t.heads[h] = head_numbers(t, h, input);
            if (facts) {
                head_facts(t, t.heads[h], input);
            }
        } catch (...) {
            errors[h] = std::current_exception();
        }
    });
    for (const auto& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
    if (facts && config.n_heads > 1) {
        // label the full weights by head too: 1.q0, 1.q1, ..., 2.q0, ...
        t.q_labels.clear();
        t.k_labels.clear();
        t.v_labels.clear();
        for (const auto& head : t.heads) {
            t.q_labels.insert(t.q_labels.end(), head.q_labels.begin(), head.q_labels.end());
            t.k_labels.insert(t.k_labels.end(), head.k_labels.begin(), head.k_labels.end());
            t.v_labels.insert(t.v_labels.end(), head.v_labels.begin(), head.v_labels.end());
        }
    }

    // With several heads (or a file's W_O): concat (T, H·d_v) = [Z_1 | ... | Z_H], and
    // output (T, d_model) = concat · w_o (H·d_v, d_model) + b_o (1, d_model).
    t.projected = !input.weights.w_o.empty();
    if (t.projected) {
        const std::size_t d_v = config.d_v;
        t.concat = Matrix(t.tokens.size(), config.n_heads * d_v);
        for (const auto& head : t.heads) {
            for (std::size_t r = 0; r < t.concat.rows(); ++r) {
                for (std::size_t c = 0; c < d_v; ++c) {
                    t.concat(r, head.v_begin + c) = head.output(r, c);
                }
            }
        }
        t.w_o = std::move(input.weights.w_o);
        t.b_o = std::move(input.weights.b_o);
        t.output = matmul(t.concat, t.w_o);
        add_bias(t.output, t.b_o);
        if (facts) {
            for (std::size_t h = 0; h < config.n_heads; ++h) {
                const auto& labels = t.heads[h].z_labels;
                t.concat_labels.insert(t.concat_labels.end(), labels.begin(), labels.end());
            }
            t.out_labels = numbered("o", config.d_model);
            check_finite(t.output, "O", t.tokens, t.out_labels, t, input);
        }
    } else {
        t.output = t.heads.front().output;
    }

    if (facts) {
        t.identical_embeddings = identical_rows(t.x);
        t.identical_inputs = identical_rows(t.x_in);
        t.identical_outputs = identical_rows(t.output);
        t.index_steps();
    }
    return t;
}

}  // namespace

Input seeded_input(std::string_view sentence, const Config& config) {
    return seeded_input(sentence, config, SeedParts{});
}

Input seeded_input(std::string_view sentence, const Config& config, SeedParts parts) {
    validate(config);
    Input in;
    in.sentence = std::string(sentence);
    in.tokens = tokenize(sentence, config.tokenizer);
    check_limit(Field::tokens, static_cast<long long>(in.tokens.size()));
    for (std::size_t i = 0; i < config.n_pad; ++i) {
        in.tokens.emplace_back(pad_token);
    }
    if (parts.embeddings) {
        in.x =
            seeded_embeddings(in.tokens, config.d_model, config.seed, config.arith == Arith::hand);
        for (std::size_t i = in.tokens.size() - config.n_pad; i < in.tokens.size(); ++i) {
            for (double& value : in.x.row(i)) {
                value = 0.0;  // padding carries no information: a zero vector
            }
        }
    }
    if (parts.weights) {
        in.weights = seeded_weights(config);
    }
    if (config.positions == PositionKind::sinusoidal) {
        in.positions = sinusoidal_positions(in.tokens.size(), config.d_model);
    }
    return in;
}

Trace forward(const Input& input, const Config& config) {
    return run(Input(input), config, false);
}

Trace explain(const Input& input, const Config& config) {
    return run(Input(input), config, true);
}

Trace explain(Input&& input, const Config& config) {
    return run(std::move(input), config, true);
}

}  // namespace attn
