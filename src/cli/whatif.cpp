// What-if (--set CELL=VALUE): the run as given, its inputs changed, computed again and
// compared with it; and a replayed what-if's dump compared with the run before its changes.
#include <algorithm>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/whatif.hpp"
#include "attn/io/heap.hpp"
#include "attn/io/model_file.hpp"
#include "cli.hpp"
#include "stats.hpp"

namespace attn {

std::vector<double> embedding_for(const std::string& token, std::size_t at, const InputSpec& spec,
                                  const InputFiles& files, const Config& config, Source& source) {
    const EmbeddingTable* table = files.embeddings ? &*files.embeddings
                                  : files.model && files.model->embeddings
                                      ? &*files.model->embeddings
                                      : nullptr;
    const Matrix row = table != nullptr ? embeddings_of(*table, {token}, spec.unknown, config.seed,
                                                        source, "given to --set", at)
                                        : seeded_embeddings({token}, config.d_model, config.seed,
                                                            config.arith == Arith::hand);
    return {row.row(0).begin(), row.row(0).end()};
}

}  // namespace attn

namespace attn::cli {

Replayed replay_dump(const std::string& path, std::size_t max_memory, Stopwatch* watch) {
    Replayed out;
    out.loaded = read_dump(path, max_memory, &out.record);
    const Loaded& loaded = out.loaded;
    // a dump's inputs are small; its T×T steps may not be
    check_memory(loaded.config, loaded.input.tokens.size(), budget_now(max_memory));
    if (watch != nullptr) {
        watch->lap("read " + path);
    }
    out.trace = explain(loaded.input, loaded.config);
    if (!out.record.changes.empty()) {  // a what-if's: compared with the run before its changes
        const Loaded before = without_changes(loaded, out.record.changes, out.record.mask_before);
        out.trace.comparison = compare(explain(before.input, before.config), out.trace,
                                       out.record.changes, out.record.mask_before);
    }
    if (watch != nullptr) {
        watch->lap("compute");
    }
    // a replay shows only what its inputs give: every value the dump holds is compared with
    // the run computed again, as its dump is written, and the first that differs is an error
    // (exit 2)
    verify_dump(
        path, [&out](const Sink& sink) { render_json(out.trace, sink); }, max_memory);
    if (watch != nullptr) {
        watch->lap("verify " + path);
    }
    return out;
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
    std::vector<std::string> texts;  // each fresh change's --set as given
    for (const auto& text : settings) {
        Setting setting = parse_setting(text, computed, layout);
        Change& change = setting.change;
        // one cell set twice: the last would silently win
        for (std::size_t k = 0; k < fresh.size(); ++k) {
            if (fresh[k].step_id == change.step_id && fresh[k].row == change.row &&
                fresh[k].col == change.col) {
                throw Error(ErrorKind::usage, Field::set,
                            fmt::format("{} '{}': {} is set a second time (first by '{}'), "
                                        "expected each cell once",
                                        subject, shown(setting.text),
                                        shown(cell_name(change, computed)), shown(texts[k])));
            }
        }
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
        texts.push_back(setting.text);
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
