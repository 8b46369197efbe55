// peak_rss PROGRAM ARGS...: runs PROGRAM with its stdout to /dev/null and its stderr as ours,
// then prints "EXIT PEAK_BYTES" on stdout: its exit code and its peak resident memory, from
// wait4's rusage (ru_maxrss). A small program of its own, so that the peak is the program's:
// a child started from a large process (Python) inherits that process's peak at exec.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc < 2) {
        (void)std::fputs("usage: peak_rss PROGRAM ARGS...\n", stderr);
        return 2;
    }
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("peak_rss: fork");
        return 2;
    }
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);  // NOLINT(cppcoreguidelines-pro-type-vararg)
        if (null < 0 || dup2(null, 1) < 0) {
            std::perror("peak_rss: /dev/null");
            _exit(127);
        }
        execv(argv[1], argv + 1);  // NOLINT(cppcoreguidelines-pro-bounds-pointer-arithmetic)
        std::perror("peak_rss: exec");
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    if (wait4(pid, &status, 0, &usage) < 0) {
        std::perror("peak_rss: wait4");
        return 2;
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    // ru_maxrss is in KiB on Linux
    (void)std::printf("%d %lld\n", code, static_cast<long long>(usage.ru_maxrss) * 1024);
    return 0;
}
