// Did you mean ...? for arguments CLI11 could not place (src/cli/suggest.cpp).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace attn::cli {

/// The message for `extras`, the arguments that `app` (a command, or `root` itself) could not
/// place: each named, made visible, with the nearest option or command when one is close.
std::string unplaced_arguments(const std::vector<std::string>& extras, const CLI::App& app,
                               const CLI::App& root);

}  // namespace attn::cli
