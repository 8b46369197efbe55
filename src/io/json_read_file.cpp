// json::read_file: a whole file into memory for the JSON reader, refused before it is read when
// it would not fit in --max-memory (a pipe is refused as soon as it passes the limit).
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/memory.hpp"
#include "attn/io/json_reader.hpp"

namespace attn::json {

namespace {

// A file whose text alone is larger than the memory left.
// `bytes`: its size, or how much was read before the limit was passed (`more`: a pipe).
[[noreturn]] void too_large(const std::string& path, std::size_t bytes, bool more,
                            const MemoryBudget& budget) {
    throw Error(ErrorKind::input, Field::max_memory,
                fmt::format("{} is {}, more than {}, expected a file that fits in it with the "
                            "values read from it\n  hint: raise the limit ({} {}, or more: "
                            "reading a file takes a few times its size)",
                            shown(path), (more ? "more than " : "") + human_bytes(bytes),
                            budget.allows(), subject, enough_memory(2 * bytes + budget.held)));
}

}  // namespace

std::string read_file(const std::string& path, const MemoryBudget& budget) {
    const std::size_t max_bytes = budget.left();
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        throw Error(
            ErrorKind::input,
            fmt::format("cannot read {}: {}, expected a readable JSON file", path,
                        err == ENOENT ? "no such file"
                                      : std::strerror(err)));  // NOLINT(concurrency-mt-unsafe)
    }
    if (S_ISDIR(st.st_mode)) {
        throw Error(ErrorKind::input,
                    fmt::format("cannot read {}: it is a directory, expected a JSON file", path));
    }
    if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
        too_large(path, static_cast<std::size_t>(st.st_size), false, budget);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(ErrorKind::input,
                    fmt::format("cannot read {}: {}, expected a readable JSON file", path,
                                std::strerror(errno)));  // NOLINT(concurrency-mt-unsafe)
    }
    std::string text;
    if (S_ISREG(st.st_mode)) {
        text.reserve(static_cast<std::size_t>(st.st_size));  // not twice that, as appending would
    }
    // not zeroed first (make_unique_for_overwrite): it is written before it is read
    constexpr std::size_t piece = std::size_t{1} << 16U;
    // NOLINTNEXTLINE(cppcoreguidelines-avoid-c-arrays,modernize-avoid-c-arrays): a raw buffer
    const auto buffer = std::make_unique_for_overwrite<char[]>(piece);
    while (in.read(buffer.get(), static_cast<std::streamsize>(piece)) || in.gcount() > 0) {
        text.append(buffer.get(), static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes) {
            too_large(path, text.size(), true, budget);
        }
    }
    if (in.bad()) {
        throw Error(ErrorKind::input, fmt::format("cannot read {}: a read error", path));
    }
    if (text.starts_with("\xEF\xBB\xBF")) {
        text.erase(0, 3);  // a UTF-8 byte order mark, as some Windows editors write
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        throw Error(ErrorKind::input, fmt::format("{} is empty, expected a JSON object", path));
    }
    return text;
}

}  // namespace attn::json
