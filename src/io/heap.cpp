// What the process holds in memory, from the allocator's own count (attn/io/heap.hpp).
#include "attn/io/heap.hpp"

#include <malloc.h>

#include "attn/core/pages.hpp"

namespace attn {

std::size_t heap_in_use() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    // freed pages go back to the system first: after a large tree of values is freed, the
    // allocator may keep its pages (resident) while counting them as free
    (void)malloc_trim(0);
    release_freed_blocks();
    const struct mallinfo2 m = mallinfo2();
    // blocks in use in every arena, malloc's mapped blocks, and the matrices' own mappings
    return m.uordblks + m.hblkhd + mapped_bytes();
#else
    return 0;
#endif
}

namespace {

// Before a large matrix takes a mapping of its own: when malloc holds at least as much free
// memory as the block needs (the memory of a file read and freed, say), that memory goes
// back to the system, since the block cannot reuse it as a block from malloc would.
void give_back_free_heap(std::size_t bytes) noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    if (mallinfo2().fordblks >= bytes) {
        (void)malloc_trim(0);
    }
#else
    (void)bytes;
#endif
}

}  // namespace

void settle_heap() noexcept {
    before_mapping(give_back_free_heap);
#if defined(__GLIBC__)
    constexpr int largest_from_heap = 2 << 20;  // as a large matrix (attn/core/pages.hpp)
    constexpr int free_kept = 4 << 20;
    // called by main() before anything starts a thread
    (void)mallopt(M_MMAP_THRESHOLD, largest_from_heap);  // NOLINT(concurrency-mt-unsafe)
    (void)mallopt(M_TRIM_THRESHOLD, free_kept);          // NOLINT(concurrency-mt-unsafe)
#endif
}

void reuse_freed_memory() noexcept {
    constexpr int free_kept = 64 << 20;  // free memory kept for reuse
#if defined(__GLIBC__)
    constexpr int largest_from_heap = 32 << 20;  // a block this large or larger is mapped
    // called by the CLI before a walk starts any thread
    (void)mallopt(M_MMAP_THRESHOLD, largest_from_heap);  // NOLINT(concurrency-mt-unsafe)
    (void)mallopt(M_TRIM_THRESHOLD, free_kept);          // NOLINT(concurrency-mt-unsafe)
#endif
    keep_freed_blocks(std::size_t{free_kept});  // and as much of the matrices' own mappings
}

}  // namespace attn
