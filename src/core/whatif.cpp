// What-if: --set's changes to a run's inputs, made and undone, and what two runs differ in.
#include "attn/core/whatif.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/cell.hpp"
#include "attn/core/error.hpp"
#include "attn/core/tokenizer.hpp"

namespace attn {
namespace {

Error set_error(const std::string& text) {
    return {ErrorKind::usage, Field::set, text};
}

// The ops whose matrices are inputs of the run, which --set may change.
bool is_input_op(StepOp op, bool qkv_given) {
    switch (op) {
        case StepOp::embeddings:
        case StepOp::w_q:
        case StepOp::w_k:
        case StepOp::w_v:
        case StepOp::b_q:
        case StepOp::b_k:
        case StepOp::b_v:
        case StepOp::head_w_q:
        case StepOp::head_w_k:
        case StepOp::head_w_v:
        case StepOp::w_o:
        case StepOp::b_o:
        case StepOp::mask:
            return true;
        case StepOp::q:
        case StepOp::k:
        case StepOp::v:
            return qkv_given;
        default:
            return false;
    }
}

// Why an input the run does not have is missing, for a --set that names it ("" when the name
// is no input attn knows).
std::string missing_input(std::string_view name, const Trace& t) {
    if (t.qkv_given && (name == "embeddings" || name == "W_Q" || name == "W_K" || name == "W_V" ||
                        name.starts_with("b_"))) {
        return "this run starts from Q, K and V given in a file (--qkv), so it has no "
               "embeddings or weights";
    }
    if (name == "W_O" || name == "b_O") {
        return t.projected ? "this run has no b_O (its weights have no output bias)"
                           : "this run has one head and no output projection W_O (--heads 2, "
                             "or a weights file with W_O, has one)";
    }
    if (name == "mask") {
        return "this run has no mask (--mask causal, a mask file or --pad-to gives it one)";
    }
    if (name.starts_with("b_")) {
        return fmt::format("this run has no {} (its weights have no biases)", name);
    }
    if (name == "Q" || name == "K" || name == "V") {
        return t.projected ? fmt::format(
                                 "this run has several heads: {} is head1.{}, ..., "
                                 "and they are computed from X and W_{}",
                                 name, name, name)
                           : "";
    }
    return "";
}

// A number as --set takes it (finite, in decimal or scientific notation, with a sign), or
// why the text is none: "is not a number", "is not finite", or past what a double holds.
struct NumberText {
    std::optional<double> value;
    std::string_view why_not;
};
NumberText number_of(std::string_view text) {
    if (text.starts_with('+')) {
        text.remove_prefix(1);
    }
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ptr != text.data() + text.size()) {
        return {std::nullopt, "is not a number"};
    }
    if (ec == std::errc::result_out_of_range) {
        const bool tiny =
            text.find("e-") != std::string_view::npos || text.find("E-") != std::string_view::npos;
        return {std::nullopt, tiny ? "is too close to 0 for a double (the smallest is about "
                                     "4.9e-324)"
                                   : "is too large for a double (the largest is about 1.8e308)"};
    }
    if (ec != std::errc() || std::isnan(value)) {
        return {std::nullopt, "is not a number"};
    }
    if (std::isinf(value)) {
        return {std::nullopt, "is not finite"};
    }
    return {value, {}};
}

// "label" for the row or column `i` of `labels`, or "label#i" when the label is repeated.
std::string label_of(std::span<const std::string> labels, std::size_t i) {
    const bool repeated = std::count(labels.begin(), labels.end(), labels[i]) > 1;
    return repeated ? fmt::format("{}#{}", labels[i], i) : labels[i];
}

// The matrix an input change writes into.
Matrix* target(Input& in, const std::string& id) {
    if (id == "embeddings") {
        return &in.x;
    }
    if (in.qkv && (id == "Q" || id == "K" || id == "V")) {
        return id == "Q" ? &in.qkv->q : id == "K" ? &in.qkv->k : &in.qkv->v;
    }
    Weights& w = in.weights;
    for (const auto& [name, m] :
         {std::pair{"W_Q", &w.w_q}, std::pair{"W_K", &w.w_k}, std::pair{"W_V", &w.w_v},
          std::pair{"W_O", &w.w_o}, std::pair{"b_Q", &w.b_q}, std::pair{"b_K", &w.b_k},
          std::pair{"b_V", &w.b_v}, std::pair{"b_O", &w.b_o}}) {
        if (id == name) {
            return m;
        }
    }
    throw Error(ErrorKind::internal, "a change of '" + id + "', which is no input of the run");
}

}  // namespace

std::vector<std::string> settable_ids(const Trace& t) {
    std::vector<std::string> ids;
    for (const Step& s : teaching_steps(t)) {
        if (is_input_op(s.op, t.qkv_given)) {
            ids.push_back(s.id);
        }
    }
    if (!t.qkv_given) {
        ids.emplace_back("tokens");
    }
    return ids;
}

Setting parse_setting(std::string_view raw, const Trace& t, Layout layout) {
    const std::string text = trim_blanks(raw);
    const auto close = text.find(']');
    const auto eq = text.find('=', close == std::string::npos ? 0 : close);
    const std::vector<std::string> ids = settable_ids(t);
    std::vector<std::string> listed_ids;
    for (const auto& id : ids) {
        if (!id.starts_with("head") || id.starts_with("head1.")) {
            listed_ids.push_back(id == "embeddings" ? "embeddings (or X)"
                                 : id == "tokens"   ? "tokens[I]"
                                                    : id);
        }
    }
    const std::string example = t.qkv_given
                                    ? fmt::format("Q[{},0]=1", shown(t.tokens.front()))
                                    : fmt::format("W_Q[d0,{}]=0.5 or tokens[{}]=hat",
                                                  shown(t.q_labels.front()), t.tokens.size() - 1);
    const std::string expected = fmt::format(
        "expected CELL=VALUE with CELL a cell of {}{}, e.g. {}", listed(listed_ids, " or "),
        listed_ids.size() < ids.size() ? " (and head2. ... for the other heads)" : "", example);
    if (eq == std::string::npos) {
        throw set_error(fmt::format("{} '{}' has no value, {}", subject, shown(text), expected));
    }
    const std::string cell = trim_blanks(std::string_view(text).substr(0, eq));
    const std::string value = trim_blanks(std::string_view(text).substr(eq + 1));
    const auto open = cell.find('[');
    std::string name = trim_blanks(std::string_view(cell).substr(0, open));
    if (name == "X") {  // the symbol of the embeddings
        name = "embeddings";
    }
    Setting out{{}, text};
    Change& change = out.change;
    if (name == "tokens") {
        if (t.qkv_given) {
            throw set_error(fmt::format(
                "{} '{}': the tokens of a run that starts from Q, K and V (--qkv) only name their "
                "rows, so swapping one changes no number, expected a cell of Q, K or V",
                subject, shown(text)));
        }
        if (open == std::string::npos || cell.back() != ']' ||
            cell.find(',') != std::string::npos) {
            throw set_error(
                fmt::format("{} '{}': a token is named tokens[I], I its index or the token itself, "
                            "expected e.g. tokens[{}]=hat",
                            subject, shown(text), t.tokens.size() - 1));
        }
        const std::string part =
            trim_blanks(std::string_view(cell).substr(open + 1, cell.size() - open - 2));
        const std::size_t i = parse_index(part, t.tokens, "token", cell, Field::set);
        if (i + t.config.n_pad >= t.tokens.size()) {
            throw set_error(fmt::format(
                "{} '{}': token {} is {}, which pads the sentence, expected a token of the "
                "sentence (0 to {})",
                subject, shown(text), i, pad_token, t.tokens.size() - t.config.n_pad - 1));
        }
        std::vector<std::string> cut;
        try {
            cut = value.empty() ? std::vector<std::string>{} : tokenize(value, t.config.tokenizer);
        } catch (const Error&) {
            cut.clear();  // invalid UTF-8 or only spaces: said below
        }
        if (cut.empty()) {
            // a value the tokenizer drops whole (spaces, control characters) is not "nothing"
            throw set_error(
                value.empty()
                    ? fmt::format("{} '{}': no token given, expected one token after '='", subject,
                                  shown(text))
                    : fmt::format("{} '{}': '{}' holds no token as this run cuts text (only "
                                  "spaces, control or invalid characters), expected one token "
                                  "after '='",
                                  subject, shown(text), shown(value)));
        }
        if (cut.size() != 1) {
            throw set_error(fmt::format(
                "{} '{}': '{}' is {} tokens as this run cuts text, expected one token{}", subject,
                shown(text), shown(value), cut.size(),
                cut.size() > 1 ? fmt::format(" ({})", shown(listed(cut))) : std::string()));
        }
        change.step_id = "tokens";
        change.row = i;
        change.token_before = t.tokens[i];
        change.token_after = cut.front();
        return out;
    }
    if (find_step(t, name, layout) == nullptr ||
        std::find(ids.begin(), ids.end(), name) == ids.end()) {
        if (const Step* s = find_step(t, name, layout);
            s != nullptr && s->kind != StepKind::tokens) {
            throw set_error(fmt::format(
                "{} '{}': {} is computed by the walk-through, so --set cannot change it, {}",
                subject, shown(text), name, expected));
        }
        if (const std::string why = missing_input(name, t); !why.empty()) {
            throw set_error(fmt::format("{} '{}': {}, {}", subject, shown(text), why, expected));
        }
    }
    const CellRef ref =
        parse_cell(cell, t, layout, CellNames{Field::set, ids, {{"X", "embeddings"}}});
    const Step* step = find_step(t, ref.step_id);
    const std::size_t r = ref.matrix_row();
    std::size_t c = ref.matrix_col();
    change.row = r;
    if (step->kind == StepKind::mask) {
        const bool one = value == "1" || value == "true";
        if (!one && value != "0" && value != "false") {
            throw set_error(
                fmt::format("{} '{}': '{}' is not a mask value, expected 1 (may attend) "
                            "or 0 (blocked), or true or false",
                            subject, shown(text), shown(value)));
        }
        const std::size_t n_real = t.tokens.size() - t.config.n_pad;
        if (one && c >= n_real) {
            throw set_error(fmt::format(
                "{} '{}': key {} is {}, which the padding mask always blocks, expected a key of "
                "the sentence (0 to {}) to allow",
                subject, shown(text), c, pad_token, n_real - 1));
        }
        change.step_id = "mask";
        change.col = c;
        change.before = t.mask->allowed(r, c) ? 1.0 : 0.0;
        change.after = one ? 1.0 : 0.0;
        return out;
    }
    const NumberText number = number_of(value);
    if (!number.value) {
        throw set_error(
            fmt::format("{} '{}': '{}' {}, expected a finite number such as 0.5, -2 or 1e-3",
                        subject, shown(text), shown(value), number.why_not));
    }
    change.before = step->value(r, c);
    change.after = *number.value;
    change.step_id = ref.step_id;
    if (step->op == StepOp::head_w_q || step->op == StepOp::head_w_k ||
        step->op == StepOp::head_w_v) {
        // a head's slice is its block of columns of the whole matrix
        const Head& head = head_of(t, *step);
        c += step->op == StepOp::head_w_v ? head.v_begin : head.k_begin;
        if (step->op == StepOp::head_w_q) {
            change.step_id = "W_Q";
        } else if (step->op == StepOp::head_w_k) {
            change.step_id = "W_K";
        } else {
            change.step_id = "W_V";
        }
    }
    change.col = c;
    return out;
}

std::vector<Change> merge_changes(const std::vector<Change>& earlier,
                                  const std::vector<Change>& later) {
    std::vector<Change> out = earlier;
    for (const Change& next : later) {
        const auto same = std::find_if(out.begin(), out.end(), [&](const Change& c) {
            return c.step_id == next.step_id && c.row == next.row && c.col == next.col;
        });
        if (same == out.end()) {
            out.push_back(next);
        } else {
            same->after = next.after;
            same->token_after = next.token_after;
            same->embedding_after = next.embedding_after;
        }
    }
    return out;
}

Loaded with_changes(const Loaded& loaded, const Trace& before, const std::vector<Change>& changes) {
    Loaded out = loaded;
    Input& in = out.input;
    for (const Change& change : changes) {
        if (!change.is_token()) {
            continue;
        }
        if (change.embedding_after.size() != in.x.cols()) {
            throw Error(ErrorKind::internal, "a token swap without the new token's embedding");
        }
        in.tokens[change.row] = change.token_after;
        std::copy(change.embedding_after.begin(), change.embedding_after.end(),
                  in.x.row(change.row).begin());
    }
    for (const Change& change : changes) {
        if (change.is_token()) {
            continue;
        }
        if (change.step_id == "mask") {
            if (!in.mask || in.mask_source.kind != Source::Kind::set) {
                in.mask = before.mask;  // the whole mask, causal and padding included
                in.mask_source = Source{};
                in.mask_source.kind = Source::Kind::set;
                out.config.mask = MaskKind::file;
            }
            in.mask->set(change.row, change.col, change.after != 0.0);
            continue;
        }
        Matrix& m = *target(in, change.step_id);
        m(change.row, change.col) = change.after;
    }
    return out;
}

Loaded without_changes(const Loaded& after, const std::vector<Change>& changes,
                       MaskKind mask_before) {
    Loaded out = after;
    Input& in = out.input;
    bool mask_changed = false;
    for (std::size_t i = changes.size(); i-- > 0;) {  // the last change first
        const Change& change = changes[i];
        if (change.is_token()) {
            continue;
        }
        if (change.step_id == "mask") {
            in.mask->set(change.row, change.col, change.before != 0.0);
            mask_changed = true;
            continue;
        }
        (*target(in, change.step_id))(change.row, change.col) = change.before;
    }
    for (std::size_t i = changes.size(); i-- > 0;) {
        const Change& change = changes[i];
        if (change.is_token()) {
            in.tokens[change.row] = change.token_before;
            std::copy(change.embedding_before.begin(), change.embedding_before.end(),
                      in.x.row(change.row).begin());
        }
    }
    if (mask_changed) {
        out.config.mask = mask_before;
        in.mask_source = Source{};
        if (mask_before == MaskKind::file) {
            in.mask_source.kind = Source::Kind::file;
        } else {
            in.mask.reset();  // causal, or padding alone: remade from the configuration
        }
    }
    return out;
}

std::string cell_name(const Change& change, const Trace& trace) {
    if (change.is_token()) {
        return fmt::format("tokens[{}]", change.row);
    }
    const Step* s = find_step(trace, change.step_id);
    if (s == nullptr || change.row >= s->row_labels.size() || change.col >= s->col_labels.size()) {
        return fmt::format("{}[{},{}]", change.step_id, change.row, change.col);
    }
    return fmt::format("{}[{},{}]", change.step_id, label_of(s->row_labels, change.row),
                       label_of(s->col_labels, change.col));
}

}  // namespace attn
