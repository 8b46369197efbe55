#pragma once
/// Output files: written whole or not at all, all of a run's together, never over an input,
/// and never replacing a device, a FIFO or a process's open file.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

/// A file written to a temporary name beside its destination (`.attn-XXXXXX`) and renamed
/// over it only by commit(), so that a reader never sees half a file and an existing file
/// survives any failure. Destroying an uncommitted AtomicFile removes the temporary file.
/// The new file keeps the old one's permissions (and its owner, when attn runs as root).
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
    /// Flushes to disk, so that rename() is all commit() has left to do. Throws like write().
    void sync();
    /// Puts the synced temporary file in the destination's place: by exchanging the two
    /// (renameat2 RENAME_EXCHANGE) when the destination exists, so that undo() can put the
    /// old file back; the old file is removed when the AtomicFile is destroyed.
    void rename_over();
    /// Puts back what rename_over() replaced (the old file, or no file); false when that
    /// cannot be done (a file system without RENAME_EXCHANGE).
    bool undo() noexcept;

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    /// The bytes written so far.
    [[nodiscard]] std::size_t bytes() const noexcept { return written_; }

  private:
    std::string path_;  ///< as given, for the messages
    std::string file_;  ///< the file replaced: path_, or the file its links point to
    std::string temp_path_;
    int fd_ = -1;
    std::size_t written_ = 0;
    std::size_t flushed_ = 0;  ///< bytes handed to the disk early (sync_file_range)
    bool committed_ = false;
    bool exchanged_ = false;  ///< committed by exchange: temp_path_ now holds the old file
    bool was_new_ = false;    ///< committed where there was no file
};

/// An output of a run: the option that names it (`--json`, or a file's role such as
/// `worksheet.md`) and its path.
struct OutputTarget {
    std::string option;
    std::string path;
};

/// An input file of a run: the option that names it (`--model`) and its path.
using InputTarget = OutputTarget;

/// Checks, before any work, what can be known about a run's outputs without writing them:
/// no empty path, no folder, no output twice (the same path, or the same file by device
/// and inode, e.g. through a link), no output that is an input, and no write-protected
/// regular file unless `force`; and, when `stdout_path` names where stdout goes (e.g.
/// /proc/self/fd/1) and the run prints to it, no output that is that file (unless it is a
/// character device such as /dev/null or a terminal, where nothing is lost). Throws
/// attn::Error (usage, exit 2) naming both options.
void check_outputs(const std::vector<OutputTarget>& outputs, const std::vector<InputTarget>& inputs,
                   bool force, const std::string& stdout_path = "");

/// How an output was written.
struct Written {
    std::string path;
    std::size_t bytes = 0;
    /// Empty for a regular file (replaced atomically); else what the path is ("a FIFO",
    /// "a character device", ...), which was written into in place.
    std::string in_place;
};

/// "PATH" or "PATH (a FIFO: written into in place, not replaced)": for "attn: wrote ...".
std::string describe(const Written& written);

/// Every output file of a run, written all or nothing: each is prepared (written whole to
/// a temporary file in its folder and flushed to disk) before any is committed, and then
/// all are renamed over their targets together. If one cannot be prepared, none is
/// committed, the temporary files are removed, and the error says which output failed,
/// why, and that no output was changed.
///
/// A target that exists and is not a regular file (a FIFO, a device such as /dev/null, a
/// terminal, /dev/stdout, /proc/self/fd/N, a shell's `>(...)`) cannot be replaced without
/// breaking what it is: it is written into in place, after every regular output has been
/// prepared, and describe() says so.
///
///     OutputSet outputs;
///     outputs.add({"--json", "trace.json"}, [&](const OutputSet::Sink& s) { s(json); });
///     for (const auto& w : outputs.write_all()) { std::cerr << describe(w); }
class OutputSet {
  public:
    using Sink = std::function<void(std::string_view)>;
    using Producer = std::function<void(const Sink&)>;

    /// `force`: replace write-protected files too.
    explicit OutputSet(bool force = false) : force_(force) {}

    /// Adds an output; `produce` writes its bytes into the sink it is given, in pieces.
    void add(OutputTarget target, Producer produce);

    /// Writes every output: prepares the regular ones, runs `before_commit` (e.g. printing
    /// to stdout, so that a failure there commits nothing either), writes the in-place ones,
    /// then renames the regular ones over their targets. Returns what was written, in the
    /// order added. Throws attn::Error (output) as described above.
    std::vector<Written> write_all(const std::function<void()>& before_commit = {});

    [[nodiscard]] bool empty() const noexcept { return outputs_.empty(); }

  private:
    struct Output {
        OutputTarget target;
        Producer produce;
    };
    std::vector<Output> outputs_;
    bool force_ = false;
};

/// What `path` is when it exists and is not a regular file, for the messages ("a FIFO",
/// "a character device", "a process's open file"); empty for a regular file or no file.
std::string special_file_kind(const std::string& path);

/// The file that writing `path` replaces: `path` itself, or, when it is a symbolic link, the
/// file its links end at (which need not exist yet), so that an output written through a link
/// keeps the link and replaces what it points to, as `>` in a shell does.
std::string file_behind_links(const std::string& path);

/// Installs handlers so that SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
/// SIGVTALRM, SIGPROF, SIGPIPE and SIGXCPU remove every temporary output file before the process
/// ends (by the same signal, so its exit status is the usual one), and so that a file size
/// limit fails a write (EFBIG) rather than killing the process. For main(), once.
void remove_temporary_files_on_signals();

}  // namespace attn
