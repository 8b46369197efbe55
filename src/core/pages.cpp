// Large blocks of a Matrix's numbers, mapped on their own in 2 MiB pages (attn/core/pages.hpp).
#include "attn/core/pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace attn {
namespace {

// the bytes of the blocks in use and of the freed ones kept
std::atomic<std::size_t>& mapped() {
    static std::atomic<std::size_t> bytes{0};
    return bytes;
}

// Freed blocks kept for the next block of the same length (keep_freed_blocks).
struct Kept {
    std::mutex mutex;
    std::vector<std::pair<void*, std::size_t>> blocks;  // address, length
    std::size_t bytes = 0;
    std::size_t limit = 0;
};
Kept& kept() {
    static Kept k;
    return k;
}

std::size_t page_size() noexcept {
    static const std::size_t size = [] {
        const long n = ::sysconf(_SC_PAGESIZE);
        return n > 0 ? static_cast<std::size_t>(n) : std::size_t{4096};
    }();
    return size;
}

// The mapping's length for a block of `bytes`: whole pages.
std::size_t mapped_length(std::size_t bytes) noexcept {
    const std::size_t page = page_size();
    return (bytes + page - 1) / page * page;
}

std::uintptr_t address(void* p) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): a mapping's address
    return reinterpret_cast<std::uintptr_t>(p);
}
void* pointer(std::uintptr_t a) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast,performance-no-int-to-ptr)
    return reinterpret_cast<void*>(a);  // an address within a mapping
}

std::atomic<void (*)(std::size_t) noexcept>& hook() {
    static std::atomic<void (*)(std::size_t) noexcept> h{nullptr};
    return h;
}

}  // namespace

void before_mapping(void (*h)(std::size_t bytes) noexcept) noexcept {
    hook().store(h);
}

void* map_block(std::size_t bytes) {
    const std::size_t length = mapped_length(bytes);
    if (length < bytes || length > SIZE_MAX - huge_page_bytes) {
        throw std::bad_alloc();
    }
    {
        Kept& k = kept();
        const std::lock_guard lock(k.mutex);
        const auto same = std::find_if(k.blocks.begin(), k.blocks.end(),
                                       [&](const auto& b) { return b.second == length; });
        if (same != k.blocks.end()) {
            void* const block = same->first;
            k.blocks.erase(same);
            k.bytes -= length;
            return block;  // still counted in `mapped`
        }
    }
    if (auto* const h = hook().load()) {
        h(length);
    }
    // a huge page more than needed, so that the block can start at a huge-page boundary; the
    // pages before it and after it are unmapped again at once
    const std::size_t room = length + huge_page_bytes;
    void* const mapping =
        ::mmap(nullptr, room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        throw std::bad_alloc();
    }
    const std::uintptr_t start = address(mapping);
    const std::uintptr_t block = (start + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    if (block > start) {
        (void)::munmap(mapping, block - start);
    }
    if (start + room > block + length) {
        (void)::munmap(pointer(block + length), start + room - (block + length));
    }
    // whole huge pages only: a huge page that reached past the block would be memory the
    // block never uses (and --max-memory does not count)
    const std::size_t whole = length / huge_page_bytes * huge_page_bytes;
    if (whole > 0) {
        (void)::madvise(pointer(block), whole, MADV_HUGEPAGE);  // refused: 4 KiB pages
    }
    mapped().fetch_add(length, std::memory_order_relaxed);
    return pointer(block);
}

void unmap_block(void* block, std::size_t bytes) noexcept {
    const std::size_t length = mapped_length(bytes);
    {
        Kept& k = kept();
        const std::lock_guard lock(k.mutex);
        if (k.bytes + length <= k.limit) {
            try {
                k.blocks.emplace_back(block, length);
                k.bytes += length;
                return;
            } catch (...) {  // no room to note it: unmapped below
            }
        }
    }
    (void)::munmap(block, length);
    mapped().fetch_sub(length, std::memory_order_relaxed);
}

void keep_freed_blocks(std::size_t bytes) noexcept {
    Kept& k = kept();
    const std::lock_guard lock(k.mutex);
    k.limit = bytes;
}

void release_freed_blocks() noexcept {
    Kept& k = kept();
    const std::lock_guard lock(k.mutex);
    for (const auto& [block, length] : k.blocks) {
        (void)::munmap(block, length);
        mapped().fetch_sub(length, std::memory_order_relaxed);
    }
    k.blocks.clear();
    k.bytes = 0;
}

std::size_t mapped_bytes() noexcept {
    return mapped().load(std::memory_order_relaxed);
}

}  // namespace attn
