#pragma once
/// Where a Matrix keeps its numbers: a large one in memory of its own, in 2 MiB pages.
///
/// A run's matrices are mostly fresh memory that the kernel hands out a 4 KiB page at a time,
/// each on a fault, zeroed: for a paragraph of 512 tokens that was about two fifths of
/// computing (docs/performance.md). A block of 2 MiB or more is mapped on its own here, at a
/// 2 MiB boundary, with the kernel asked for transparent huge pages (madvise MADV_HUGEPAGE)
/// over its whole 2 MiB pieces: one fault for each, where the kernel has such pages to give;
/// elsewhere the same 4 KiB pages as before. A smaller block comes from malloc as ever.
/// The numbers are the same either way; only where they live changes.
///
/// Under AddressSanitizer every block comes from malloc, so that its checks of reads past
/// the end of a matrix stay. mapped_bytes() counts the mapped blocks for --max-memory
/// (heap_in_use() in attn/io/heap.hpp adds them to malloc's count).

#include <cstddef>
#include <limits>
#include <memory>
#include <new>

namespace attn {

/// The smallest block that is mapped on its own: one huge page.
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20U;

/// Maps `bytes` (at least huge_page_bytes) at a huge-page boundary; throws std::bad_alloc.
void* map_block(std::size_t bytes);
/// Unmaps a block of map_block(bytes).
void unmap_block(void* block, std::size_t bytes) noexcept;
/// The bytes of the blocks mapped by map_block and not yet unmapped (those kept included).
std::size_t mapped_bytes() noexcept;
/// From now on, up to `bytes` of freed blocks are kept mapped, each for the next block of the
/// same length, rather than unmapped (0, the default: none). A walk through a checkpoint frees
/// and takes again blocks of the same sizes at every layer: kept, they are not faulted in and
/// zeroed again (reuse_freed_memory in attn/io/heap.hpp).
void keep_freed_blocks(std::size_t bytes) noexcept;
/// Unmaps the freed blocks kept.
void release_freed_blocks() noexcept;
/// Sets what is called before a block is mapped afresh, with its length: the io layer gives
/// malloc's free memory back to the system there (settle_heap in attn/io/heap.hpp), since a
/// mapped block cannot reuse it as a block from malloc would. nullptr: nothing.
void before_mapping(void (*hook)(std::size_t bytes) noexcept) noexcept;

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool map_large_blocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool map_large_blocks = false;
#else
inline constexpr bool map_large_blocks = true;
#endif
#else
inline constexpr bool map_large_blocks = true;
#endif

/// The allocator of a Matrix's numbers (see above): a std::allocator but for blocks of
/// huge_page_bytes or more, which are mapped on their own.
template <typename T>
struct PageAllocator {
    using value_type = T;

    PageAllocator() noexcept = default;
    template <typename U>
    // NOLINTNEXTLINE(google-explicit-constructor): allocators convert implicitly
    PageAllocator(const PageAllocator<U>& /*other*/) noexcept {}

    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
            throw std::bad_array_new_length();
        }
        if (!large(n)) {
            return std::allocator<T>{}.allocate(n);
        }
        return static_cast<T*>(map_block(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (!large(n)) {
            std::allocator<T>{}.deallocate(p, n);
        } else {
            unmap_block(p, n * sizeof(T));
        }
    }

    friend bool operator==(const PageAllocator& /*a*/, const PageAllocator& /*b*/) noexcept {
        return true;
    }

  private:
    static bool large(std::size_t n) noexcept {
        return map_large_blocks && n * sizeof(T) >= huge_page_bytes;
    }
};

}  // namespace attn
