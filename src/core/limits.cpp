#include "attn/core/limits.hpp"

namespace attn {

Limit limit(Field field) noexcept {
    constexpr auto width = static_cast<long long>(max_width);
    constexpr auto tokens = static_cast<long long>(max_tokens);
    switch (field) {
        case Field::d_model:
            return {1, width, "the width of each token's embedding"};
        case Field::n_heads:
            return {1, static_cast<long long>(max_heads), "the number of attention heads"};
        case Field::d_k:
            return {1, width, "the width of each query and key vector"};
        case Field::d_v:
            return {1, width, "the width of each value vector"};
        case Field::pad_to:
            return {1, tokens, "the number of tokens after padding"};
        case Field::tokens:
            return {1, tokens, "the length of the sentence"};
        case Field::precision:
            return {0, 15, "digits after the decimal point"};
        case Field::width:
            return {40, 1000, "columns of text; or 0 for the terminal's width"};
        case Field::threads:
            return {1, 256, "the threads to compute and write with"};
        case Field::train_steps:
            return {1, 1000000, "the updates of the weights, each on one batch"};
        case Field::epochs:
            return {1, 10000, "the passes over the training examples"};
        default:
            return {1, 0, ""};
    }
}

void check_limit(Field field, long long value) {
    const Limit l = limit(field);
    if (value < l.min || value > l.max) {
        throw errors::bad_size(field, value, l.min, l.max, l.meaning);
    }
}

}  // namespace attn
