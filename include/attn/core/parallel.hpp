#pragma once
/// Work split across the cores: how many threads attn uses, and a parallel loop.
///
/// Every parallel loop in attn gives each index to exactly one thread and every thread
/// computes its cells in the same order as the serial loop would, so the numbers are the
/// same bit for bit whatever the number of threads.

#include <cstddef>
#include <functional>

namespace attn {

/// The threads parallel loops use: set_worker_threads(), else the cores this process may
/// run on (sched_getaffinity), at least 1.
std::size_t worker_threads() noexcept;

/// Use n threads (1 to 256); 0 goes back to the number of cores.
void set_worker_threads(std::size_t n) noexcept;

/// Calls fn(i) once for every i in [0, n), on up to worker_threads() threads (the calling
/// thread is one of them). Indexes are handed out one at a time, so uneven items balance.
/// If fn throws, the remaining indexes are skipped and the first exception is rethrown.
/// A parallel_for inside another's fn runs serially on its thread.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn);

}  // namespace attn
