// The what-if record of a JSON dump (--set, docs/json-format.md): each change with its value
// before and after, and the mask's kind before, so that --from can remake the run before.
#include "attn/core/whatif.hpp"
#include "json_out.hpp"

namespace attn::json_out {

void write_what_if(JsonOut& j, const Trace& t) {
    const Comparison& cmp = *t.comparison;
    j.raw("{\"changes\": [");
    bool mask = false;
    for (std::size_t i = 0; i < cmp.changes.size(); ++i) {
        const Change& c = cmp.changes[i];
        j.raw(i == 0 ? "\n    {\"cell\": " : ",\n    {\"cell\": ");
        j.string(cell_name(c, t));
        j.raw(", \"step\": ");
        j.string(c.step_id);
        j.raw(", \"row\": ");
        j.integer(c.row);
        if (c.is_token()) {
            j.raw(", \"before\": ");
            j.string(c.token_before);
            j.raw(", \"after\": ");
            j.string(c.token_after);
            j.raw(", \"embedding_before\": ");
            array(j, c.embedding_before);
        } else {
            j.raw(", \"col\": ");
            j.integer(c.col);
            if (c.step_id == "mask") {
                mask = true;
                j.raw(c.before != 0.0 ? ", \"before\": true" : ", \"before\": false");
                j.raw(c.after != 0.0 ? ", \"after\": true" : ", \"after\": false");
            } else {
                j.raw(", \"before\": ");
                j.number(c.before);
                j.raw(", \"after\": ");
                j.number(c.after);
            }
        }
        j.raw("}");
    }
    j.raw("\n  ]");
    if (mask) {
        j.raw(", \"mask_before\": ");
        j.string(to_string(cmp.mask_before));
    }
    j.raw("}");
}

}  // namespace attn::json_out
