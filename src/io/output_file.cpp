// Output files. AtomicFile: write to "<dir>/.attn-XXXXXX", fsync, then rename(2) over the
// destination, which POSIX makes atomic within one file system. OutputSet: every output of
// a run prepared that way before any is renamed; targets that are not regular files are
// written in place instead.
#include "attn/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "attn/core/error.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// The temporary files being written, for the signal handler to remove: plain char arrays,
// because a signal handler may only touch async-signal-safe things (unlink is one).
constexpr std::size_t max_pending = 32;
constexpr std::size_t max_path = 4096;
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): the handler's state
std::array<std::array<char, max_path>, max_pending> pending{};
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): likewise
std::array<volatile std::sig_atomic_t, max_pending> pending_used{};

// The signals whose default action ends the process, and which can be caught: each removes
// the temporary files first. (SIGKILL cannot be caught; nothing can clean up after it.)
constexpr std::array cleanup_signals{SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,
                                     SIGUSR2, SIGALRM, SIGPIPE, SIGPROF, SIGVTALRM};

// Blocks the cleanup signals while a temporary file is created and remembered, so that no
// signal can come between the two and leave the file behind.
class SignalsBlocked {
  public:
    SignalsBlocked() {
        sigset_t set;
        sigemptyset(&set);
        for (int sig : cleanup_signals) {
            sigaddset(&set, sig);
        }
        (void)::pthread_sigmask(SIG_BLOCK, &set, &old_);
    }
    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;
    SignalsBlocked(SignalsBlocked&&) = delete;
    SignalsBlocked& operator=(SignalsBlocked&&) = delete;
    ~SignalsBlocked() { (void)::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

  private:
    sigset_t old_{};
};

bool remember(const std::string& path) {
    if (path.size() >= max_path) {
        return false;
    }
    for (std::size_t i = 0; i < max_pending; ++i) {
        if (pending_used[i] == 0) {
            std::memcpy(pending[i].data(), path.c_str(), path.size() + 1);
            pending_used[i] = 1;
            return true;
        }
    }
    return false;
}

void forget(const std::string& path) {
    for (std::size_t i = 0; i < max_pending; ++i) {
        if (pending_used[i] != 0 && path == pending[i].data()) {
            pending_used[i] = 0;
        }
    }
}

extern "C" void remove_pending_and_die(int sig) {
    for (std::size_t i = 0; i < max_pending; ++i) {
        if (pending_used[i] != 0) {
            ::unlink(pending[i].data());
        }
    }
    (void)std::signal(sig, SIG_DFL);
    (void)std::raise(sig);
}

std::string reason(int err) {
    return std::strerror(err);  // NOLINT(concurrency-mt-unsafe): called from the main thread
}

mode_t default_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666U & ~mask;
}

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

// Writes all of `bytes` to `fd`, retrying after a signal; throws WriteFailure.
void write_all_bytes(int fd, std::string_view bytes, const std::string& path,
                     std::size_t& written) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw WriteFailure(path, reason(errno));
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
        written += static_cast<std::size_t>(n);
    }
}

// The path with its folder resolved (links followed) and made absolute; the name itself as
// given, so that a link is compared as the link.
std::string normalised(const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::absolute(fs::path(path), ec).lexically_normal();
    if (ec) {
        return path;
    }
    const fs::path parent = fs::weakly_canonical(p.parent_path(), ec);
    return ec ? p.string() : (parent / p.filename()).string();
}

// Whether following `path`'s links leads into /proc: an open file of a process (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N), whatever kind of file it is open on.
bool through_proc(const std::string& path) {
    std::string p = normalised(path);
    for (int hop = 0; hop < 40; ++hop) {
        if (p.starts_with("/proc/")) {
            return true;
        }
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
            return false;
        }
        std::error_code ec;
        const fs::path target = fs::read_symlink(p, ec);
        if (ec) {
            return false;
        }
        p = normalised((fs::path(p).parent_path() / target).string());
    }
    return false;
}

struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
    bool operator==(const FileId&) const = default;
};

std::optional<FileId> file_id(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return std::nullopt;
    }
    return FileId{st.st_dev, st.st_ino};
}

// A regular file that the user may not write (for root, one without any write permission
// bit: root may write anything, but a file marked read-only was marked so for a reason).
std::optional<mode_t> write_protected(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return std::nullopt;
    }
    const bool denied = ::geteuid() == 0
                            ? (st.st_mode & 0222U) == 0
                            : ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0;
    return denied ? std::optional<mode_t>(st.st_mode & 07777U) : std::nullopt;
}

// "a.svg was left as it was", "a.svg and b.html were left as they were".
std::string left_alone(const std::vector<std::string>& names);

// "a.svg and b.html", "a, b and c".
std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        out += i == 0 ? "" : i + 1 == names.size() ? " and " : ", ";
        out += names[i];
    }
    return out;
}

std::string left_alone(const std::vector<std::string>& names) {
    return joined(names) + (names.size() == 1 ? " was left as it was" : " were left as they were");
}

// A target written in place: opened, written, closed.
class InPlaceFile {
  public:
    InPlaceFile(std::string path, const std::string& kind) : path_(std::move(path)) {
        // a regular file reached through /proc is a process's open file, perhaps opened with
        // >> by the shell: append, so that nothing already in it is lost
        const int flags =
            O_WRONLY | O_NOCTTY | O_CLOEXEC | (kind == "a process's open file" ? O_APPEND : 0);
        do {
            fd_ = ::open(path_.c_str(), flags);  // NOLINT(cppcoreguidelines-pro-type-vararg)
        } while (fd_ < 0 && errno == EINTR);
        if (fd_ < 0) {
            throw WriteFailure(path_, reason(errno));
        }
    }
    InPlaceFile(const InPlaceFile&) = delete;
    InPlaceFile& operator=(const InPlaceFile&) = delete;
    InPlaceFile(InPlaceFile&&) = delete;
    InPlaceFile& operator=(InPlaceFile&&) = delete;
    ~InPlaceFile() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    void write(std::string_view bytes) { write_all_bytes(fd_, bytes, path_, written_); }
    void close() {
        const int rc = ::close(fd_);
        fd_ = -1;
        if (rc != 0 && errno != EINTR) {
            throw WriteFailure(path_, reason(errno));
        }
    }
    [[nodiscard]] std::size_t bytes() const noexcept { return written_; }

  private:
    std::string path_;
    int fd_ = -1;
    std::size_t written_ = 0;
};

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) {
        throw WriteFailure("''", "the file name is empty");
    }
    struct stat st {};
    mode_t mode = default_mode();
    bool existed = false;
    if (::stat(path_.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            throw WriteFailure(path_, "it is a directory, expected a file name");
        }
        mode = st.st_mode & 07777U;  // keep the permissions of the file we replace
        existed = true;
    }
    const auto slash = path_.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
    // a short name of our own, so that a target of 255 bytes (NAME_MAX) can still be written
    temp_path_ = dir + ".attn-XXXXXX";
    std::vector<char> templ(temp_path_.begin(), temp_path_.end());
    templ.push_back('\0');
    {
        const SignalsBlocked blocked;
        fd_ = ::mkstemp(templ.data());
        if (fd_ < 0) {
            const int err = errno;
            throw WriteFailure(path_, err == ENOENT ? "its directory does not exist" : reason(err));
        }
        temp_path_.assign(templ.data());
        if (!remember(temp_path_)) {
            ::close(fd_);
            ::unlink(temp_path_.c_str());
            fd_ = -1;
            throw WriteFailure(path_, "too many output files at once (at most 32)");
        }
    }
    if (existed && ::geteuid() == 0) {
        (void)::fchown(fd_, st.st_uid, st.st_gid);  // root replaces a file as its owner's
    }
    (void)::fchmod(fd_, mode);  // best effort: the umask-derived mode is the fallback
}

void remove_temporary_files_on_signals() {
    for (int sig : cleanup_signals) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) {  // NOLINT
            continue;  // ignored by whoever started attn (nohup, a background job): keep it so
        }
        struct sigaction action {};
        action.sa_handler = remove_pending_and_die;  // NOLINT: the union member of the C API
        sigemptyset(&action.sa_mask);
        for (int other : cleanup_signals) {
            sigaddset(&action.sa_mask, other);  // one handler at a time
        }
        (void)::sigaction(sig, &action, nullptr);
    }
    // past a file size limit (ulimit -f), fail the write with EFBIG and say so, rather than
    // die of SIGXFSZ with half a temporary file left behind
    (void)std::signal(SIGXFSZ, SIG_IGN);
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (!committed_ || exchanged_) {  // the new file, or the old one it was exchanged with
        ::unlink(temp_path_.c_str());
    }
    forget(temp_path_);
}

void AtomicFile::write(std::string_view bytes) {
    write_all_bytes(fd_, bytes, path_, written_);
    // Start writing each full 16 MiB to disk now, in the background, so that commit's fsync
    // has little left to wait for (a hint: errors show at fsync).
    constexpr std::size_t stride = std::size_t{16} << 20U;
    if (written_ - flushed_ >= stride) {
        const std::size_t end = written_ - written_ % stride;
        (void)::sync_file_range(fd_, static_cast<off_t>(flushed_),
                                static_cast<off_t>(end - flushed_), SYNC_FILE_RANGE_WRITE);
        flushed_ = end;
    }
}

void AtomicFile::sync() {
    if (fd_ < 0) {
        return;
    }
    if (::fsync(fd_) != 0) {
        throw WriteFailure(path_, reason(errno));
    }
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) {
        throw WriteFailure(path_, reason(errno));
    }
}

void AtomicFile::rename_over() {
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0) {
        // exchange, so that the old file stays at the temporary name until every output of
        // the set is in place, and can be put back if one fails
        if (::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) ==
            0) {
            committed_ = true;
            exchanged_ = true;
            return;
        }
        if (errno != EINVAL && errno != ENOSYS) {  // EINVAL: the file system cannot exchange
            throw WriteFailure(path_, reason(errno));
        }
    } else {
        was_new_ = true;
    }
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
        was_new_ = false;
        throw WriteFailure(path_, reason(errno));
    }
    committed_ = true;
}

bool AtomicFile::undo() noexcept {
    if (!committed_) {
        return true;
    }
    if (exchanged_) {
        if (::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) !=
            0) {
            return false;
        }
        exchanged_ = false;
        committed_ = false;  // the new file, back at the temporary name, is removed
        return true;
    }
    if (was_new_ && ::unlink(path_.c_str()) == 0) {
        committed_ = false;
        return true;
    }
    return false;
}

void AtomicFile::commit() {
    sync();
    rename_over();
}

std::string special_file_kind(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) {
        return "";
    }
    if (S_ISFIFO(st.st_mode)) {
        return "a FIFO";
    }
    if (S_ISCHR(st.st_mode)) {
        return "a character device";
    }
    if (S_ISBLK(st.st_mode)) {
        return "a block device";
    }
    if (S_ISSOCK(st.st_mode)) {
        return "a socket";
    }
    if (S_ISREG(st.st_mode) && through_proc(path)) {
        return "a process's open file";
    }
    return "";
}

std::string describe(const Written& written) {
    if (written.in_place.empty()) {
        return written.path;
    }
    return fmt::format("{} ({}: written into in place, not replaced)", written.path,
                       written.in_place);
}

void check_outputs(const std::vector<OutputTarget>& outputs, const std::vector<InputTarget>& inputs,
                   bool force, const std::string& stdout_path) {
    const auto stdout_id =
        stdout_path.empty() || special_file_kind(stdout_path) == "a character device"
            ? std::nullopt
            : file_id(stdout_path);
    const auto same = [](const OutputTarget& a, const OutputTarget& b) {
        const auto ia = file_id(a.path);
        const auto ib = file_id(b.path);
        return (ia && ib && *ia == *ib) || normalised(a.path) == normalised(b.path);
    };
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const auto& out = outputs[i];
        if (out.path.empty()) {
            throw Error(ErrorKind::usage,
                        out.option + " is an empty file name, expected a path (or - for stdout)");
        }
        struct stat st {};
        if (::stat(out.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
            throw Error(ErrorKind::usage, fmt::format("{} {} is a folder, expected a file name",
                                                      out.option, shown(out.path)));
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (same(outputs[j], out)) {
                throw Error(ErrorKind::usage,
                            fmt::format("{} {} and {} {} are the same file, expected a different "
                                        "file for each output",
                                        outputs[j].option, shown(outputs[j].path), out.option,
                                        shown(out.path)));
            }
        }
        for (const auto& in : inputs) {
            if (!in.path.empty() && same(in, out)) {
                throw Error(ErrorKind::usage,
                            fmt::format("{} {} is the file {} {} reads, expected another path "
                                        "for the output (attn never writes over its input)",
                                        out.option, shown(out.path), in.option, shown(in.path)));
            }
        }
        if (stdout_id && file_id(out.path) == stdout_id) {
            throw Error(ErrorKind::usage,
                        fmt::format("{} {} is where stdout goes, and attn prints to stdout too, "
                                    "expected another path, or --format none to print nothing "
                                    "else there",
                                    out.option, shown(out.path)));
        }
        if (!force && special_file_kind(out.path).empty()) {
            if (const auto mode = write_protected(out.path)) {
                throw Error(ErrorKind::usage,
                            fmt::format("{} {} is write-protected (mode {:04o}), expected --force "
                                        "to replace it anyway, or another path",
                                        out.option, shown(out.path), *mode));
            }
        }
    }
}

void OutputSet::add(OutputTarget target, Producer produce) {
    outputs_.push_back({std::move(target), std::move(produce)});
}

std::vector<Written> OutputSet::write_all(const std::function<void()>& before_commit) {
    std::vector<OutputTarget> targets;
    targets.reserve(outputs_.size());
    for (const auto& o : outputs_) {
        targets.push_back(o.target);
    }
    check_outputs(targets, {}, force_);

    std::vector<std::string> kinds;
    kinds.reserve(outputs_.size());
    for (const auto& o : outputs_) {
        kinds.push_back(special_file_kind(o.target.path));
    }
    const auto others = [&](std::size_t except, bool in_place) {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < outputs_.size(); ++i) {
            if (i != except && kinds[i].empty() != in_place) {
                names.push_back(shown(outputs_[i].target.path));
            }
        }
        return names;
    };
    const auto failed = [&](std::size_t i, const WriteFailure& e, const std::string& what) {
        return Error(ErrorKind::output,
                     fmt::format("cannot write {} ({}{}): {}; {}", shown(outputs_[i].target.path),
                                 outputs_[i].target.option, kinds[i].empty() ? "" : ", " + kinds[i],
                                 e.why(), what));
    };

    std::vector<Written> written(outputs_.size());
    std::vector<std::unique_ptr<AtomicFile>> files(outputs_.size());
    // 1. every regular output, whole, in a temporary file flushed to disk
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
        if (!kinds[i].empty()) {
            continue;
        }
        try {
            files[i] = std::make_unique<AtomicFile>(outputs_[i].target.path);
            AtomicFile& file = *files[i];
            outputs_[i].produce([&file](std::string_view piece) { file.write(piece); });
            file.sync();
            written[i] = {outputs_[i].target.path, file.bytes(), ""};
        } catch (const WriteFailure& e) {
            if (outputs_.size() == 1) {
                throw;
            }
            const auto rest = others(i, false);
            const auto in_place = others(i, true);
            throw failed(
                i, e,
                fmt::format("no output was changed{}{}", rest.empty() ? "" : ": ",
                            rest.empty() ? "" : left_alone(rest)) +
                    (in_place.empty() ? ""
                                      : ", and " + joined(in_place) + " were not written into"));
        }
    }
    // 2. what must succeed too before anything is committed (stdout)
    if (before_commit) {
        before_commit();
    }
    // 3. the targets that cannot be replaced, written into in place
    std::vector<std::string> done_in_place;
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
        if (kinds[i].empty()) {
            continue;
        }
        try {
            InPlaceFile file(outputs_[i].target.path, kinds[i]);
            outputs_[i].produce([&file](std::string_view piece) { file.write(piece); });
            file.close();
            written[i] = {outputs_[i].target.path, file.bytes(), kinds[i]};
            done_in_place.push_back(shown(outputs_[i].target.path));
        } catch (const WriteFailure& e) {
            if (outputs_.size() == 1) {
                throw failed(i, e, "it may hold part of the output");
            }
            const auto regular = others(i, false);
            throw failed(
                i, e,
                fmt::format(
                    "it may hold part of the output{}{}",
                    done_in_place.empty()
                        ? ""
                        : "; " + joined(done_in_place) + " had already been written into",
                    regular.empty() ? "" : "; no file was replaced (" + left_alone(regular) + ")"));
        }
    }
    // 4. every regular output put in its target's place. An existing target is exchanged
    // with its temporary file, so if a later one fails (only if the folder changes under
    // attn: the data is on disk) the earlier ones are put back; the old files are removed
    // when `files` goes out of scope.
    std::vector<std::size_t> replaced;
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
        if (!files[i]) {
            continue;
        }
        try {
            files[i]->rename_over();
            replaced.push_back(i);
        } catch (const WriteFailure& e) {
            std::vector<std::string> put_back;
            std::vector<std::string> stuck;
            for (std::size_t k = replaced.size(); k-- > 0;) {  // the last replaced first
                const std::size_t r = replaced[k];
                (files[r]->undo() ? put_back : stuck).push_back(shown(outputs_[r].target.path));
            }
            if (outputs_.size() == 1) {
                throw;
            }
            std::string what;
            if (stuck.empty()) {
                what = "no output was changed" +
                       (put_back.empty() ? "" : " (" + joined(put_back) + " put back as before)");
            } else {
                what = joined(stuck) + (stuck.size() == 1 ? " was" : " were") +
                       " already replaced and could not be put back" +
                       (put_back.empty() ? "" : "; " + joined(put_back) + " put back as before");
            }
            if (!done_in_place.empty()) {
                what += "; " + joined(done_in_place) + " had already been written into";
            }
            throw failed(i, e, what);
        }
    }
    return written;
}

}  // namespace attn
