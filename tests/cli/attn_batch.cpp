// attn_batch: many runs of attn in one process, for corpora of thousands of small runs
// (tests/cli/tampered_dumps.py), where starting a process per run took most of the time.
//
// Reads one run a line on stdin, a JSON array of attn's arguments (["explain", "--from",
// "x.json"]), runs it with attn::cli::run, the function attn's main() calls, with stdout and
// stderr captured, and writes one JSON line per run on stdout: {"code": 2, "out": "...",
// "err": "..."}. Output files that a run writes are written as attn writes them.
//
//   usage: attn_batch < runs.jsonl > results.jsonl

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        const auto args = nlohmann::json::parse(line).get<std::vector<std::string>>();
        std::ostringstream out;
        std::ostringstream err;
        attn::cli::Io io{out, err};
        const int code = attn::cli::run(args, io);
        const nlohmann::json result = {{"code", code}, {"out", out.str()}, {"err", err.str()}};
        // invalid UTF-8 in a message is replaced, not an exception: the test compares texts
        std::cout << result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    return 0;
}
