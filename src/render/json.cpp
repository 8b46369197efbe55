// The JSON dump: every step of teaching_steps() with full-precision values, streamed to a
// sink in pieces so that a dump of millions of numbers is never held whole in memory.
// Format: docs/json-format.md.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/ops.hpp"
#include "attn/parallel.hpp"
#include "attn/render.hpp"
#include "attn/version.hpp"
#include "json_text.hpp"
#include "narrative.hpp"

namespace attn {
namespace {

class JsonOut {
  public:
    explicit JsonOut(const Sink& sink) : sink_(sink) { buf_.reserve(chunk + 4096); }
    JsonOut(const JsonOut&) = delete;
    JsonOut& operator=(const JsonOut&) = delete;
    JsonOut(JsonOut&&) = delete;
    JsonOut& operator=(JsonOut&&) = delete;
    ~JsonOut() = default;

    void raw(std::string_view s) {
        if (s.size() >= chunk) {  // a large piece goes to the sink as it is, not copied
            flush();
            sink_(s);
            return;
        }
        buf_ += s;
        if (buf_.size() >= chunk) {
            flush();
        }
    }
    void flush() {
        if (!buf_.empty()) {
            sink_(buf_);
            buf_.clear();
        }
    }
    void string(std::string_view s) { json_text::append_string(buf_, s); }
    void number(double x) { json_text::append_number(buf_, x); }
    void integer(std::size_t n) { fmt::format_to(std::back_inserter(buf_), "{}", n); }
    void key(std::string_view indent, std::string_view k) {
        raw(indent);
        string(k);
        raw(": ");
    }

  private:
    static constexpr std::size_t chunk = 1U << 16U;
    const Sink& sink_;
    std::string buf_;
};

void string_array(JsonOut& j, std::span<const std::string> items) {
    j.raw("[");
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            j.raw(", ");
        }
        j.string(items[i]);
    }
    j.raw("]");
}

void number_array(JsonOut& j, std::span<const double> items) {
    j.raw("[");
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            j.raw(", ");
        }
        j.number(items[i]);
    }
    j.raw("]");
}

void source(JsonOut& j, const Source& s) {
    j.raw("{\"kind\": ");
    j.string(s.kind == Source::Kind::file ? "file" : "seeded");
    if (s.kind == Source::Kind::file) {
        j.raw(", \"path\": ");
        j.string(s.path);
    }
    if (!s.layout.empty()) {
        j.raw(", \"layout\": ");
        j.string(s.layout);
    }
    if (!s.seeded_tokens.empty()) {
        j.raw(", \"seeded_tokens\": ");
        string_array(j, s.seeded_tokens);
    }
    j.raw("}");
}

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

// A matrix's values, formatted in blocks of rows on worker threads while this thread writes
// the finished blocks in order: the same bytes as one thread would write.
//
// Block b is formatted by worker b mod W into slot b mod 2W, so each worker has a block
// ahead to go on with while this thread writes; a slot is reused (never zeroed) once its
// block is written. Waiting is on a condition variable, which sleeps (a spinning wait would
// take a core from the workers). If writing fails (a full disk), the workers are told to
// stop before the error goes on.
void matrix_values(JsonOut& j, const Step& step) {
    constexpr std::size_t numbers_per_block = std::size_t{1} << 15U;
    const std::size_t rows = step.shape.rows;
    const std::size_t cols = step.shape.cols;
    const std::size_t rows_per_block =
        std::max<std::size_t>(1, numbers_per_block / std::max<std::size_t>(1, cols));
    const std::size_t n_blocks = (rows + rows_per_block - 1) / rows_per_block;
    const std::size_t room = room_for(rows_per_block, cols);
    const auto format_block = [&](std::size_t b, char* out) {
        return format_rows(step, b * rows_per_block, std::min(rows, (b + 1) * rows_per_block), out);
    };
    const std::size_t n_workers = std::min(worker_threads(), n_blocks);
    if (n_workers <= 1) {
        // NOLINTNEXTLINE(*-avoid-c-arrays): not zeroed, as every byte is written before use
        const auto buffer = std::make_unique_for_overwrite<char[]>(room);
        for (std::size_t b = 0; b < n_blocks; ++b) {
            j.raw({buffer.get(), format_block(b, buffer.get())});
        }
        return;
    }
    struct Slot {
        std::unique_ptr<char[]> text;  // NOLINT(*-avoid-c-arrays): as above
        std::size_t length = 0;
        std::size_t block = 0;  // the block it holds or will hold next
        bool filled = false;
    };
    const std::size_t n_slots = 2 * n_workers;
    std::vector<Slot> slots(n_slots);
    for (std::size_t s = 0; s < n_slots; ++s) {
        slots[s].text = std::make_unique_for_overwrite<char[]>(room);  // NOLINT(*-avoid-c-arrays)
        slots[s].block = s;
    }
    std::mutex mutex;
    std::condition_variable changed;
    bool stop = false;
    {
        std::vector<std::jthread> workers;
        workers.reserve(n_workers);
        for (std::size_t w = 0; w < n_workers; ++w) {
            workers.emplace_back([&, w] {
                for (std::size_t b = w; b < n_blocks; b += n_workers) {
                    Slot& slot = slots[b % n_slots];
                    {
                        std::unique_lock lock(mutex);
                        changed.wait(lock, [&] { return stop || slot.block == b; });
                        if (stop) {
                            return;
                        }
                    }
                    const std::size_t length = format_block(b, slot.text.get());
                    {
                        const std::lock_guard lock(mutex);
                        slot.length = length;
                        slot.filled = true;
                    }
                    changed.notify_all();
                }
            });
        }
        try {
            for (std::size_t b = 0; b < n_blocks; ++b) {
                Slot& slot = slots[b % n_slots];
                {
                    std::unique_lock lock(mutex);
                    changed.wait(lock, [&] { return slot.filled; });
                }
                j.raw({slot.text.get(), slot.length});
                {
                    const std::lock_guard lock(mutex);
                    slot.filled = false;
                    slot.block = b + n_slots;
                }
                changed.notify_all();
            }
        } catch (...) {
            {
                const std::lock_guard lock(mutex);
                stop = true;
            }
            changed.notify_all();
            throw;  // the workers are joined first, as `workers` goes out of scope
        }
    }
}

void values(JsonOut& j, const Step& step) {
    j.raw("[");
    if (step.kind == StepKind::mask) {
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
    } else {
        matrix_values(j, step);
    }
    j.raw("\n      ]");
}

void step_json(JsonOut& j, const Trace& t, const Step& step) {
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
    j.string(step.title);
    j.key(in, "symbol");
    j.string(step.symbol);
    j.key(in, "formula");
    j.string(step.formula);
    if (step.kind == StepKind::tokens) {
        j.key(in, "shape");
        j.raw("[");
        j.integer(step.shape.rows);
        j.raw("]");
        j.key(in, "values");
        string_array(j, step.row_labels);
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
    string_array(j, step.row_labels);
    j.key(in, "col_labels");
    string_array(j, step.col_labels);
    if (step.kind == StepKind::mask) {
        j.key(in, "convention");
        j.string("true = may attend, false = blocked");
    }
    const auto base = base_id(step.id);
    if (base == "masked_scores") {
        j.key(in, "masked_value");
        j.string("-inf");
    }
    if (base == "scaled_scores") {
        const Head& h = head_of(t, step);
        j.key(in, "sqrt_d_k");
        j.number(h.sqrt_d_k);
        j.key(in, "variance_before");
        j.number(h.variance_scores);
        j.key(in, "variance_after");
        j.number(h.variance_scaled);
    }
    if (step.kind == StepKind::attention) {
        j.key(in, "row_sums");
        number_array(j, row_sums(*step.matrix));
        if (t.config.arith == Arith::hand) {
            j.key(in, "max_difference_from_exact");
            j.number(head_of(t, step).hand_difference);
        }
    }
    j.key(in, "values");
    values(j, step);
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
    j.raw(c.scale ? "true" : "false");
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
    j.raw("{\"embeddings\": ");
    source(j, t.embeddings_source);
    j.raw(", \"weights\": ");
    source(j, t.weights_source);
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
    j.key(",\n  ", "sentence");
    j.string(t.sentence);
    j.key(",\n  ", "tokens");
    string_array(j, t.tokens);
    j.key(",\n  ", "steps");
    j.raw("[\n");
    const auto steps = teaching_steps(t);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        if (i > 0) {
            j.raw(",\n");
        }
        step_json(j, t, steps[i]);
    }
    j.raw("\n  ]");
    j.key(",\n  ", "warnings");
    const auto warnings = narrative::warnings(t);
    string_array(j, warnings);
    j.raw("\n}\n");
    j.flush();
}

std::string render_json(const Trace& trace) {
    std::string out;
    render_json(trace, [&out](std::string_view piece) { out += piece; });
    return out;
}

}  // namespace attn
