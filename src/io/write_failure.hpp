#pragma once
// What the output-file code shares between its parts (a private header of io): a write that
// failed, kept with its path and reason so that an OutputSet can say what happened to the
// other outputs, and the one loop that writes bytes to a file descriptor.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "attn/core/error.hpp"

namespace attn::output {

// A write that failed: an attn::Error with cannot_write's message, which also keeps the
// path and the reason, so that an OutputSet can say what happened to the other outputs.
class WriteFailure : public Error {
  public:
    WriteFailure(std::string path, std::string why)
        : Error(errors::cannot_write(path, why)), path_(std::move(path)), why_(std::move(why)) {}
    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    [[nodiscard]] const std::string& why() const noexcept { return why_; }

  private:
    std::string path_;
    std::string why_;
};

/// strerror(err), from the main thread.
std::string reason(int err);

/// Writes all of `bytes` to `fd`, retrying after a signal, and adds their count to `written`;
/// throws WriteFailure naming `path`.
void write_all_bytes(int fd, std::string_view bytes, const std::string& path, std::size_t& written);

}  // namespace attn::output
