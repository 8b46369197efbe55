#pragma once
/// What the process holds in memory now, for --max-memory (attn/core/memory.hpp).

#include <cstddef>

#include "attn/core/memory.hpp"

namespace attn {

/// The bytes of the heap in use now: every block malloc has handed out and not taken back,
/// mapped ones included (glibc's mallinfo2), counted from start-up. Free pages the
/// allocator still holds are first given back to the system (malloc_trim, and the freed
/// blocks of large matrices: release_freed_blocks), so that what the
/// process holds in memory is what it uses, and a budget measured now stays true while the
/// run takes no more than it checked. 0 where the allocator cannot say (a sanitizer's own).
std::size_t heap_in_use() noexcept;

/// Fixes how much freed memory malloc keeps (called once, at start): with glibc's, a block of
/// 2 MiB or more is a mapping of its own, given back when freed (as a large matrix's is:
/// attn/core/pages.hpp), and at most 4 MiB of free heap is kept at its top. Left to itself,
/// glibc raises both limits each time a mapped block is freed (up to 32 and 64 MiB), so that
/// after a large file was read and freed its memory stayed held while the matrices took
/// mappings of their own: `attn diff` of two 700-token dumps peaked 10 MB higher. And before
/// a large matrix takes a fresh mapping, malloc's free memory goes back to the system when
/// there is as much of it as the block needs (attn/core/pages.hpp, before_mapping): a block
/// from malloc would have reused it (`attn diff` of two 800-token dumps: 127 MB → 117 MB, as
/// with malloc). No effect where the allocator is not glibc's.
void settle_heap() noexcept;

/// Lets the allocator keep the blocks a run frees for its next ones: with glibc's malloc, a
/// block of up to 32 MiB comes from the heap rather than a mapping of its own, and up to
/// 64 MiB of free heap is kept rather than given back at once, and as much of the freed
/// blocks that large matrices map on their own (keep_freed_blocks). A walk through a checkpoint
/// frees and takes again the weights of every layer it passes (megabytes each); as mappings,
/// each was fresh pages that the kernel faulted in and zeroed, and that was two fifths of a
/// 124M-parameter run (docs/performance.md). malloc is left as it is where it is not glibc's.
void reuse_freed_memory() noexcept;

/// The budget of a run under `limit` (--max-memory) now: the limit and heap_in_use().
inline MemoryBudget budget_now(std::size_t limit) noexcept {
    return {.limit = limit, .held = heap_in_use()};
}

}  // namespace attn
