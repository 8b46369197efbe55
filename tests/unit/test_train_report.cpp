// attn train's report: the sparkline's marks and scale, and that the result's sentences carry
// the run's own numbers (a hand-made TrainResult, so that each number is known).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/train.hpp"
#include "attn/render/render.hpp"

namespace {

// the text with its line breaks and the indents after them as single spaces
std::string flattened(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') {
            while (i + 1 < text.size() && text[i + 1] == ' ') {
                ++i;
            }
            out += ' ';
        } else {
            out += text[i];
        }
    }
    return out;
}

}  // namespace

TEST_CASE("train report: a sparkline is the mean of each share, scaled lowest to highest",
          "[train]") {
    const std::vector<double> falling{8.0, 6.0, 4.0, 2.0, 1.0, 1.0};
    // six values in three marks: means 7, 3 and 1; 1 is the lowest (▁), 7 the highest (█), and
    // 3 is a third of the way: level round(2/6 · 7) = 2, ▃
    CHECK(attn::render_sparkline(falling, 3, true) == "█▃▁");
    CHECK(attn::render_sparkline(falling, 3, false) == "#-_");
    // fewer values than columns: one mark each
    CHECK(attn::render_sparkline(falling, 60, false).size() == 6);
    // a flat curve is all lowest marks, not a division by zero
    CHECK(attn::render_sparkline(std::vector<double>{2.0, 2.0}, 10, false) == "__");
    CHECK(attn::render_sparkline(std::vector<double>{}, 10, true).empty());
}

TEST_CASE("train report: the result's sentences carry the run's numbers", "[train]") {
    const attn::TaskData data = attn::make_task(attn::Task::coreference, 42, 32, 16);
    attn::TrainSettings s;
    const attn::TaskSetup setup = attn::task_setup(attn::Task::coreference);
    s.config.d_model = setup.d_model;
    s.config.d_k = setup.d_k;
    s.config.d_v = setup.d_v;
    s.steps = 40;
    attn::TrainResult r;
    r.parameters = attn::initial_parameters(data, s);
    r.steps_done = 40;
    r.first_loss = 0.5;
    r.last_loss = 0.125;
    r.curve.points.assign(40, 0.25);
    r.held_out_score = {0.75, 0.5, 16};  // 12 of 16 right, 8 of 16 attend most to the source
    r.train_score = {1.0, 1.0, 32};
    const attn::Trace t =
        attn::forward(attn::example_input(attn::showcase_example(data), r.parameters), s.config);
    const std::string text = flattened(attn::render_training_result(data, s, r, t));
    CHECK_THAT(text, Catch::Contains("from 0.5000 (the first batch) to 0.1250 (the last)"));
    CHECK_THAT(text, Catch::Contains("accuracy 75.0%: of the 16 graded tokens of the 16"));
    CHECK_THAT(text, Catch::Contains("12 have an output nearest"));
    CHECK_THAT(text, Catch::Contains("and 8 attend most to it"));
    CHECK_THAT(text, Catch::Contains("mean loss of 1 step,"));
    // the showcase's weight is the trace's own, to two places
    const double w = t.heads.front().attention(6, 3);
    CHECK_THAT(text, Catch::Contains("'it' (6) attends to 'hat' (3) with weight " +
                                     attn::format_number(w, 2, true)));
    const std::string plan = flattened(attn::render_training_plan(data, s));
    CHECK_THAT(plan, Catch::Contains("32 to train on, 16 held out"));
    CHECK_THAT(plan, Catch::Contains("40 of 16 examples each (20 passes"));
    CHECK_THAT(plan, Catch::Contains("trained   W_Q and W_K; W_V and the embeddings keep"));
}

TEST_CASE("train report: --no-scale compares the two curves and says what they show", "[train]") {
    attn::TrainSettings s;
    s.config.d_k = 64;
    s.config.scale_by = attn::ScaleBy::none;
    const auto run = [](std::vector<double> curve, double accuracy) {
        attn::TrainResult r;
        r.steps_done = curve.size();
        r.last_loss = curve.back();
        r.curve.points = std::move(curve);
        r.held_out_score = {accuracy, accuracy, 100};
        return r;
    };
    // eight steps: a quarter of the way is step 2, half way step 4
    const auto slow = run({1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3}, 0.5);
    const auto fast = run({1.0, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01}, 1.0);
    const std::string text = flattened(attn::render_scaling_comparison(s, slow, fast));
    // eight steps: the windows are steps 1–8 (around step 2, whole run) and 1–8 again
    CHECK_THAT(text, Catch::Contains("Mean loss over steps 1–8 (8 steps): 0.6500 without "
                                     "scaling, 0.1813 with it; over steps 1–8: 0.6500 and "
                                     "0.1813; the last batch: 0.3000 and 0.0100"));
    CHECK_THAT(text, Catch::Contains("Held-out accuracy: 50.0% without scaling, 100.0% with it"));
    CHECK_THAT(text, Catch::Contains("Without the scaling the loss is higher at both"));
    CHECK_THAT(text, Catch::Contains("▁ is 0.0100, █ is 1)"));
    // the other way round, and about the same: the sentence follows the numbers
    CHECK_THAT(flattened(attn::render_scaling_comparison(s, fast, slow)),
               Catch::Contains("Here the run without scaling has the lower loss at both"));
    CHECK_THAT(flattened(attn::render_scaling_comparison(s, slow, slow)),
               Catch::Contains("Here neither run is ahead by more than 10% at both points"));
}

TEST_CASE("train report: --no-scale's mean losses are means over the stated window of steps",
          "[train]") {
    attn::TrainSettings s;
    s.config.d_k = 64;
    s.config.scale_by = attn::ScaleBy::none;
    // 120 steps, two to a point: point i is the mean of steps 2i+1 and 2i+2, whose losses are
    // their step numbers, so a window's mean is the mean of its first and last step
    const auto run = [](double slope) {
        attn::TrainResult r;
        r.steps_done = 120;
        r.curve.per_point = 2;
        for (std::size_t i = 0; i < 60; ++i) {
            r.curve.points.push_back(slope * (2.0 * static_cast<double>(i) + 1.5));
        }
        r.last_loss = slope * 120.0;
        r.held_out_score = {1.0, 1.0, 10};
        return r;
    };
    const std::string text = flattened(attn::render_scaling_comparison(s, run(1.0), run(0.5)));
    // a quarter of the way is step 30: the 30 steps 16–45, whose points cover steps 15–46
    // (mean 30.5); half way, step 60: steps 46–75, points 45–76 (mean 60.5)
    CHECK_THAT(text, Catch::Contains("Mean loss over steps 15–46 (32 steps): 30.5000 without "
                                     "scaling, 15.2500 with it; over steps 45–76: 60.5000 and "
                                     "30.2500"));
    CHECK_THAT(text, Catch::Contains("Without the scaling the loss is higher at both"));
    // a run that is behind a quarter of the way but not half way is not called slower
    auto mixed = run(1.0);
    for (std::size_t i = 22; i < 60; ++i) {
        mixed.curve.points[i] = 0.1;
    }
    CHECK_THAT(flattened(attn::render_scaling_comparison(s, mixed, run(0.5))),
               Catch::Contains("Here neither run is ahead by more than 10% at both points"));
}

TEST_CASE("train report: the progress line's bar and percentage follow the step", "[train]") {
    using attn::Progress;
    const auto line = [](std::size_t step, std::size_t steps) {
        return attn::render_training_progress(Progress{step, steps, 0.5, {}});
    };
    // 20 cells in eighths: 0 of 1000 is an empty bar, 500 half (10 cells), 1000 full
    CHECK(line(0, 1000).find("▕                    ▏   0%") != std::string::npos);
    CHECK(line(500, 1000).find("▕██████████          ▏  50%") != std::string::npos);
    CHECK(line(1000, 1000).find("▕████████████████████▏ 100%") != std::string::npos);
    // 1/160 of the way is one eighth of the first cell
    CHECK(line(1, 160).find("▕▏                   ▏   0%") != std::string::npos);
    CHECK(line(3, 16).find("▕███▊                ▏  18%") != std::string::npos);
    CHECK(line(120, 600).find("  step 120/600 ") == 0);
    CHECK(line(120, 600).find("loss 0.5000") != std::string::npos);
}
