// --max-memory: what a run's matrices will take, and the one message for a run that would
// pass the limit.
#include "attn/core/memory.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/gpt2.hpp"
#include "attn/core/ops.hpp"
#include "attn/core/parallel.hpp"

namespace attn {
std::string MemoryBudget::allows() const {
    std::string text = fmt::format("{} {} allows", subject, human_bytes(limit));
    if (held > 0) {
        text += fmt::format(" besides the {} attn holds already", human_bytes(held));
    }
    return text;
}

void check_memory_for(std::size_t need, const MemoryBudget& budget, std::string_view what,
                      std::string_view hint) {
    if (need <= budget.left()) {
        return;
    }
    const std::size_t whole =
        need > std::numeric_limits<std::size_t>::max() - budget.held ? need : need + budget.held;
    throw Error(ErrorKind::usage, Field::max_memory,
                fmt::format("{}, more than {}\n  hint: {}, or raise the limit ({} {})",
                            fmt::format(fmt::runtime(what), human_bytes(need)), budget.allows(),
                            hint, subject, enough_memory(whole)));
}

std::size_t estimate_bytes(const Config& c, std::size_t n_tokens) noexcept {
    // in doubles; long double keeps absurd sizes from wrapping around
    const long double t = static_cast<long double>(n_tokens);
    const long double d = static_cast<long double>(c.d_model);
    const long double h = static_cast<long double>(c.n_heads);
    const long double dk = static_cast<long double>(c.d_k);
    const long double dv = static_cast<long double>(c.d_v);
    const long double inputs = 3 * t * d;                                // X, P, X + P
    const long double weights = 2 * d * h * (2 * dk + dv) + h * dv * d;  // W and its slices, W_O
    const long double per_head = t * (2 * dk + 2 * dv) + 6 * t * t;      // Q K V Z, the T×T steps
    const long double outputs = t * h * dv + t * d;                      // concat, output
    const long double bytes = 8 * (inputs + weights + h * per_head + outputs);
    constexpr auto most = static_cast<long double>(std::numeric_limits<std::size_t>::max());
    return bytes >= most ? std::numeric_limits<std::size_t>::max()
                         : static_cast<std::size_t>(bytes);
}

std::size_t gpt2_bytes(const Gpt2Config& g, std::size_t layer, std::size_t n_tokens) noexcept {
    Config c;
    c.d_model = g.n_embd;
    c.n_heads = g.n_head;
    c.d_k = g.n_head == 0 ? 0 : g.n_embd / g.n_head;
    c.d_v = c.d_k;
    const long double t = static_cast<long double>(n_tokens);
    const long double d = static_cast<long double>(g.n_embd);
    const long double inner = static_cast<long double>(g.n_inner);
    // the MLP's weights are multiplied from the mapping (matmul_streamed), never held as
    // doubles: the pages of one of them mapped in while it is used (at most 8 bytes a
    // number), a block of it per thread, and the hidden numbers
    const long double mlp =
        d * inner + static_cast<long double>(worker_threads() * matmul_streamed_block_doubles) +
        t * inner;
    const long double stream = 12 * t * d;  // wte, wpe, H, X, H′, M, ...
    const long double below = 4 * static_cast<long double>(layer) * t;  // ‖Δ‖ and ‖H‖
    const long double bytes =
        static_cast<long double>(estimate_bytes(c, n_tokens)) + 8 * (mlp + stream + below);
    constexpr auto most = static_cast<long double>(std::numeric_limits<std::size_t>::max());
    return bytes >= most ? std::numeric_limits<std::size_t>::max()
                         : static_cast<std::size_t>(bytes);
}

void check_gpt2_memory(const Gpt2Config& g, std::size_t layer, std::size_t n_tokens,
                       const MemoryBudget& budget) {
    check_memory_for(
        gpt2_bytes(g, layer, n_tokens), budget,
        fmt::format("this walk needs about {{}} for its matrices ({} {} through layer {} of a "
                    "model of n_embd {} and {} heads)",
                    n_tokens, n_tokens == 1 ? "token" : "tokens", layer + 1, g.n_embd, g.n_head),
        "use a shorter text");
}

std::string human_bytes(std::size_t b) {
    const auto x = static_cast<double>(b);
    std::array<char, 32> text{};
    if (b < (std::size_t{1} << 16U)) {
        (void)std::snprintf(text.data(), text.size(), "%zu bytes", b);
    } else if (b < (std::size_t{1} << 20U)) {
        (void)std::snprintf(text.data(), text.size(), "%.0f KiB", std::ceil(x / 1024.0));
    } else if (b < (std::size_t{1} << 30U)) {
        (void)std::snprintf(text.data(), text.size(), "%.1f MiB", x / 1048576.0);
    } else {
        (void)std::snprintf(text.data(), text.size(), "%.1f GiB", x / 1073741824.0);
    }
    return {text.data()};
}

std::string enough_memory(std::size_t b) {
    const double x = static_cast<double>(b);
    return b < (std::size_t{1} << 30U)
               ? std::to_string(static_cast<long long>(std::ceil(x / 1048576.0))) + "M"
               : std::to_string(static_cast<long long>(std::ceil(x / 1073741824.0))) + "G";
}

void check_memory(const Config& c, std::size_t n_tokens, const MemoryBudget& budget) {
    check_memory_for(estimate_bytes(c, n_tokens), budget,
                     fmt::format("this run needs about {{}} for its matrices ({} {}, d_model {}, "
                                 "{} {})",
                                 n_tokens, n_tokens == 1 ? "token" : "tokens", c.d_model, c.n_heads,
                                 c.n_heads == 1 ? "head" : "heads"),
                     "use a shorter sentence, a smaller d_model or fewer heads");
}

}  // namespace attn
