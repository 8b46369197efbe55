// The notes under a GPT-2 checkpoint's summary of the layers below (layers_below): a line per
// layer, computed from the lengths the Trace holds, so that "what each layer did" is said
// in words as well as in the table.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attn/core/trace.hpp"
#include "attn/render/render.hpp"
#include "narrative.hpp"

namespace attn::lesson {

void layers_below_notes(const Trace& t, int precision, Notes& n) {
    if (!t.gpt2 || t.gpt2->layer == 0) {
        return;
    }
    const Gpt2Walk& g = *t.gpt2;
    const auto num = [precision](double x) { return format_number(x, precision, true); };
    // "0.5345 to 2.1465 long (the longest for 'He')": the range of a row and its largest token
    const auto range = [&](const Matrix& m, std::size_t row, bool who) {
        const auto values = m.row(row);
        const auto low = std::min_element(values.begin(), values.end());
        const auto high = std::max_element(values.begin(), values.end());
        const auto at = static_cast<std::size_t>(high - values.begin());
        if (values.size() == 1) {
            return num(*high) + (who ? " long" : "");
        }
        return fmt::format(
            "{} to {}{}", num(*low), num(*high),
            who ? fmt::format(" long (the longest for {})", quoted(t.tokens[at])) : "");
    };
    // a line per layer; of a deep model, the first six and the last six
    constexpr std::size_t shown = 12;
    const std::size_t layers = g.layer;
    for (std::size_t l = 0; l < layers; ++l) {
        if (layers > shown && l == shown / 2) {
            n.after.push_back(
                fmt::format("… {} more layers, in the table above …", layers - shown));
            l = layers - shown / 2 - 1;
            continue;
        }
        n.after.push_back(fmt::format(
            "Layer {} [{}h.{}]: its attention added to each token's vector a change {}, its "
            "MLP one {}; after the layer the vectors are {} long.",
            l + 1, g.prefix, l, range(g.layer_changes, 2 * l, true),
            range(g.layer_changes, 2 * l + 1, true), range(g.layer_norms, 2 * l + 1, false)));
    }
}

}  // namespace attn::lesson
