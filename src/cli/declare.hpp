#pragma once
// Declaring a subcommand's options with CLI11: what every configure_* function shares.

#include <string>

#include <CLI/CLI.hpp>

namespace attn::cli {

/// An option whose value --help names `type`, as in "--seed N": its names, what it sets, the
/// value's name and the help.
template <typename T>
CLI::Option* option(CLI::App& app, const std::string& names, T& value, const std::string& type,
                    const std::string& help) {
    return app.add_option(names, value, help)->type_name(type);
}

}  // namespace attn::cli
