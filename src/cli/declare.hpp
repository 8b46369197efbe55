#pragma once
// Declaring options with CLI11. Every option of attn is written down once, in
// src/cli/options.json; cmake/OptionTable.cmake turns that file into calls of option() and
// flag() below (options_table.cpp in the build folder), one per option, in order.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace attn::cli {

/// CLI11 reads whole numbers with strtoll's base 0, so "010" would be 8 and "0x10" 16. An
/// integer option goes through this first: decimal digits (with a sign) lose their leading
/// zeros ("010" is 10), a number written in another base is refused, and anything else is
/// left for CLI11 to refuse as not a whole number.
CLI::Validator decimal_only();

/// A path option: an empty value ("--json ''") is refused rather than meaning "none".
CLI::Validator non_empty_path();

/// One option as options.json describes it.
struct OptionSpec {
    std::string_view names{};  ///< CLI11's names: "--seed", "-o,--output", or a positional's
    std::string_view value{};  ///< the value's name in --help: "N", "none|causal|FILE"
    std::string_view help{};
    bool path = false;          ///< a file name: an empty one is refused (non_empty_path)
    bool show_default = false;  ///< --help shows the default value
    bool required = false;
    std::vector<std::pair<std::string, std::string>> aliases{};  ///< words for values: all → 0
};

/// Which of a command's options to declare. CLI11 compares each new option with every one
/// declared before it, so declaring all of `attn explain`'s options took a third of a short
/// run's instructions. A run whose arguments name only options in plain form ("--seed",
/// "--seed=7", "-o") needs only those, the required ones and the positionals: what CLI11
/// makes of the arguments is the same, as it tells an option from a value by its form, not by
/// the options declared. For anything else, and whenever parsing fails or help is asked for,
/// app.cpp declares them all (and parses again), so that messages and --help are whole.
class Wanted {
  public:
    /// Every option.
    static Wanted all() { return {}; }
    /// The options that a command's arguments name, or every option when one argument is
    /// not plainly a name: "-abc" (short options bundled, or a value after one), "-1".
    static Wanted named_in(std::span<const std::string> args);

    [[nodiscard]] bool every() const noexcept { return every_; }
    /// Whether the option `spec` is declared: always when every option is, when it is
    /// required or a positional, or when one of its names was given.
    [[nodiscard]] bool operator()(const OptionSpec& spec) const;

  private:
    bool every_ = true;
    std::vector<std::string> names_;  // without their dashes: "seed", "o"
};

template <typename T>
struct is_integer_option : std::bool_constant<std::is_integral_v<T> && !std::is_same_v<T, bool>> {};
template <typename T>
struct is_integer_option<std::optional<T>> : is_integer_option<T> {};

/// An option with a value, which sets `value`, when `wanted` (nothing otherwise). Integer
/// options are read in decimal (decimal_only); then come the spec's checks, in the order of
/// its fields.
template <typename T>
void option(CLI::App& app, const Wanted& wanted, T& value, const OptionSpec& spec) {
    static_assert(!std::is_same_v<T, bool>, "an option without a value is a flag()");
    if (!wanted(spec)) {
        return;
    }
    CLI::Option* opt = app.add_option(std::string(spec.names), value, std::string(spec.help))
                           ->type_name(std::string(spec.value));
    if constexpr (is_integer_option<T>::value) {
        opt->transform(decimal_only());
    }
    if (spec.path) {
        opt->check(non_empty_path());
    }
    if (!spec.aliases.empty()) {
        // the words the value may be are in the option's help; the alias map is not for --help
        opt->transform(CLI::Transformer(std::map<std::string, std::string>(spec.aliases.begin(),
                                                                           spec.aliases.end()))
                           .description(""));
    }
    if (spec.show_default) {
        opt->capture_default_str();
    }
    if (spec.required) {
        opt->required();
    }
}

/// An option without a value, which sets `value` to true, when `wanted`.
inline void flag(CLI::App& app, const Wanted& wanted, bool& value, const OptionSpec& spec) {
    if (wanted(spec)) {
        app.add_flag(std::string(spec.names), value, std::string(spec.help));
    }
}

}  // namespace attn::cli
