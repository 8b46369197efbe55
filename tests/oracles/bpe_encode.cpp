// bpe_encode VOCAB_JSON MERGES_TXT STRINGS_JSON: the oracle test's helper. Reads GPT-2's
// tokenizer files with attn's readers (attn/io/checkpoint.hpp), encodes each string of the
// JSON array in STRINGS_JSON with attn's Bpe and prints its ids, one line per string, the ids
// separated by spaces. On stderr: the number of strings, bytes and tokens, and the time.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "attn/core/error.hpp"
#include "attn/io/checkpoint.hpp"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: bpe_encode VOCAB_JSON MERGES_TXT STRINGS_JSON\n";
        return 2;
    }
    try {
        const auto start_read = std::chrono::steady_clock::now();
        const attn::Bpe bpe = attn::read_bpe(argv[1], argv[2]);
        const auto read_time = std::chrono::steady_clock::now() - start_read;
        std::ifstream in(argv[3], std::ios::binary);
        const auto strings = nlohmann::json::parse(in).get<std::vector<std::string>>();
        std::string out;
        std::size_t bytes = 0;
        std::size_t tokens = 0;
        const auto start = std::chrono::steady_clock::now();
        for (const auto& s : strings) {
            const auto ids = bpe.encode(s);
            bytes += s.size();
            tokens += ids.size();
            for (std::size_t i = 0; i < ids.size(); ++i) {
                if (i > 0) {
                    out += ' ';
                }
                out += std::to_string(ids[i]);
            }
            out += '\n';
        }
        const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
        std::cout << out;
        std::cerr << "bpe_encode: read the tokenizer in "
                  << std::chrono::duration<double>(read_time).count() << " s; encoded "
                  << strings.size() << " strings, " << bytes << " bytes, " << tokens
                  << " tokens in " << seconds.count() << " s\n";
    } catch (const attn::Error& e) {
        std::cerr << "bpe_encode: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
