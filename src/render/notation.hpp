#pragma once
// Writing the core's formulas and symbols in each output's notation: Unicode or ASCII text,
// and LaTeX math. HTML and Markdown use the Unicode text (escaped as their format needs).

#include <string>

#include "attn/core/formula.hpp"

namespace attn::notation {

enum class Style {
    unicode,  ///< S′ₘ_1 = softmax(…), √d_k, ⌊S / 2⌋, Kᵀ, −∞
    ascii,    ///< S'_m_1, sqrt(d_k), floor(S / 2), K^T, -inf
    latex     ///< math mode: S'_{m,1}, \sqrt{d_k}, \lfloor S / 2 \rfloor, K^\top, -\infty
};

/// A symbol: S′ₘ_2 (Unicode), S'_m_2 (ASCII), S'_{m,2} (LaTeX).
std::string symbol(const Symbol& s, Style style);

/// A whole formula, spaced as the lesson writes it: "S′ = S / √d_k".
std::string formula(const Formula& f, Style style);

}  // namespace attn::notation
