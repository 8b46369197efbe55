// Target files for the backward pass, {"target": [[numbers], ...]}: the output each token
// should have.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "attn/io/model_file.hpp"
#include "reader.hpp"

namespace attn {

Matrix read_target(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    const Value root = r.document(
        "attn.target", "a target file: {\"target\": [[numbers], ...]}, one row per token");
    r.check_keys(root, "", {"schema", "description", "target"});
    const Value& rows = r.require(root, "", "target", "\"target\": one row of numbers per token");
    Matrix m = r.matrix(rows, "target");
    // a number too large for a double (1e999) is read as infinity: no loss can use it
    for (std::size_t i = 0; i < m.rows(); ++i) {
        for (std::size_t j = 0; j < m.cols(); ++j) {
            if (!std::isfinite(m(i, j))) {
                r.fail(rows.items[i], index(index("target", i), j),
                       fmt::format("found a number too large for a double ({}), expected a "
                                   "finite number",
                                   m(i, j)));
            }
        }
    }
    return m;
}

}  // namespace attn
