// Decoding a raw-mode terminal's bytes into key presses, for the presenter (--present).
#include "keys.hpp"

#include <charconv>

namespace attn::cli {
namespace {

constexpr char esc = '\x1b';

Key key(Key::Kind kind, std::string text = {}) {
    return {kind, std::move(text)};
}

// The first number of a CSI sequence's parameters ("5" of "5;3"), 0 when there is none.
int first_parameter(std::string_view params) {
    int n = 0;
    (void)std::from_chars(params.data(), params.data() + params.size(), n);
    return n;
}

// ESC [ params final: the cursor keys (with modifiers: ESC [ 1 ; 5 C), Home and End as xterm
// (H, F) or as VT220 and rxvt (1~, 4~, 7~, 8~), Page Up and Page Down (5~, 6~).
Key csi(std::string_view params, char final) {
    using K = Key::Kind;
    switch (final) {
        case 'A':
            return key(K::up);
        case 'B':
            return key(K::down);
        case 'C':
            return key(K::right);
        case 'D':
            return key(K::left);
        case 'H':
            return key(K::home);
        case 'F':
            return key(K::end);
        case '~':
            switch (first_parameter(params)) {
                case 1:
                case 7:
                    return key(K::home);
                case 4:
                case 8:
                    return key(K::end);
                case 5:
                    return key(K::page_up);
                case 6:
                    return key(K::page_down);
                default:
                    return key(K::other);
            }
        default:
            return key(K::other);
    }
}

// ESC O final: the cursor keys in the terminal's application mode (the same letters as
// after ESC [), and the keypad's Enter.
Key ss3(char final) {
    return final == 'M' ? key(Key::Kind::enter) : csi("", final);
}

// The bytes of the UTF-8 character that starts with `lead` (1 for a stray continuation byte).
std::size_t utf8_length(unsigned char lead) {
    return lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
}

}  // namespace

std::vector<Key> KeyDecoder::feed(std::string_view bytes) {
    using K = Key::Kind;
    buffer_ += bytes;
    std::vector<Key> keys;
    std::size_t i = 0;
    const std::size_t n = buffer_.size();
    while (i < n) {
        const auto c = static_cast<unsigned char>(buffer_[i]);
        if (c == static_cast<unsigned char>(esc)) {
            if (i + 1 == n) {
                break;  // Escape alone, or the start of a sequence: wait
            }
            const char next = buffer_[i + 1];
            if (next == '[') {
                std::size_t j = i + 2;
                while (j < n && buffer_[j] >= 0x30 && buffer_[j] <= 0x3F) {
                    ++j;  // parameters: digits and ; (and < = > ?)
                }
                while (j < n && buffer_[j] >= 0x20 && buffer_[j] <= 0x2F) {
                    ++j;  // intermediate bytes
                }
                if (j == n) {
                    break;  // unfinished: wait for the rest
                }
                const char final = buffer_[j];
                if (final >= 0x40 && final <= 0x7E) {
                    keys.push_back(csi(std::string_view(buffer_).substr(i + 2, j - i - 2), final));
                    i = j + 1;
                } else {
                    keys.push_back(key(K::other));  // not a sequence: drop what was read
                    i = j;
                }
            } else if (next == 'O') {
                if (i + 2 == n) {
                    break;
                }
                keys.push_back(ss3(buffer_[i + 2]));
                i += 3;
            } else if (next == esc) {
                keys.push_back(key(K::escape));  // Escape twice: the first is a key of its own
                i += 1;
            } else {
                // Alt and a key: nothing attn uses
                const std::size_t length = utf8_length(static_cast<unsigned char>(next));
                if (i + 1 + length > n) {
                    break;
                }
                keys.push_back(key(K::other));
                i += 1 + length;
            }
        } else if (c == '\r' || c == '\n') {
            keys.push_back(key(K::enter));
            ++i;
        } else if (c == 0x7F || c == 0x08) {
            keys.push_back(key(K::backspace));
            ++i;
        } else if (c == '\t') {
            keys.push_back(key(K::tab));
            ++i;
        } else if (c < 0x20) {
            keys.push_back(c == 0
                               ? key(K::other)
                               : key(K::control, std::string(1, static_cast<char>('a' + c - 1))));
            ++i;
        } else {
            const std::size_t length = utf8_length(c);
            if (i + length > n) {
                break;  // the rest of the character is still on its way
            }
            keys.push_back(key(K::text, buffer_.substr(i, length)));
            i += length;
        }
    }
    buffer_.erase(0, i);
    return keys;
}

std::vector<Key> KeyDecoder::flush() {
    std::vector<Key> keys;
    if (buffer_ == std::string(1, esc)) {
        keys.push_back(key(Key::Kind::escape));
    } else if (!buffer_.empty()) {
        keys.push_back(key(Key::Kind::other));  // an unfinished sequence or character
    }
    buffer_.clear();
    return keys;
}

}  // namespace attn::cli
