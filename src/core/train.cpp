// Training: a loop over forward(), the loss, backward_pass() and stepped(), the functions the
// walk-through shows one step of. Shapes use the legend of ops.hpp; V is the vocabulary, B the
// batch, d_out the output's width (d_v with one head, d_model with W_O).
#include "attn/core/train.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/core/attention.hpp"
#include "attn/core/backward.hpp"
#include "attn/core/error.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/random.hpp"

namespace attn {
namespace {

// The points of a loss curve: at most this many, whatever the number of steps.
constexpr std::size_t curve_points = 1024;

// What one example sends back: its loss and the gradients of what is trained. (W_V and W_O
// are never trained: their gradients are not kept.)
struct ExampleGradients {
    double loss = 0.0;
    Matrix d_w_q, d_w_k;  ///< as the weights
    Matrix d_x;           ///< dX′ (T, d_model): each token's, before positions
};

// Y (T, d_out): each graded row the value of its source; the other rows are not graded
Matrix target_of(const Example& e, const Matrix& values) {
    Matrix y(values.rows(), values.cols());
    for (std::size_t i = 0; i < e.graded.size(); ++i) {
        const auto value = values.row(e.sources[i]);
        std::copy(value.begin(), value.end(), y.row(e.graded[i]).begin());
    }
    return y;
}

// One forward pass, its loss and one backward pass.
ExampleGradients example_gradients(const Example& e, const Matrix& values, const Parameters& p,
                                   const Config& config) {
    const Trace t = forward(example_input(e, p), config);
    const Matrix y = target_of(e, values);
    ExampleGradients g;
    g.loss = mse_loss(t.output, y, e.graded);
    Backward b = backward_pass(t, mse_loss_backward(t.output, y, e.graded));
    g.d_w_q = std::move(b.d_w_q);
    g.d_w_k = std::move(b.d_w_k);
    g.d_x = std::move(b.d_x);
    return g;
}

bool finite(const Matrix& m) {
    return std::all_of(m.data().begin(), m.data().end(), [](double x) { return std::isfinite(x); });
}

bool finite(const Parameters& p) {
    return finite(p.embeddings) && finite(p.positions) && finite(p.weights.w_q) &&
           finite(p.weights.w_k) && finite(p.weights.w_v) && finite(p.weights.w_o);
}

// The index of the row of `values` nearest `row` (squared distances; the first on a tie).
std::size_t nearest_row(std::span<const double> row, const Matrix& values) {
    std::size_t best = 0;
    double best_distance = 0.0;
    for (std::size_t c = 0; c < values.rows(); ++c) {
        double d = 0.0;
        for (std::size_t j = 0; j < row.size(); ++j) {
            const double e = row[j] - values(c, j);
            d += e * e;
        }
        if (c == 0 || d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace

Parameters initial_parameters(const TaskData& data, const TrainSettings& s) {
    Parameters p;
    p.embeddings = seeded_embeddings(data.vocabulary, s.config.d_model, s.config.seed);
    if (s.config.positions == PositionKind::file) {
        p.positions =
            seeded_matrix(data.n_positions, s.config.d_model, 1.0, s.config.seed, "positions");
    }
    p.weights = seeded_weights(s.config);
    return p;
}

std::vector<Matrix> answer_values(const std::vector<Example>& examples, const Parameters& p,
                                  const Config& config) {
    std::vector<Matrix> out(examples.size());
    parallel_for(examples.size(), [&](std::size_t i) {
        const Trace t = forward(example_input(examples[i], p), config);
        // [V_1 | ... | V_H] (T, H·d_v): each row what the heads give a token attending to it alone
        Matrix v(t.tokens.size(), config.n_heads * config.d_v);
        for (const Head& head : t.heads) {
            for (std::size_t r = 0; r < v.rows(); ++r) {
                for (std::size_t c = 0; c < config.d_v; ++c) {
                    v(r, head.v_begin + c) = head.v(r, c);
                }
            }
        }
        out[i] = t.projected ? matmul(v, t.w_o) : std::move(v);
    });
    return out;
}

Input example_input(const Example& e, const Parameters& p) {
    Input in;
    in.tokens = e.tokens;
    const std::size_t d_model = p.embeddings.cols();
    in.x = Matrix(e.ids.size(), d_model);
    for (std::size_t t = 0; t < e.ids.size(); ++t) {
        const auto row = p.embeddings.row(e.ids[t]);
        std::copy(row.begin(), row.end(), in.x.row(t).begin());
    }
    if (!p.positions.empty()) {
        in.positions = Matrix(e.ids.size(), d_model);
        std::copy_n(p.positions.data().begin(), in.positions.size(), in.positions.data().begin());
    }
    in.weights = p.weights;
    return in;
}

std::size_t training_bytes(const TaskData& data, const TrainSettings& s,
                           std::size_t threads) noexcept {
    const Config& c = s.config;
    const std::size_t t = std::max<std::size_t>(data.n_positions, 1);
    const std::size_t weights = c.d_model * c.n_heads * (2 * c.d_k + c.d_v) +
                                (c.n_heads > 1 ? c.n_heads * c.d_v * c.d_model : 0);
    const std::size_t parameters =
        weights + (data.vocabulary.size() + (s.trainable.positions ? t : 0)) * c.d_model;
    // the parameters, the batch's mean gradient and the updated copies; each example's
    // gradients (the weights' and dX′); a forward and a backward pass (with their copies of
    // the weights) on each thread
    const std::size_t per_example = weights + t * c.d_model;
    const std::size_t per_thread = estimate_bytes(c, t) +
                                   backward_bytes(c.d_model, c.n_heads, c.d_k, c.d_v, t) +
                                   3 * sizeof(double) * weights;
    return sizeof(double) * (3 * parameters + s.batch * per_example) + threads * per_thread;
}

BatchGradients batch_gradients(const std::vector<Example>& examples,
                               const std::vector<Matrix>& values,
                               std::span<const std::size_t> batch, const Parameters& p,
                               const Config& config) {
    // each example on its own thread, into its own slot: the sum below does not depend on
    // which thread computed what
    std::vector<ExampleGradients> grads(batch.size());
    parallel_for(batch.size(), [&](std::size_t b) {
        grads[b] = example_gradients(examples[batch[b]], values[batch[b]], p, config);
    });
    // the batch's loss and gradient are the means of its examples', summed in batch order
    BatchGradients out;
    Parameters& d = out.d;
    const auto zeros = [](const Matrix& m) { return Matrix(m.rows(), m.cols()); };
    d.weights.w_q = zeros(p.weights.w_q);
    d.weights.w_k = zeros(p.weights.w_k);
    d.embeddings = zeros(p.embeddings);
    d.positions = zeros(p.positions);
    for (std::size_t b = 0; b < batch.size(); ++b) {
        const ExampleGradients& g = grads[b];
        const Example& e = examples[batch[b]];
        out.loss += g.loss;
        add_to(d.weights.w_q, g.d_w_q);
        add_to(d.weights.w_k, g.d_w_k);
        // X′ = X + P: token t's row of dX′ is its embedding's gradient (summed over every
        // place the token stands) and position t's
        for (std::size_t t = 0; t < e.ids.size(); ++t) {
            const auto row = g.d_x.row(t);
            auto into = d.embeddings.row(e.ids[t]);
            for (std::size_t c = 0; c < row.size(); ++c) {
                into[c] += row[c];
            }
            if (!d.positions.empty()) {
                auto at = d.positions.row(t);
                for (std::size_t c = 0; c < row.size(); ++c) {
                    at[c] += row[c];
                }
            }
        }
    }
    const auto n = static_cast<double>(batch.size());
    out.loss /= n;
    for (Matrix* m : {&d.weights.w_q, &d.weights.w_k, &d.embeddings, &d.positions}) {
        for (double& x : m->data()) {
            x /= n;
        }
    }
    return out;
}

double mean_loss(const std::vector<Example>& examples, const std::vector<Matrix>& values,
                 const Parameters& parameters, const Config& config) {
    std::vector<double> losses(examples.size(), 0.0);
    parallel_for(examples.size(), [&](std::size_t i) {
        const Trace t = forward(example_input(examples[i], parameters), config);
        losses[i] = mse_loss(t.output, target_of(examples[i], values[i]), examples[i].graded);
    });
    double sum = 0.0;
    for (const double l : losses) {  // in the order of the examples
        sum += l;
    }
    return examples.empty() ? 0.0 : sum / static_cast<double>(examples.size());
}

Score score(const std::vector<Example>& examples, const std::vector<Matrix>& values,
            const Parameters& parameters, const Config& config) {
    std::vector<std::size_t> right(examples.size(), 0);
    std::vector<std::size_t> focused(examples.size(), 0);
    parallel_for(examples.size(), [&](std::size_t i) {
        const Example& e = examples[i];
        const Trace t = forward(example_input(e, parameters), config);
        for (std::size_t g = 0; g < e.graded.size(); ++g) {
            const std::size_t row = e.graded[g];
            const std::size_t source = e.sources[g];
            const auto nearest = values[i].row(nearest_row(t.output.row(row), values[i]));
            right[i] += std::ranges::equal(nearest, values[i].row(source)) ? 1U : 0U;
            // the largest weight of the heads' mean (the first on a tie)
            std::vector<double> mean(t.tokens.size(), 0.0);
            for (const Head& head : t.heads) {
                for (std::size_t c = 0; c < mean.size(); ++c) {
                    mean[c] += head.attention(row, c);
                }
            }
            const auto top = std::max_element(mean.begin(), mean.end()) - mean.begin();
            focused[i] += static_cast<std::size_t>(top) == source ? 1U : 0U;
        }
    });
    Score s;
    for (const auto& e : examples) {
        s.rows += e.graded.size();
    }
    const auto fraction = [&s](const std::vector<std::size_t>& counts) {
        const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
        return s.rows == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(s.rows);
    };
    s.accuracy = fraction(right);
    s.focus = fraction(focused);
    return s;
}

TrainResult train(const TaskData& data, const TrainSettings& s,
                  const std::function<void(const Progress&)>& progress) {
    validate(s.config);
    if (s.steps == 0 || s.batch == 0 || data.train.empty()) {
        throw Error(ErrorKind::internal, "training needs steps, a batch and examples");
    }
    const Config& config = s.config;
    TrainResult result;
    result.parameters = initial_parameters(data, s);
    Parameters& p = result.parameters;
    // the targets: each token's value before training (fixed for the run)
    const std::vector<Matrix> train_values = answer_values(data.train, p, config);
    const std::vector<Matrix> held_out_values = answer_values(data.held_out, p, config);
    result.initial_loss = mean_loss(data.train, train_values, p, config);
    double window_sum = 0.0;
    result.curve.per_point = (s.steps + curve_points - 1) / curve_points;

    // the examples in a seeded order, shuffled again (Fisher–Yates) at the start of each pass
    Rng rng(stream_seed(config.seed, "training order", to_string(data.task)));
    std::vector<std::size_t> order(data.train.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::size_t next = order.size();
    std::vector<std::size_t> batch(s.batch);
    double point_sum = 0.0;
    std::size_t point_steps = 0;

    for (std::size_t step = 1; step <= s.steps; ++step) {
        for (auto& index : batch) {
            if (next == order.size()) {
                for (std::size_t i = order.size() - 1; i > 0; --i) {
                    const std::uint64_t j = rng.next_u64() % (i + 1);
                    std::swap(order[i], order[j]);
                }
                next = 0;
            }
            index = order[next++];
        }
        const BatchGradients g = batch_gradients(data.train, train_values, batch, p, config);
        const double loss = g.loss;

        if (step == 1) {
            result.first_loss = loss;
        }
        result.last_loss = loss;
        result.steps_done = step;
        point_sum += loss;
        if (++point_steps == result.curve.per_point || step == s.steps) {
            result.curve.points.push_back(point_sum / static_cast<double>(point_steps));
            point_sum = 0.0;
            point_steps = 0;
        }
        if (progress) {
            progress({step, s.steps, loss, batch});
        }
        using Kind = Divergence::Kind;
        if (!std::isfinite(loss) || loss > divergence_factor * result.initial_loss) {
            result.diverged = Divergence{std::isfinite(loss) ? Kind::exploded : Kind::not_finite,
                                         step, step, loss};
            return result;
        }
        window_sum += loss;
        if (step % divergence_window == 0) {
            const double mean = window_sum / static_cast<double>(divergence_window);
            window_sum = 0.0;
            if (mean > rising_factor * result.initial_loss) {
                result.diverged = Divergence{Kind::rose, step - divergence_window + 1, step, mean};
                return result;
            }
        }

        // W ← W − η·dW for what is trained
        const Trainable& tr = s.trainable;
        const auto update = [&](bool trained, Matrix& w, const Matrix& d_w) {
            if (trained && !w.empty()) {
                w = stepped(w, d_w, s.lr);
            }
        };
        update(tr.w_q, p.weights.w_q, g.d.weights.w_q);
        update(tr.w_k, p.weights.w_k, g.d.weights.w_k);
        update(tr.embeddings, p.embeddings, g.d.embeddings);
        update(tr.positions, p.positions, g.d.positions);
        if (!finite(p)) {
            result.diverged = Divergence{Kind::overflow, step, step, loss};
            return result;
        }
    }

    result.train_score = score(data.train, train_values, p, config);
    result.held_out_score = score(data.held_out, held_out_values, p, config);
    return result;
}

}  // namespace attn
