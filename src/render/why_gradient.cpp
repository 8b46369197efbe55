// --why for the backward pass's cells (--backward): each gradient written from the numbers it is
// made of, with the trace's own values.
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/core/cell.hpp"
#include "notation.hpp"
#include "toolkit.hpp"
#include "why.hpp"

namespace attn::why {

// The backward pass's cells (--backward): each gradient from the numbers it is made of.
void Why::gradient(const Step& step, const Head& head, std::size_t i, std::size_t j, double value) {
    const Backward& b = *t_.backward;
    const std::string_view base = base_id(step.id);
    const std::string name = notation::symbol(step.symbol, notation::Style::unicode);
    const std::string cell_name = fmt::format("{}[{}, {}]", name, shown_row_, shown_col_);
    const HeadGrads& g = b.heads[head.index];
    const std::string sub = step.head > 0 ? "_" + std::to_string(step.head) : "";
    const std::string out = t_.projected ? "O" : "Z";
    const Matrix& x_in = t_.x_in;
    // Σ_k a(k)·c(k) as terms
    const auto dot = [&](std::size_t n, auto a, auto c) {
        std::vector<Term> terms;
        add_products(terms, n, a, c);
        sum(terms, value);
    };
    if (base == "target") {
        line(fmt::format("Y is an input of the backward pass: read from {}.",
                         toolkit::terminal(b.target_path)));
    } else if (base == "loss") {
        line(
            fmt::format("L is the mean of ({} − Y)² over all {} cells: the sum of the "
                        "squared differences, divided by {}.",
                        out, b.target.size(), b.target.size()));
        std::vector<Term> terms;
        double total = 0.0;
        for (std::size_t k = 0; k < b.target.size(); ++k) {
            const double e = t_.output.data()[k] - b.target.data()[k];
            terms.push_back({Term::Kind::square, e, 0.0, {}});
            total += e * e;
        }
        sum(terms, total);
        line("L = " + quotient(total, static_cast<double>(b.target.size()), value) + ".");
    } else if (base == "grad.output" && step.head == 0) {
        const double n = static_cast<double>(b.target.size());
        const int d =
            operand_decimals({t_.output(i, j), b.target(i, j)}, value, digits(),
                             [n](const std::vector<double>& v) { return 2.0 * (v[0] - v[1]) / n; });
        line(fmt::format("{} = 2·({}[{}, {}] − Y[{}, {}]) / {} = 2·({} − {}) / {} = {}.", cell_name,
                         out, shown_row_, shown_col_, shown_row_, shown_col_, b.target.size(),
                         num_at(t_.output(i, j), d), paren_at(b.target(i, j), d), b.target.size(),
                         num(value)));
    } else if (base == "grad.output") {
        line(fmt::format("{} is column {} of dZ, this head's: {}.", cell_name, head.v_begin + j,
                         num(value)));
    } else if (base == "grad.W_O") {
        line(fmt::format("{} is column {} of Z times column {} of dO, over the tokens:", cell_name,
                         shown_row_, shown_col_));
        dot(
            t_.tokens.size(), [&](std::size_t k) { return t_.concat(k, i); },
            [&](std::size_t k) { return b.d_output(k, j); });
    } else if (base == "grad.concat") {
        line(fmt::format("{} is row '{}' of dO times row {} of W_O:", cell_name, shown_row_,
                         shown_col_));
        dot(
            t_.w_o.cols(), [&](std::size_t k) { return b.d_output(i, k); },
            [&](std::size_t k) { return t_.w_o(j, k); });
    } else if (base == "grad.weights") {
        line(fmt::format("{} is row '{}' of dZ{} times row '{}' of V{}:", cell_name, shown_row_,
                         sub, shown_col_, sub));
        dot(
            head.v.cols(), [&](std::size_t k) { return g.d_output(i, k); },
            [&](std::size_t k) { return head.v(j, k); });
    } else if (base == "grad.V") {
        line(
            fmt::format("{} is column '{}' of A{} (how much each token attends to '{}') "
                        "times column {} of dZ{}:",
                        cell_name, shown_row_, sub, shown_row_, shown_col_, sub));
        dot(
            t_.tokens.size(), [&](std::size_t k) { return head.attention(k, i); },
            [&](std::size_t k) { return g.d_output(k, j); });
    } else if (base == "grad.scaled_scores") {
        double pull = 0.0;
        std::vector<Term> terms;
        for (std::size_t k = 0; k < head.attention.cols(); ++k) {
            pull += g.d_weights(i, k) * head.attention(i, k);
            terms.push_back(product(g.d_weights(i, k), head.attention(i, k)));
        }
        line(fmt::format("The row's average pull Σ_k dA{}[{}, k]·A{}[{}, k]:", sub, shown_row_, sub,
                         shown_row_));
        sum(terms, pull);
        const int d =
            operand_decimals({head.attention(i, j), g.d_weights(i, j), pull}, value, digits(),
                             [](const std::vector<double>& v) { return v[0] * (v[1] - v[2]); });
        line(fmt::format("{} = A{}[{}, {}]·(dA{}[{}, {}] − {}) = {}·({} − {}) = {}.", cell_name,
                         sub, shown_row_, shown_col_, sub, shown_row_, shown_col_, num(pull),
                         num_at(head.attention(i, j), d), num_at(g.d_weights(i, j), d),
                         paren_at(pull, d), num(value)));
        if (head.attention(i, j) == 0.0 && t_.mask && !t_.mask->allowed(i, j)) {
            line("The cell is masked: its weight is exactly 0, and so is its gradient.");
        }
    } else if (base == "grad.scores") {
        line(fmt::format("{} = dS′{}[{}, {}] / {} = {}.", cell_name, sub, shown_row_, shown_col_,
                         num(t_.rule.divisor()),
                         quotient(g.d_scaled(i, j), t_.rule.divisor(), value)));
    } else if (base == "grad.Q" || base == "grad.K") {
        const bool q = base == "grad.Q";
        line(fmt::format("{} is {} '{}' of dS{} times column {} of {}{}:", cell_name,
                         q ? "row" : "column", shown_row_, sub,
                         (q ? head.k_labels : head.q_labels)[j], q ? "K" : "Q", sub));
        dot(
            t_.tokens.size(),
            [&](std::size_t k) { return q ? g.d_scores(i, k) : g.d_scores(k, i); },
            [&](std::size_t k) { return q ? head.k(k, j) : head.q(k, j); });
    } else if (base == "grad.W_Q" || base == "grad.W_K" || base == "grad.W_V") {
        const char letter = base.back();
        const bool value_side = letter == 'V';
        const std::size_t width = value_side ? t_.config.d_v : t_.config.d_k;
        // a full matrix of several heads: the head the column belongs to
        const std::size_t h = step.head > 0 || !t_.projected ? head.index : j / width;
        const std::size_t c = step.head > 0 || !t_.projected ? j : j % width;
        const HeadGrads& gh = b.heads[h];
        const Matrix& d = letter == 'Q' ? gh.d_q : letter == 'K' ? gh.d_k : gh.d_v;
        const std::string hsub = t_.projected ? "_" + std::to_string(h + 1) : "";
        const Head& hh = t_.heads[h];
        const auto& labels = letter == 'Q'   ? hh.q_labels
                             : letter == 'K' ? hh.k_labels
                                             : hh.v_labels;
        line(fmt::format(
            "{} is column {} of {} times column {} of d{}{}, over the tokens:", cell_name,
            shown_row_, t_.positions.empty() ? "X" : "X′", labels[c], letter, hsub));
        dot(
            t_.tokens.size(), [&](std::size_t k) { return x_in(k, i); },
            [&](std::size_t k) { return d(k, c); });
    } else if (base.starts_with("grad.b_")) {
        const char letter = base.back();
        const Matrix& d = letter == 'O' ? b.d_output : Matrix();
        std::vector<Term> terms;
        for (std::size_t k = 0; k < t_.tokens.size(); ++k) {
            if (letter == 'O') {
                terms.push_back(number(d(k, j)));
            } else {
                const std::size_t width = letter == 'V' ? t_.config.d_v : t_.config.d_k;
                const HeadGrads& gh = b.heads[j / width];
                const Matrix& dm = letter == 'Q' ? gh.d_q : letter == 'K' ? gh.d_k : gh.d_v;
                terms.push_back(number(dm(k, j % width)));
            }
        }
        line(fmt::format("{} is the sum of column {} of d{} over the tokens:", cell_name,
                         shown_col_, letter));
        sum(terms, value);
    } else if (base == "grad.X") {
        line(
            fmt::format("{} adds what row '{}' sent into Q, K and V of every head: row '{}' "
                        "of dQ times row {} of W_Q, and likewise for K and V:",
                        cell_name, shown_row_, shown_row_, shown_col_));
        std::vector<Term> terms;
        for (const Head& hd : t_.heads) {
            const HeadGrads& gh = b.heads[hd.index];
            // row i of dQ times row j of W_Q, then K's, then V's
            // (a lambda may not capture a structured binding before C++20's P1091, which
            // clang 14 lacks: the pair is captured whole)
            for (const auto& dw : {std::pair{&gh.d_q, &hd.w_q}, std::pair{&gh.d_k, &hd.w_k},
                                   std::pair{&gh.d_v, &hd.w_v}}) {
                add_products(
                    terms, dw.second->cols(), [&](std::size_t k) { return (*dw.first)(i, k); },
                    [&](std::size_t k) { return (*dw.second)(j, k); });
            }
        }
        sum(terms, value);
    } else if (step.op == StepOp::update) {
        const std::string_view what = base.substr(7);
        // the weight before the update and its gradient
        const Matrix* before = &t_.b_o;
        const Matrix* d = &b.d_b_o;
        for (const auto& [id, w, dw] :
             {std::tuple{"W_Q", &t_.w_q, &b.d_w_q}, std::tuple{"W_K", &t_.w_k, &b.d_w_k},
              std::tuple{"W_V", &t_.w_v, &b.d_w_v}, std::tuple{"W_O", &t_.w_o, &b.d_w_o},
              std::tuple{"b_Q", &t_.b_q, &b.d_b_q}, std::tuple{"b_K", &t_.b_k, &b.d_b_k},
              std::tuple{"b_V", &t_.b_v, &b.d_b_v}}) {
            if (what == id) {
                before = w;
                d = dw;
            }
        }
        const int dd =
            operand_decimals({(*before)(i, j), *b.lr, (*d)(i, j)}, value, digits(),
                             [](const std::vector<double>& v) { return v[0] - v[1] * v[2]; });
        line(fmt::format("{} ← {} − η·d{} = {} − {}·{} = {}.", cell_name, cell_name, cell_name,
                         num_at((*before)(i, j), dd), num_at(*b.lr, dd), paren_at((*d)(i, j), dd),
                         num(value)));
    }
}

}  // namespace attn::why
