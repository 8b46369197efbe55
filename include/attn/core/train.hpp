#pragma once
/// Training the lesson's model on a small built-in task: a loop of the forward pass
/// (forward()), the loss and the backward pass (backward_pass(), the functions the
/// walk-through's --backward shows) and the update W ← W − η·dW (stepped()). Everything is
/// seeded with attn's own generator and summed in a fixed order, so a run gives the same bits
/// for a seed on any number of threads and on any machine. No I/O: progress goes to a callback,
/// the words and pictures are render's and cli's.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/enums.hpp"
#include "attn/core/matrix.hpp"
#include "attn/core/model.hpp"

namespace attn {

/// The built-in tasks, each chosen because the attention it needs is easy to see.
enum class Task {
    coreference,     ///< "He took the hat and examined it carefully": "it" must carry "hat"
    previous_token,  ///< each token's output must be the token before it (needs positions)
    match,           ///< the last token must find where it stood before (an induction head's seed)
};

template <>
struct EnumNames<Task> {
    static constexpr std::array names{Named<Task>{Task::coreference, "coreference"},
                                      Named<Task>{Task::previous_token, "previous-token"},
                                      Named<Task>{Task::match, "match"}};
};

/// What a training run changes; the rest keeps its seeded numbers. The values' side (W_V,
/// W_O) never changes: a graded row's target is the value of the token it must attend to, so
/// that attending to it is the only way to reach the target (a trained W_V would let the
/// model reach it another way, with the attention anywhere).
struct Trainable {
    bool w_q = true;
    bool w_k = true;
    bool embeddings = false;
    bool positions = false;  ///< a table of learned positions, one row per position
};

/// One example: its tokens, and the rows of the output the loss grades, each with the row it
/// must attend to (its source: the noun of "it", the token before, the earlier copy).
struct Example {
    std::vector<std::string> tokens;
    std::vector<std::size_t> ids;      ///< each token's row in the vocabulary
    std::vector<std::size_t> graded;   ///< the graded rows, in increasing order
    std::vector<std::size_t> sources;  ///< for each graded row, the row it must attend to
};

/// A task's examples, generated from a seed.
struct TaskData {
    Task task = Task::coreference;
    std::vector<std::string> vocabulary;  ///< every token, sorted
    std::vector<Example> train;
    std::vector<Example> held_out;  ///< never trained on: the accuracy is measured on these
    std::size_t n_positions = 0;    ///< tokens in the longest example
};

/// How a task is trained unless told otherwise.
struct TaskSetup {
    std::size_t d_model = 12;
    std::size_t d_k = 8;
    std::size_t d_v = 8;
    MaskKind mask = MaskKind::none;
    bool positions = false;  ///< a table of positions (seeded; learned when trainable says so)
    Trainable trainable;
    std::size_t steps = 600;
    std::size_t batch = 16;
    double lr = 0.2;
    /// The example the model file shows: "He took the hat and examined it carefully" (it is
    /// never among the training examples).
    std::string_view sentence;
    std::size_t showcase_row = 0;  ///< the graded row of that sentence that the notes look at
};

/// The defaults of `task`.
TaskSetup task_setup(Task task) noexcept;

/// The examples of `task` drawn from `seed` (train_size training and held_out_size held-out
/// examples, all different, none of them the showcase sentence in the training set).
TaskData make_task(Task task, std::uint64_t seed, std::size_t train_size = 512,
                   std::size_t held_out_size = 256);

/// The showcase sentence of a task as an example (tokens, ids, graded rows and sources).
Example showcase_example(const TaskData& data);

/// The numbers a training run changes.
struct Parameters {
    Matrix embeddings;  ///< (V, d_model): row i is vocabulary[i]
    Matrix positions;   ///< (n_positions, d_model); empty without positions
    Weights weights;    ///< W_Q, W_K, W_V (and W_O with several heads); no biases
};

/// What a run is asked to do.
struct TrainSettings {
    /// Sizes, heads, mask, scale_by and seed; positions is `file` for a table of positions.
    Config config;
    Trainable trainable;
    std::size_t steps = 600;  ///< updates, each on one batch
    std::size_t batch = 16;   ///< examples per update
    double lr = 0.2;          ///< η
};

/// The parameters a run starts from: the seeded embeddings and weights of attn explain with
/// the same seed and sizes (W_O with several heads), and seeded positions N(0, 1).
Parameters initial_parameters(const TaskData& data, const TrainSettings& settings);

/// For each example, the output row (T, d_out) a token would have if it attended to token j
/// alone, for every j: row j of V with one head, [V_1 | ... | V_H] · W_O with several. The
/// target of a graded row is the row of its source, under the parameters a run starts from.
std::vector<Matrix> answer_values(const std::vector<Example>& examples,
                                  const Parameters& parameters, const Config& config);

/// The Input of `example` with `parameters`: each token's embedding row, the first T rows of
/// the positions, the weights.
Input example_input(const Example& example, const Parameters& parameters);

/// The loss of each run of `per_point` steps, averaged: a fixed number of points, whatever
/// the number of steps, so memory stays flat.
struct LossCurve {
    std::size_t per_point = 1;
    std::vector<double> points;
};

/// Where and how a run stopped because it diverged.
struct Divergence {
    enum class Kind {
        not_finite,  ///< a batch's loss was ∞ or NaN
        exploded,    ///< a batch's loss was more than divergence_factor times initial_loss
        rose,        ///< the mean loss of a stretch of divergence_window steps was more than
                     ///< rising_factor times initial_loss: the steps overshoot
        overflow,    ///< an update made a parameter ±∞ or NaN
    };
    Kind kind = Kind::not_finite;
    std::size_t first_step = 0;  ///< 1-based: the steps that gave it away, first_step..step
    std::size_t step = 0;
    double loss = 0.0;  ///< that step's loss, or the stretch's mean (may be ∞ or NaN)
};

/// The signs of a diverging run: a batch's loss above this many times the untrained model's,
inline constexpr double divergence_factor = 100.0;
/// or the mean of a stretch of this many steps above this many times the untrained model's.
inline constexpr std::size_t divergence_window = 16;
inline constexpr double rising_factor = 1.25;

/// After each step.
struct Progress {
    std::size_t step = 0;  ///< 1-based
    std::size_t steps = 0;
    double loss = 0.0;                   ///< this step's batch
    std::span<const std::size_t> batch;  ///< its examples: indexes into TaskData::train
};

/// How well a model does on some examples.
struct Score {
    double accuracy = 0.0;  ///< graded rows whose output is nearest their source's value
    double focus = 0.0;     ///< graded rows whose largest weight (all heads' mean) is on the source
    std::size_t rows = 0;   ///< graded rows in all
};

struct TrainResult {
    Parameters parameters;
    LossCurve curve;
    double initial_loss = 0.0;  ///< the untrained model's mean loss over the training examples
    double first_loss = 0.0;    ///< the loss of the first batch, before any update
    double last_loss = 0.0;     ///< the loss of the last batch
    std::size_t steps_done = 0;
    std::optional<Divergence> diverged;  ///< set: the run stopped; the parameters are unusable
    /// After the last step (score()): on the training and on the held-out examples.
    Score train_score;
    Score held_out_score;
};

/// Trains on `data` as `settings` say: batches taken in a seeded order (shuffled again every
/// pass over the examples), each example's gradients computed on the worker threads and
/// summed in the order of the batch, the mean gradient's step W ← W − η·dW. Calls `progress`
/// after each step. Stops at the first sign of divergence (Divergence). Throws attn::Error
/// (usage) for sizes a run cannot have.
TrainResult train(const TaskData& data, const TrainSettings& settings,
                  const std::function<void(const Progress&)>& progress = {});

/// One batch's loss (the mean of its examples') and the gradient of that loss with respect to
/// every parameter, shaped as the parameters: each example's forward pass, loss (mse_loss of
/// its graded rows) and backward_pass() on the worker threads, summed in the order of `batch`.
struct BatchGradients {
    double loss = 0.0;
    Parameters d;  ///< dW_Q, ...; the embeddings' rows summed over every place a token stands
};
BatchGradients batch_gradients(const std::vector<Example>& examples,
                               const std::vector<Matrix>& values,
                               std::span<const std::size_t> batch, const Parameters& parameters,
                               const Config& config);

/// The mean of the examples' losses (each the mse_loss of its graded rows against `values`).
double mean_loss(const std::vector<Example>& examples, const std::vector<Matrix>& values,
                 const Parameters& parameters, const Config& config);

/// About how many bytes a run takes on `threads` threads: the parameters, their gradients
/// and the step's copies, each example's gradients for a batch, and one forward and backward
/// pass per thread. Checked against --max-memory before training starts.
std::size_t training_bytes(const TaskData& data, const TrainSettings& settings,
                           std::size_t threads) noexcept;

/// How `parameters` do on `examples`, whose answer values are `values`: a graded row is right
/// when the nearest row of its example's values to its output (Euclidean; the first on a tie)
/// has its source's value.
Score score(const std::vector<Example>& examples, const std::vector<Matrix>& values,
            const Parameters& parameters, const Config& config);

}  // namespace attn
