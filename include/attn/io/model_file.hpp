#pragma once
/// Reading the user's files: embeddings, weights, model files, masks, positions, JSON dumps
/// read back with --from, and answer sheets. Every error names the file, the line and column,
/// the JSON path, what was found and what was expected (formats: docs/json-format.md).
/// `max_memory` bounds what reading takes: the file's text and the tree of values parsed from
/// it (json::parse); a file that would need more is refused as soon as that is known.

#include <functional>
#include <string>
#include <string_view>

#include "attn/core/attention.hpp"
#include "attn/core/check.hpp"
#include "attn/core/input.hpp"
#include "attn/core/whatif.hpp"

namespace attn {

/// Reads a positions file: {"positions": [[numbers], ...]}, one row per position.
Matrix read_positions(const std::string& path, std::size_t max_memory = default_max_memory);
/// Reads a mask file: {"mask": [[true, false, ...], ...]}, true = may attend.
Mask read_mask(const std::string& path, std::size_t max_memory = default_max_memory);

/// Reads a target file {"target": [[numbers], ...]} (--target, for --backward): the output
/// each token should have. Throws attn::Error naming the file and the place of a bad value.
Matrix read_target(const std::string& path, std::size_t max_memory);

/// Reads an embeddings file: {"vectors": {"token": [numbers], ...}, "case_insensitive": bool}.
EmbeddingTable read_embeddings(const std::string& path,
                               std::size_t max_memory = default_max_memory);
/// Reads a weights file: {"W_Q": [[...]], "W_K": [[...]], "W_V": [[...]]}.
Weights read_weights(const std::string& path, std::size_t max_memory = default_max_memory);
/// Reads a model file: {"embeddings": {...}, "weights": {...}, "sentence", "mask", ...}.
ModelFile read_model(const std::string& path, std::size_t max_memory = default_max_memory);

/// Reads a Q, K, V file: {"tokens": [...], "Q": [[...]], "K": [[...]], "V": [[...]]}; the
/// tokens, "description" and "mask" are optional. Q and K have one width (d_k), every matrix
/// one row per token.
QkvFile read_qkv(const std::string& path, std::size_t max_memory = default_max_memory);

/// Reads a JSON dump written by --json and returns the run it records, so that explaining
/// it again reproduces the same walk-through.
/// The tokens must be the sentence's (cut by the recorded tokenizer, then n_pad "<pad>"),
/// each non-empty and without white space or controls; numbers that the dump's sources say
/// were seeded must be what its seed gives, and sinusoidal positions the formula's.
/// A what-if's dump (--set, its "what_if" member) is checked against its changes: the tokens
/// are the sentence's with the recorded swaps made, seeded numbers the seed's with the recorded
/// cells set, each change's value after the dump's own and its value before what the seed (or
/// the mask's kind) gives; the record is returned in `what_if` when asked for.
Loaded read_dump(const std::string& path, std::size_t max_memory = default_max_memory,
                 WhatIfRecord* what_if = nullptr);

/// Writes the dump of the run recomputed from a dump's inputs (render_json of
/// explain(read_dump(path))) to the sink it is given, piece by piece.
using RecomputedDump = std::function<void(const std::function<void(std::string_view)>&)>;

/// Compares every value of the dump at `path` with what `recomputed` writes: numbers equal to
/// about 1e-9 of their size, everything else exactly, attn_version aside. Throws attn::Error
/// (input) at the first difference: its place, the step, the row and column, what the dump
/// says and what recomputing gives. The recomputation is compared as it is written, on a
/// thread of its own, never held whole; the dump is read again within `max_memory`, less
/// what the run holds.
void verify_dump(const std::string& path, const RecomputedDump& recomputed,
                 std::size_t max_memory = default_max_memory);

/// Reads an answers file. Throws attn::Error (input) with the place for a malformed one.
AnswerSheet read_answers(const std::string& path, std::size_t max_memory = default_max_memory);

}  // namespace attn
