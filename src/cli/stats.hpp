#pragma once
// --stats: how long each phase of a run took, its output's size, and the memory it used.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/core/trace.hpp"

namespace attn::cli {

class Stopwatch {
  public:
    using Clock = std::chrono::steady_clock;

    // The time since the last lap (or the start), under `label`; `bytes` written, if any.
    void lap(std::string label, std::optional<std::size_t> bytes = std::nullopt) {
        const auto now = Clock::now();
        laps_.push_back(
            {std::move(label), std::chrono::duration<double>(now - last_).count(), bytes});
        last_ = now;
    }

    /// The laps, the total, the bytes of the trace's numbers and the peak memory.
    [[nodiscard]] std::string report(const Trace& t) const;

  private:
    struct Lap {
        std::string label;
        double seconds = 0.0;
        std::optional<std::size_t> bytes;
    };
    Clock::time_point last_ = Clock::now();
    std::vector<Lap> laps_;
};

}  // namespace attn::cli
