// What-if (--set CELL=VALUE): the run as given, its inputs changed, computed again and
// compared with it; and a replayed what-if's dump compared with the run before its changes.
#include <algorithm>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/whatif.hpp"
#include "cli.hpp"

namespace attn::cli {

void attach_recorded(Trace& computed, const Loaded& loaded, const WhatIfRecord& record) {
    if (record.changes.empty()) {
        return;
    }
    const Loaded before = without_changes(loaded, record.changes, record.mask_before);
    const Trace base = explain(before.input, before.config);
    computed.comparison = compare(base, computed, record.changes, record.mask_before);
}

Trace with_settings(const std::vector<std::string>& settings, const Trace& computed,
                    const Loaded& loaded, const WhatIfRecord& record, Layout layout,
                    const RunFiles& files) {
    // the run the changes are made to: the run as given, or a replayed what-if's run before
    // its recorded changes, to which these are added
    const Trace& base = computed.comparison ? computed.comparison->before : computed;
    const Loaded base_loaded = record.changes.empty()
                                   ? loaded
                                   : without_changes(loaded, record.changes, record.mask_before);
    Source embeddings_source = base_loaded.input.embeddings_source;
    std::vector<Change> fresh;
    for (const auto& text : settings) {
        Setting setting = parse_setting(text, computed, layout);
        Change& change = setting.change;
        if (change.is_token()) {
            if (files.spec == nullptr && embeddings_source.kind == Source::Kind::file) {
                throw Error(
                    ErrorKind::usage, Field::set,
                    fmt::format("{} '{}': the new token needs its row of X from {}, which "
                                "a replayed dump does not hold, expected the command that "
                                "made the dump, with --set",
                                subject, shown(setting.text), shown(embeddings_source.path)));
            }
            const auto row = base_loaded.input.x.row(change.row);
            change.embedding_before.assign(row.begin(), row.end());
            change.embedding_after =
                files.spec == nullptr
                    ? embedding_for(change.token_after, change.row, InputSpec{}, InputFiles{},
                                    base_loaded.config, embeddings_source)
                    : embedding_for(change.token_after, change.row, *files.spec, *files.files,
                                    base_loaded.config, embeddings_source);
        }
        fresh.push_back(std::move(change));
    }
    std::vector<Change> all = merge_changes(record.changes, fresh);
    Loaded after = with_changes(base_loaded, base, all);
    // the tokens whose rows were seeded (--unknown random), of those the run still has
    auto& seeded = after.input.embeddings_source.seeded_tokens;
    seeded.clear();
    for (const auto& token : embeddings_source.seeded_tokens) {
        if (std::find(after.input.tokens.begin(), after.input.tokens.end(), token) !=
            after.input.tokens.end()) {
            seeded.push_back(token);
        }
    }
    std::string& description = after.input.description;
    if (!description.empty() && description.find("--set") == std::string::npos) {
        description += " [written for the run as given; with --set it may not hold here]";
    }
    Trace changed = explain(after.input, after.config);
    changed.comparison = compare(base, changed, std::move(all), base_loaded.config.mask);
    return changed;
}

}  // namespace attn::cli
