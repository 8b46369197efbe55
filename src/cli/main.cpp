// The process boundary: the real streams, terminal and environment, then attn::cli::run.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <streambuf>

#include "attn/io/heap.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"
#include "console.hpp"

namespace {

// stdout as a stream that remembers why a write failed (ENOSPC on a full disk, EPIPE), so
// that the error can say so; std::cout forgets errno.
class StdoutBuffer : public std::streambuf {
  public:
    StdoutBuffer() = default;
    [[nodiscard]] int error() const noexcept { return error_; }

  protected:
    int_type overflow(int_type ch) override {
        if (!drain()) {
            return traits_type::eof();
        }
        if (!buffer_) {  // the first character written
            // NOLINTNEXTLINE(*-avoid-c-arrays): not zeroed, as only what was written is read
            buffer_ = std::make_unique_for_overwrite<char[]>(size);
            setp(buffer_.get(), buffer_.get() + size);
        }
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    int sync() override { return drain() ? 0 : -1; }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (n < static_cast<std::streamsize>(size / 2)) {
            return std::streambuf::xsputn(s, n);
        }
        // a large piece (a JSON dump's 64 KiB blocks) goes straight out, after what waits
        return drain() && write_out(s, static_cast<std::size_t>(n)) ? n : 0;
    }

  private:
    bool drain() {
        const auto n = static_cast<std::size_t>(pptr() - pbase());  // 0 before a first write
        if (buffer_) {
            setp(buffer_.get(), buffer_.get() + size);
        }
        return write_out(buffer_.get(), n);
    }
    bool write_out(const char* s, std::size_t n) {
        if (error_ != 0) {
            return false;
        }
        while (n > 0) {
            const ssize_t w = ::write(STDOUT_FILENO, s, n);
            if (w < 0) {
                if (errno == EINTR) {
                    continue;
                }
                error_ = errno;
                return false;
            }
            s += w;
            n -= static_cast<std::size_t>(w);
        }
        return true;
    }

    static constexpr std::size_t size = std::size_t{1} << 16U;
    // taken from the heap when something is first written, and not zeroed: on the stack, the
    // compiler's probes of a large frame (-fstack-clash-protection) touched every page at
    // start, each first touch a page fault (docs/performance.md); taken at start, it counted
    // against --max-memory in runs that print nothing
    // NOLINTNEXTLINE(*-avoid-c-arrays): not zeroed, as only what was written is read
    std::unique_ptr<char[]> buffer_;
    int error_ = 0;
};

// stdin, stdout or stderr closed by whoever started attn (`attn ... >&-`): each is opened on
// /dev/null for reading, so that no file attn opens takes its number (an output's temporary
// file as fd 1 would make /dev/stdout lead to it), and writing to it still fails as closed.
void hold_closed_standard_descriptors() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
            continue;
        }
        const int held = ::open("/dev/null", O_RDONLY);  // the lowest free number: fd itself
        if (held >= 0 && held != fd) {
            (void)::dup2(held, fd);
            (void)::close(held);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    hold_closed_standard_descriptors();
    attn::settle_heap();
    std::ios::sync_with_stdio(false);
    attn::remove_temporary_files_on_signals();
    StdoutBuffer stdout_buffer;
    std::ostream out(&stdout_buffer);
    attn::cli::Io io{out, std::cerr};
    io.out_errno = [&stdout_buffer] { return stdout_buffer.error(); };
    io.stdout_path = "/proc/self/fd/1";
    std::error_code ec;
    io.executable = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec && argc > 0) {
        io.executable = argv[0];
    }
    io.stdin_is_terminal = ::isatty(STDIN_FILENO) == 1;
    io.stdout_is_terminal = ::isatty(STDOUT_FILENO) == 1;
    // --present takes the terminal only when it runs, and gives it back on every way out
    attn::cli::PosixConsole console(STDIN_FILENO, STDOUT_FILENO);
    if (io.stdin_is_terminal && io.stdout_is_terminal) {
        io.console = &console;
    }
    winsize ws{};
    if (io.stdout_is_terminal && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        io.terminal_columns = ws.ws_col;
    }
    io.getenv = [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
        return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
    };
    const std::vector<std::string> args(argv + 1, argv + argc);
    const int code = attn::cli::run(args, io);  // flushes `out`, says so if it cannot
    out.flush();                                // what an error left unflushed
    return code;
}
