// check_gpt2_forward CASE_DIR...: attn's GPT-2 walk (explain_gpt2) against the float64
// forward pass of make_gpt2_reference.py, for every layer of each case and every step the
// walk lists. Every step must have its reference: a step this program does not know fails,
// so a new step cannot go unchecked. A value passes when it is within 1e-9 of the
// reference, relative to the larger of the value's own size and the root mean square of its
// matrix (a cell near 0 that is the difference of large numbers carries the error of those
// numbers); -inf must be -inf exactly. Exit 1 at any difference, naming the case, layer,
// step and cell.
#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/core/error.hpp"
#include "attn/core/gpt2.hpp"
#include "attn/core/trace.hpp"
#include "attn/io/checkpoint.hpp"

namespace {

using Json = nlohmann::json;

int failures = 0;
double worst = 0.0;

double number(const Json& j) {
    if (j.is_string()) {
        return j.get<std::string>() == "-inf" ? -INFINITY : INFINITY;
    }
    return j.get<double>();
}

// The reference as rows × cols: a 1-D list of n is n rows of one column when `column`, else
// one row.
attn::Matrix matrix_of(const Json& j, bool column = false) {
    if (!j.is_array() || j.empty() || !j[0].is_array()) {
        attn::Matrix m = column ? attn::Matrix(j.size(), 1) : attn::Matrix(1, j.size());
        for (std::size_t i = 0; i < j.size(); ++i) {
            m.data()[i] = number(j[i]);
        }
        return m;
    }
    attn::Matrix m(j.size(), j[0].size());
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < m.cols(); ++c) {
            m(r, c) = number(j[r][c]);
        }
    }
    return m;
}

attn::Matrix columns(const attn::Matrix& m, std::size_t begin, std::size_t n) {
    attn::Matrix out(m.rows(), n);
    for (std::size_t r = 0; r < m.rows(); ++r) {
        for (std::size_t c = 0; c < n; ++c) {
            out(r, c) = m(r, begin + c);
        }
    }
    return out;
}

void compare(const std::string& where, const attn::Step& step, const attn::Matrix& want) {
    const attn::Matrix& got = *step.matrix;
    if (got.rows() != want.rows() || got.cols() != want.cols()) {
        std::cerr << "FAIL: " << where << ": shape " << got.rows() << "×" << got.cols()
                  << ", expected " << want.rows() << "×" << want.cols() << '\n';
        ++failures;
        return;
    }
    double ss = 0.0;
    std::size_t finite = 0;
    for (double v : want.data()) {
        if (std::isfinite(v)) {
            ss += v * v;
            ++finite;
        }
    }
    const double rms = finite > 0 ? std::sqrt(ss / static_cast<double>(finite)) : 0.0;
    for (std::size_t r = 0; r < want.rows(); ++r) {
        for (std::size_t c = 0; c < want.cols(); ++c) {
            const double a = got(r, c);
            const double b = want(r, c);
            if (!std::isfinite(b) || !std::isfinite(a)) {
                if (a != b) {
                    std::cerr << "FAIL: " << where << "[" << r << "," << c << "] = " << a
                              << ", expected " << b << '\n';
                    ++failures;
                }
                continue;
            }
            const double scale = std::max(std::abs(b), rms);
            const double error = scale > 0.0 ? std::abs(a - b) / scale : std::abs(a - b);
            worst = std::max(worst, error);
            if (error > 1e-9) {
                std::cerr << "FAIL: " << where << "[" << r << "," << c << "] = " << a
                          << ", expected " << b << " (relative error " << error << ")\n";
                ++failures;
                return;
            }
        }
    }
}

std::size_t check_layer(const std::string& dir, const attn::Gpt2Checkpoint& ck,
                        const Json& expected, std::size_t layer) {
    const auto& c = ck.config;
    const std::string text = expected["text"].get<std::string>();
    attn::Gpt2Request request;
    request.sentence = text;
    for (const auto& token : ck.bpe.tokenize(text, c.n_positions)) {
        request.token_ids.push_back(token.id);
        request.tokens.push_back(token.display);
        request.token_texts.push_back(token.text);
    }
    request.layer = layer;
    request.source = dir;
    const attn::CheckpointTensors tensors(ck.model);
    const attn::Trace trace = attn::explain_gpt2(request, c, tensors);

    const Json& L = expected["layers"][layer];
    const std::size_t d = c.n_embd;
    const std::size_t d_head = d / c.n_head;
    const attn::Matrix c_attn_w = matrix_of(L["c_attn_weight"]);
    const attn::Matrix c_attn_b = matrix_of(L["c_attn_bias"]);
    std::size_t checked = 0;
    for (const auto& step : attn::teaching_steps(trace)) {
        const std::string where = dir + " layer " + std::to_string(layer) + " " + step.id;
        if (step.kind == attn::StepKind::tokens) {
            if (request.token_ids != expected["input_ids"].get<std::vector<std::uint32_t>>()) {
                std::cerr << "FAIL: " << where << ": token ids\n";
                ++failures;
            }
            ++checked;
            continue;
        }
        if (step.kind == attn::StepKind::mask) {
            const auto& m = expected["mask"];
            for (std::size_t r = 0; r < m.size(); ++r) {
                for (std::size_t col = 0; col < m[r].size(); ++col) {
                    if (step.mask->allowed(r, col) != m[r][col].get<bool>()) {
                        std::cerr << "FAIL: " << where << "[" << r << "," << col << "]\n";
                        ++failures;
                    }
                }
            }
            ++checked;
            continue;
        }
        const std::string id = step.id;
        const std::string base(attn::base_id(id));
        const std::size_t h = step.head > 0 ? step.head - 1 : 0;
        const Json& head = L["heads"][h];
        attn::Matrix want;
        if (id == "wte") {
            want = matrix_of(expected["wte_rows"]);
        } else if (id == "wpe") {
            want = matrix_of(expected["wpe_rows"]);
        } else if (id == "embeddings") {
            want = matrix_of(expected["embeddings"]);
        } else if (id == "layers_below") {
            want = attn::Matrix(2 * layer, request.token_ids.size());
            for (std::size_t l = 0; l < layer; ++l) {
                const auto a = matrix_of(expected["layers"][l]["attn_change"]);
                const auto m = matrix_of(expected["layers"][l]["mlp_change"]);
                for (std::size_t t = 0; t < want.cols(); ++t) {
                    want(2 * l, t) = a.data()[t];
                    want(2 * l + 1, t) = m.data()[t];
                }
            }
        } else if (id == "residual") {
            want = matrix_of(L["residual"]);
        } else if (id == "ln_1.mean") {
            want = matrix_of(L["ln_1_mean"]);
        } else if (id == "ln_1.variance") {
            want = matrix_of(L["ln_1_variance"]);
        } else if (id == "ln_1.weight") {
            want = matrix_of(L["ln_1_weight"]);
        } else if (id == "ln_1.bias") {
            want = matrix_of(L["ln_1_bias"]);
        } else if (id == "ln_1") {
            want = matrix_of(L["ln_1"]);
        } else if (id == "W_Q" || id == "W_K" || id == "W_V") {
            const std::size_t block = id == "W_Q" ? 0 : id == "W_K" ? 1 : 2;
            want = columns(c_attn_w, block * d, d);
        } else if (id == "b_Q" || id == "b_K" || id == "b_V") {
            const std::size_t block = id == "b_Q" ? 0 : id == "b_K" ? 1 : 2;
            want = columns(c_attn_b, block * d, d);
        } else if (base == "W_Q" || base == "W_K" || base == "W_V") {
            const std::size_t block = base == "W_Q" ? 0 : base == "W_K" ? 1 : 2;
            want = columns(c_attn_w, block * d + h * d_head, d_head);
        } else if (base == "Q" || base == "K" || base == "V") {
            want = matrix_of(head[base == "Q" ? "q" : base == "K" ? "k" : "v"]);
        } else if (base == "scores") {
            want = matrix_of(head["scores"]);
        } else if (base == "scaled_scores") {
            want = matrix_of(head["scaled"]);
        } else if (base == "masked_scores") {
            want = matrix_of(head["masked"]);
        } else if (base == "weights") {
            want = matrix_of(head["weights"]);
        } else if (id != base && base == "output") {
            want = matrix_of(head["output"]);
        } else if (id == "concat") {
            want = matrix_of(L["concat"]);
        } else if (id == "W_O") {
            want = matrix_of(L["c_proj_weight"]);
        } else if (id == "b_O") {
            want = matrix_of(L["c_proj_bias"]);
        } else if (id == "output") {
            want = matrix_of(L["attn_c_proj"]);
        } else if (id == "residual_attn") {
            want = matrix_of(L["residual_attn"]);
        } else if (id == "mlp") {
            want = matrix_of(L["mlp_c_proj"]);
        } else if (id == "residual_mlp") {
            want = matrix_of(L["residual_mlp"]);
        } else {
            std::cerr << "FAIL: " << where << ": no reference for this step\n";
            ++failures;
            continue;
        }
        compare(where, step, want);
        ++checked;
    }
    return checked;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: check_gpt2_forward CASE_DIR...\n";
        return 2;
    }
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string dir = argv[i];
            std::ifstream in(dir + "/expected.json");
            const auto expected = Json::parse(in);
            const auto ck = attn::open_gpt2_checkpoint(dir);
            for (std::size_t layer = 0; layer < ck.config.n_layer; ++layer) {
                const std::size_t n = check_layer(dir, ck, expected, layer);
                std::cout << dir << " layer " << layer << ": " << n << " steps checked\n";
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "FAIL: " << e.what() << '\n';
        return 1;
    }
    std::cout << "largest relative error: " << worst << '\n';
    return failures == 0 ? 0 : 1;
}
