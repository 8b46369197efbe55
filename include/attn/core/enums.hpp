#pragma once
/// The spellings of attn's enums, declared once beside each enum and read by both to_string
/// and parse_enum, so the command line, the files attn reads and the files it writes accept
/// and write the same words.
///
///     template <> struct EnumNames<MaskKind> {
///         static constexpr std::array names{Named{MaskKind::none, "none"}, ...};
///     };
///     to_string(MaskKind::causal) == "causal";
///     parse_enum<MaskKind>("causal") == MaskKind::causal;

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace attn {

/// One spelling of an enum value.
template <class E>
struct Named {
    E value;
    std::string_view name;
};

/// Specialised for each enum with `static constexpr std::array<Named<E>, N> names`.
template <class E>
struct EnumNames;

template <class E>
concept NamedEnum = requires {
    EnumNames<E>::names;
};

/// The spelling of `value`.
template <NamedEnum E>
constexpr std::string_view to_string(E value) noexcept {
    for (const auto& n : EnumNames<E>::names) {
        if (n.value == value) {
            return n.name;
        }
    }
    return "?";
}

/// The value spelled `text` (exactly, case included), or nothing.
template <NamedEnum E>
constexpr std::optional<E> parse_enum(std::string_view text) noexcept {
    for (const auto& n : EnumNames<E>::names) {
        if (n.name == text) {
            return n.value;
        }
    }
    return std::nullopt;
}

/// Every spelling, for messages: "none, causal, file".
template <NamedEnum E>
std::string enum_choices(std::string_view separator = ", ") {
    std::string out;
    for (const auto& n : EnumNames<E>::names) {
        out += (out.empty() ? "" : std::string(separator)) + std::string(n.name);
    }
    return out;
}

}  // namespace attn
