#pragma once
/// Output files that are written whole or not at all.

#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

/// A file written to a temporary name beside its destination and renamed over it only by
/// commit(), so that a reader never sees half a file and an existing file survives any
/// failure. Destroying an uncommitted AtomicFile removes the temporary file.
///
///     AtomicFile f("trace.json");
///     f.write(text);
///     f.commit();  // now trace.json is the new file, whole
class AtomicFile {
  public:
    /// Creates the temporary file. Throws attn::Error (output) naming `path` when the
    /// directory cannot be written or `path` is a directory.
    explicit AtomicFile(std::string path);
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    AtomicFile(AtomicFile&&) = delete;
    AtomicFile& operator=(AtomicFile&&) = delete;
    ~AtomicFile();

    /// Appends bytes. Throws attn::Error (output) on a write error such as a full disk.
    void write(std::string_view bytes);
    /// Flushes to disk and renames the temporary file over the destination.
    void commit();

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    /// The bytes written so far.
    [[nodiscard]] std::size_t bytes() const noexcept { return written_; }

  private:
    std::string path_;
    std::string temp_path_;
    int fd_ = -1;
    std::size_t written_ = 0;
    std::size_t flushed_ = 0;  ///< bytes handed to the disk early (sync_file_range)
    bool committed_ = false;
};

/// Installs handlers so that SIGINT, SIGTERM and SIGHUP remove every AtomicFile's temporary
/// file before the process ends, and so that a file size limit fails a write (EFBIG) rather
/// than killing the process. For main(), once.
void remove_temporary_files_on_signals();

}  // namespace attn
