// AtomicFile: write to "<dir>/.<name>.XXXXXX", fsync, then rename(2) over the destination,
// which POSIX makes atomic within one file system.
#include "attn/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "attn/error.hpp"

namespace attn {
namespace {

std::string reason(int err) {
    return std::strerror(err);
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
    ::fchmod(fd_, mode);
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (!committed_) {
        ::unlink(temp_path_.c_str());
    }
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
