#pragma once
// The keys of the presenter (--present): the bytes a terminal sends in raw mode decoded into
// key presses (keys.cpp). Pure: the terminal itself is console.hpp's.

#include <string>
#include <string_view>
#include <vector>

namespace attn::cli {

/// One key press.
struct Key {
    enum class Kind {
        text,       ///< a printable character, in `text` (UTF-8)
        control,    ///< Ctrl and a letter, in `text` ("l" for Ctrl-L)
        enter,      ///< Return, Enter, the keypad's Enter
        backspace,  ///< Backspace (DEL or ^H)
        escape,     ///< Escape alone
        tab,
        up,
        down,
        left,
        right,
        page_up,
        page_down,
        home,
        end,
        other,  ///< a sequence attn does not use (F1, Delete, Alt-x, a mouse report...)
    };
    Kind kind = Kind::other;
    std::string text{};

    friend bool operator==(const Key&, const Key&) = default;
};

/// Decodes the bytes of a terminal in raw mode: plain characters, control characters and the
/// escape sequences of the arrow and page keys (CSI `ESC [` and SS3 `ESC O`, with or without
/// modifiers, as xterm, the Linux console, rxvt, tmux and screen send them). Bytes may arrive
/// in any pieces: an unfinished sequence waits for the next feed(). An ESC with nothing after
/// it is the Escape key only once no more bytes come (the caller waits a moment, then calls
/// flush()).
class KeyDecoder {
  public:
    /// The keys that `bytes` complete.
    std::vector<Key> feed(std::string_view bytes);
    /// The keys still waiting (a lone ESC, an unfinished sequence), once no more bytes came.
    std::vector<Key> flush();
    /// Whether some bytes wait for more (so the caller should wait only a moment).
    [[nodiscard]] bool pending() const noexcept { return !buffer_.empty(); }

  private:
    std::string buffer_;
};

}  // namespace attn::cli
