// Mask files, {"mask": [[true, false, ...], ...]}, and positions files,
// {"positions": [[numbers], ...]}.
#include "attn/io/model_file.hpp"

#include <string>

#include <fmt/format.h>

#include "reader.hpp"

namespace attn {

Matrix read_positions(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    const Value root =
        r.document("attn.positions", "a positions file: {\"positions\": [[numbers], ...]}");
    r.check_keys(root, "", {"schema", "description", "positions"});
    return r.matrix(r.require(root, "", "positions", "\"positions\": one row per position"),
                    "positions");
}

Mask read_mask(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    const Value root =
        r.document("attn.mask", "a mask file: {\"mask\": [[true, false, ...], ...]}");
    r.check_keys(root, "", {"schema", "description", "mask"});
    const Value& rows = r.require(root, "", "mask", "\"mask\": one row of booleans per token");
    r.expect_type(rows, "mask", Type::array, "an array of rows of true and false");
    if (rows.items.empty()) {
        r.fail(rows, "mask", "the mask is empty, expected one row per token");
    }
    Mask m(rows.items.size(), rows.items.size(), true);
    for (std::size_t i = 0; i < rows.items.size(); ++i) {
        const Value& row = rows.items[i];
        const std::string where = index("mask", i);
        r.expect_type(row, where, Type::array, "an array of true and false");
        if (row.items.size() != rows.items.size()) {
            r.fail(row, where,
                   fmt::format("row {} has {} entries, expected {} (the mask is square: one row "
                               "and one column per token)",
                               i, row.items.size(), rows.items.size()));
        }
        for (std::size_t j = 0; j < row.items.size(); ++j) {
            const Value& cell = row.items[j];
            if (!cell.is(Type::boolean)) {
                r.fail(cell, index(where, j),
                       fmt::format("found {}, expected true (may attend) or false (blocked)",
                                   json::describe(cell.type)));
            }
            m.set(i, j, cell.boolean);
        }
    }
    return m;
}

}  // namespace attn
