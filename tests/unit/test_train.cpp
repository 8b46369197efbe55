// attn train's core: the tasks drawn from a seed, the batch gradient against central finite
// differences for every parameter kind training uses, the loop's determinism on any number of
// threads, divergence, and that training learns.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>

#include "attn/core/attention.hpp"
#include "attn/core/backward.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/train.hpp"

using attn::Example;
using attn::Matrix;
using attn::Parameters;
using attn::Task;
using attn::TaskData;
using attn::TrainSettings;

namespace {

std::string joined(const std::vector<std::string>& tokens) {
    std::string s;
    for (const auto& t : tokens) {
        s += (s.empty() ? "" : " ") + t;
    }
    return s;
}

TrainSettings settings_for(Task task, std::size_t steps) {
    const attn::TaskSetup setup = attn::task_setup(task);
    TrainSettings s;
    s.config.d_model = setup.d_model;
    s.config.d_k = setup.d_k;
    s.config.d_v = setup.d_v;
    s.config.mask = setup.mask;
    s.config.positions = setup.positions ? attn::PositionKind::file : attn::PositionKind::none;
    s.trainable = setup.trainable;
    s.batch = setup.batch;
    s.lr = setup.lr;
    s.steps = steps;
    return s;
}

bool same(const Parameters& a, const Parameters& b) {
    return a.embeddings == b.embeddings && a.positions == b.positions &&
           a.weights.w_q == b.weights.w_q && a.weights.w_k == b.weights.w_k &&
           a.weights.w_v == b.weights.w_v && a.weights.w_o == b.weights.w_o;
}

// A matrix of small numbers that vary cell by cell (not rounded: no lucky ties).
void fill(Matrix& m, double seed) {
    for (std::size_t i = 0; i < m.size(); ++i) {
        m.data()[i] = 0.7 * std::sin(seed * 1.3 + static_cast<double>(i) * 0.71) +
                      0.2 * std::cos(static_cast<double>(i * i) * 0.29 + seed);
    }
}

}  // namespace

TEST_CASE("train: every task is drawn from its seed, held out from training", "[train]") {
    for (const Task task : {Task::coreference, Task::previous_token, Task::match}) {
        INFO(attn::to_string(task));
        const TaskData a = attn::make_task(task, 42);
        const TaskData b = attn::make_task(task, 42);
        const TaskData other = attn::make_task(task, 43);
        REQUIRE(a.train.size() == 512);
        REQUIRE(a.held_out.size() == 256);
        CHECK(joined(a.train[100].tokens) == joined(b.train[100].tokens));
        CHECK(joined(a.held_out[7].tokens) == joined(b.held_out[7].tokens));
        std::size_t differ = 0;
        for (std::size_t i = 0; i < a.train.size(); ++i) {
            differ += joined(a.train[i].tokens) != joined(other.train[i].tokens) ? 1U : 0U;
        }
        CHECK(differ > 400);  // another seed, other examples
        // no example twice; none held out is trained on; the showcase is never trained on
        std::set<std::string> trained;
        std::set<std::string> used_words;
        for (const auto& e : a.train) {
            CHECK(trained.insert(joined(e.tokens)).second);
            used_words.insert(e.tokens.begin(), e.tokens.end());
        }
        for (const auto& e : a.held_out) {
            CHECK(trained.count(joined(e.tokens)) == 0);
        }
        const Example showcase = attn::showcase_example(a);
        CHECK(trained.count(joined(showcase.tokens)) == 0);
        // every word of the vocabulary is trained on
        CHECK(used_words.size() == a.vocabulary.size());
        CHECK(a.n_positions >= showcase.tokens.size());
    }
}

TEST_CASE("train: each task grades the rows whose source it knows", "[train]") {
    const std::set<std::string> nouns{"hat", "key", "book", "cup", "box", "coat"};
    const TaskData coreference = attn::make_task(Task::coreference, 1);
    const Example hat = attn::showcase_example(coreference);
    CHECK(joined(hat.tokens) == "he took the hat and examined it carefully");
    REQUIRE(hat.graded == std::vector<std::size_t>{6});
    CHECK(hat.sources == std::vector<std::size_t>{3});
    for (const auto& e : coreference.train) {
        REQUIRE(e.graded.size() == 1);
        CHECK(e.tokens[e.graded[0]] == "it");
        CHECK(nouns.count(e.tokens[e.sources[0]]) == 1);
    }

    const TaskData previous = attn::make_task(Task::previous_token, 1);
    for (const auto& e : previous.train) {
        REQUIRE(e.graded.size() == e.tokens.size() - 1);
        for (std::size_t g = 0; g < e.graded.size(); ++g) {
            CHECK(e.sources[g] + 1 == e.graded[g]);
        }
    }

    const TaskData match = attn::make_task(Task::match, 1);
    for (const auto& e : match.train) {
        const std::size_t last = e.tokens.size() - 1;
        REQUIRE(e.graded == std::vector<std::size_t>{last});
        const std::size_t at = e.sources[0];
        CHECK(at < last);
        CHECK(e.tokens[at] == e.tokens[last]);
        CHECK(std::count(e.tokens.begin(), e.tokens.end(), e.tokens[last]) == 2);
    }
}

TEST_CASE("train: a target is the value of the source, through W_O with several heads", "[train]") {
    const TaskData data = attn::make_task(Task::coreference, 2, 4, 2);
    for (const std::size_t heads : {std::size_t{1}, std::size_t{2}}) {
        TrainSettings s;
        s.config.d_model = 6;
        s.config.n_heads = heads;
        s.config.d_k = 2;
        s.config.d_v = 3;
        const Parameters p = attn::initial_parameters(data, s);
        const auto values = attn::answer_values(data.train, p, s.config);
        REQUIRE(values.size() == data.train.size());
        // a row whose weights were all on token 3 would give exactly row 3 of the values
        const Example& e = data.train.front();
        const attn::Trace t = attn::forward(attn::example_input(e, p), s.config);
        Matrix all_on_3(t.tokens.size(), t.tokens.size());
        for (std::size_t r = 0; r < all_on_3.rows(); ++r) {
            all_on_3(r, 3) = 1.0;
        }
        Matrix z(t.tokens.size(), heads * s.config.d_v);
        for (const auto& head : t.heads) {
            const Matrix zh = attn::matmul(all_on_3, head.v);
            for (std::size_t r = 0; r < z.rows(); ++r) {
                for (std::size_t c = 0; c < s.config.d_v; ++c) {
                    z(r, head.v_begin + c) = zh(r, c);
                }
            }
        }
        const Matrix out = heads > 1 ? attn::matmul(z, t.w_o) : z;
        REQUIRE(values.front().cols() == (heads > 1 ? s.config.d_model : s.config.d_v));
        for (std::size_t c = 0; c < out.cols(); ++c) {
            CHECK(out(0, c) == Approx(values.front()(3, c)).epsilon(1e-12));
        }
    }
}

TEST_CASE("train: a loss of some rows grades only those rows", "[train]") {
    Matrix out(3, 2);
    Matrix target(3, 2);
    out.data() = {1, 2, 3, 4, 5, 6};
    target.data() = {0, 0, 3, 3, 100, 100};
    const std::vector<std::size_t> rows{0, 1};
    // (1² + 2² + 0² + 1²) / 4
    CHECK(attn::mse_loss(out, target, rows) == 1.5);
    const Matrix d = attn::mse_loss_backward(out, target, rows);
    CHECK(d.data() == Matrix::Numbers{0.5, 1.0, 0.0, 0.5, 0.0, 0.0});
    // no rows given: every row
    CHECK(attn::mse_loss(out, target) ==
          attn::mse_loss(out, target, std::vector<std::size_t>{0, 1, 2}));
}

namespace {

struct GradientCase {
    std::string name;
    Task task;
    std::size_t heads;
    attn::MaskKind mask;
    bool positions;
    attn::ScaleBy scale_by;
};

}  // namespace

TEST_CASE("train: the batch gradient of every parameter matches central differences", "[train]") {
    const std::vector<GradientCase> cases{
        {"coreference, one head", Task::coreference, 1, attn::MaskKind::none, false,
         attn::ScaleBy::d_k},
        {"previous-token, causal, positions", Task::previous_token, 1, attn::MaskKind::causal, true,
         attn::ScaleBy::d_k},
        {"match, positions, two heads with W_O", Task::match, 2, attn::MaskKind::none, true,
         attn::ScaleBy::d_k},
        {"coreference, causal, three heads, no scaling", Task::coreference, 3,
         attn::MaskKind::causal, false, attn::ScaleBy::none},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            const TaskData data = attn::make_task(c.task, 7, 24, 4);
            TrainSettings s;
            s.config.d_model = 6;
            s.config.n_heads = c.heads;
            s.config.d_k = 2;
            s.config.d_v = 3;
            s.config.mask = c.mask;
            s.config.scale_by = c.scale_by;
            s.config.positions = c.positions ? attn::PositionKind::file : attn::PositionKind::none;
            Parameters p = attn::initial_parameters(data, s);
            // numbers that are not rounded, so that a difference quotient is no lucky tie
            fill(p.embeddings, 1.0);
            fill(p.positions, 2.0);
            fill(p.weights.w_q, 3.0);
            fill(p.weights.w_k, 4.0);
            fill(p.weights.w_v, 5.0);
            fill(p.weights.w_o, 6.0);
            // the targets: the values of other numbers, so that the loss is not 0 at the start
            Parameters before = p;
            fill(before.weights.w_v, 7.0);
            const auto values = attn::answer_values(data.train, before, s.config);
            // a batch where tokens repeat, within an example and across examples
            const std::vector<std::size_t> batch{0, 1, 2, 3, 4, 5};
            const auto analytic = attn::batch_gradients(data.train, values, batch, p, s.config);
            const auto loss = [&] {
                return attn::batch_gradients(data.train, values, batch, p, s.config).loss;
            };
            const auto check = [&](const char* what, Matrix& parameter, const Matrix& grad) {
                INFO(what);
                REQUIRE(parameter.rows() == grad.rows());
                REQUIRE(parameter.cols() == grad.cols());
                constexpr double h = 1e-5;
                double worst = 0.0;
                double scale = 0.0;
                for (std::size_t i = 0; i < parameter.size(); ++i) {
                    const double saved = parameter.data()[i];
                    parameter.data()[i] = saved + h;
                    const double up = loss();
                    parameter.data()[i] = saved - h;
                    const double down = loss();
                    parameter.data()[i] = saved;
                    const double numeric = (up - down) / (2 * h);
                    worst = std::max(worst, std::abs(numeric - grad.data()[i]));
                    scale = std::max(scale, std::abs(grad.data()[i]));
                }
                REQUIRE(scale > 1e-6);  // a gradient of zeros would prove nothing
                CHECK(worst / scale <= 1e-6);
            };
            check("W_Q", p.weights.w_q, analytic.d.weights.w_q);
            check("W_K", p.weights.w_k, analytic.d.weights.w_k);
            check("the embeddings", p.embeddings, analytic.d.embeddings);
            if (c.positions) {
                check("the positions", p.positions, analytic.d.positions);
            }
        }
    }
}

TEST_CASE("train: the same seed gives the same model bit for bit on 1, 2 and 5 threads",
          "[train]") {
    const TaskData data = attn::make_task(Task::previous_token, 5);
    const TrainSettings s = settings_for(Task::previous_token, 30);
    std::vector<attn::TrainResult> results;
    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
        attn::set_worker_threads(threads);
        results.push_back(attn::train(data, s));
    }
    attn::set_worker_threads(0);
    for (const auto& r : results) {
        CHECK(same(r.parameters, results.front().parameters));
        CHECK(r.curve.points == results.front().curve.points);
        CHECK(r.held_out_score.accuracy == results.front().held_out_score.accuracy);
    }
    // and training changed what it trains
    const Parameters start = attn::initial_parameters(data, s);
    CHECK_FALSE(results.front().parameters.positions == start.positions);
    CHECK_FALSE(results.front().parameters.weights.w_q == start.weights.w_q);
}

TEST_CASE("train: the loss falls, and the batches come in a seeded order", "[train]") {
    const TaskData data = attn::make_task(Task::coreference, 3);
    TrainSettings s = settings_for(Task::coreference, 120);
    std::vector<std::size_t> seen;
    const auto r = attn::train(data, s, [&](const attn::Progress& p) {
        CHECK(p.batch.size() == s.batch);
        seen.insert(seen.end(), p.batch.begin(), p.batch.end());
        CHECK(p.steps == 120);
    });
    REQUIRE_FALSE(r.diverged);
    CHECK(r.steps_done == 120);
    CHECK(r.last_loss < r.first_loss / 2);
    CHECK(r.curve.points.size() == 120);
    // the first pass over the examples takes each of them once
    std::vector<std::size_t> first(seen.begin(), seen.begin() + 512);
    std::sort(first.begin(), first.end());
    CHECK(std::adjacent_find(first.begin(), first.end()) == first.end());
}

TEST_CASE("train: a learning rate that makes the loss diverge stops the run", "[train]") {
    const TaskData data = attn::make_task(Task::coreference, 42);
    using Kind = attn::Divergence::Kind;
    // coreference trains W_Q and W_K only: its output is a mix of fixed values, so its loss is
    // bounded; a step too large saturates the softmax and the loss rises and stays up
    // (a far larger step, such as 1e300, is not caught: it saturates every softmax at once, the
    // loss stays near the untrained model's and the run ends with a model that learned nothing)
    for (const double lr : {5.0, 1000.0, 1e6}) {
        INFO("lr " << lr);
        TrainSettings s = settings_for(Task::coreference, 200);
        s.lr = lr;
        const auto r = attn::train(data, s);
        REQUIRE(r.diverged);
        CHECK(r.diverged->step <= 2 * attn::divergence_window);
        CHECK(r.steps_done == r.diverged->step);
        if (r.diverged->kind == Kind::rose) {
            CHECK(r.diverged->step - r.diverged->first_step + 1 == attn::divergence_window);
            CHECK(r.diverged->loss > attn::rising_factor * r.initial_loss);
        } else {
            CHECK((r.diverged->kind == Kind::overflow || !std::isfinite(r.diverged->loss)));
        }
    }
    // previous-token learns its positions, which feed the values: the loss can grow without
    // bound, and does
    const TaskData previous = attn::make_task(Task::previous_token, 42);
    TrainSettings s = settings_for(Task::previous_token, 200);
    s.lr = 1000.0;
    const auto r = attn::train(previous, s);
    REQUIRE(r.diverged);
    CHECK(r.diverged->step < 200);
    // a good learning rate does not stop
    CHECK_FALSE(attn::train(data, settings_for(Task::coreference, 64)).diverged);
}

TEST_CASE("train: coreference with its defaults learns to send 'it' to its noun", "[train]") {
    // the whole task end to end: the default run, its held-out score, and the attention of the
    // showcase sentence (never a training example) under the trained parameters
    const TaskData data = attn::make_task(Task::coreference, 42);
    const attn::TaskSetup setup = attn::task_setup(Task::coreference);
    const TrainSettings s = settings_for(Task::coreference, setup.steps);
    const auto r = attn::train(data, s);
    REQUIRE_FALSE(r.diverged);
    CHECK(r.steps_done == setup.steps);
    CHECK(r.held_out_score.rows == 256);
    CHECK(r.held_out_score.accuracy >= 0.95);
    CHECK(r.held_out_score.focus >= 0.95);
    // an untrained model does far worse: the score measures what training did
    const Parameters start = attn::initial_parameters(data, s);
    const auto values = attn::answer_values(data.held_out, start, s.config);
    CHECK(attn::score(data.held_out, values, start, s.config).accuracy < 0.5);
    // what was not trained kept its seeded numbers
    CHECK(r.parameters.weights.w_v == start.weights.w_v);
    CHECK(r.parameters.embeddings == start.embeddings);

    const Example hat = attn::showcase_example(data);
    REQUIRE(hat.tokens[setup.showcase_row] == "it");
    const attn::Trace t = attn::forward(attn::example_input(hat, r.parameters), s.config);
    const auto row = t.heads.front().attention.row(setup.showcase_row);
    const auto top = std::max_element(row.begin(), row.end()) - row.begin();
    CHECK(hat.tokens[static_cast<std::size_t>(top)] == "hat");
    CHECK(row[3] > 0.5);
}
