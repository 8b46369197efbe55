// Did you mean ...? The messages for what CLI11 could not place: an unknown option, an
// unknown command, a sentence without a command, an argument a command does not take. Each
// names what was typed (made visible: it came from outside attn) and, when one is close
// enough to be a likely typo (attn::nearest), what was probably meant.
#include "suggest.hpp"

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/input.hpp"
#include "cli.hpp"

namespace attn::cli {
namespace {

std::vector<std::string> option_names(const CLI::App& app, bool long_names) {
    std::vector<std::string> names;
    for (const CLI::Option* opt : app.get_options()) {
        for (const auto& n : long_names ? opt->get_lnames() : opt->get_snames()) {
            names.push_back((long_names ? "--" : "-") + n);
        }
    }
    return names;
}

std::string quoted_list(const std::vector<std::string>& items, std::string_view quote) {
    std::vector<std::string> q;
    q.reserve(items.size());
    for (const auto& i : items) {
        q.push_back(fmt::format("{}{}{}", quote, i, quote));
    }
    return listed(q, " or ");
}

// One argument that `app` (a command, or attn itself when `top`) could not place.
std::string about_one(const std::string& arg, const CLI::App& where, const CLI::App& app, bool top,
                      bool first, const std::string& sentence) {
    const std::string command = top ? "attn" : "attn " + where.get_name();
    if (arg.starts_with("-") && arg.size() > 1) {
        const bool is_long = arg.starts_with("--");
        const std::string name = arg.substr(0, arg.find('='));
        if (name == "-") {  // what CLI11 leaves of "-q=false": the flag, then "-=false"
            return fmt::format(
                "{} cannot read '{}': a short option takes its value after a space (-o FILE), a "
                "long one after a space or '=' (--precision=3), and a flag such as -q takes no "
                "value",
                command, shown(arg));
        }
        auto near = nearest(name, option_names(where, is_long));
        if (is_long && near.empty()) {
            near = nearest(name.substr(1), option_names(where, false));  // -hedas for --heads?
        }
        std::string text = fmt::format("{} has no option {}", command, shown(name));
        if (!near.empty()) {
            text += fmt::format("; did you mean {}?", quoted_list(near, ""));
        } else if (top) {
            text += "; the options of each command are listed by 'attn COMMAND --help'";
        }
        return text;
    }
    if (top && first) {
        std::vector<std::string> commands;
        for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
            commands.push_back(sub->get_name());
        }
        const auto near = near_names(arg, commands);
        if (!near.empty()) {
            return fmt::format("attn has no command '{}'; did you mean {}?", shown(arg),
                               quoted_list(near, "'"));
        }
        // the words given without quotes are one sentence: attn This is book
        return fmt::format(
            "'{}' is not a command of attn; to walk through a sentence, name the command "
            "first: attn explain \"{}\"",
            shown(arg), shown(sentence));
    }
    return fmt::format("{} takes no argument '{}'", command, shown(arg));
}

}  // namespace

std::string unplaced_arguments(const std::vector<std::string>& extras, const CLI::App& where,
                               const CLI::App& app) {
    const bool top = &where == &app;
    // the words before any option, as one sentence
    std::string sentence;
    for (const auto& extra : extras) {
        if (extra.starts_with("-")) {
            break;
        }
        sentence += (sentence.empty() ? "" : " ") + extra;
    }
    std::string text;
    for (std::size_t i = 0; i < extras.size(); ++i) {
        if (top && i > 0 && !extras[0].starts_with("-")) {
            break;  // the rest belongs to the command that was not found
        }
        text += (i == 0 ? "" : "\nattn: error: ") +
                about_one(extras[i], where, app, top, i == 0, sentence);
    }
    return text;
}

}  // namespace attn::cli
