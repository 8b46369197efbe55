#pragma once
// Declaring a subcommand's options with CLI11: what every configure_* function shares.

#include <optional>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>

namespace attn::cli {

/// CLI11 reads whole numbers with strtoll's base 0, so "010" would be 8 and "0x10" 16. An
/// integer option goes through this first: decimal digits (with a sign) lose their leading
/// zeros ("010" is 10), a number written in another base is refused, and anything else is
/// left for CLI11 to refuse as not a whole number.
CLI::Validator decimal_only();

/// A path option: an empty value ("--json ''") is refused rather than meaning "none".
CLI::Validator non_empty_path();

/// --max-memory SIZE, into `value` (explain, worksheet, check and init share it; read it with
/// max_memory_of()).
CLI::Option* max_memory_option(CLI::App& app, std::string& value);

template <typename T>
struct is_integer_option : std::bool_constant<std::is_integral_v<T> && !std::is_same_v<T, bool>> {};
/// --max-memory SIZE, into `value` (explain, worksheet, check and init share it; read it with
/// max_memory_of()).
CLI::Option* max_memory_option(CLI::App& app, std::string& value);

template <typename T>
struct is_integer_option<std::optional<T>> : is_integer_option<T> {};

/// An option whose value --help names `type`, as in "--seed N": its names, what it sets, the
/// value's name and the help. Integer options are read in decimal (decimal_only).
template <typename T>
CLI::Option* option(CLI::App& app, const std::string& names, T& value, const std::string& type,
                    const std::string& help) {
    CLI::Option* opt = app.add_option(names, value, help)->type_name(type);
    if constexpr (is_integer_option<T>::value) {
        opt->transform(decimal_only());
    }
    return opt;
}

/// A path option (option() with non_empty_path).
template <typename T>
CLI::Option* path_option(CLI::App& app, const std::string& names, T& value, const std::string& type,
                         const std::string& help) {
    return option(app, names, value, type, help)->check(non_empty_path());
}

}  // namespace attn::cli
