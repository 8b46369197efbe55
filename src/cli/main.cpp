// The process boundary: the real streams, terminal and environment, then attn::cli::run.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "attn/io/output_file.hpp"
#include "cli.hpp"

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    attn::remove_temporary_files_on_signals();
    attn::cli::Io io{std::cout, std::cerr};
    io.in = &std::cin;
    std::error_code ec;
    io.executable = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec && argc > 0) {
        io.executable = argv[0];
    }
    io.stdin_is_terminal = ::isatty(STDIN_FILENO) == 1;
    io.stdout_is_terminal = ::isatty(STDOUT_FILENO) == 1;
    winsize ws{};
    if (io.stdout_is_terminal && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        io.terminal_columns = ws.ws_col;
    }
    io.getenv = [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
        return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
    };
    const std::vector<std::string> args(argv + 1, argv + argc);
    const int code = attn::cli::run(args, io);
    std::cout.flush();
    return code;
}
