// A GPT-2 checkpoint folder (io/checkpoint.hpp): config.json, finding the files, the
// tokenizer's files and tensors with or without "transformer.", each error with its message.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"
#include "attn/io/checkpoint.hpp"
#include "input_error.hpp"

using namespace attn::test;  // error_of

namespace fs = std::filesystem;

namespace {

struct Folder {
    fs::path path = fs::temp_directory_path() / ("attn-checkpoint-" + std::to_string(::getpid()) +
                                                 "-" + std::to_string(counter++));
    Folder() { fs::create_directories(path); }
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    ~Folder() { fs::remove_all(path); }
    [[nodiscard]] std::string file(const std::string& name, const std::string& text) const {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    static inline int counter = 0;
};

// config.json's error for this text, with the folder's path cut off
std::string config_error(const std::string& text) {
    const Folder folder;
    const std::string path = folder.file("config.json", text);
    std::string message = error_of([&] { (void)attn::read_gpt2_config(path); });
    if (message.starts_with(path)) {
        message.replace(0, path.size(), "config.json");
    }
    return message;
}

const std::string gpt2_config = R"({
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
  "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_inner": null, "n_layer": 12,
  "n_positions": 1024, "layer_norm_epsilon": 1e-05, "vocab_size": 50257,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}
})";

// a vocabulary of the 256 bytes (id = byte) as vocab.json writes it, and more tokens
std::string vocab_json(const std::string& more) {
    std::string out = "{";
    for (unsigned b = 0; b < 256; ++b) {
        std::string token;
        attn::utf8::append(token, attn::byte_to_unicode(static_cast<unsigned char>(b)));
        if (token == "\"" || token == "\\") {
            token = "\\" + token;
        }
        out += (b == 0 ? "\"" : ", \"") + token + "\": " + std::to_string(b);
    }
    return out + more + "}";
}

}  // namespace

TEST_CASE("config.json: GPT-2's sizes", "[checkpoint]") {
    const Folder folder;
    const auto c = attn::read_gpt2_config(folder.file("config.json", gpt2_config));
    CHECK(c.n_embd == 768);
    CHECK(c.n_head == 12);
    CHECK(c.n_layer == 12);
    CHECK(c.n_positions == 1024);
    CHECK(c.vocab_size == 50257);
    CHECK(c.n_inner == 3072);
    CHECK(c.layer_norm_epsilon == 1e-5);
    // an old config with n_ctx only, n_inner given, no model_type
    const auto old = attn::read_gpt2_config(folder.file(
        "old.json", R"({"n_ctx": 64, "n_embd": 8, "n_head": 2, "n_layer": 1, "vocab_size": 300,
                        "n_inner": 20, "layer_norm_epsilon": 0.001})"));
    CHECK(old.n_positions == 64);
    CHECK(old.n_inner == 20);
    CHECK(old.layer_norm_epsilon == 0.001);
}

TEST_CASE("config.json: every error names the key and the range", "[checkpoint]") {
    CHECK(config_error(R"({"model_type": "bert"})") ==
          "config.json:1:16: model_type: found a string \"bert\", expected \"gpt2\" (attn reads "
          "GPT-2 checkpoints)");
    CHECK(config_error(R"({"activation_function": "relu"})") ==
          "config.json:1:25: activation_function: found a string \"relu\", expected \"gelu_new\" "
          "(GPT-2's tanh approximation of GELU, which attn computes)");
    CHECK(config_error(R"({"scale_attn_by_inverse_layer_idx": true})") ==
          "config.json:1:37: scale_attn_by_inverse_layer_idx: found a boolean (true), expected "
          "false (scores divided by √d_head only, as in GPT-2)");
    CHECK(config_error(R"({"n_head": 2})") ==
          "config.json:1:1: the top level: \"n_embd\" is missing, expected a whole number (the "
          "width of each token's vector)");
    CHECK(config_error(R"({"n_embd": 5000})") ==
          "config.json:1:12: n_embd: found a number 5000, expected a whole number from 1 to 4096 "
          "(the width of each token's vector)");
    CHECK(config_error(R"({"n_embd": 8, "n_head": 0})") ==
          "config.json:1:25: n_head: found a number 0, expected a whole number from 1 to 64 "
          "(attention heads per layer)");
    CHECK(config_error(R"({"n_embd": 8, "n_head": 3, "n_layer": 1, "vocab_size": 300,
                           "n_positions": 16})") ==
          "config.json:1:25: n_head: found 3, which does not divide n_embd = 8, expected a divisor "
          "of n_embd (each head gets n_embd / n_head columns)");
    CHECK(config_error(R"({"n_embd": 8, "n_head": 2, "n_layer": 1.5})") ==
          "config.json:1:39: n_layer: found a number 1.5, expected a whole number from 1 to 128 "
          "(transformer blocks)");
    CHECK(config_error(R"({"n_embd": 8, "n_head": 2, "n_layer": 1, "vocab_size": 300})") ==
          "config.json:1:1: the top level: \"n_positions\" is missing, expected a whole number "
          "(the most tokens of a text)");
    CHECK(config_error(R"({"n_embd": 8, "n_head": 2, "n_layer": 1, "vocab_size": 2000000})") ==
          "config.json:1:56: vocab_size: found a number 2000000, expected a whole number from 1 "
          "to 1048576 (tokens in the vocabulary)");
    CHECK(config_error(R"({"n_embd": 8, "n_head": 2, "n_layer": 1, "vocab_size": 3,
                           "n_positions": 9000})") ==
          "config.json:2:43: n_positions: found a number 9000, expected a whole number from 1 to "
          "8192 (the most tokens of a text)");
    CHECK(config_error(R"({"n_embd": 8, "n_head": 2, "n_layer": 1, "vocab_size": 3,
                           "n_positions": 9, "layer_norm_epsilon": 0})") ==
          "config.json:2:68: layer_norm_epsilon: found 0, expected a number above 0 and below 1 "
          "(added to the variance in each layer norm)");
    CHECK(config_error("[]") == "config.json:1:1: found an array, expected a GPT-2 config.json");
}

TEST_CASE("checkpoint folder: the files found, and what is missing", "[checkpoint]") {
    const Folder folder;
    const std::string dir = folder.path.string();
    CHECK(error_of([&] { (void)attn::find_checkpoint(dir + "/none"); }) ==
          "cannot read the checkpoint " + dir +
              "/none: no such folder, expected a folder with model.safetensors, config.json, and "
              "vocab.json with merges.txt or tokenizer.json");
    const std::string file = folder.file("plain", "x");
    CHECK(error_of([&] { (void)attn::find_checkpoint(file); }) ==
          "cannot read the checkpoint " + file +
              ": it is a file, expected a folder with model.safetensors, config.json, and "
              "vocab.json with merges.txt or tokenizer.json");
    (void)folder.file("pytorch_model.bin", "x");
    (void)folder.file("vocab.json", "{}");
    CHECK(error_of([&] { (void)attn::find_checkpoint(dir); }) ==
          "the checkpoint " + dir +
              " has no model.safetensors, config.json and merges.txt (or tokenizer.json), "
              "expected a GPT-2 checkpoint folder with model.safetensors, config.json, and "
              "vocab.json with merges.txt or tokenizer.json\n  hint: it has pytorch_model.bin, a "
              "Python pickle, which attn does not read; save the model with "
              "save_pretrained(folder, safe_serialization=True) to get model.safetensors");
    (void)folder.file("model.safetensors", "x");
    (void)folder.file("config.json", "{}");
    (void)folder.file("tokenizer.json", "{}");
    auto f = attn::find_checkpoint(dir);
    CHECK(f.model == dir + "/model.safetensors");
    CHECK(f.config == dir + "/config.json");
    CHECK(f.vocab.empty());  // vocab.json without merges.txt: tokenizer.json instead
    CHECK(f.tokenizer == dir + "/tokenizer.json");
    (void)folder.file("merges.txt", "");
    f = attn::find_checkpoint(dir + "/");
    CHECK(f.vocab == dir + "/vocab.json");
    CHECK(f.merges == dir + "/merges.txt");
}

TEST_CASE("tokenizer files: vocab.json with merges.txt, and tokenizer.json", "[checkpoint]") {
    const Folder folder;
    const std::string vocab =
        folder.file("vocab.json", vocab_json(R"(, "he": 256, "Ġt": 257, "Ġthe": 258)"));
    const std::string merges = folder.file("merges.txt", "#version: 0.2\nh e\nĠ t\nĠt he\n");
    using TokenIds = std::vector<std::uint32_t>;
    CHECK(attn::read_bpe(vocab, merges).encode("the the") == TokenIds{'t', 256, 258});
    // no "#version" line, no final newline, CRLF
    CHECK(attn::read_bpe(vocab, folder.file("m2.txt", "h e\r\nĠ t\r\nĠt he")).encode(" the") ==
          TokenIds{258});
    const std::string json =
        folder.file("tokenizer.json", R"({"model": {"type": "BPE", "vocab": )" +
                                          vocab_json(R"(, "he": 256, "Ġt": 257, "Ġthe": 258)") +
                                          R"(, "merges": ["h e", ["Ġ", "t"], "Ġt he"]}})");
    CHECK(attn::read_bpe_tokenizer_json(json).encode("the the") == TokenIds{'t', 256, 258});
    attn::CheckpointFiles files;
    files.tokenizer = json;
    CHECK(attn::read_tokenizer(files).encode(" the") == TokenIds{258});
}

TEST_CASE("tokenizer files: each error names the file and the place", "[checkpoint]") {
    const Folder folder;
    const std::string dir = folder.path.string() + "/";
    const std::string vocab = folder.file("vocab.json", vocab_json(R"(, "he": 256)"));
    const auto merges_error = [&](const std::string& text) {
        return error_of([&] { (void)attn::read_bpe(vocab, folder.file("merges.txt", text)); });
    };
    CHECK(merges_error("#version: 0.2\nh e\nh  e\n") ==
          dir +
              "merges.txt:3: found \"h  e\", expected two tokens separated by one space, as "
              "\"Ġ t\"");
    CHECK(merges_error("h e\n\nh e\n") ==
          dir + "merges.txt:2: found \"\", expected two tokens separated by one space, as \"Ġ t\"");
    CHECK(merges_error("h e\nh e\n") ==
          dir + "vocab.json with " + dir +
              "merges.txt: merge 2 (\"h\" + \"e\") repeats merge 1, expected each pair once");
    CHECK(merges_error("h x\n") ==
          dir + "vocab.json with " + dir +
              "merges.txt: merge 1 (\"h\" + \"x\"): the merged token \"hx\" is not in the "
              "vocabulary, expected every merge to join two tokens into a token");
    CHECK(error_of([&] { (void)attn::read_bpe(vocab, dir + "none.txt"); }) ==
          "cannot read " + dir + "none.txt: no such file, expected GPT-2's merges.txt");
    const std::string bad_id = folder.file("bad.json", vocab_json(R"(, "he": -1)"));
    CHECK_THAT(error_of([&] { (void)attn::read_bpe(bad_id, dir + "merges.txt"); }),
               Catch::EndsWith(": he: found a number -1, expected a token id, a whole number "
                               "from 0 to 1048575"));
    // a token twice in a large object: found through the reader's set of keys
    const std::string twice = folder.file("twice.json", vocab_json(R"(, "A": 300)"));
    CHECK_THAT(error_of([&] { (void)attn::read_bpe(twice, dir + "merges.txt"); }),
               Catch::EndsWith("twice.json:1:2454: not JSON: the key \"A\" a second time, expected "
                               "each key once per object"));
    const auto json_error = [&](const std::string& text) {
        return error_of(
            [&] { (void)attn::read_bpe_tokenizer_json(folder.file("tokenizer.json", text)); });
    };
    CHECK(json_error(R"({"version": "1.0"})") ==
          dir +
              "tokenizer.json:1:1: the top level: \"model\" is missing, expected {\"type\": "
              "\"BPE\", \"vocab\": {...}, \"merges\": [...]}");
    CHECK(json_error(R"({"model": {"type": "WordPiece"}})") ==
          dir +
              "tokenizer.json:1:20: model.type: found a string \"WordPiece\", expected \"BPE\" "
              "(GPT-2's byte-level BPE)");
    CHECK_THAT(
        json_error(R"({"model": {"vocab": )" + vocab_json("") + R"(, "merges": ["h e", 7]}})"),
        Catch::EndsWith(": model.merges[1]: found a number 7, expected two tokens separated by "
                        "one space, as \"Ġ t\" or a pair [\"Ġ\", \"t\"]"));
    CHECK_THAT(
        json_error(R"({"model": {"vocab": )" + vocab_json("") + R"(, "merges": [["h"]]}})"),
        Catch::EndsWith(": model.merges[0]: found an array, expected two tokens separated by one "
                        "space, as \"Ġ t\" or a pair [\"Ġ\", \"t\"]"));
    CHECK(json_error(R"({"model": {"vocab": {"a": 0}, "merges": []}})") ==
          dir +
              "tokenizer.json: the vocabulary has no token for the byte 0x00 (written \"Ā\"), "
              "expected one for each of the 256 bytes (GPT-2's byte-level BPE)");
}

TEST_CASE("GPT-2 tensors: with or without the transformer. prefix", "[checkpoint]") {
    const Folder folder;
    const auto write = [&](const std::string& name, const std::string& header) {
        std::string bytes;
        for (std::size_t i = 0; i < 8; ++i) {
            bytes += static_cast<char>((header.size() >> (8 * i)) & 0xFFU);
        }
        return folder.file(name, bytes + header + std::string(8, '\0'));
    };
    const std::string plain =
        write("plain.safetensors",
              R"({"h.0.ln_1.weight": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})");
    const std::string prefixed =
        write("prefixed.safetensors", R"({"transformer.h.0.ln_1.weight": {"dtype": "F32", )"
                                      R"("shape": [2], "data_offsets": [0, 8]}})");
    const attn::safetensors::File a(plain);
    const attn::safetensors::File b(prefixed);
    CHECK(attn::gpt2_tensor(a, "h.0.ln_1.weight").name == "h.0.ln_1.weight");
    CHECK(attn::gpt2_tensor(a, "transformer.h.0.ln_1.weight").name == "h.0.ln_1.weight");
    CHECK(attn::gpt2_tensor(b, "h.0.ln_1.weight").name == "transformer.h.0.ln_1.weight");
    CHECK(attn::gpt2_tensor(b, "transformer.h.0.ln_1.weight").name ==
          "transformer.h.0.ln_1.weight");
    CHECK(error_of([&] { (void)attn::gpt2_tensor(b, "h.0.ln_2.weight"); }) ==
          prefixed +
              " has no tensor \"h.0.ln_2.weight\" (nor \"transformer.h.0.ln_2.weight\"), "
              "expected a GPT-2 checkpoint's tensors; the nearest: "
              "\"transformer.h.0.ln_1.weight\"");
}
