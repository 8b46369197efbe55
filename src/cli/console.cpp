// The real terminal for the presenter (--present): raw mode with termios, the window's size
// (TIOCGWINSZ), resizes (SIGWINCH) through a self-pipe, and the terminal given back before
// any signal ends the process (Ctrl-C, SIGTERM, a hangup, a crash) or stops it (Ctrl-Z; taken
// again on SIGCONT). Everything a signal handler touches is async-signal-safe: write,
// tcsetattr, sigaction, raise.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>

#include "attn/core/error.hpp"
#include "attn/io/signals_blocked.hpp"
#include "console.hpp"

namespace attn::cli {
namespace {

// The signals whose default action ends the process and that can be caught: each gives the
// terminal back, then goes on to what was there before (attn's removal of temporary output
// files, or the default action), so that the process ends as it would have.
constexpr std::array ending_signals{SIGINT,   SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE, SIGUSR1,
                                    SIGUSR2,  SIGALRM, SIGPROF, SIGVTALRM, SIGABRT, SIGSEGV,
                                    SIGBUS,   SIGFPE,  SIGILL,  SIGXCPU,   SIGTRAP, SIGSYS,
                                    SIGWINCH, SIGTSTP, SIGCONT};
constexpr std::size_t n_ending = ending_signals.size() - 3;  // the last three are not ending

// What the handlers need, in plain static storage, as a handler may touch nothing else.
struct HandlerState {
    int in = -1;
    int out = -1;
    termios original{};  // as enter() found the terminal
    termios raw{};
    std::array<int, 2> wake{-1, -1};  // the self-pipe: a handler writes, wait() polls
    std::array<struct sigaction, ending_signals.size()> previous{};
    std::array<bool, ending_signals.size()> installed{};
    sigset_t mask{};                       // every handled signal
    volatile std::sig_atomic_t taken = 0;  // raw mode and the alternate screen are on
};
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): the handlers' state
HandlerState state;

void write_all(int fd, std::string_view bytes) noexcept {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;  // a terminal that is gone: nothing more to do
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

// Async-signal-safe: the screen back, then the terminal's modes as they were.
void give_back() noexcept {
    if (state.taken == 0) {
        return;
    }
    state.taken = 0;
    write_all(state.out, give_back_screen);
    (void)::tcsetattr(state.in, TCSAFLUSH, &state.original);
}

void take() noexcept {
    (void)::tcsetattr(state.in, TCSAFLUSH, &state.raw);
    write_all(state.out, take_screen);
    state.taken = 1;
}

void wake_up(char why) noexcept {
    const int saved_errno = errno;  // a handler must not change errno for the code it interrupts
    (void)::write(state.wake[1], &why, 1);
    errno = saved_errno;
}

std::size_t index_of(int sig) noexcept {
    for (std::size_t i = 0; i < ending_signals.size(); ++i) {
        if (ending_signals[i] == sig) {
            return i;
        }
    }
    return 0;
}

extern "C" void on_signal(int sig) {
    if (sig == SIGWINCH) {
        wake_up('w');
        return;
    }
    if (sig == SIGTSTP) {
        // Ctrl-Z: the terminal back, stop as the default action would, and once continued
        // (or at once, when the stop is discarded, as for an orphaned process group) take it
        // again and redraw
        give_back();
        struct sigaction action {};
        action.sa_handler = SIG_DFL;  // NOLINT(cppcoreguidelines-pro-type-union-access)
        sigemptyset(&action.sa_mask);
        (void)::sigaction(SIGTSTP, &action, nullptr);
        sigset_t tstp;
        sigemptyset(&tstp);
        sigaddset(&tstp, SIGTSTP);
        (void)::pthread_sigmask(SIG_UNBLOCK, &tstp, nullptr);
        (void)std::raise(SIGTSTP);      // stops here until SIGCONT
        action.sa_handler = on_signal;  // NOLINT(cppcoreguidelines-pro-type-union-access)
        action.sa_mask = state.mask;
        (void)::sigaction(SIGTSTP, &action, nullptr);
        take();
        wake_up('c');
        return;
    }
    if (sig == SIGCONT) {
        wake_up('c');  // continued after a stop attn did not see (SIGSTOP): redraw
        return;
    }
    // an ending signal: the terminal back, then what was there before, which runs as soon as
    // this handler returns (the signal is blocked until then)
    give_back();
    const std::size_t i = index_of(sig);
    (void)::sigaction(sig, &state.previous[i], nullptr);
    (void)std::raise(sig);
}

sigset_t handled_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : ending_signals) {
        sigaddset(&set, sig);
    }
    return set;
}

Error terminal_error(std::string_view what) {
    return {ErrorKind::output,
            std::string("--present could not take the terminal: ") + std::string(what)};
}

}  // namespace

void PosixConsole::enter() {
    if (entered_) {
        return;
    }
    termios original{};
    if (::isatty(in_) != 1 || ::tcgetattr(in_, &original) != 0) {
        throw terminal_error("stdin is not a terminal");
    }
    std::array<int, 2> wake{};
    if (::pipe2(wake.data(), O_NONBLOCK | O_CLOEXEC) != 0) {
        throw terminal_error("no pipe for its signals");
    }
    const SignalsBlocked blocked(handled_signals());
    state.in = in_;
    state.out = out_;
    state.original = original;
    // keys one at a time and not echoed; Return as \r; Ctrl-S and Ctrl-Q as keys; Ctrl-C and
    // Ctrl-Z still signal (ISIG), so that they end or stop attn as everywhere else
    state.raw = original;
    state.raw.c_iflag &= ~static_cast<tcflag_t>(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    state.raw.c_lflag &= ~static_cast<tcflag_t>(ECHO | ICANON | IEXTEN);
    state.raw.c_cc[VMIN] = 1;
    state.raw.c_cc[VTIME] = 0;
    state.wake = wake;
    state.mask = handled_signals();
    for (std::size_t i = 0; i < ending_signals.size(); ++i) {
        const int sig = ending_signals[i];
        struct sigaction old {};
        state.installed[i] = false;
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-union-access): the C API's union
        if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) {
            continue;  // ignored by whoever started attn (nohup): keep it so
        }
        struct sigaction action {};
        action.sa_handler = on_signal;  // NOLINT(cppcoreguidelines-pro-type-union-access)
        action.sa_mask = state.mask;
        action.sa_flags = i < n_ending ? SA_RESTART : 0;  // SIGWINCH interrupts wait()'s poll
        state.previous[i] = old;
        state.installed[i] = ::sigaction(sig, &action, nullptr) == 0;
    }
    take();
    entered_ = true;
}

void PosixConsole::leave() noexcept {
    if (!entered_) {
        return;
    }
    const SignalsBlocked blocked(handled_signals());
    give_back();
    for (std::size_t i = 0; i < ending_signals.size(); ++i) {
        if (state.installed[i]) {
            (void)::sigaction(ending_signals[i], &state.previous[i], nullptr);
            state.installed[i] = false;
        }
    }
    ::close(state.wake[0]);
    ::close(state.wake[1]);
    state.wake = {-1, -1};
    entered_ = false;
}

Console::Event PosixConsole::wait(int timeout_ms) {
    for (;;) {
        std::array<pollfd, 2> fds{pollfd{in_, POLLIN, 0}, pollfd{state.wake[0], POLLIN, 0}};
        const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;  // a signal: its byte is in the pipe, or it was nothing of ours
            }
            return {Event::Kind::closed};
        }
        if (ready == 0) {
            return {Event::Kind::timeout};
        }
        if ((fds[1].revents & POLLIN) != 0) {
            std::array<char, 64> drained{};
            while (::read(state.wake[0], drained.data(), drained.size()) > 0) {
            }
            return {Event::Kind::resized};
        }
        std::array<char, 256> buffer{};
        const ssize_t n = ::read(in_, buffer.data(), buffer.size());
        if (n > 0) {
            return {Event::Kind::bytes, std::string(buffer.data(), static_cast<std::size_t>(n))};
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        return {Event::Kind::closed};  // end of file, or the terminal hung up (EIO)
    }
}

Console::Size PosixConsole::size() const {
    winsize ws{};
    for (int fd : {out_, in_}) {
        if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
            return {ws.ws_row, ws.ws_col};
        }
    }
    return {};
}

}  // namespace attn::cli
