// The Trace's copies and moves, which remake its steps, and looking its steps up.
#include "attn/core/trace.hpp"

#include <algorithm>
#include <cmath>

#include "steps.hpp"

namespace attn {
namespace {

// Drops the steps of a Trace whose numbers were moved away (they point into them); returns
// whether it had any.
bool drop_steps(Trace& t) noexcept {
    const bool indexed = !t.steps.empty();
    t.steps.clear();
    t.column_steps.clear();
    return indexed;
}

// The steps of a Trace whose numbers were just copied or moved in: remade from them when the
// Trace they came from had steps, else none.
void remake_steps(Trace& t, bool indexed) {
    drop_steps(t);
    if (indexed) {
        t.index_steps();
    }
}

}  // namespace

Trace::Trace(const Trace& other) : TraceNumbers(other) {
    remake_steps(*this, !other.steps.empty());
}

Trace::Trace(Trace&& other) noexcept : TraceNumbers(std::move(other)) {
    // index_steps cannot fail for numbers that were indexed before, but for memory
    remake_steps(*this, drop_steps(other));
}

Trace& Trace::operator=(const Trace& other) {
    if (this != &other) {
        TraceNumbers::operator=(other);
        remake_steps(*this, !other.steps.empty());
    }
    return *this;
}

Trace& Trace::operator=(Trace&& other) noexcept {
    if (this != &other) {
        TraceNumbers::operator=(std::move(other));
        remake_steps(*this, drop_steps(other));
    }
    return *this;
}

void Trace::index_steps() {
    steps = build_steps(*this, false);
    column_steps = projected ? std::vector<Step>{} : build_steps(*this, true);
}

const std::vector<Step>& teaching_steps(const Trace& trace) {
    return trace.steps;
}

const std::vector<Step>& steps_in(const Trace& trace, Layout layout) {
    return layout == Layout::col && !trace.column_steps.empty() ? trace.column_steps : trace.steps;
}

const Step* find_step(const Trace& trace, std::string_view id, Layout layout) {
    const auto& steps = steps_in(trace, layout);
    const auto it =
        std::find_if(steps.begin(), steps.end(), [&](const Step& s) { return s.id == id; });
    return it == steps.end() ? nullptr : &*it;
}

std::string_view base_id(std::string_view id) noexcept {
    if (id.starts_with("head")) {
        const auto dot = id.find('.');
        if (dot != std::string_view::npos) {
            return id.substr(dot + 1);
        }
    }
    return id;
}

std::size_t trace_bytes(const Trace& t) noexcept {
    const auto bytes = [](const Matrix& m) { return m.size() * sizeof(double); };
    std::size_t total = bytes(t.x) + bytes(t.positions) + bytes(t.x_in) + bytes(t.w_q) +
                        bytes(t.w_k) + bytes(t.w_v) + bytes(t.b_q) + bytes(t.b_k) + bytes(t.b_v) +
                        bytes(t.concat) + bytes(t.w_o) + bytes(t.b_o) + bytes(t.output);
    if (t.mask) {
        total += t.mask->rows() * t.mask->cols();
    }
    for (const auto& h : t.heads) {
        total += bytes(h.w_q) + bytes(h.w_k) + bytes(h.w_v) + bytes(h.q) + bytes(h.k) + bytes(h.v) +
                 bytes(h.scores) + bytes(h.scaled_scores) + bytes(h.masked_scores) +
                 bytes(h.attention) + bytes(h.output) + bytes(h.exact_attention) +
                 bytes(h.correct_attention);
    }
    return total;
}

const Head& head_of(const Trace& trace, const Step& step) {
    return trace.heads.at(step.head == 0 ? 0 : step.head - 1);
}

bool scores_whole(const Trace& trace) noexcept {
    for (const Head& h : trace.heads) {
        for (double s : h.scores.data()) {
            if (s != std::round(s)) {
                return false;
            }
        }
    }
    return true;
}

double hand_difference(const Trace& trace) noexcept {
    double most = 0.0;
    for (const Head& h : trace.heads) {
        most = std::max(most, h.hand_difference);
    }
    return most;
}

}  // namespace attn
