// AtomicFile: write to "<dir>/.attn-XXXXXX", fsync, then rename(2) over the destination,
// which POSIX makes atomic within one file system; and the signal handlers that remove the
// temporary files when attn is stopped before it commits them.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/io/output_file.hpp"
#include "attn/io/signals_blocked.hpp"
#include "write_failure.hpp"

namespace attn {
namespace output {

std::string reason(int err) {
    return std::strerror(err);  // NOLINT(concurrency-mt-unsafe): called from the main thread
}

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

}  // namespace output

namespace {

using output::reason;
using output::write_all_bytes;
using output::WriteFailure;

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
constexpr std::array cleanup_signals{SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGUSR1, SIGUSR2,
                                     SIGALRM, SIGPIPE, SIGPROF, SIGVTALRM, SIGXCPU};

// The cleanup signals, blocked (SignalsBlocked) while a temporary file is created and
// remembered, so that no signal can come between the two and leave the file behind.
sigset_t cleanup_set() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : cleanup_signals) {
        sigaddset(&set, sig);
    }
    return set;
}

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

mode_t default_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666U & ~mask;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) {
        throw WriteFailure("''", "the file name is empty");
    }
    file_ = file_behind_links(path_);  // a link stays; the file it points to is replaced
    struct stat st {};
    mode_t mode = default_mode();
    bool existed = false;
    if (::stat(file_.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            throw WriteFailure(path_, "it is a directory, expected a file name");
        }
        mode = st.st_mode & 07777U;  // keep the permissions of the file we replace
        existed = true;
    }
    const auto slash = file_.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : file_.substr(0, slash + 1);
    // a short name of our own, so that a target of 255 bytes (NAME_MAX) can still be written
    temp_path_ = dir + ".attn-XXXXXX";
    std::vector<char> templ(temp_path_.begin(), temp_path_.end());
    templ.push_back('\0');
    {
        const SignalsBlocked blocked(cleanup_set());
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
    if (::lstat(file_.c_str(), &st) == 0) {
        // exchange, so that the old file stays at the temporary name until every output of
        // the set is in place, and can be put back if one fails
        if (::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, file_.c_str(), RENAME_EXCHANGE) ==
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
    if (::rename(temp_path_.c_str(), file_.c_str()) != 0) {
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
        if (::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, file_.c_str(), RENAME_EXCHANGE) !=
            0) {
            return false;
        }
        exchanged_ = false;
        committed_ = false;  // the new file, back at the temporary name, is removed
        return true;
    }
    if (was_new_ && ::unlink(file_.c_str()) == 0) {
        committed_ = false;
        return true;
    }
    return false;
}

void AtomicFile::commit() {
    sync();
    rename_over();
}

}  // namespace attn
