// OutputSet: every output of a run prepared as an AtomicFile (atomic_file.cpp) before any is
// renamed; targets that are not regular files (output_policy.cpp) are written in place
// instead; and when one fails, the message says what happened to each of the others.
#include "attn/io/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/io/signals_blocked.hpp"
#include "write_failure.hpp"

namespace attn {
namespace {

using output::reason;
using output::write_all_bytes;
using output::WriteFailure;

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

// SIGPIPE held back while a FIFO or socket is written into in place: a reader that goes away
// then fails the write with EPIPE, which is reported ("Broken pipe", the output given and
// what it may hold), rather than ending attn without a word; a SIGPIPE it raised is taken
// off before the mask is restored.
class PipeSignalHeld {
  public:
    PipeSignalHeld() = default;
    PipeSignalHeld(const PipeSignalHeld&) = delete;
    PipeSignalHeld& operator=(const PipeSignalHeld&) = delete;
    PipeSignalHeld(PipeSignalHeld&&) = delete;
    PipeSignalHeld& operator=(PipeSignalHeld&&) = delete;
    ~PipeSignalHeld() {  // before `blocked_` restores the mask
        sigset_t waiting;
        sigemptyset(&waiting);
        if (::sigpending(&waiting) == 0 && sigismember(&waiting, SIGPIPE) == 1) {
            const timespec now{0, 0};
            (void)::sigtimedwait(&pipe_, nullptr, &now);
        }
    }

  private:
    static sigset_t pipe_set() {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        return set;
    }
    sigset_t pipe_ = pipe_set();
    SignalsBlocked blocked_{pipe_};
};

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

std::string describe(const Written& written) {
    if (written.in_place.empty()) {
        return written.path;
    }
    return fmt::format("{} ({}: written into in place, not replaced)", written.path,
                       written.in_place);
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
            throw failed(i, e,
                         fmt::format("no output was changed{}{}", rest.empty() ? "" : ": ",
                                     rest.empty() ? "" : left_alone(rest)) +
                             (in_place.empty() ? ""
                                               : ", and " + joined(in_place) +
                                                     (in_place.size() == 1 ? " was" : " were") +
                                                     " not written into"));
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
            const PipeSignalHeld held;
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
