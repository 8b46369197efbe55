// The JSON dump: every step of teaching_steps() with full-precision values, streamed to a
// sink in pieces so that a dump of millions of numbers is never held whole in memory.
// Format: docs/json-format.md.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"
#include "attn/core/whatif.hpp"
#include "attn/render/render.hpp"
#include "attn/version.hpp"
#include "json_out.hpp"
#include "json_text.hpp"
#include "lesson.hpp"
#include "notation.hpp"

namespace attn {
namespace {

using json_out::array;
using json_out::JsonOut;
using json_out::source;

constexpr std::string_view row_indent = "\n        ";

// Room for the text of `rows` rows of `cols` numbers in format_rows.
std::size_t room_for(std::size_t rows, std::size_t cols) {
    return rows * (row_indent.size() + 3 + cols * (json_text::max_number_chars + 2));
}

// Writes the text of rows [begin, end) of a matrix step's values at `out` (room_for them),
// each row after its separator: ",\n        [1.5, -0.25]" (no comma before row 0); returns
// the length.
std::size_t format_rows(const Step& step, std::size_t begin, std::size_t end, char* out) {
    const std::size_t cols = step.shape.cols;
    char* p = out;
    for (std::size_t r = begin; r < end; ++r) {
        if (r > 0) {
            *p++ = ',';
        }
        p = std::copy(row_indent.begin(), row_indent.end(), p);
        *p++ = '[';
        const auto row = step.matrix->row(r);
        for (std::size_t c = 0; c < cols; ++c) {
            if (c > 0) {
                *p++ = ',';
                *p++ = ' ';
            }
            p = json_text::write_number(p, row[c]);
        }
        *p++ = ']';
    }
    return static_cast<std::size_t>(p - out);
}

// Whether a step's values are numbers (formatted by Blocks) rather than tokens or a mask.
bool has_numbers(const Step& step) {
    return step.kind == StepKind::matrix || step.kind == StepKind::attention;
}

// The text of every matrix's values in the dump, in blocks of rows, formatted on worker
// threads ahead of the thread that writes them: next() hands out the blocks in the order
// the dump writes them, each step's blocks in turn, and the text is the same bytes as one
// thread would write.
//
// The workers go on across steps, so that no core waits at the end of a step for the last
// block of it. Block b is formatted by worker b mod W into slot b mod 2W, so each worker has
// a block ahead to go on with while the writer writes; a slot is reused (never zeroed) once
// its block is written. Waiting is on a condition variable, which sleeps (a spinning wait
// would take a core from the workers). If writing fails (a full disk), the destructor tells
// the workers to stop and joins them before the error goes on.
class Blocks {
  public:
    explicit Blocks(std::span<const Step> steps) {
        constexpr std::size_t numbers_per_block = std::size_t{1} << 15U;
        std::size_t room = 0;
        std::size_t numbers = 0;
        for (const Step& step : steps) {
            if (!has_numbers(step)) {
                continue;
            }
            const std::size_t rows = step.shape.rows;
            const std::size_t cols = std::max<std::size_t>(1, step.shape.cols);
            const std::size_t per_block = std::max<std::size_t>(1, numbers_per_block / cols);
            for (std::size_t r = 0; r < rows; r += per_block) {
                blocks_.push_back({&step, r, std::min(rows, r + per_block)});
            }
            room = std::max(room, room_for(std::min(rows, per_block), step.shape.cols));
            numbers += rows * step.shape.cols;
        }
        // a thread takes longer to start than a few thousand numbers take to write (its stack
        // and its malloc arena are fresh pages, each a page fault): a small dump is written
        // by this thread alone
        constexpr std::size_t numbers_for_threads = numbers_per_block;
        const std::size_t n_workers =
            numbers < numbers_for_threads ? 1 : std::min(worker_threads(), blocks_.size());
        const std::size_t n_slots = n_workers <= 1 ? 1 : 2 * n_workers;
        slots_.resize(n_slots);
        for (std::size_t s = 0; s < n_slots; ++s) {
            // NOLINTNEXTLINE(*-avoid-c-arrays): not zeroed, as every byte is written before use
            slots_[s].text = std::make_unique_for_overwrite<char[]>(room);
            slots_[s].block = s;
        }
        if (n_workers <= 1) {
            return;  // next() formats each block itself
        }
        workers_.reserve(n_workers);
        try {
            for (std::size_t w = 0; w < n_workers; ++w) {
                workers_.emplace_back([this, w, n_workers] { work(w, n_workers); });
            }
        } catch (...) {
            stop();  // a thread that could not start: the others are stopped, not waited for
            throw;
        }
    }
    Blocks(const Blocks&) = delete;
    Blocks& operator=(const Blocks&) = delete;
    Blocks(Blocks&&) = delete;
    Blocks& operator=(Blocks&&) = delete;
    ~Blocks() { stop(); }

    // The text of `step`'s next block of rows, valid until the next call.
    std::string_view next(const Step& step) {
        if (next_ >= blocks_.size() || blocks_[next_].step != &step) {
            throw std::logic_error("json: the dump asked for a block out of order");
        }
        const std::size_t b = next_++;
        Slot& slot = slots_[b % slots_.size()];
        if (workers_.empty()) {
            slot.length = format(b, slot.text.get());
            return {slot.text.get(), slot.length};
        }
        if (b > 0) {  // the block handed out before is written: its slot takes the next
            Slot& done = slots_[(b - 1) % slots_.size()];
            {
                const std::lock_guard lock(mutex_);
                done.filled = false;
                done.block = b - 1 + slots_.size();
            }
            changed_.notify_all();
        }
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return slot.filled; });
        return {slot.text.get(), slot.length};
    }

    // Whether `step` has a block still to be handed out.
    [[nodiscard]] bool more(const Step& step) const {
        return next_ < blocks_.size() && blocks_[next_].step == &step;
    }

  private:
    struct Block {
        const Step* step = nullptr;
        std::size_t begin = 0;  // its rows [begin, end)
        std::size_t end = 0;
    };
    struct Slot {
        std::unique_ptr<char[]> text;  // NOLINT(*-avoid-c-arrays): as above
        std::size_t length = 0;
        std::size_t block = 0;  // the block it holds or will hold next
        bool filled = false;
    };

    // Tells the workers to stop and joins them.
    void stop() {
        {
            const std::lock_guard lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        workers_.clear();
    }

    std::size_t format(std::size_t b, char* out) const {
        return format_rows(*blocks_[b].step, blocks_[b].begin, blocks_[b].end, out);
    }

    void work(std::size_t w, std::size_t n_workers) {
        for (std::size_t b = w; b < blocks_.size(); b += n_workers) {
            Slot& slot = slots_[b % slots_.size()];
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [&] { return stop_ || slot.block == b; });
                if (stop_) {
                    return;
                }
            }
            const std::size_t length = format(b, slot.text.get());
            {
                const std::lock_guard lock(mutex_);
                slot.length = length;
                slot.filled = true;
            }
            changed_.notify_all();
        }
    }

    std::vector<Block> blocks_;
    std::vector<Slot> slots_;
    std::size_t next_ = 0;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stop_ = false;
    std::vector<std::jthread> workers_;  // last: joined before the rest goes
};

void values(JsonOut& j, const Step& step, Blocks& blocks) {
    j.raw("[");
    if (has_numbers(step)) {  // the same test that gave the step its blocks
        while (blocks.more(step)) {
            j.raw(blocks.next(step));
        }
    } else {  // a mask (the token list has no "values" matrix)
        for (std::size_t r = 0; r < step.shape.rows; ++r) {
            j.raw(r > 0 ? "," : "");
            j.raw(row_indent);
            j.raw("[");
            for (std::size_t c = 0; c < step.shape.cols; ++c) {
                j.raw(c > 0 ? ", " : "");
                j.raw(step.mask->allowed(r, c) ? "true" : "false");
            }
            j.raw("]");
        }
    }
    j.raw("\n      ]");
}

void step_json(JsonOut& j, const Trace& t, const Step& step, Blocks& blocks) {
    constexpr std::string_view in = ",\n      ";
    j.raw("    {\n");
    j.key("      ", "id");
    j.string(step.id);
    j.key(in, "number");
    j.string(step.number);
    if (step.head > 0) {
        j.key(in, "head");
        j.integer(step.head);
    }
    j.key(in, "title");
    j.string(lesson::title(t, step));
    if (const std::string tensor = lesson::gpt2_tensor(t, step); !tensor.empty()) {
        j.key(in, "tensor");  // a checkpoint's step: the tensor its numbers come from
        j.string(tensor);
    }
    j.key(in, "symbol");
    j.string(notation::symbol(step.symbol, notation::Style::unicode));
    j.key(in, "formula");
    j.string(notation::formula(step.formula, notation::Style::unicode));
    if (step.kind == StepKind::tokens) {
        j.key(in, "shape");
        j.raw("[");
        j.integer(step.shape.rows);
        j.raw("]");
        j.key(in, "values");
        array(j, step.row_labels);
        j.raw("\n    }");
        return;
    }
    j.key(in, "shape");
    j.raw("[");
    j.integer(step.shape.rows);
    j.raw(", ");
    j.integer(step.shape.cols);
    j.raw("]");
    j.key(in, "row_labels");
    array(j, step.row_labels);
    j.key(in, "col_labels");
    array(j, step.col_labels);
    if (step.kind == StepKind::mask) {
        j.key(in, "convention");
        j.string("true = may attend, false = blocked");
    }
    const auto base = base_id(step.id);
    if (base == "masked_scores") {
        j.key(in, "masked_value");
        j.string("-inf");
    }
    if (base == "Q" || base == "K") {
        const Head& h = head_of(t, step);
        j.key(in, "variance");
        j.number(base == "Q" ? h.variance_q : h.variance_k);
    }
    if (base == "scores") {
        j.key(in, "variance");
        j.number(head_of(t, step).variance_scores);
    }
    if (base == "scaled_scores") {
        const Head& h = head_of(t, step);
        j.key(in, "sqrt_d_k");
        j.number(std::sqrt(static_cast<double>(t.config.d_k)));
        j.key(in, "divisor");  // what each score was divided by: √d_k, √d_model, by hand, or 1
        j.number(t.rule.divisor());
        j.key(in, "variance_before");
        j.number(h.variance_scores);
        j.key(in, "variance_after");
        j.number(h.variance_scaled);
    }
    if (step.kind == StepKind::attention) {
        j.key(in, "row_sums");
        array(j, row_sums(*step.matrix));
        if (t.config.arith == Arith::hand) {
            j.key(in, "max_difference_from_exact");
            j.number(head_of(t, step).hand_difference);
        }
    }
    j.key(in, "values");
    values(j, step, blocks);
    j.raw("\n    }");
}

}  // namespace

void render_json(const Trace& t, const Sink& sink) {
    JsonOut j(sink);
    const auto& c = t.config;
    j.raw("{\n");
    j.key("  ", "schema");
    j.string("attn.trace");
    j.key(",\n  ", "schema_version");
    j.integer(static_cast<std::size_t>(json_schema_version));
    j.key(",\n  ", "attn_version");
    j.string(version);
    j.key(",\n  ", "config");
    j.raw("{\n");
    j.key("    ", "seed");
    j.raw(fmt::format("{}", c.seed));
    j.key(",\n    ", "d_model");
    j.integer(c.d_model);
    j.key(",\n    ", "n_heads");
    j.integer(c.n_heads);
    j.key(",\n    ", "d_k");
    j.integer(c.d_k);
    j.key(",\n    ", "d_v");
    j.integer(c.d_v);
    j.key(",\n    ", "mask");
    j.string(to_string(c.mask));
    j.key(",\n    ", "arith");
    j.string(to_string(c.arith));
    j.key(",\n    ", "scale");
    j.raw(t.rule.scales() ? "true" : "false");
    j.key(",\n    ", "scale_by");
    j.string(to_string(c.scale_by));
    j.key(",\n    ", "softmax_over");
    j.string(to_string(c.softmax_over));
    j.key(",\n    ", "positions");
    j.string(to_string(c.positions));
    j.key(",\n    ", "n_pad");
    j.integer(c.n_pad);
    j.key(",\n    ", "tokenizer");
    j.raw("{\"mode\": ");
    j.string(to_string(c.tokenizer.mode));
    j.raw(", \"lowercase\": ");
    j.raw(c.tokenizer.lowercase ? "true" : "false");
    j.raw("}\n  }");
    j.key(",\n  ", "sources");
    if (t.qkv_given) {  // Q, K and V given directly: no embeddings, no weights
        j.raw("{\"qkv\": {\"kind\": \"file\", \"path\": ");
        j.string(t.qkv_path);
        j.raw(t.tokens_named ? ", \"tokens_named\": true}" : ", \"tokens_named\": false}");
    } else {
        j.raw("{\"embeddings\": ");
        source(j, t.embeddings_source);
        j.raw(", \"weights\": ");
        source(j, t.weights_source);
    }
    if (t.config.positions == PositionKind::file) {
        j.raw(", \"positions\": ");
        source(j, t.positions_source);
    }
    if (t.config.mask == MaskKind::file) {
        j.raw(", \"mask\": ");
        source(j, t.mask_source);
    }
    j.raw("}");
    if (!t.description.empty()) {
        j.key(",\n  ", "description");
        j.string(t.description);
    }
    if (t.training) {  // how attn train made the model file, which file, what it learned
        const Training& how = *t.training;
        j.key(",\n  ", "training");
        j.raw("{\"command\": ");
        j.string(how.command);
        j.raw(", \"task\": ");
        j.string(how.task);
        j.raw(
            fmt::format(", \"seed\": {}, \"steps\": {}, \"learning_rate\": ", how.seed, how.steps));
        j.number(how.learning_rate);
        j.raw(", \"trained\": ");
        array(j, how.trained);
        j.raw(fmt::format(", \"held_out\": {{\"right\": {}, \"of\": {}}}, \"file\": ",
                          how.held_out_right, how.held_out_total));
        j.string(how.file);
        j.raw("}");
    }
    j.key(",\n  ", "sentence");
    j.string(t.sentence);
    j.key(",\n  ", "tokens");
    array(j, t.tokens);
    if (t.gpt2) {
        // a GPT-2 checkpoint: the tokenizer's ids and texts, and which layer and head
        const auto& g = *t.gpt2;
        j.key(",\n  ", "token_ids");
        std::string ids = "[";
        for (std::size_t i = 0; i < g.token_ids.size(); ++i) {
            ids += fmt::format("{}{}", i == 0 ? "" : ", ", g.token_ids[i]);
        }
        j.raw(ids + "]");
        j.key(",\n  ", "checkpoint");
        j.raw("{\"path\": ");
        j.string(g.source);
        j.raw(
            fmt::format(", \"n_layer\": {}, \"n_head\": {}, \"n_embd\": {}, \"n_positions\": "
                        "{}, \"vocab_size\": {}, \"n_inner\": {}, \"layer\": {}, \"head\": ",
                        g.config.n_layer, g.config.n_head, g.config.n_embd, g.config.n_positions,
                        g.config.vocab_size, g.config.n_inner, g.layer + 1));
        if (g.head) {
            j.integer(*g.head + 1);
        } else {
            j.string("all");
        }
        j.raw(", \"tensors\": ");
        j.string(g.prefix + gpt2_name(g.layer, "*"));
        j.raw(", \"token_texts\": ");
        array(j, g.token_texts);
        j.raw("}");
    }
    j.key(",\n  ", "steps");
    j.raw("[\n");
    const auto& steps = teaching_steps(t);
    {
        Blocks blocks(steps);
        for (std::size_t i = 0; i < steps.size(); ++i) {
            if (i > 0) {
                j.raw(",\n");
            }
            step_json(j, t, steps[i], blocks);
        }
    }
    j.raw("\n  ]");
    if (t.backward) {  // --backward: the loss (also the "loss" step), and the update's
        j.key(",\n  ", "loss");
        j.number(t.backward->loss(0, 0));
        if (t.backward->lr) {
            j.key(",\n  ", "lr");
            j.number(*t.backward->lr);
            j.key(",\n  ", "loss_after_update");
            j.number(t.backward->loss_after);
        }
    }
    if (t.comparison && t.comparison->before_name.empty()) {  // --set: what was changed
        j.key(",\n  ", "what_if");
        json_out::write_what_if(j, t);
    }
    j.key(",\n  ", "warnings");
    const auto warnings = lesson::warnings(t);
    array(j, warnings);
    j.raw("\n}\n");
    j.flush();
}

std::string render_json(const Trace& trace) {
    std::string out;
    render_json(trace, [&out](std::string_view piece) { out += piece; });
    return out;
}

}  // namespace attn
