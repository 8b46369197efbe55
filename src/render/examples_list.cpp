// `attn examples`: the worked examples, each with its description and the command that runs it.
#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "toolkit.hpp"

namespace attn {

std::string render_examples(std::string_view dir, const std::vector<ExampleEntry>& examples,
                            const TextStyle& style) {
    constexpr std::size_t indent = 4;
    std::string out = fmt::format("Worked examples in {}:\n", toolkit::terminal(dir));
    for (const auto& e : examples) {
        out += fmt::format("\n  {}\n", toolkit::terminal(e.name));
        const std::string description = toolkit::terminal(e.description);
        for (const auto& line : toolkit::wrap(description, style.width, indent, indent)) {
            out += std::string(indent, ' ') + line + '\n';
        }
        out += std::string(indent, ' ') + "$ " + toolkit::terminal(e.command) + '\n';
        if (!e.made_by.empty()) {  // learned: how to make it again
            const std::string made = "learned by: $ " + toolkit::terminal(e.made_by) +
                                     " (makes this file again, byte for byte)";
            const auto lines = toolkit::wrap(made, style.width, indent, indent + 2);
            for (std::size_t i = 0; i < lines.size(); ++i) {
                out += std::string(i == 0 ? indent : indent + 2, ' ') + lines[i] + '\n';
            }
        }
    }
    return out;
}

}  // namespace attn
