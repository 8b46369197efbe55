#pragma once
/// What the process holds in memory now, for --max-memory (attn/core/memory.hpp).

#include <cstddef>

#include "attn/core/memory.hpp"

namespace attn {

/// The bytes of the heap in use now: every block malloc has handed out and not taken back,
/// mapped ones included (glibc's mallinfo2), counted from start-up. Free pages the
/// allocator still holds are first given back to the system (malloc_trim), so that what the
/// process holds in memory is what it uses, and a budget measured now stays true while the
/// run takes no more than it checked. 0 where the allocator cannot say (a sanitizer's own).
std::size_t heap_in_use() noexcept;

/// The budget of a run under `limit` (--max-memory) now: the limit and heap_in_use().
inline MemoryBudget budget_now(std::size_t limit) noexcept {
    return {.limit = limit, .held = heap_in_use()};
}

}  // namespace attn
