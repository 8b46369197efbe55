// The `attn` program: subcommands, --help, --version, and the one place that turns
// exceptions into "attn: error: ..." and exit codes.
#include <ostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"
#include "attn/version.hpp"
#include "cli.hpp"

namespace attn::cli {

std::string version_text() {
    // the tokens of a sentence depend on the Unicode data of the utf8proc that attn runs with
    return fmt::format(
        "attn {}\nbuilt with CLI11 {}, fmt {}.{}.{}, {} {}.{}.{}\nUnicode {} (utf8proc {})\n",
        version, CLI11_VERSION, FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100,
#if defined(__clang__)
        "clang", __clang_major__, __clang_minor__, __clang_patchlevel__,
#else
        "g++", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
#endif
        utf8::unicode_version(), utf8::utf8proc_version());
}

int run(const std::vector<std::string>& args, Io& io) {
    CLI::App app{"attn: self-attention, the heart of the transformer, one step at a time.", "attn"};
    app.require_subcommand(0, 1);
    app.footer(
        "Run 'attn explain --help' for the walk-through's options.\n"
        "Example: attn explain \"This is book\"");
    bool show_version = false;
    app.add_flag("--version", show_version,
                 "Print the version and the libraries attn was built with");

    ExplainOptions explain_options;
    CLI::App* explain = app.add_subcommand(
        "explain",
        "Walk through self-attention for a sentence: tokens, embeddings X, Q = X·W_Q, K, V, "
        "scores Q·Kᵀ, scaling by √d_k, masking, softmax and the output A·V");
    configure_explain(*explain, explain_options);

    InitOptions init_options;
    CLI::App* init = app.add_subcommand(
        "init", "Write a starter model file (embeddings and weights) for a sentence, to edit");
    configure_init(*init, init_options);

    WorksheetOptions worksheet_options;
    CLI::App* worksheet = app.add_subcommand(
        "worksheet",
        "Write a by-hand exercise: a worksheet with blank cells, its answer key and "
        "an answers template");
    configure_worksheet(*worksheet, worksheet_options);

    ExamplesOptions examples_options;
    CLI::App* examples = app.add_subcommand(
        "examples", "List the worked examples that come with attn (use: --model NAME)");
    configure_examples(*examples, examples_options);

    CheckOptions check_options;
    CLI::App* check = app.add_subcommand(
        "check",
        "Check a student's filled-in answers.json, cell by cell, and name the likely "
        "mistakes");
    configure_check(*check, check_options);

    // CLI11 wants argv; args come without the program name
    std::vector<const char*> argv{"attn"};
    for (const auto& a : args) {
        argv.push_back(a.c_str());
    }
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::CallForHelp&) {
        io.out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        io.out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::ConversionError& e) {
        // CLI11 says "Could not convert: --d-k = x"; say what was expected instead
        std::string what = e.what();
        const std::string prefix = "Could not convert: ";
        const auto eq = what.find(" = ");
        if (what.starts_with(prefix) && eq != std::string::npos) {
            what = fmt::format("{} is '{}', expected a whole number",
                               what.substr(prefix.size(), eq - prefix.size()), what.substr(eq + 3));
        }
        io.err << "attn: error: " << what
               << "\n  hint: run 'attn explain --help' for the options\n";
        return 2;
    } catch (const CLI::ParseError& e) {
        // CLI11 throws CallForHelp from the subcommand too; its help is the subcommand's
        if (e.get_exit_code() == 0) {
            io.out << app.help();
            return 0;
        }
        const std::string where = explain->parsed()     ? "attn explain"
                                  : init->parsed()      ? "attn init"
                                  : worksheet->parsed() ? "attn worksheet"
                                  : check->parsed()     ? "attn check"
                                                        : "attn";
        io.err << "attn: error: " << e.what() << "\n  hint: run '" << where
               << " --help' for the options\n";
        return 2;
    }

    try {
        if (show_version) {
            io.out << version_text();
            return 0;
        }
        if (explain->parsed()) {
            return run_explain(explain_options, io);
        }
        if (init->parsed()) {
            return run_init(init_options, io);
        }
        if (worksheet->parsed()) {
            return run_worksheet(worksheet_options, io);
        }
        if (check->parsed()) {
            return run_check(check_options, io);
        }
        if (examples->parsed()) {
            return run_examples(examples_options, io);
        }
        io.out << app.help();
        return 2;
    } catch (const Error& e) {
        io.err << "attn: error: " << e.what() << '\n';
        return e.exit_code();
    } catch (const std::bad_alloc&) {
        io.err << "attn: error: out of memory; try smaller sizes (--d-model, --d-k, --d-v) or "
                  "a shorter sentence\n";
        return 1;
    } catch (const std::exception& e) {
        io.err << "attn: error: internal error: " << e.what()
               << " (this is a bug in attn; please report it)\n";
        return 1;
    }
}

}  // namespace attn::cli
