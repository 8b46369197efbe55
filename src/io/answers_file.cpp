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
                 {"sentence", "seed", "d_model", "d_k", "d_v", "mask", "arith", "tokenizer"});
    WorksheetSettings& spec = sheet.worksheet;
    spec.sentence =
        r.string_value(r.require(w, "worksheet", "sentence", "the sentence"), "worksheet.sentence");
    const Value& seed = r.require(w, "worksheet", "seed", "the seed");
    spec.seed = seed_of(r, seed, "worksheet.seed");
    spec.d_model = r.size_value(r.require(w, "worksheet", "d_model", "a size"), "worksheet.d_model",
                                Field::d_model);
    spec.d_k =
        r.size_value(r.require(w, "worksheet", "d_k", "a size"), "worksheet.d_k", Field::d_k);
    spec.d_v =
        r.size_value(r.require(w, "worksheet", "d_v", "a size"), "worksheet.d_v", Field::d_v);
    spec.mask = mask_value(r, r.require(w, "worksheet", "mask", "\"none\" or \"causal\""),
                           "worksheet.mask");
    if (const Value* a = w.find("arith")) {
        spec.arith =
            reader::enum_value(r, *a, "worksheet.arith", {Arith::exact, Arith::hand}, "arithmetic");
    }
    if (const Value* tok = w.find("tokenizer")) {
        spec.tokenizer = tokenizer_value(r, *tok, "worksheet.tokenizer");
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
