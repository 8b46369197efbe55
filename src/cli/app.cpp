// The `attn` program: subcommands, --help, --version, and the one place that turns
// exceptions into "attn: error: ..." and exit codes.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <ostream>
#include <span>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"
#include "attn/version.hpp"
#include "cli.hpp"
#include "declare.hpp"
#include "suggest.hpp"

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

void flush_stdout(Io& io, std::string_view what_else) {
    io.out.flush();
    if (io.out) {
        return;
    }
    const int err = io.out_errno();
    // NOLINTNEXTLINE(concurrency-mt-unsafe): the main thread, after the work
    const std::string why = err != 0 ? std::strerror(err) : "the stream failed";
    throw Error(ErrorKind::output, fmt::format("cannot write to stdout: {}{}", why, what_else));
}

std::string message_of(const Error& error) {
    const auto flag = flag_of(error.field());
    // a usage error is about what was typed: name the flag; so is an input file too large for
    // --max-memory (the option that raises the limit); anything else keeps its name
    if ((error.kind() == ErrorKind::usage || error.field() == Field::max_memory) && !flag.empty()) {
        return error.message(flag);
    }
    return error.what();
}

namespace {

// A subcommand: its CLI11 app, and how to run it with its options once they are parsed.
struct Command {
    CLI::App* app = nullptr;
    std::function<int(Io&)> run;
    std::function<void()> declare;  // its options
};

// A subcommand, its options declared when it may be the one that runs (declare): declaring
// every option of every command took half of a classroom run's instructions (CLI11 compares
// each new option with every one before it).
template <typename Options>
Command command(CLI::App& parent, Options& options, int (*run)(const Options&, Io&),
                const Wanted& wanted) {
    CLI::App* sub = add_command(parent, options);
    return {sub, [&options, run](Io& io) { return run(options, io); },
            [sub, &options, &wanted] { add_options(sub, options, wanted); }};
}

}  // namespace

namespace {

// Prints `text` (help, the version) to stdout and returns `code`, or 1 with a message when
// stdout cannot be written (a full disk).
int print(Io& io, const std::string& text, int code) {
    io.out << text;
    try {
        flush_stdout(io);
    } catch (const Error& e) {
        io.err << "attn: error: " << e.what() << '\n';
        return 1;
    }
    return code;
}

}  // namespace

namespace {

// Runs attn with the arguments `args`, declaring the named command's options that `wanted`.
int run(const std::vector<std::string>& args, Io& io, const Wanted& wanted) {
    CLI::App app{"", "attn"};
    app.require_subcommand(0, 1);
    ProgramOptions program_options;
    declare_options(app, program_options);

    ExplainOptions explain_options;
    InitOptions init_options;
    TrainOptions train_options;
    WorksheetOptions worksheet_options;
    ExamplesOptions examples_options;
    CheckOptions check_options;
    DiffOptions diff_options;
    const std::vector<Command> commands{
        command(app, explain_options, run_explain, wanted),
        command(app, init_options, run_init, wanted),
        command(app, train_options, run_train, wanted),
        command(app, worksheet_options, run_worksheet, wanted),
        command(app, examples_options, run_examples, wanted),
        command(app, check_options, run_check, wanted),
        command(app, diff_options, run_diff, wanted),
    };
    // when the first argument names a command, only that one's options: the others are
    // never parsed (their names stay, for --help and did-you-mean)
    const bool named =
        !args.empty() && std::any_of(commands.begin(), commands.end(), [&](const Command& c) {
            return c.app->get_name() == args.front();
        });
    for (const auto& c : commands) {
        if (!named || c.app->get_name() == args.front()) {
            c.declare();
        }
    }
    const auto parsed = [&]() -> const Command* {
        for (const auto& c : commands) {
            if (c.app->parsed()) {
                return &c;
            }
        }
        return nullptr;
    };

    // CLI11 wants argv; args come without the program name
    std::vector<const char*> argv{"attn"};
    for (const auto& a : args) {
        argv.push_back(a.c_str());
    }
    try {
        try {
            app.parse(static_cast<int>(argv.size()), argv.data());
        } catch (const CLI::ParseError&) {
            if (!wanted.every()) {
                // an error, or --help: said with every option of the command declared
                return run(args, io, Wanted::all());
            }
            throw;
        }
    } catch (const CLI::CallForHelp&) {
        return print(io, app.help(), 0);
    } catch (const CLI::CallForAllHelp&) {
        return print(io, app.help("", CLI::AppFormatMode::All), 0);
    } catch (const CLI::ValidationError& e) {
        // attn's validators say "is 'x', expected ..."; CLI11 puts "--d-k: " before it
        std::string what = e.what();
        const auto colon = what.find(": is ");
        if (colon != std::string::npos) {
            what.erase(colon, 1);
        }
        const Command* c = parsed();
        io.err << "attn: error: " << what << "\n  hint: run '"
               << (c != nullptr ? "attn " + c->app->get_name() : std::string("attn"))
               << " --help' for the options\n";
        return 2;
    } catch (const CLI::ExtrasError&) {
        // an unknown option or command, or a sentence without a command: say what was meant
        const Command* c = parsed();
        const CLI::App& where = c != nullptr ? *c->app : app;
        io.err << "attn: error: " << unplaced_arguments(where.remaining(), where, app)
               << "\n  hint: run '" << (c != nullptr ? "attn " + c->app->get_name() : "attn")
               << " --help' for the options\n";
        return 2;
    } catch (const CLI::ConversionError& e) {
        // CLI11 says "Could not convert: --d-k = x"; say what was expected instead
        std::string what = e.what();
        const std::string prefix = "Could not convert: ";
        const auto eq = what.find(" = ");
        if (what.starts_with(prefix) && eq != std::string::npos) {
            what = fmt::format("{} is '{}', expected a whole number",
                               what.substr(prefix.size(), eq - prefix.size()), what.substr(eq + 3));
        }
        io.err << "attn: error: " << shown(what, true)
               << "\n  hint: run 'attn explain --help' for the options\n";
        return 2;
    } catch (const CLI::RequiredError& e) {
        // CLI11 says "second is required": name the argument as the usage writes it (B.json)
        // and show the whole command line it belongs to
        const Command* c = parsed();
        const CLI::App& where = c != nullptr ? *c->app : app;
        const std::string what = e.what();
        const std::string name = what.substr(0, what.find(" is required"));
        const CLI::Option* missing = where.get_option_no_throw(name);
        const std::string command = c != nullptr ? "attn " + where.get_name() : "attn";
        if (missing != nullptr) {
            // an argument as the usage writes it: "B.json", or "--output MODEL.json"
            const auto as_written = [](const CLI::Option& o) {
                if (o.get_positional()) {
                    return o.get_type_name();
                }
                return (o.get_lnames().empty() ? "-" + o.get_snames().front()
                                               : "--" + o.get_lnames().front()) +
                       " " + o.get_type_name();
            };
            // the arguments the command needs: its positionals, then its required options
            std::string usage = command;
            std::string required;
            for (const CLI::Option* o : where.get_options()) {
                if (o->get_positional()) {
                    usage += " " + as_written(*o);
                } else if (o->get_required()) {
                    required += " " + as_written(*o);
                }
            }
            usage += required;
            std::string about = missing->get_description();
            if (!about.empty()) {
                about[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(about[0])));
            }
            io.err << fmt::format(
                "attn: error: {} needs {}: {}; usage: {}\n  hint: run '{} --help' for the "
                "options\n",
                command, as_written(*missing), about, usage, command);
            return 2;
        }
        io.err << "attn: error: " << shown(what, true) << "\n  hint: run '" << command
               << " --help' for the options\n";
        return 2;
    } catch (const CLI::ParseError& e) {
        // CLI11 throws CallForHelp from the subcommand too; its help is the subcommand's
        if (e.get_exit_code() == 0) {
            return print(io, app.help(), 0);
        }
        const Command* c = parsed();
        const std::string where = c != nullptr ? "attn " + c->app->get_name() : "attn";
        io.err << "attn: error: " << shown(e.what(), true) << "\n  hint: run '" << where
               << " --help' for the options\n";
        return 2;
    }

    try {
        if (program_options.version) {
            return print(io, version_text(), 0);
        }
        if (const Command* c = parsed()) {
            const int code = c->run(io);
            flush_stdout(io);  // what a command printed reached stdout, or an error says why
            return code;
        }
        return print(io, app.help(), 2);
    } catch (const Error& e) {
        // every message, whatever it quotes, reaches the terminal with its controls visible
        io.err << "attn: error: " << shown(message_of(e), true) << '\n';
        return e.exit_code();
    } catch (const std::bad_alloc&) {
        io.err << "attn: error: out of memory; try smaller sizes (--d-model, --d-k, --d-v) or "
                  "a shorter sentence\n";
        return 1;
    } catch (const std::exception& e) {
        io.err << "attn: error: internal error: " << shown(e.what(), true)
               << " (this is a bug in attn; please report it)\n";
        return 1;
    }
}

}  // namespace

int run(const std::vector<std::string>& args, Io& io) {
    // the options of the command named first that the other arguments name (declare.hpp)
    const Wanted wanted =
        args.empty() ? Wanted::all() : Wanted::named_in(std::span(args).subspan(1));
    return run(args, io, wanted);
}

}  // namespace attn::cli
