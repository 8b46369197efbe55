// GPT-2's tokenizer files: vocab.json (token → id) with merges.txt (one merge a line, by
// rank), or the "model" of a Hugging Face tokenizer.json. The core's Bpe checks that they fit
// together; these readers check each file and say where it is wrong.
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/io/checkpoint.hpp"
#include "json_file.hpp"

namespace attn {
namespace {

using reader::JsonFile;
using reader::Type;
using reader::Value;

constexpr std::string_view merge_form = "two tokens separated by one space, as \"Ġ t\"";

std::vector<std::pair<std::string, std::uint32_t>> vocabulary(const JsonFile& f, const Value& v,
                                                              const std::string& where) {
    f.expect_type(v, where, Type::object, "an object of tokens and their ids, as {\"Ġthe\": 262}");
    const std::string expected =
        fmt::format("a token id, a whole number from 0 to {}", max_token_id);
    std::vector<std::pair<std::string, std::uint32_t>> out;
    out.reserve(v.members.size());
    for (const auto& [token, id] : v.members) {
        out.emplace_back(token, static_cast<std::uint32_t>(f.whole(id, reader::child(where, token),
                                                                   0, max_token_id, expected)));
    }
    return out;
}

// The text of merges.txt, whole.
std::string read_text(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) {
        const int err = errno;
        throw Error(
            ErrorKind::input,
            fmt::format("cannot read {}: {}, expected GPT-2's merges.txt", shown(path),
                        S_ISDIR(st.st_mode) ? "it is a directory"
                        : err == ENOENT     ? "no such file"
                                        : std::strerror(err)));  // NOLINT(concurrency-mt-unsafe)
    }
    if (static_cast<std::size_t>(st.st_size) > json::max_input_bytes) {
        throw Error(ErrorKind::input,
                    fmt::format("{} is {:.1f} MiB, expected at most {} MiB (attn's limit for an "
                                "input file)",
                                shown(path), static_cast<double>(st.st_size) / 1048576.0,
                                json::max_input_bytes >> 20U));
    }
    std::ifstream in(path, std::ios::binary);
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) {
        throw Error(ErrorKind::input, fmt::format("cannot read {}: a read error", shown(path)));
    }
    return text;
}

// One merge, "Ġ t": two tokens and one space between them.
std::optional<BpeMerge> merge_of(std::string_view line) {
    const auto space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos) {
        return std::nullopt;
    }
    return BpeMerge{std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
}

// merges.txt as encoder.py reads it: the first line if it is "#version: ...", then one
// merge a line; the last line may end with a newline or not.
std::vector<BpeMerge> read_merges(const std::string& path) {
    const std::string text = read_text(path);
    std::vector<BpeMerge> merges;
    std::size_t line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        std::string_view line(text.data() + start, end - start);
        start = end + 1;
        ++line_number;
        if (line.ends_with('\r')) {
            line.remove_suffix(1);
        }
        if (line_number == 1 && line.starts_with("#version")) {
            continue;
        }
        const auto merge = merge_of(line);
        if (!merge) {
            throw Error(ErrorKind::input,
                        fmt::format("{}:{}: found \"{}\", expected {}", shown(path), line_number,
                                    shown(line), merge_form));
        }
        merges.push_back(*merge);
    }
    return merges;
}

Bpe checked(const std::vector<std::pair<std::string, std::uint32_t>>& vocab,
            const std::vector<BpeMerge>& merges, std::string_view files) {
    try {
        return {vocab, merges};
    } catch (const Error& e) {
        throw Error(ErrorKind::input, fmt::format("{}: {}", files, e.what()));
    }
}

}  // namespace

Bpe read_bpe(const std::string& vocab_path, const std::string& merges_path) {
    const auto file = JsonFile::read(vocab_path, "GPT-2's vocab.json: tokens and their ids");
    const auto vocab = vocabulary(file, file.root(), "");
    const auto merges = read_merges(merges_path);
    return checked(vocab, merges, fmt::format("{} with {}", shown(vocab_path), shown(merges_path)));
}

Bpe read_bpe_tokenizer_json(const std::string& path) {
    const auto r = JsonFile::read(path, "a Hugging Face tokenizer.json");
    const Value& root = r.root();
    const std::string_view expected = R"({"type": "BPE", "vocab": {...}, "merges": [...]})";
    const Value& model = r.require(root, "", "model", expected);
    r.expect_type(model, "model", Type::object, expected);
    if (const Value* type = model.find("type")) {
        if (!type->is(Type::string) || type->text != "BPE") {
            r.fail(*type, "model.type",
                   fmt::format("found {}{}, expected \"BPE\" (GPT-2's byte-level BPE)",
                               json::describe(type->type), JsonFile::quote(*type)));
        }
    }
    const auto vocab = vocabulary(r, r.require(model, "model", "vocab", expected), "model.vocab");
    const Value& list = r.require(model, "model", "merges", expected);
    r.expect_type(list, "model.merges", Type::array, "an array of merges, as [\"Ġ t\", ...]");
    std::vector<BpeMerge> merges;
    merges.reserve(list.items.size());
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const Value& item = list.items[i];
        const std::string where = reader::index("model.merges", i);
        std::optional<BpeMerge> merge;
        if (item.is(Type::string)) {
            merge = merge_of(item.text);  // "Ġ t", as tokenizers before 0.20 write them
        } else if (item.is(Type::array) && item.items.size() == 2 &&
                   item.items[0].is(Type::string) && item.items[1].is(Type::string) &&
                   !item.items[0].text.empty() && !item.items[1].text.empty()) {
            merge = BpeMerge{item.items[0].text, item.items[1].text};  // ["Ġ", "t"], since 0.20
        }
        if (!merge) {
            r.fail(item, where,
                   fmt::format("found {}{}, expected {} or a pair [\"Ġ\", \"t\"]",
                               json::describe(item.type), JsonFile::quote(item), merge_form));
        }
        merges.push_back(*merge);
    }
    return checked(vocab, merges, shown(path));
}

}  // namespace attn
