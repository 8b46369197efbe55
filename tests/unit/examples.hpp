#pragma once
// Inputs shared by the unit tests.

#include "attn/core/attention.hpp"

namespace attn_test {

/// The 3×4 integer example of the tutorials: X = [[1,0,1,0],[0,2,0,2],[1,1,1,1]] and integer
/// W_Q, W_K, W_V, whose every intermediate can be checked by hand (scores
/// [[2,4,4],[4,16,12],[4,12,10]]).
inline attn::Input integer_input() {
    attn::Input in;
    in.sentence = "x1 x2 x3";
    in.tokens = {"x1", "x2", "x3"};
    in.x = attn::Matrix{{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}};
    in.weights.w_q = attn::Matrix{{1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0, 1, 1}};
    in.weights.w_k = attn::Matrix{{0, 0, 1}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}};
    in.weights.w_v = attn::Matrix{{0, 2, 0}, {0, 3, 0}, {1, 0, 3}, {1, 1, 0}};
    return in;
}

/// The configuration of the integer example: d_model 4, d_k = d_v = 3.
inline attn::Config integer_config(attn::MaskKind mask = attn::MaskKind::none,
                                   attn::Arith arith = attn::Arith::exact) {
    attn::Config c;
    c.d_model = 4;
    c.d_k = 3;
    c.d_v = 3;
    c.mask = mask;
    c.arith = arith;
    return c;
}

}  // namespace attn_test
