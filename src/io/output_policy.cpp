// Which output targets a run may write: not twice, not over an input or stdout's file, not
// over a write-protected file without --force; and which targets are special files (a FIFO,
// a device, a socket, a process's open file), written into in place rather than replaced.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/io/output_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

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

// The paths that following `path`'s symbolic links passes through, normalised, the path
// itself first and the last the file they end at (which need not exist: a dangling link
// names the file it would create). At most 40 links, as the kernel follows.
std::vector<std::string> link_chain(const std::string& path) {
    std::vector<std::string> chain{normalised(path)};
    for (int hop = 0; hop < 40; ++hop) {
        const std::string& p = chain.back();
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
            break;
        }
        std::error_code ec;
        const fs::path target = fs::read_symlink(p, ec);
        if (ec) {
            break;
        }
        chain.push_back(normalised((fs::path(p).parent_path() / target).string()));
    }
    return chain;
}

// Whether following `path`'s links leads into /proc: an open file of a process (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N), whatever kind of file it is open on.
bool through_proc(const std::string& path) {
    return std::ranges::any_of(link_chain(path),
                               [](const std::string& p) { return p.starts_with("/proc/"); });
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

// The file descriptor of attn's own that `path` names, when it is one: /proc/self/fd/N,
// /proc/thread-self/fd/N or /proc/<attn's pid>/fd/N (/dev/stdout and /dev/fd/N lead there).
std::optional<int> own_descriptor(const std::string& path) {
    const std::string self = fmt::format("/proc/{}/", ::getpid());
    for (const std::string& prefix :
         {std::string("/proc/self/"), std::string("/proc/thread-self/"), self}) {
        if (!path.starts_with(prefix + "fd/")) {
            continue;
        }
        const std::string digits = path.substr(prefix.size() + 3);
        if (digits.empty() || digits.size() > 9 ||
            !std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; })) {
            return std::nullopt;
        }
        return std::stoi(digits);
    }
    return std::nullopt;
}

// The name of a standard stream, for the messages.
std::string descriptor_name(int fd) {
    switch (fd) {
        case 0:
            return "stdin";
        case 1:
            return "stdout";
        case 2:
            return "stderr";
        default:
            return fmt::format("file descriptor {}", fd);
    }
}

}  // namespace

std::string file_behind_links(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
        return path;
    }
    return link_chain(path).back();
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

void check_outputs(const std::vector<OutputTarget>& outputs, const std::vector<InputTarget>& inputs,
                   bool force, const std::string& stdout_path) {
    const auto stdout_id =
        stdout_path.empty() || special_file_kind(stdout_path) == "a character device"
            ? std::nullopt
            : file_id(stdout_path);
    // the same file: by device and inode when both exist; else by path, a link also by the
    // file it leads to (a dangling link to out.json beside --json out.json)
    const auto same = [](const OutputTarget& a, const OutputTarget& b) {
        const auto ia = file_id(a.path);
        const auto ib = file_id(b.path);
        return (ia && ib && *ia == *ib) || normalised(a.path) == normalised(b.path) ||
               link_chain(a.path).back() == link_chain(b.path).back();
    };
    // attn's messages go to stderr: a file there is no place for an output too (a terminal,
    // a device, is: it is written into as it is)
    const std::string stderr_path = "/proc/self/fd/2";
    const auto stderr_id = special_file_kind(stderr_path) == "a character device"
                               ? std::nullopt
                               : file_id(stderr_path);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const auto& out = outputs[i];
        if (out.path.empty()) {
            throw Error(ErrorKind::usage,
                        out.option + " is an empty file name, expected a path (or - for stdout)");
        }
        // /dev/stdout when stdout is closed: main() holds the closed descriptors open on
        // /dev/null for reading, so that no output file takes their number; writing there
        // would be writing nowhere
        for (const auto& hop : link_chain(out.path)) {
            const auto fd = own_descriptor(hop);
            if (!fd) {
                continue;
            }
            const int flags = ::fcntl(*fd, F_GETFL);
            if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
                throw Error(
                    ErrorKind::usage,
                    fmt::format("{} {} is attn's {}, which is {}, expected a file name, "
                                "or - for stdout",
                                out.option, shown(out.path), descriptor_name(*fd),
                                flags < 0 ? "not open" : "closed or open only for reading"));
            }
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
        if (stderr_id && file_id(out.path) == stderr_id) {
            throw Error(ErrorKind::usage,
                        fmt::format("{} {} is where stderr goes, and attn writes its messages "
                                    "there, expected another path",
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

}  // namespace attn
