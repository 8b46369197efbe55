// Where attn finds its worked examples, `attn examples`, and example names for --model.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "attn/io/model_file.hpp"
#include "attn/render/render.hpp"
#include "cli.hpp"

#ifndef ATTN_INSTALL_DATADIR
#define ATTN_INSTALL_DATADIR "/usr/local/share/attn"
#endif

namespace attn::cli {

namespace fs = std::filesystem;

std::vector<std::string> data_dirs(const Io& io) {
    std::vector<std::string> dirs;
    if (const auto env = io.getenv("ATTN_DATA_DIR"); env && !env->empty()) {
        dirs.push_back(*env);
    }
    if (!io.executable.empty()) {
        const fs::path bin = fs::path(io.executable).parent_path();
        dirs.push_back((bin / ".." / "share" / "attn").lexically_normal().string());
        dirs.push_back((bin / ".." / ".." / "data").lexically_normal().string());  // a build tree
    }
    dirs.emplace_back(ATTN_INSTALL_DATADIR);
    return dirs;
}

std::optional<std::string> examples_dir(const Io& io) {
    for (const auto& dir : data_dirs(io)) {
        std::error_code ec;
        if (fs::is_directory(fs::path(dir) / "examples", ec)) {
            return (fs::path(dir) / "examples").string();
        }
    }
    return std::nullopt;
}

std::string resolve_input_file(const std::string& path, const Io& io) {
    struct stat st {};
    if (path.empty() || path.find('/') != std::string::npos || ::stat(path.c_str(), &st) == 0) {
        return path;
    }
    if (const auto dir = examples_dir(io)) {
        for (const std::string& name : {path, path + ".json"}) {
            const fs::path candidate = fs::path(*dir) / name;
            if (::stat(candidate.c_str(), &st) == 0) {
                return candidate.string();
            }
        }
        // neither a file nor an example: a misspelt example's name?
        std::vector<std::string> names;
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(*dir, ec)) {
            if (entry.path().extension() == ".json") {
                names.push_back(entry.path().stem().string());
            }
        }
        std::sort(names.begin(), names.end());
        const std::string stem = path.ends_with(".json") ? path.substr(0, path.size() - 5) : path;
        auto near = nearest(stem, names);
        // or the start of a name: "this-is" for this-is-book, "random-4x8" for random-4x8-qkv
        const bool typo = !near.empty();
        for (const auto& n : names) {
            if (!typo && stem.size() >= 3 && n.starts_with(stem)) {
                near.push_back(n);
            }
        }
        if (!near.empty()) {
            std::vector<std::string> quoted;
            quoted.reserve(near.size());
            for (const auto& n : near) {
                quoted.push_back("'" + shown(n) + "'");
            }
            throw Error(ErrorKind::input,
                        fmt::format("cannot read {}: there is no such file and no example of "
                                    "that name; did you mean the example {}? ('attn examples' "
                                    "lists them)",
                                    shown(path), listed(quoted, " or ")));
        }
    }
    return path;  // reading it will say that it does not exist
}

int run_examples(const ExamplesOptions& o, Io& io) {
    const auto dir = examples_dir(io);
    if (!dir) {
        std::string searched;
        for (const auto& d : data_dirs(io)) {
            searched += "\n  " + d + "/examples";
        }
        throw Error(ErrorKind::input,
                    "found no examples folder, expected one of:" + searched +
                        "\n  hint: set ATTN_DATA_DIR to the folder that holds examples/");
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(*dir)) {
        if (entry.path().extension() == ".json") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    if (o.names_only) {
        for (const auto& file : files) {
            io.out << shown(file.stem().string()) << '\n';
        }
        return 0;
    }
    std::vector<ExampleEntry> entries;
    for (const auto& file : files) {
        const std::string name = file.stem().string();
        // a model file (--model) or a lesson that starts from Q, K and V (--qkv)
        ExampleEntry e{name, "", "attn explain --model " + name, ""};
        try {
            const ModelFile model = read_model(file.string());
            e.description = model.description.value_or("");
            e.made_by = model.training ? model.training->command : "";
        } catch (const Error& model_error) {
            try {
                e.description = read_qkv(file.string()).description.value_or("");
                e.command = "attn explain --qkv " + name;
            } catch (const Error&) {
                e.description = std::string("(cannot be read: ") + model_error.what() + ")";
            }
        }
        entries.push_back(std::move(e));
    }
    TextStyle style;
    style.width = text_width(0, io);
    io.out << render_examples(*dir, entries, style);
    return 0;
}

}  // namespace attn::cli
