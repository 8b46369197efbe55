#pragma once
// The terminal the presenter (--present) takes over: keys one at a time, the window's size,
// its resizes, and giving the terminal back as it was on every way out. `Console` is what the
// presenter asks for; main.cpp gives it a PosixConsole over stdin and stdout (console.cpp),
// the tests a scripted one.

#include <cstddef>
#include <string>
#include <string_view>

namespace attn::cli {

/// The sequences that take the screen for the presenter and give it back: the alternate
/// screen (what was on the terminal comes back afterwards), the cursor hidden, lines not
/// wrapped at the right edge; and their reverse.
inline constexpr std::string_view take_screen = "\x1b[?1049h\x1b[?25l\x1b[?7l";
inline constexpr std::string_view give_back_screen = "\x1b[?7h\x1b[?25h\x1b[?1049l";

/// What the presenter needs of a terminal.
class Console {
  public:
    struct Size {
        std::size_t rows = 24;
        std::size_t cols = 80;
    };
    /// What woke wait(): keys typed (their bytes), the window resized (or the process
    /// continued after Ctrl-Z: redraw), the input closed (end of file, a hangup), or nothing
    /// within the time allowed.
    struct Event {
        enum class Kind { bytes, resized, closed, timeout };
        Kind kind = Kind::timeout;
        std::string bytes{};
    };

    Console() = default;
    Console(const Console&) = delete;
    Console& operator=(const Console&) = delete;
    Console(Console&&) = delete;
    Console& operator=(Console&&) = delete;
    virtual ~Console() = default;

    /// Takes the terminal: raw mode (keys one by one, no echo; Ctrl-C and Ctrl-Z still
    /// signal), `take_screen`, and handlers that give it back before any signal ends or
    /// stops the process. Throws attn::Error (output) when the terminal refuses.
    virtual void enter() = 0;
    /// Gives the terminal back exactly as enter() found it. Safe to call twice.
    virtual void leave() noexcept = 0;
    /// Waits for the next event, at most `timeout_ms` milliseconds (< 0: as long as it takes).
    virtual Event wait(int timeout_ms) = 0;
    /// The window's size now.
    [[nodiscard]] virtual Size size() const = 0;
};

/// Leaves the console when it goes out of scope: the presenter's way out on a return or an
/// exception.
class ConsoleTaken {
  public:
    explicit ConsoleTaken(Console& console) : console_(console) { console_.enter(); }
    ConsoleTaken(const ConsoleTaken&) = delete;
    ConsoleTaken& operator=(const ConsoleTaken&) = delete;
    ConsoleTaken(ConsoleTaken&&) = delete;
    ConsoleTaken& operator=(ConsoleTaken&&) = delete;
    ~ConsoleTaken() { console_.leave(); }

  private:
    Console& console_;
};

/// The real terminal: `in` and `out` are file descriptors of the same terminal (main.cpp
/// passes stdin and stdout). Nothing is changed until enter(). One at a time per process:
/// its signal handlers keep what they restore in static storage, as a handler must.
class PosixConsole final : public Console {
  public:
    PosixConsole(int in, int out) : in_(in), out_(out) {}
    PosixConsole(const PosixConsole&) = delete;
    PosixConsole& operator=(const PosixConsole&) = delete;
    PosixConsole(PosixConsole&&) = delete;
    PosixConsole& operator=(PosixConsole&&) = delete;
    ~PosixConsole() override { PosixConsole::leave(); }

    void enter() override;
    void leave() noexcept override;
    Event wait(int timeout_ms) override;
    [[nodiscard]] Size size() const override;

  private:
    int in_;
    int out_;
    bool entered_ = false;
};

}  // namespace attn::cli
