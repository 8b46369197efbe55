#include "stats.hpp"

#include <sys/resource.h>

#include <algorithm>

#include <fmt/format.h>

#include "attn/core/attention.hpp"
#include "attn/core/parallel.hpp"

namespace attn::cli {

std::string Stopwatch::report(const Trace& t) const {
    const Config& c = t.config;
    std::string out =
        fmt::format("attn: stats for {} tokens, d_model {}, {} {} (d_k {}, d_v {}), {} {}\n",
                    t.tokens.size(), c.d_model, c.n_heads, c.n_heads == 1 ? "head" : "heads", c.d_k,
                    c.d_v, worker_threads(), worker_threads() == 1 ? "thread" : "threads");
    double total = 0.0;
    for (const auto& l : laps_) {
        total += l.seconds;
        out += fmt::format("  {:<28} {:>9.3f} s", l.label, l.seconds);
        if (l.bytes) {
            out += fmt::format("  {} ({:.0f} MB/s)", human_bytes(*l.bytes),
                               static_cast<double>(*l.bytes) / 1e6 / std::max(l.seconds, 1e-9));
        }
        out += '\n';
    }
    out += fmt::format("  {:<28} {:>9.3f} s\n", "total", total);
    const std::size_t matrices = trace_bytes(t);
    out += fmt::format("  {:<28} {:>11}\n", "numbers held (the trace)", human_bytes(matrices));
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) == 0) {
        // KiB on Linux; glibc declares the fields of rusage inside unions
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-union-access)
        const auto peak = static_cast<std::size_t>(usage.ru_maxrss) * 1024;
        out += fmt::format("  {:<28} {:>11}", "peak memory", human_bytes(peak));
        if (matrices >= (std::size_t{1} << 20U)) {  // below, the program itself dominates
            out += fmt::format("  ({:.2f}× the numbers held)",
                               static_cast<double>(peak) / static_cast<double>(matrices));
        }
        out += '\n';
    }
    return out;
}

}  // namespace attn::cli
