// Answers files: a worksheet's settings and the student's answers, one matrix per step,
// for attn check.
#include "attn/io/model_file.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "reader.hpp"

namespace attn {

AnswerSheet read_answers(const std::string& path, std::size_t max_memory) {
    Reader r(path, max_memory);
    const Value root =
        r.document("attn.answers", "an answers file written by attn worksheet and filled in");
    r.check_keys(root, "", {"schema", "schema_version", "instructions", "worksheet", "answers"});
    AnswerSheet sheet;
    sheet.path = path;
    const Value& w = r.require(root, "", "worksheet", "the worksheet's settings");
    r.expect_type(w, "worksheet", Type::object, "an object");
    r.check_keys(w, "worksheet",
                 {"sentence", "seed", "d_model", "d_k", "d_v", "mask", "arith", "tokenizer",
                  "layout", "model", "qkv"});
    WorksheetSettings& spec = sheet.worksheet;
    const Value* model = w.find("model");
    const Value* qkv = w.find("qkv");
    if (model != nullptr && qkv != nullptr) {
        r.fail(*qkv, "worksheet.qkv",
               "found both \"model\" and \"qkv\", expected one of them: the numbers the "
               "worksheet was made from");
    }
    if (model != nullptr || qkv != nullptr) {
        // the numbers are given: a seed or a size beside them would be a second, unused word
        // on the same thing
        const std::string given = model != nullptr ? "worksheet.model" : "worksheet.qkv";
        for (const char* key : {"seed", "d_model", "d_k", "d_v"}) {
            if (const Value* v = w.find(key)) {
                r.fail(*v, child("worksheet", key),
                       fmt::format("found \"{}\" beside \"{}\", expected no seed or sizes: "
                                   "they come from the numbers in {}",
                                   key, given.substr(10), given));
            }
        }
    } else {
        const Value& seed = r.require(w, "worksheet", "seed", "the seed");
        spec.seed = seed_of(r, seed, "worksheet.seed");
        spec.d_model = r.size_value(r.require(w, "worksheet", "d_model", "a size"),
                                    "worksheet.d_model", Field::d_model);
        spec.d_k =
            r.size_value(r.require(w, "worksheet", "d_k", "a size"), "worksheet.d_k", Field::d_k);
        spec.d_v =
            r.size_value(r.require(w, "worksheet", "d_v", "a size"), "worksheet.d_v", Field::d_v);
    }
    if (model != nullptr) {
        spec.model = reader::model(r, *model, "worksheet.model");
        for (const char* part : {"embeddings", "weights"}) {
            if (model->find(part) == nullptr) {
                r.fail(*model, "worksheet.model",
                       fmt::format("\"{}\" is missing, expected both the embeddings and the "
                                   "weights the worksheet was made from",
                                   part));
            }
        }
    }
    if (qkv != nullptr) {
        spec.qkv = reader::qkv(r, *qkv, "worksheet.qkv");
    }
    // the sentence is Q, K and V's tokens when they name the rows
    if (qkv == nullptr || w.find("sentence") != nullptr) {
        spec.sentence = r.string_value(r.require(w, "worksheet", "sentence", "the sentence"),
                                       "worksheet.sentence");
    }
    spec.mask = mask_value(r, r.require(w, "worksheet", "mask", "\"none\" or \"causal\""),
                           "worksheet.mask");
    if (const Value* a = w.find("arith")) {
        spec.arith =
            reader::enum_value(r, *a, "worksheet.arith", {Arith::exact, Arith::hand}, "arithmetic");
    }
    if (const Value* tok = w.find("tokenizer")) {
        spec.tokenizer = tokenizer_value(r, *tok, "worksheet.tokenizer");
    }
    if (const Value* layout = w.find("layout")) {
        spec.layout = reader::enum_value(r, *layout, "worksheet.layout", {Layout::row, Layout::col},
                                         "layout");
    }
    const Value& answers = r.require(root, "", "answers", "the answers, one matrix per step");
    r.expect_type(answers, "answers", Type::object, "an object of step: [[...], ...]");
    for (const auto& [id, rows] : answers.members) {
        const std::string where = child("answers", id);
        r.expect_type(rows, where, Type::array, "an array of rows");
        std::vector<std::vector<Answer>> matrix;
        for (std::size_t i = 0; i < rows.items.size(); ++i) {
            const Value& row = rows.items[i];
            r.expect_type(row, index(where, i), Type::array, "an array of numbers");
            std::vector<Answer> cells;
            if (const auto* numbers = row.items.numbers()) {
                // a row answered in full is held compactly by the reader: no Value per number
                for (const double x : *numbers) {
                    cells.push_back({.kind = Answer::Kind::number, .value = x});
                }
                matrix.push_back(std::move(cells));
                continue;
            }
            for (std::size_t j = 0; j < row.items.size(); ++j) {
                const Value& cell = row.items[j];
                Answer a;
                if (cell.is(Type::number)) {
                    a.kind = Answer::Kind::number;
                    a.value = cell.number;
                } else if (cell.is(Type::string) &&
                           (cell.text == "-inf" || cell.text == "−∞" || cell.text == "-∞")) {
                    a.kind = Answer::Kind::minus_infinity;
                } else if (!cell.is(Type::null)) {
                    r.fail(
                        cell, index(index(where, i), j),
                        fmt::format("found {}{}, expected a number, \"-inf\" or null (not yet "
                                    "answered)",
                                    json::describe(cell.type),
                                    cell.is(Type::string) ? " \"" + shown(cell.text) + "\"" : ""));
                }
                cells.push_back(a);
            }
            matrix.push_back(std::move(cells));
        }
        sheet.step_ids.push_back(id);
        sheet.answers.push_back(std::move(matrix));
    }
    return sheet;
}

}  // namespace attn
