#pragma once
/// --max-memory: one budget for the whole run, counted from start-up.
///
/// What the process holds is measured, not guessed (budget_now() in attn/io/heap.hpp reads
/// the allocator's own count of the bytes in use: everything attn and its libraries
/// allocated since start-up, the input files read so far, the Trace). Before each large piece
/// of work (reading a file, computing the matrices, building an output that is not streamed)
/// the run checks that what it holds plus what the work will take stays under the limit, and
/// refuses otherwise (docs/hardening.md, "Memory stays under --max-memory"). The core only
/// compares and words: the budget is measured by the layers above.

#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

/// The default of --max-memory: 4 GiB.
inline constexpr std::size_t default_max_memory = std::size_t{4} << 30U;

/// A run's memory under --max-memory: the limit, and what the process held when measured.
struct MemoryBudget {
    std::size_t limit = default_max_memory;  ///< --max-memory, in bytes
    std::size_t held = 0;                    ///< what the process held when measured

    /// What may still be taken: the limit less what is held (0 when nothing is left).
    [[nodiscard]] std::size_t left() const noexcept { return held < limit ? limit - held : 0; }
    /// "--max-memory 24.0 MiB allows besides the 1.2 MiB attn holds already" (the field's
    /// name by attn::subject; without the "besides" when nothing is held), for messages that
    /// say what passed the limit: "... more than {allows()}".
    [[nodiscard]] std::string allows() const;
};

/// Throws attn::Error (Field::max_memory) when `need` more bytes would pass the budget.
/// `what` says what needs them, with {} where the size goes ("this run needs about {} for
/// its matrices"); the message goes on ", more than --max-memory 16.0 MiB allows besides the
/// 1.2 MiB attn holds already", then `hint` (what would need less) and a limit that would do.
void check_memory_for(std::size_t need, const MemoryBudget& budget, std::string_view what,
                      std::string_view hint);

/// A size as people write it: "2112 bytes", "800 KiB", "3.2 MiB", "1.5 GiB".
std::string human_bytes(std::size_t bytes);

/// A --max-memory that would allow `bytes`: rounded up to whole MiB ("12M") or GiB ("3G").
std::string enough_memory(std::size_t bytes);

}  // namespace attn
