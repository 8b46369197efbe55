// `attn train TASK -o MODEL.json`: trains the lesson's model on a built-in task (core/train.hpp)
// and writes a model file that attn explain --model reads.
#include <sys/stat.h>

#include <array>
#include <cmath>
#include <csignal>
#include <optional>
#include <ostream>
#include <utility>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "attn/core/limits.hpp"
#include "attn/core/memory.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/train.hpp"
#include "attn/io/heap.hpp"
#include "attn/io/output_file.hpp"
#include "attn/render/render.hpp"
#include "cli.hpp"

namespace attn::cli {
namespace {

// Ctrl-C (or SIGTERM) while attn train trains: the training stops at the step it comes in and
// attn says so, having written nothing (the files are written only after the training).
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): the handler's flag
volatile std::sig_atomic_t stop_requested = 0;

extern "C" void request_stop(int signal) {
    stop_requested = signal;
}

// Catches SIGINT and SIGTERM while it lives; the handlers before it afterwards.
class StopOnSignals {
  public:
    StopOnSignals() {
        stop_requested = 0;
        struct sigaction action {};
        action.sa_handler = request_stop;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, &before_int_);
        ::sigaction(SIGTERM, &action, &before_term_);
    }
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;
    StopOnSignals(StopOnSignals&&) = delete;
    StopOnSignals& operator=(StopOnSignals&&) = delete;
    ~StopOnSignals() {
        ::sigaction(SIGINT, &before_int_, nullptr);
        ::sigaction(SIGTERM, &before_term_, nullptr);
    }

  private:
    struct sigaction before_int_ {};
    struct sigaction before_term_ {};
};

// Thrown by the progress callback when a stop was requested: the step it stopped at, and the
// signal (the exit status is 128 + its number, as a shell reports a process it ended: 130 for
// Ctrl-C).
struct Stopped {
    std::size_t step = 0;
    std::size_t steps = 0;
    int signal = SIGINT;
};
constexpr int signal_exit_base = 128;

// The task named `name`, or a usage error listing the tasks, with the nearest when one is close.
Task task_of(const std::string& name) {
    if (const auto task = parse_enum<Task>(name)) {
        return *task;
    }
    throw Error(ErrorKind::usage,
                fmt::format("there is no task '{}', expected one of: {}{}", shown(name),
                            enum_choices<Task>(), near_choice<Task>(name)));
}

std::size_t size_or(Field field, const std::optional<long long>& value, std::size_t fallback) {
    if (!value) {
        return fallback;
    }
    check_limit(field, *value);
    return static_cast<std::size_t>(*value);
}

// What the options ask for, on the task's defaults.
TrainSettings settings_of(const TrainOptions& o, Task task, std::size_t train_size) {
    const TaskSetup setup = task_setup(task);
    TrainSettings s;
    Config& c = s.config;
    c.seed = o.seed ? parse_seed(*o.seed) : c.seed;
    c.d_model = size_or(Field::d_model, o.d_model, setup.d_model);
    c.d_k = size_or(Field::d_k, o.d_k, setup.d_k);
    c.d_v = size_or(Field::d_v, o.d_v, setup.d_v);
    c.n_heads = size_or(Field::n_heads, o.heads, 1);
    c.mask = setup.mask;
    c.scale_by = o.no_scale ? ScaleBy::none : ScaleBy::d_k;
    c.positions = setup.positions ? PositionKind::file : PositionKind::none;
    c.tokenizer.lowercase = true;  // the tasks' words are lowercase; "He" is "he"
    validate(c);
    s.trainable = setup.trainable;
    s.batch = setup.batch;
    s.lr = o.lr ? checked_lr(*o.lr) : setup.lr;
    if (o.steps && o.epochs) {
        throw Error(ErrorKind::usage,
                    "--steps and --epochs both say how long to train, expected one of them");
    }
    s.steps = size_or(Field::train_steps, o.steps, setup.steps);
    if (o.epochs) {
        // a pass over the examples, rounded up to whole batches
        const std::size_t epochs = size_or(Field::epochs, o.epochs, 1);
        s.steps = (epochs * train_size + s.batch - 1) / s.batch;
    }
    return s;
}

// The command that makes the same model, every choice spelled out (not the files, threads or
// memory, which do not change it).
std::string command_line(Task task, const TrainSettings& s) {
    const Config& c = s.config;
    std::string cmd = fmt::format(
        "attn train {} --seed {} --steps {} --lr {} --d-model {} --d-k {} "
        "--d-v {}",
        to_string(task), c.seed, s.steps, s.lr, c.d_model, c.d_k, c.d_v);
    if (c.n_heads > 1) {
        cmd += fmt::format(" --heads {}", c.n_heads);
    }
    if (c.scale_by == ScaleBy::none) {
        cmd += " --no-scale";
    }
    return cmd;
}

// Why the run stopped, and what to do: a usage error, since --lr (or the task's default with
// these sizes) was the choice that made it diverge.
Error diverged(const Divergence& d, const TrainResult& r, double lr, double task_lr) {
    using Kind = Divergence::Kind;
    // losses as the report writes them: four decimals (2.1000, not 2.1), a huge one in
    // scientific notation
    const auto loss = [](double x) {
        return std::abs(x) < 1e6 ? fmt::format("{:.4f}", x) : fmt::format("{:.4e}", x);
    };
    std::string what;
    switch (d.kind) {
        case Kind::not_finite:
            what = fmt::format("the loss of step {} was {}", d.step, d.loss);
            break;
        case Kind::exploded:
            what = fmt::format(
                "the loss of step {} was {}, more than {} times the untrained model's {}", d.step,
                loss(d.loss), divergence_factor, loss(r.initial_loss));
            break;
        case Kind::rose:
            what = fmt::format(
                "the mean loss of steps {} to {} was {}, more than {} times the "
                "untrained model's {}",
                d.first_step, d.step, loss(d.loss), rising_factor, loss(r.initial_loss));
            break;
        case Kind::overflow:
            what = fmt::format("the update of step {} made a weight infinite or NaN", d.step);
            break;
    }
    return {
        ErrorKind::usage,
        fmt::format("training diverged with learning rate η = {}: {}; the steps overshoot "
                    "instead of going down the loss. Nothing was written; expected a smaller "
                    "--lr{}",
                    lr, what,
                    lr > task_lr ? fmt::format(", such as this task's default, {}", task_lr) : "")};
}

}  // namespace

int run_train(const TrainOptions& o, Io& io) {
    const Task task = task_of(o.task);
    constexpr std::size_t train_size = 512;
    const TrainSettings s = settings_of(o, task, train_size);
    const bool positions = s.config.positions == PositionKind::file;
    std::vector<OutputTarget> outputs{{"--output", o.output}};
    if (!o.svg.empty()) {
        outputs.push_back({"--svg", o.svg});
    }
    for (const auto& target : outputs) {
        // a model file may hold hand-made changes: it is replaced only when asked
        struct stat st {};
        if (!o.force && special_file_kind(target.path).empty() &&
            ::stat(target.path.c_str(), &st) == 0) {
            throw Error(ErrorKind::usage,
                        fmt::format("{} exists, expected a new file name (attn train never "
                                    "replaces a file unless you add --force)",
                                    shown(target.path)));
        }
    }
    check_outputs(outputs, {}, o.force);
    if (o.threads) {
        check_limit(Field::threads, *o.threads);
        set_worker_threads(static_cast<std::size_t>(*o.threads));
    }
    const std::size_t max_memory = max_memory_of(o.max_memory);

    const TaskData data = make_task(task, s.config.seed, train_size);
    // with --no-scale, a second run keeps the first one's parameters and curve beside it
    check_memory_for(training_bytes(data, s, worker_threads()) * (o.no_scale ? 2 : 1),
                     budget_now(max_memory), "training needs about {}",
                     "use a smaller d_model, d_k or fewer heads");
    // from before the plan is printed (a script that stops attn once it sees the plan gets the
    // message) to the end of the training; not while the files are written
    std::optional<StopOnSignals> stop_on_signals(std::in_place);
    io.out << render_training_plan(data, s);
    flush_stdout(io);

    // the loss and a bar on one line that rewrites itself, on a terminal only (a hundred
    // updates at most); Ctrl-C stops at the step it comes in, with nothing written
    const std::size_t every = std::max<std::size_t>(1, s.steps / 100);
    const auto progress = [&](const Progress& p) {
        if (stop_requested != 0) {
            throw Stopped{p.step, p.steps, static_cast<int>(stop_requested)};
        }
        if (io.stdout_is_terminal && (p.step % every == 0 || p.step == p.steps)) {
            io.out << '\r' << render_training_progress(p) << "   " << std::flush;
        }
    };
    const auto clear_progress = [&io] {
        if (io.stdout_is_terminal) {
            io.out << "\r\033[K" << std::flush;
        }
    };
    int stopped_by = 0;
    const auto trained = [&](const TrainSettings& settings) -> std::optional<TrainResult> {
        if (!stop_on_signals) {
            stop_on_signals.emplace();
        }
        try {
            return train(data, settings, progress);
        } catch (const Stopped& stopped) {
            clear_progress();
            io.err << fmt::format("attn: interrupted at step {} of {}: nothing was written\n",
                                  stopped.step, stopped.steps);
            stopped_by = stopped.signal;
            return std::nullopt;
        }
    };
    const std::optional<TrainResult> run = trained(s);
    stop_on_signals.reset();
    if (!run) {
        return signal_exit_base + stopped_by;
    }
    const TrainResult& r = *run;
    clear_progress();
    if (r.diverged) {
        throw diverged(*r.diverged, r, s.lr, task_setup(task).lr);
    }
    const Example showcase = showcase_example(data);
    const Trace shown_trace = forward(example_input(showcase, r.parameters), s.config);
    io.out << render_training_result(data, s, r, shown_trace);
    // --no-scale: the same run with the scores divided by √d_k, beside it
    std::optional<TrainResult> scaled;
    if (o.no_scale) {
        TrainSettings with = s;
        with.config.scale_by = ScaleBy::d_k;
        scaled = trained(with);
        stop_on_signals.reset();
        if (!scaled) {
            return signal_exit_base + stopped_by;
        }
        clear_progress();
        io.out << render_scaling_comparison(s, r, *scaled);
    }
    flush_stdout(io);  // the report before the files' lines on stderr

    // the model file: every token of the task with its vector, the weights, the sentence
    const std::string command = command_line(task, s);
    Input model;
    model.tokens = data.vocabulary;
    model.x = r.parameters.embeddings;
    model.weights = r.parameters.weights;
    model.sentence = std::string(task_setup(task).sentence);
    model.description = training_description(data, s, r, shown_trace);
    Training how{.command = command,
                 .task = std::string(to_string(task)),
                 .seed = s.config.seed,
                 .steps = r.steps_done,
                 .learning_rate = s.lr,
                 .trained = {},
                 .held_out_right = static_cast<std::size_t>(std::llround(
                     r.held_out_score.accuracy * static_cast<double>(r.held_out_score.rows))),
                 .held_out_total = r.held_out_score.rows,
                 .file = {}};
    const std::array<std::pair<const char*, bool>, 4> parts{
        {{"W_Q", s.trainable.w_q},
         {"W_K", s.trainable.w_k},
         {"embeddings", s.trainable.embeddings},
         {"positions", positions && s.trainable.positions}}};
    for (const auto& [part, on] : parts) {
        if (on) {
            how.trained.emplace_back(part);
        }
    }
    model.training = std::move(how);
    if (positions) {  // the table, learned or seeded, goes in the model file
        model.positions = r.parameters.positions;
    }
    const std::string text = render_model_file(model, s.config, command);
    OutputSet files(o.force);
    files.add(outputs[0], [&text](const OutputSet::Sink& sink) { sink(text); });
    if (!o.svg.empty()) {
        files.add(outputs.back(), [&](const OutputSet::Sink& sink) {
            sink(render_loss_svg(data, r, scaled ? &*scaled : nullptr));
        });
    }
    const auto written = files.write_all();
    for (const auto& w : written) {
        io.err << "attn: wrote " << shown(describe(w)) << '\n';
    }
    io.err << "attn: explain it with: attn explain --model " << shown(o.output) << '\n';
    return 0;
}

}  // namespace attn::cli
