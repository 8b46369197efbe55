// Threads for attn's parallel loops: std::thread, no pool (each loop's items are large).
#include "attn/core/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace attn {
namespace {

// --threads, or 0 for the cores: set once by the command line, read by every loop
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
std::atomic<std::size_t> chosen_threads{0};

// True on a thread that is running a parallel_for item: a loop nested in it runs serially
// on that thread, so the cores are shared by the outer loop alone.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
thread_local bool inside_parallel_loop = false;

// Sets inside_parallel_loop for the life of a scope.
class InsideLoop {
  public:
    InsideLoop() : was_(inside_parallel_loop) { inside_parallel_loop = true; }
    InsideLoop(const InsideLoop&) = delete;
    InsideLoop& operator=(const InsideLoop&) = delete;
    InsideLoop(InsideLoop&&) = delete;
    InsideLoop& operator=(InsideLoop&&) = delete;
    ~InsideLoop() { inside_parallel_loop = was_; }

  private:
    bool was_;
};

std::size_t available_cores() noexcept {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) {
            return static_cast<std::size_t>(n);
        }
    }
    return std::max(1U, std::thread::hardware_concurrency());
}

}  // namespace

std::size_t worker_threads() noexcept {
    const std::size_t chosen = chosen_threads.load();
    if (chosen > 0) {
        return chosen;
    }
    static const std::size_t cores = available_cores();
    return cores;
}

void set_worker_threads(std::size_t n) noexcept {
    chosen_threads.store(std::min<std::size_t>(n, 256));
}

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn) {
    const std::size_t n_threads = inside_parallel_loop ? 1 : std::min(worker_threads(), n);
    if (n_threads <= 1) {
        for (std::size_t i = 0; i < n; ++i) {
            fn(i);
        }
        return;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr first_error;
    std::mutex error_mutex;
    const auto work = [&] {
        const InsideLoop inside;
        for (std::size_t i = next++; i < n && !failed.load(); i = next++) {
            try {
                fn(i);
            } catch (...) {
                const std::lock_guard lock(error_mutex);
                if (!first_error) {
                    first_error = std::current_exception();
                }
                failed.store(true);
            }
        }
    };
    {
        std::vector<std::jthread> helpers;
        helpers.reserve(n_threads - 1);
        for (std::size_t t = 1; t < n_threads; ++t) {
            helpers.emplace_back(work);
        }
        work();
    }  // the jthreads join here
    if (first_error) {
        std::rethrow_exception(first_error);
    }
}

}  // namespace attn
