// read_gpt2_reference CASE_DIR...: attn's readers on the checkpoints that
// make_gpt2_reference.py writes (tests/reference/gpt2/, or made at test time). For each case:
// the folder's files are found, config.json read, the text tokenized to the script's ids, every
// tensor of model.safetensors (F32, F16 or BF16, with or without "transformer.") converted
// to the same doubles as torch's conversion in reference.safetensors (F64), bit for bit, and
// the embedding rows and their sum equal to the script's. Exit 1 at the first difference.
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/core/error.hpp"
#include "attn/io/checkpoint.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::cerr << "FAIL: " << what << '\n';
        ++failures;
    }
}

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

std::size_t check_case(const std::string& dir) {
    std::ifstream in(dir + "/expected.json");
    const auto expected = nlohmann::json::parse(in);
    const auto files = attn::find_checkpoint(dir);
    const auto config = attn::read_gpt2_config(files.config);
    const auto ids = expected["input_ids"].get<std::vector<std::uint32_t>>();
    const auto layers = expected["layers"].size();
    expect(config.n_layer == layers, dir + ": n_layer");
    expect(config.n_embd == expected["embeddings"][0].size(), dir + ": n_embd");
    expect(config.n_head == expected["layers"][0]["heads"].size(), dir + ": n_head");

    const attn::Bpe bpe = attn::read_tokenizer(files);
    const auto tokens = bpe.tokenize(expected["text"].get<std::string>(), config.n_positions);
    expect(bpe.encode(expected["text"].get<std::string>()) == ids, dir + ": the token ids");
    for (std::size_t i = 0; i < tokens.size() && i < expected["tokens"].size(); ++i) {
        expect(tokens[i].text == expected["tokens"][i].get<std::string>(),
               dir + ": token " + std::to_string(i));
    }

    // every tensor, converted by attn, against torch's conversion to F64
    const attn::safetensors::File model(files.model);
    const attn::safetensors::File reference(dir + "/reference.safetensors");
    expect(model.tensors().size() == reference.tensors().size(), dir + ": the number of tensors");
    std::size_t compared = 0;
    for (const auto& r : reference.tensors()) {
        const auto& t = attn::gpt2_tensor(model, r.name);
        expect(t.dtype == expected["dtype"].get<std::string>(), dir + ": " + t.name + " dtype");
        expect(r.dtype == "F64" && t.shape == r.shape, dir + ": " + t.name + " shape");
        const auto ours = model.values(t);
        const auto torch = reference.values(r);
        for (std::size_t i = 0; i < ours.size() && i < torch.size(); ++i) {
            if (!same_bits(ours[i], torch[i])) {
                expect(false, dir + ": " + t.name + "[" + std::to_string(i) + "] is " +
                                  std::to_string(ours[i]) + ", torch " + std::to_string(torch[i]));
                break;
            }
        }
        compared += ours.size();
    }

    // the rows of the embeddings that the text uses, found without the prefix, and their sum
    std::vector<std::size_t> rows(ids.begin(), ids.end());
    std::vector<std::size_t> positions(ids.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        positions[i] = i;
    }
    const auto wte = model.rows(attn::gpt2_tensor(model, "wte.weight"),
                                {config.vocab_size, config.n_embd}, "vocab_size × n_embd", rows);
    const auto wpe =
        model.rows(attn::gpt2_tensor(model, "transformer.wpe.weight"),
                   {config.n_positions, config.n_embd}, "n_positions × n_embd", positions);
    for (std::size_t r = 0; r < ids.size(); ++r) {
        for (std::size_t c = 0; c < config.n_embd; ++c) {
            const std::string at = "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
            expect(same_bits(wte(r, c), expected["wte_rows"][r][c].get<double>()),
                   dir + ": wte_rows" + at);
            expect(same_bits(wpe(r, c), expected["wpe_rows"][r][c].get<double>()),
                   dir + ": wpe_rows" + at);
            expect(same_bits(wte(r, c) + wpe(r, c), expected["embeddings"][r][c].get<double>()),
                   dir + ": embeddings" + at);
        }
    }
    std::cout << dir << ": " << ids.size() << " tokens as the script's, " << compared
              << " values of " << model.tensors().size() << " " << expected["dtype"]
              << " tensors as torch's\n";
    return compared;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: read_gpt2_reference CASE_DIR...\n";
        return 2;
    }
    try {
        for (int i = 1; i < argc; ++i) {
            (void)check_case(argv[i]);
        }
    } catch (const attn::Error& e) {
        std::cerr << "FAIL: " << e.what() << '\n';
        return 1;
    }
    return failures == 0 ? 0 : 1;
}
