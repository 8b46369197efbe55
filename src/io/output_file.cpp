// AtomicFile: write to "<dir>/.<name>.XXXXXX", fsync, then rename(2) over the destination,
// which POSIX makes atomic within one file system.
#include "attn/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include "attn/core/error.hpp"

namespace attn {
namespace {

// The temporary files being written, for the signal handler to remove: plain char arrays,
// because a signal handler may only touch async-signal-safe things (unlink is one).
constexpr std::size_t max_pending = 8;
constexpr std::size_t max_path = 4096;
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): the handler's state
std::array<std::array<char, max_path>, max_pending> pending{};
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): likewise
std::array<volatile std::sig_atomic_t, max_pending> pending_used{};

void remember(const std::string& path) {
    if (path.size() >= max_path) {
        return;
    }
    for (std::size_t i = 0; i < max_pending; ++i) {
        if (pending_used[i] == 0) {
            std::memcpy(pending[i].data(), path.c_str(), path.size() + 1);
            pending_used[i] = 1;
            return;
        }
    }
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
    return std::strerror(err);  // NOLINT(concurrency-mt-unsafe): attn is single-threaded
}

mode_t default_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666U & ~mask;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) {
        throw errors::cannot_write("''", "the file name is empty");
    }
    struct stat st {};
    mode_t mode = default_mode();
    if (::stat(path_.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            throw errors::cannot_write(path_, "it is a directory, expected a file name");
        }
        mode = st.st_mode & 07777U;  // keep the permissions of the file we replace
    }
    const auto slash = path_.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? path_ : path_.substr(slash + 1);
    temp_path_ = dir + "." + name + ".XXXXXX";
    std::vector<char> templ(temp_path_.begin(), temp_path_.end());
    templ.push_back('\0');
    fd_ = ::mkstemp(templ.data());
    if (fd_ < 0) {
        const int err = errno;
        throw errors::cannot_write(path_,
                                   err == ENOENT ? "its directory does not exist" : reason(err));
    }
    temp_path_.assign(templ.data());
    remember(temp_path_);
    (void)::fchmod(fd_, mode);  // best effort: the umask-derived mode is the fallback
}

void remove_temporary_files_on_signals() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        (void)std::signal(sig, remove_pending_and_die);
    }
    // past a file size limit (ulimit -f), fail the write with EFBIG and say so, rather than
    // die of SIGXFSZ with half a temporary file left behind
    (void)std::signal(SIGXFSZ, SIG_IGN);
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (!committed_) {
        ::unlink(temp_path_.c_str());
    }
    forget(temp_path_);
}

void AtomicFile::write(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw errors::cannot_write(path_, reason(errno));
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
        written_ += static_cast<std::size_t>(n);
    }
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

void AtomicFile::commit() {
    if (::fsync(fd_) != 0) {
        throw errors::cannot_write(path_, reason(errno));
    }
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) {
        throw errors::cannot_write(path_, reason(errno));
    }
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
        throw errors::cannot_write(path_, reason(errno));
    }
    committed_ = true;
}

}  // namespace attn
