// --why: the worked arithmetic behind one cell, term by term, with the trace's own numbers.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "attn/core/cell.hpp"
#include "attn/core/utf8.hpp"
#include "attn/render/render.hpp"
#include "narrative.hpp"

namespace attn {
namespace {

class Why {
  public:
    Why(const Trace& t, const CellRef& cell, const TextStyle& style)
        : t_(t), cell_(cell), style_(style) {}

    std::string render() {
        const auto steps = teaching_steps(t_);
        const auto it = std::find_if(steps.begin(), steps.end(),
                                     [&](const Step& s) { return s.id == cell_.step_id; });
        const Step& step = *it;
        const Head& head = head_of(t_, step);
        const std::string row = step.row_labels[cell_.row];
        const std::string col = step.col_labels[cell_.col];
        const double value = step.kind == StepKind::mask
                                 ? (step.mask->allowed(cell_.row, cell_.col) ? 1.0 : 0.0)
                                 : (*step.matrix)(cell_.row, cell_.col);
        const std::string title =
            fmt::format("Why is {}[{}, {}] = {}?", step.symbol, row, col, num(value));
        const std::string lead = style_.unicode ? "━━ " : "== ";
        const std::size_t used = 3 + utf8::display_width(text(title)) + 1;
        out_ += paint(lead + text(title) + " " +
                          repeat(style_.unicode ? "━" : "=",
                                 style_.width > used ? style_.width - used : 2),
                      "1") +
                "\n";
        const auto base = base_id(step.id);
        const std::size_t i = cell_.row;
        const std::size_t j = cell_.col;
        const std::string sub = step.head > 0 ? "_" + std::to_string(step.head) : "";
        const std::string x_name = t_.positions.empty() ? "X" : "X′";
        if (base == "Q" || base == "K" || base == "V") {
            const Matrix& w = base == "Q" ? head.w_q : base == "K" ? head.w_k : head.w_v;
            const Matrix& bias = base == "Q" ? t_.b_q : base == "K" ? t_.b_k : t_.b_v;
            const std::size_t begin = base == "V" ? head.v_begin : head.k_begin;
            line(
                fmt::format("{}{}[{}, {}] is row '{}' of {} times column {} of W_{}{}: the "
                            "sum of their products, one per embedding dimension.",
                            base, sub, row, col, row, x_name, col, base, sub));
            std::vector<std::string> terms;
            for (std::size_t k = 0; k < w.rows(); ++k) {
                terms.push_back(product(t_.x_in(i, k), w(k, j)));
            }
            if (!bias.empty()) {
                terms.push_back(num(bias(0, begin + j)) + " (the bias b_" + std::string(base) +
                                ")");
            }
            sum(terms, value);
        } else if (base == "scores") {
            scores(head, i, j, sub);
        } else if (base == "scaled_scores" && t_.config.arith == Arith::hand) {
            scores(head, i, j, sub);
            const double r = hand_divisor(t_.config.d_k);
            line(fmt::format(
                "Then scaled by hand: S′{}[{}, {}] = ⌊S{}[{}, {}] / {}⌋ = ⌊{} / {}⌋ = "
                "{}.",
                sub, row, col, sub, row, col, num(r), num(head.scores(i, j)), num(r), num(value)));
        } else if (base == "scaled_scores") {
            scores(head, i, j, sub);
            line(fmt::format("Then scaled: S′{}[{}, {}] = S{}[{}, {}] / √d_k = {} / {} = {}.", sub,
                             row, col, sub, row, col, num(head.scores(i, j)), num(head.sqrt_d_k),
                             num(value)));
        } else if (base == "masked_scores") {
            if (t_.mask->allowed(i, j)) {
                line(
                    fmt::format("M[{}, {}] = 1: '{}' may attend to '{}', so the scaled score "
                                "passes unchanged: S′ₘ{}[{}, {}] = S′{}[{}, {}] = {}.",
                                row, col, row, col, sub, row, col, sub, row, col, num(value)));
            } else {
                line(
                    fmt::format("M[{}, {}] = 0: '{}' may not attend to '{}'{}, so the score "
                                "becomes −∞, and softmax will give it a weight of exactly 0 "
                                "(e^−∞ = 0).",
                                row, col, row, col, blocked_reason(i, j)));
            }
        } else if (base == "weights") {
            weights(head, i, j, sub, row, col, value);
        } else if (base == "output" && (step.head > 0 || !t_.projected)) {
            line(
                fmt::format("Z{}[{}, {}] is the weighted sum of column {} of V{}, with row "
                            "'{}' of A{} as the weights:",
                            sub, row, col, head.v_labels[j], sub, row, sub));
            std::vector<std::string> terms;
            for (std::size_t k = 0; k < head.attention.cols(); ++k) {
                terms.push_back(product(head.attention(i, k), head.v(k, j)) + " [" + t_.tokens[k] +
                                "]");
            }
            sum(terms, value);
        } else if (base == "concat") {
            const std::size_t h = j / t_.config.d_v;
            line(fmt::format("Column {} of Z is column {} of head {}'s output: Z_{}[{}, {}] = {}.",
                             col, j % t_.config.d_v, h + 1, h + 1, row,
                             t_.heads[h].z_labels[j % t_.config.d_v], num(value)));
        } else if (base == "output") {
            line(
                fmt::format("O[{}, {}] is row '{}' of Z (every head's output) times column {} "
                            "of W_O:",
                            row, col, row, col));
            std::vector<std::string> terms;
            for (std::size_t k = 0; k < t_.concat.cols(); ++k) {
                terms.push_back(product(t_.concat(i, k), t_.w_o(k, j)));
            }
            if (!t_.b_o.empty()) {
                terms.push_back(num(t_.b_o(0, j)) + " (the bias b_O)");
            }
            sum(terms, value);
        } else if (base == "with_positions") {
            line(fmt::format("X′[{}, {}] = X[{}, {}] + P[{}, {}] = {} + {} = {}.", row, col, row,
                             col, row, col, num(t_.x(i, j)), num(t_.positions(i, j)), num(value)));
        } else if (base == "mask") {
            line(value == 1.0 ? fmt::format("'{}' may attend to '{}'.", row, col)
                              : fmt::format("'{}' may not attend to '{}'{}.", row, col,
                                            blocked_reason(i, j)));
        } else {
            line(
                fmt::format("{} is an input of the walk-through, not computed from other "
                            "steps: {}.",
                            step.symbol, source_of(base)));
        }
        return std::move(out_);
    }

  private:
    void scores(const Head& head, std::size_t i, std::size_t j, const std::string& sub) {
        const std::string& a = t_.tokens[i];
        const std::string& b = t_.tokens[j];
        line(
            fmt::format("S{}[{}, {}] = q_{} · k_{}: the dot product of row '{}' of Q{} and row "
                        "'{}' of K{}.",
                        sub, a, b, a, b, a, sub, b, sub));
        std::vector<std::string> terms;
        for (std::size_t k = 0; k < head.q.cols(); ++k) {
            terms.push_back(product(head.q(i, k), head.k(j, k)));
        }
        sum(terms, head.scores(i, j));
    }

    void weights(const Head& head, std::size_t i, std::size_t j, const std::string& sub,
                 const std::string& row, const std::string& col, double value) {
        const Matrix& logits = t_.mask ? head.masked_scores : head.scaled_scores;
        const auto s = logits.row(i);
        const double max = *std::max_element(s.begin(), s.end());
        if (std::isinf(max)) {
            line(
                fmt::format("Every key of row '{}' is masked: softmax is undefined, and attn "
                            "gives the row zero weights.",
                            row));
            return;
        }
        const bool hand = t_.config.arith == Arith::hand;
        const std::string b = hand ? "3" : "e";
        const auto power = [hand](double x) { return hand ? std::pow(3.0, x) : std::exp(x); };
        line(
            fmt::format("A{}[{}, {}] = {}^(s_{} − max) / Σ {}^(s − max), where s is row '{}' of "
                        "{}{} and max = {} is its largest entry (subtracted only so that "
                        "nothing overflows){}.",
                        sub, row, col, b, col, b, row, t_.mask ? "S′ₘ" : "S′", sub, num(max),
                        hand ? "; by hand, 3 stands in for e" : ""));
        std::vector<std::string> terms;
        double total = 0.0;
        for (std::size_t k = 0; k < s.size(); ++k) {
            const double e = power(s[k] - max);
            total += e;
            terms.push_back(std::isinf(s[k]) ? fmt::format("{}^−∞ = 0 [{}]", b, t_.tokens[k])
                                             : fmt::format("{}^({} − {}) = {} [{}]", b, num(s[k]),
                                                           num(max), num(e), t_.tokens[k]));
        }
        line("The terms, one per key:");
        list(terms);
        line(fmt::format("Σ = {}, so A{}[{}, {}] = {} / {} = {}.", num(total), sub, row, col,
                         num(power(s[j] - max)), num(total), num(value)));
    }

    std::string blocked_reason(std::size_t i, std::size_t j) const {
        const bool pad = t_.config.n_pad > 0 && j >= t_.tokens.size() - t_.config.n_pad;
        if (pad) {
            return " (it is padding)";
        }
        if (t_.config.mask == MaskKind::causal && j > i) {
            return " (the causal mask: it comes later in the sentence)";
        }
        if (t_.config.mask == MaskKind::file) {
            return " (the mask from " + t_.mask_source.path + " says so)";
        }
        return "";
    }

    std::string source_of(std::string_view base) const {
        const auto describe = [&](const Source& s) {
            return s.kind == Source::Kind::file
                       ? "read from " + s.path
                       : fmt::format("seeded from --seed {}", t_.config.seed);
        };
        if (base == "embeddings") {
            return describe(t_.embeddings_source);
        }
        if (base == "positions") {
            return t_.config.positions == PositionKind::sinusoidal
                       ? std::string("the sinusoidal table, sin or cos of pos / 10000^(2i/d_model)")
                       : describe(t_.positions_source);
        }
        return describe(t_.weights_source);
    }

    // "0.1200·(-0.4000)"
    std::string product(double a, double b) const {
        return paren(a) + (style_.unicode ? "·" : "*") + paren(b);
    }
    std::string paren(double x) const {
        const std::string s = num(x);
        return s.front() == '-' ? "(" + s + ")" : s;
    }
    // whole numbers (the integer examples, --arith hand) without decimals
    std::string num(double x) const { return format_tidy(x, style_.precision, style_.unicode); }

    // "  = a + b + ... = total", wrapped at the width, long sums shortened in the middle
    void sum(const std::vector<std::string>& terms, double total) {
        constexpr std::size_t head_terms = 6;
        constexpr std::size_t tail_terms = 3;
        std::vector<std::string> shown;
        if (terms.size() > head_terms + tail_terms + 1) {
            shown.assign(terms.begin(), terms.begin() + head_terms);
            shown.push_back(
                fmt::format("… ({} more terms) …", terms.size() - head_terms - tail_terms));
            shown.insert(shown.end(), terms.end() - tail_terms, terms.end());
        } else {
            shown = terms;
        }
        std::string current = "  = ";
        for (std::size_t k = 0; k < shown.size(); ++k) {
            const std::string piece = (k > 0 ? " + " : "") + shown[k];
            if (k > 0 && utf8::display_width(text(current + piece)) > style_.width) {
                out_ += text(current) + "\n";
                current = "    ";
            }
            current += piece;
        }
        out_ += text(current) + "\n";
        out_ += text("  = " + num(total)) + "\n";
    }

    void list(const std::vector<std::string>& items) {
        for (const auto& item : items) {
            out_ += text("  " + item) + "\n";
        }
    }

    void line(const std::string& s) {
        // word-wrap at the width
        const std::string body = text(s);
        std::string current;
        std::size_t pos = 0;
        while (pos < body.size()) {
            const auto end = std::min(body.find(' ', pos), body.size());
            const std::string word = body.substr(pos, end - pos);
            pos = end + 1;
            if (!current.empty() &&
                utf8::display_width(current) + 1 + utf8::display_width(word) > style_.width) {
                out_ += current + "\n";
                current.clear();
            }
            current += (current.empty() ? "" : " ") + word;
        }
        out_ += current + "\n";
    }

    std::string text(const std::string& s) const { return style_.unicode ? s : to_ascii(s); }
    std::string paint(const std::string& s, std::string_view code) const {
        return style_.color ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
    }
    static std::string repeat(std::string_view s, std::size_t n) {
        std::string out;
        for (std::size_t k = 0; k < n; ++k) {
            out += s;
        }
        return out;
    }

    const Trace& t_;
    const CellRef& cell_;
    const TextStyle& style_;
    std::string out_;
};

}  // namespace

std::string render_why(const Trace& trace, const CellRef& cell, const TextStyle& style) {
    return Why(trace, cell, style).render();
}

}  // namespace attn
