#pragma once
// The formula of each step, as data (step_formulas.cpp), for the step list (steps.cpp).
// `head` is the head as a subscript: Q_2; 0 for none. `columns`: the column layout of the
// by-hand exercises, where tokens are columns (Q = W_Q · X).

#include <cstddef>
#include <string>

#include "attn/core/formula.hpp"
#include "attn/core/trace.hpp"

namespace attn::step_formulas {

/// A symbol: its base, subscript and head.
Symbol sym(std::string base, std::string sub = "", std::size_t head = 0);
/// S′ (primed), S′ₘ (primed and masked).
Symbol primed(Symbol s, bool masked = false);

/// tokens = words(sentence), or characters(sentence).
Formula tokens(TokenMode mode);
/// tokens = rows(Q), or columns(Q) in the column layout: the tokens name the rows of given Q, K
/// and V (the columns as the layout shows them).
Formula named_tokens(bool columns);
/// tokens = bpe(sentence): a checkpoint's own byte-level BPE.
Formula bpe_tokens();
/// X = embed(tokens).
Formula embeddings();
/// P[pos, 2i] = sin(pos / 10000^(2i/d_model)), ... (P[2i, pos] in the column layout), or
/// P = positions from FILE.
Formula positions(const Trace& t, bool columns);
/// X′ = X + P.
Formula with_positions(const Symbol& x_in);
/// W_Q_2 = W_Q[:, 3:6]: one head's columns of a weight matrix.
Formula slice(const char* name, std::size_t head, std::size_t begin, std::size_t width);
/// Q = X · W_Q (+ b_Q), and K, V likewise.
Formula projection(const char* name, std::size_t head, const Symbol& x_in, bool biased,
                   bool columns);
/// S = Q · Kᵀ.
Formula scores(std::size_t head, bool columns);
/// S′ = S / √d_k, as the rule scales (by hand, or not at all).
Formula scaled(const WeightsRule& rule, std::size_t head);
/// M[i, j] = 1 if j ≤ i, else 0, and so on.
Formula mask(const Trace& t, bool columns);
/// S′ₘ = S′ where M = 1, −∞ where M = 0.
Formula masked(std::size_t head);
/// A = softmax(S′), row by row, as the rule says.
Formula weights(const WeightsRule& rule, std::size_t head, bool masked, bool columns);
/// A_right = softmax(S / √d_k), row by row: the right rule (`right`, with the run's
/// arithmetic: ⌊S / r⌋ and 3^x by hand), beside a mistaken one.
Formula right_weights(const WeightsRule& right, std::size_t head, bool masked, bool columns);
/// Z = A · V.
Formula output(std::size_t head, bool columns);
/// Z = [Z_1 | Z_2 | ...].
Formula concat(std::size_t n_heads);
/// O = Z · W_O (+ b_O).
Formula projected_output(bool biased);

}  // namespace attn::step_formulas
