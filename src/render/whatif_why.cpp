// The closing section of a what-if (--set) and of attn diff: what was changed, which steps
// moved and the way the change went from step to step, the attention weights that moved
// most, and the output's tokens that changed and why. Every number is read from the
// Comparison the core made (attn/core/whatif.hpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "lesson.hpp"
#include "narrative.hpp"
#include "toolkit.hpp"
#include "whatif_words.hpp"

namespace attn::lesson {
namespace {

using whatif::before_name;
using whatif::changes_paragraph;
using whatif::clauses;
using whatif::config_differences;
using whatif::from_to;
using whatif::is_input;
using whatif::num;
using whatif::signed_num;
using whatif::step_words;
using whatif::sym;

// "X → Q, K and V; Q and K → S → S′ → A; A and V → Z": each hop of Comparison::path, the
// steps computed from the same changed steps together, a chain of one step each in a row.
std::string path_words(const Trace& t, const Comparison& cmp) {
    struct Clause {
        std::vector<std::string> from;  // step ids
        std::vector<std::string> to;
        bool chain = false;  // to: one after the other, each from the one before
    };
    std::vector<Clause> out;
    for (const Hop& hop : cmp.path) {
        if (!out.empty()) {
            Clause& last = out.back();
            if (!last.chain && hop.from == last.from && !hop.from.empty()) {
                last.to.push_back(hop.id);  // computed from the same steps
                continue;
            }
            // X → Q, K and V, not tokens → X → Q; X → K and V: a chain goes on only through a
            // step that no other step is computed from
            const auto fed = std::count_if(cmp.path.begin(), cmp.path.end(), [&](const Hop& h) {
                return std::find(h.from.begin(), h.from.end(), last.to.back()) != h.from.end();
            });
            if ((last.to.size() == 1 || last.chain) && hop.from.size() == 1 &&
                hop.from.front() == last.to.back() && fed == 1) {
                last.chain = true;  // computed from the step before alone
                last.to.push_back(hop.id);
                continue;
            }
        }
        out.push_back({hop.from, {hop.id}, false});
    }
    const auto names = [&t](const std::vector<std::string>& ids) {
        std::vector<std::string> symbols;
        symbols.reserve(ids.size());
        for (const auto& id : ids) {
            const Step* step = find_step(t, id);
            symbols.push_back(step == nullptr ? id : sym(*step));
        }
        return symbols;
    };
    // a step none of whose operands changed: the runs' settings differ (attn diff)
    const auto config = config_differences(cmp.before.config, t.config);
    const std::string settings =
        config.empty() ? "the settings" : fmt::format("the settings ({})", listed(config, ", "));
    std::vector<std::string> words;
    words.reserve(out.size());
    for (const Clause& c : out) {
        const auto to = names(c.to);
        std::string chain;
        for (const auto& name : to) {
            chain += (chain.empty() ? "" : " → ") + name;
        }
        words.push_back(fmt::format("{} → {}", c.from.empty() ? settings : join_list(names(c.from)),
                                    c.chain ? chain : join_list(to)));
    }
    return clauses(words);
}

// A token of the run as shown: 'cat' (token 4) when the sentence has it more than once, and a
// token that differs from the run before (a swap, --set tokens[2]=hat; attn diff) with the one
// it replaced: 'hat' (was 'book').
std::string now_token(const Trace& t, const Comparison& cmp, std::size_t i) {
    std::string name = token_name(t, i);
    if (i < cmp.before.tokens.size() && cmp.before.tokens[i] != t.tokens[i]) {
        name += fmt::format(" (was {})", token_name(cmp.before, i));
    }
    return name;
}

// Whether some token differs from the run before.
bool tokens_differ(const Trace& t, const Comparison& cmp) {
    return cmp.before.tokens != t.tokens;
}

}  // namespace

std::string what_changed_title(const Trace& t) {
    return t.comparison->before_name.empty() ? "What changed, and why" : "What differs, and why";
}

std::vector<std::string> what_changed(const Trace& t, int precision, Layout layout) {
    const Comparison& cmp = *t.comparison;
    std::vector<std::string> out;
    out.push_back(changes_paragraph(t, cmp, precision, layout));

    // the computed steps, in order and as shown: which changed, where and by how much
    const bool col = layout == Layout::col && !t.column_steps.empty();
    std::vector<std::string> moved;
    std::vector<std::string> same;
    for (const Step& step : col ? t.column_steps : teaching_steps(t)) {
        const StepDelta* d = cmp.delta(step.id);
        if (d == nullptr || step.kind == StepKind::tokens || is_input(step, t)) {
            continue;
        }
        if (d->changed == 0) {
            same.push_back(sym(step));
        } else {
            moved.push_back(step_words(*d, step, "changed", precision));
        }
    }
    if (!moved.empty() || !same.empty()) {
        std::string path = moved.empty() ? "No step computed from the inputs changed"
                                         : "Step by step: " + clauses(moved);
        if (!same.empty()) {
            path += fmt::format("{}{} did not change", moved.empty() ? ": " : ". ", listed(same));
        }
        path += ".";
        for (const auto& [ids, who] : {std::pair{&cmp.only_after, "B"}, {&cmp.only_before, "A"}}) {
            std::vector<std::string> names;
            for (const auto& id : *ids) {
                const Step* step = find_step(who[0] == 'B' ? t : cmp.before, id);
                names.push_back(step == nullptr ? id : sym(*step));
            }
            if (!names.empty()) {
                path += fmt::format(" Only {} has {}.", who, listed(names));
            }
        }
        if (!cmp.path.empty()) {
            path +=
                fmt::format(" The way the {} went, from step to step: {}.",
                            cmp.before_name.empty() ? "change" : "difference", path_words(t, cmp));
        }
        out.push_back(path);
    }

    // the attention weights
    std::size_t n_weights = 0;
    for (const Head& h : t.heads) {
        n_weights += h.attention.size();
    }
    const bool heads = t.heads.size() > 1;
    const auto cell = [&](std::size_t head, std::size_t i, std::size_t j) {
        return fmt::format("{}{} → {}", heads ? fmt::format("head {}: ", head + 1) : "",
                           now_token(t, cmp, i), now_token(t, cmp, j));
    };
    if (cmp.weights_changed == 0) {
        out.emplace_back(
            "No attention weight changed, so every token shares its attention as "
            "before.");
    } else {
        std::vector<std::string> most;
        for (const WeightMove& m : cmp.moved) {
            most.push_back(fmt::format("{} {} ({})", cell(m.head, m.row, m.col),
                                       from_to(m.before, m.after, precision),
                                       signed_num(m.after - m.before, precision)));
        }
        std::string text =
            cmp.weights_changed == 1
                ? fmt::format("One attention weight of the {} changed: {}.", n_weights,
                              most.front())
                : fmt::format("{} attention weights changed{}: {}.",
                              cmp.weights_changed == n_weights
                                  ? fmt::format("All {}", n_weights)
                                  : fmt::format("{} of the {}", cmp.weights_changed, n_weights),
                              most.size() == cmp.weights_changed
                                  ? ""
                                  : fmt::format("; the {} that moved most", most.size()),
                              clauses(most));
        if (cmp.focus.empty()) {
            // a swapped token is another token in the same place: say which is the same
            text += tokens_differ(t, cmp)
                        ? " Every token still attends most to the same place in the sentence as "
                          "before."
                        : " Every token still attends most to the same token as before.";
        } else {
            std::vector<std::string> now;
            for (const FocusChange& f : cmp.focus) {
                const std::string in_head =
                    heads ? fmt::format("In head {}, ", f.head + 1) : std::string();
                const std::string row = in_head + now_token(t, cmp, f.row);
                constexpr auto none = FocusChange::no_key;
                if (f.key_after == none) {
                    now.push_back(fmt::format(
                        "{} now attends to no token (every key is masked for it); before, it "
                        "attended most to {} ({})",
                        row, token_name(cmp.before, f.key_before),
                        num(f.weight_before, precision)));
                } else if (f.key_before == none) {
                    now.push_back(fmt::format(
                        "{} now attends most to {} ({}); before, it attended to no token (every "
                        "key was masked for it)",
                        row, now_token(t, cmp, f.key_after), num(f.weight_after, precision)));
                } else {
                    now.push_back(fmt::format(
                        "{} now attends most to {} ({}), no longer to {} ({} before)", row,
                        now_token(t, cmp, f.key_after), num(f.weight_after, precision),
                        token_name(cmp.before, f.key_before), num(f.weight_before, precision)));
                }
            }
            for (const auto& sentence : now) {  // each its own: some have a ';'
                text += " " + sentence + ".";
            }
        }
        out.push_back(text);
    }

    // the output, row by row, and why each row moved
    const std::string o = t.projected ? "O" : "Z";
    if (cmp.output_rows.empty()) {
        out.push_back(
            fmt::format("The output {} did not change: no token's vector differs from {}.", o,
                        before_name(cmp)));
        return out;
    }
    std::vector<std::string> rows;
    for (const OutputRowChange& r : cmp.output_rows) {
        rows.push_back(
            fmt::format("{} by {}", now_token(t, cmp, r.row), num(r.distance, precision)));
    }
    const OutputRowChange& top = cmp.output_rows.front();
    const Step* out_step = find_step(t, "output");
    std::string token = shown(toolkit::cell_label(t.tokens, top.row));  // cat#4 if repeated
    std::string column = shown(out_step->col_labels[top.col]);
    if (col) {
        std::swap(token, column);  // the cell as shown: tokens are columns
    }
    out.push_back(fmt::format(
        "The output {} changed for {} tokens: {} (the length of the change of each token's "
        "vector). The largest change of one number is {}[{}, {}], {}.",
        o,
        cmp.output_rows.size() == cmp.output_rows_total
            ? fmt::format("all {} of its", cmp.output_rows_total)
            : fmt::format("{} of its {}", cmp.output_rows.size(), cmp.output_rows_total),
        join_list(rows), o, token, column,
        from_to(cmp.before.output(top.row, top.col), t.output(top.row, top.col), precision)));
    const StepDelta* w_o = cmp.delta("W_O");
    std::vector<std::string> why;
    for (std::size_t k = 0; k < std::min<std::size_t>(cmp.output_rows.size(), 3); ++k) {
        const OutputRowChange& r = cmp.output_rows[k];
        std::vector<std::string> reasons;  // what moved it
        std::vector<std::string> still;    // what did not
        if (r.weights_moved > 0.0) {
            reasons.push_back(
                fmt::format("its weights moved by up to {}{}", num(r.weights_moved, precision),
                            heads ? fmt::format(" (in head {})", r.weights_head + 1) : ""));
        } else {
            still.emplace_back("its weights did not move");
        }
        if (!r.values_changed.empty()) {
            std::vector<std::string> parts;
            for (const auto& [j, weight] : r.values_changed) {
                parts.push_back(fmt::format("{} (weight {}{})", now_token(t, cmp, j),
                                            num(weight, precision), heads ? " at most" : ""));
            }
            reasons.push_back(fmt::format("the value {} of {} it gives weight to changed: {}",
                                          r.values_changed.size() == 1 ? "vector" : "vectors",
                                          r.values_changed.size() == 1 ? "a token" : "tokens",
                                          join_list(parts)));
        } else {
            still.emplace_back("no value vector it gives weight to changed");
        }
        for (const auto* projection : {w_o, cmp.delta("b_O")}) {
            if (projection != nullptr && projection->changed > 0) {
                reasons.push_back(projection->id + " changed");
            }
        }
        std::string text =
            fmt::format("For {}, {}", now_token(t, cmp, r.row), listed(reasons, ", and "));
        if (!still.empty()) {
            text += (reasons.empty() ? "" : "; ") + listed(still, ", and ");
        }
        why.push_back(text + ".");
    }
    std::string because =
        t.projected
            ? "Why: each token's output vector in O = Z·W_O mixes the heads' outputs, each "
              "A_h·V_h, that token's weights times the value vectors; so it moves when its "
              "weights move, when a value vector it gives weight to moves, or when W_O does."
            : fmt::format(
                  "Why: each token's output vector in Z = {} is its weights times the "
                  "value vectors, so it moves when its weights move or when a value "
                  "vector it gives weight to moves.",
                  col ? "V·A" : "A·V");
    if (cmp.output_rows.size() > why.size()) {
        because += fmt::format(" The {} tokens whose output changed most:", why.size());
    }
    for (const auto& w : why) {
        because += " " + w;
    }
    out.push_back(because);
    return out;
}

}  // namespace attn::lesson
