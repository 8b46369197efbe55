// `attn init`: a starter model file with seeded numbers, ready to edit.
#include <sys/stat.h>

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"
#include "attn/io/output_file.hpp"
#include "cli.hpp"

namespace attn::cli {
namespace {

// `text` as one shell word: in double quotes when nothing in it is special there, else in
// ANSI-C quotes ($'...'), where a newline or any other control character is an escape, so
// that the command stays on its one comment line of the model file.
std::string shell_word(std::string_view text) {
    const bool plain = std::none_of(text.begin(), text.end(), [](char ch) {
        const auto u = static_cast<unsigned char>(ch);
        return u < 0x20 || u == 0x7f || ch == '"' || ch == '\\' || ch == '$' || ch == '`';
    });
    if (plain) {
        return "\"" + std::string(text) + "\"";
    }
    std::string word = "$'";
    for (char ch : text) {
        const auto u = static_cast<unsigned char>(ch);
        if (ch == '\'' || ch == '\\') {
            word += '\\';
            word += ch;
        } else if (ch == '\n') {
            word += "\\n";
        } else if (ch == '\t') {
            word += "\\t";
        } else if (u < 0x20 || u == 0x7f) {
            word += fmt::format("\\x{:02x}", u);
        } else {
            word += ch;
        }
    }
    return word + "'";
}

// The command that reproduces the file, with every choice spelled out.
std::string command_line(const InitOptions& o, const Config& c, const std::string& sentence) {
    std::string cmd = "attn init " + shell_word(sentence);
    cmd +=
        fmt::format(" --seed {} --d-model {} --d-k {} --d-v {}", c.seed, c.d_model, c.d_k, c.d_v);
    if (c.mask != MaskKind::none) {
        cmd += fmt::format(" --mask {}", to_string(c.mask));
    }
    cmd += o.input.lowercase ? " --lowercase" : "";
    cmd += o.input.chars ? " --chars" : "";
    return cmd;
}

}  // namespace

int run_init(const InitOptions& o, Io& io) {
    // the sentence is checked by the tokenizer; the description goes into the file as it is
    if (const auto bad = utf8::first_invalid(o.description)) {
        throw errors::invalid_utf8("--description", *bad,
                                   static_cast<unsigned char>(o.description[*bad]));
    }
    const InputSpec spec = to_spec(o.input);
    std::vector<OutputTarget> outputs;
    if (o.output != "-") {
        outputs.push_back({"--output", o.output});
        // a FIFO or a device is written into, not replaced: it may exist
        struct stat st {};
        if (!o.force && special_file_kind(o.output).empty() && ::stat(o.output.c_str(), &st) == 0) {
            throw Error(ErrorKind::usage,
                        fmt::format("{} exists, expected a new file name (attn init never "
                                    "replaces a file unless you add --force)",
                                    shown(o.output)));
        }
    }
    check_outputs(outputs, input_targets(spec), o.force);
    const Loaded loaded = load_input(spec);
    Input input = loaded.input;
    input.description = o.description;
    const std::string text =
        render_model_file(input, loaded.config, command_line(o, loaded.config, input.sentence));
    if (o.output == "-") {
        io.out << text;
        flush_stdout(io);
        return 0;
    }
    OutputSet files(o.force);
    files.add(outputs.front(), [&text](const OutputSet::Sink& sink) { sink(text); });
    const auto written = files.write_all();
    io.err << "attn: wrote " << shown(describe(written.front()));
    if (written.front().in_place.empty()) {
        io.err << "; explain it with: attn explain --model " << shown(o.output);
    }
    io.err << '\n';
    return 0;
}

}  // namespace attn::cli
