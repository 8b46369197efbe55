#include <cmath>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "attn/core/error.hpp"
#include "attn/io/json_reader.hpp"

using attn::json::parse;
using Type = attn::json::Value::Type;

namespace {

// The line and column of a value of `text`, as a message names them.
attn::json::LineColumn place(std::string_view text, const attn::json::Value& v) {
    return attn::json::line_column(text, v.position.offset);
}

std::string error_of(std::string_view text) {
    try {
        (void)parse(text, "f.json");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 2);
        return e.what();
    }
    FAIL("no error for: " << text);
    return {};
}

// Our reader and nlohmann/json must agree on every value of a valid document.
bool same(const attn::json::Value& ours, const nlohmann::json& theirs) {
    switch (ours.type) {
        case Type::null:
            return theirs.is_null();
        case Type::boolean:
            return theirs.is_boolean() && theirs.get<bool>() == ours.boolean;
        case Type::number:
            return theirs.is_number() && theirs.get<double>() == ours.number;
        case Type::string:
            return theirs.is_string() && theirs.get<std::string>() == ours.text;
        case Type::array:
            if (!theirs.is_array() || theirs.size() != ours.items.size()) {
                return false;
            }
            for (std::size_t i = 0; i < ours.items.size(); ++i) {
                if (!same(ours.items[i], theirs[i])) {
                    return false;
                }
                // a number array's compact values agree with its elements
                if (ours.items.numbers() != nullptr &&
                    (*ours.items.numbers())[i] != ours.items[i].number) {
                    return false;
                }
            }
            return true;
        case Type::object:
            if (!theirs.is_object() || theirs.size() != ours.members.size()) {
                return false;
            }
            for (const auto& [k, v] : ours.members) {
                if (!theirs.contains(k) || !same(v, theirs[k])) {
                    return false;
                }
            }
            return true;
    }
    return false;
}

}  // namespace

TEST_CASE("json reader: values, positions and comments", "[json]") {
    const std::string_view doc =
        "// head\n{\n  \"a\": [1, -2.5e3, true, null],\n  /* b */ \"b\": \"x\\u00e9\\n\"\n}";
    const auto v = parse(doc, "f.json");
    REQUIRE(v.is(Type::object));
    CHECK(place(doc, v).line == 2);
    const auto* a = v.find("a");
    REQUIRE(a != nullptr);
    CHECK(place(doc, *a).line == 3);
    CHECK(place(doc, *a).column == 8);
    CHECK(a->items[1].number == -2500.0);
    CHECK(place(doc, a->items[1]).column == 12);
    CHECK(a->items[2].boolean);
    CHECK(a->items[3].is(Type::null));
    CHECK(v.find("b")->text == "xé\n");
    CHECK(v.find("c") == nullptr);
    // integers keep their exact text (seeds above 2^53)
    CHECK(parse("[18446744073709551615]", "f").items[0].text == "18446744073709551615");
    // columns count characters, not bytes
    const std::string_view accented = "{\"é\": 1}";
    CHECK(place(accented, *parse(accented, "f").find("é")).column == 7);
}

TEST_CASE("json reader: arrays of numbers are held compactly, with every element's place",
          "[json]") {
    using Catch::Matchers::Equals;
    const std::string_view row = "[0.5, -1e3,\n  2.25E-1]";
    const auto a = parse(row, "f");
    REQUIRE(a.items.numbers() != nullptr);
    CHECK_THAT(*a.items.numbers(), Equals(std::vector<double>{0.5, -1000.0, 0.225}));
    REQUIRE(a.items.size() == 3);
    CHECK(a.items[1].is(Type::number));
    CHECK(a.items[1].number == -1000.0);
    CHECK(a.items[1].text.empty());
    CHECK(place(row, a.items[1]).column == 7);
    CHECK(place(row, a.items[2]).line == 2);
    CHECK(place(row, a.items[2]).column == 3);
    CHECK(std::distance(a.items.begin(), a.items.end()) == 3);
    CHECK(a.items.numbers() != nullptr);  // still there after the elements were made

    // integers keep their text exactly, as elsewhere
    const auto ints = parse("[0.5, 7, -0, -12, 999999999999999]", "f");
    REQUIRE(ints.items.numbers() != nullptr);
    CHECK(ints.items[0].text.empty());
    CHECK(ints.items[1].text == "7");
    CHECK(ints.items[2].text == "-0");
    CHECK(std::signbit(ints.items[2].number));
    CHECK(ints.items[3].text == "-12");
    CHECK(ints.items[4].text == "999999999999999");

    // an integer of 16 digits or more, anything not a number, or an empty array: Values
    const std::string_view long_integer = "[0.5, 9007199254740993, 0.25]";
    const auto mixed = parse(long_integer, "f");
    CHECK(mixed.items.numbers() == nullptr);
    REQUIRE(mixed.items.size() == 3);
    CHECK(mixed.items[0].number == 0.5);
    CHECK(place(long_integer, mixed.items[0]).column == 2);
    CHECK(mixed.items[1].text == "9007199254740993");
    CHECK(mixed.items[2].number == 0.25);
    CHECK(parse("[-1000000000000000]", "f").items[0].text == "-1000000000000000");
    CHECK(parse("[0.5, \"a\"]", "f").items[1].text == "a");
    CHECK(parse("[0.5, [0.25]]", "f").items[1].items.numbers() != nullptr);
    CHECK(parse("[]", "f").items.empty());
    CHECK(parse("[]", "f").items.numbers() == nullptr);
    CHECK(parse("{\"a\": 0.5}", "f").items.numbers() == nullptr);
    CHECK(parse("0.5", "f").items.empty());

    // the depth limit holds for numbers in compact arrays as for any other value
    const auto nested = [](std::size_t depth, std::string_view inner) {
        return std::string(depth, '[') + std::string(inner) + std::string(depth, ']');
    };
    CHECK(parse(nested(64, "0.5"), "f").items.size() == 1);
    CHECK(parse(nested(64, "1"), "f").items.size() == 1);
    CHECK_THAT(error_of(nested(65, "0.5")), Catch::Contains("more than 64 levels"));
    CHECK_THAT(error_of(nested(65, "1")), Catch::Contains("more than 64 levels"));
    // errors inside a compact array still name their place
    CHECK_THAT(error_of("[0.5, 0.25, 1.e3]"),
               Catch::StartsWith("f.json:1:15:") && Catch::Contains("after the decimal point"));
}

TEST_CASE("json reader: agrees with nlohmann/json on valid documents", "[json]") {
    for (const char* doc : {
             R"({"x": [1, 2.5, -0.0, 1e-300, 123456789012, "s", "\"\\\/\b\f\n\r\t", {}, []]})",
             R"([[0.1, 0.2], [0.30000000000000004, 5e-324], [1.7976931348623157e308]])",
             R"([[-0.5, 2.5e-3, 1E+2], [0.5, 7], [0.5, "s"], [1, 0.5], [0.0, -0.0]])",
             R"({"emoji": "\ud83d\ude00 🙂", "nested": {"a": {"b": [true, false, null]}}})",
             "  \"just a string\"  ",
             "42",
         }) {
        INFO(doc);
        CHECK(same(parse(doc, "f"), nlohmann::json::parse(doc)));
    }
}

TEST_CASE("json reader: syntax errors name the place, what was found and what was expected",
          "[json]") {
    CHECK(error_of("{\"a\": [1, 2,, 3]}") ==
          "f.json:1:13: not JSON: ',', expected a value (a number, a string in double quotes, "
          "[, {, true, false or null)");
    CHECK_THAT(error_of("{\"a\": 1,\n}"), Catch::StartsWith("f.json:2:1: not JSON: '}'") &&
                                              Catch::Contains("no trailing comma"));
    CHECK_THAT(error_of("[1, 2"), Catch::Contains("cut short"));
    CHECK_THAT(error_of("{\"a\": 1, \"a\": 2}"),
               Catch::StartsWith("f.json:1:10:") && Catch::Contains("the key \"a\" a second time"));
    CHECK_THAT(error_of("[1e999]"), Catch::Contains("overflows to infinity"));
    CHECK(parse("[1e-999]", "f").items[0].number == 0.0);
    CHECK_THAT(error_of("[01]"), Catch::Contains("leading zero"));
    CHECK_THAT(error_of("[1.]"), Catch::Contains("a digit after the decimal point"));
    CHECK_THAT(error_of("[NaN]"), Catch::Contains("1:2: not JSON: NaN, which JSON does not allow"));
    CHECK_THAT(error_of("[Infinity]"), Catch::Contains("Infinity, which JSON does not allow"));
    CHECK_THAT(error_of("[Nope]"), Catch::Contains("'N'"));
    CHECK_THAT(error_of("\xFF\xFE[1]"), Catch::Contains("a UTF-16 byte order mark"));
    CHECK_THAT(error_of("[" + std::string(400, '9') + "]"),
               Catch::Contains("the number 999999999999… (400 characters) that overflows"));
    CHECK_THAT(error_of("[tru]"), Catch::Contains("'t'"));
    CHECK_THAT(error_of("\"\\ud800\""), Catch::Contains("surrogate"));
    CHECK_THAT(error_of("\"\\x\""), Catch::Contains("the escape \\x"));
    CHECK_THAT(error_of("\"a\nb\""), Catch::Contains("a line break inside a string"));
    CHECK_THAT(error_of("\"caf\xE9\""), Catch::Contains("byte 0xE9, which is not UTF-8"));
    CHECK_THAT(error_of("{} {}"), Catch::Contains("after the end of the JSON value"));
    CHECK_THAT(error_of("/* open"), Catch::Contains("never closed"));
    CHECK_THAT(error_of(std::string(100, '[') + std::string(100, ']')),
               Catch::Contains("more than 64 levels"));
    CHECK_THAT(error_of(""), Catch::Contains("no JSON value"));
}

TEST_CASE("json reader: comments, NUL bytes, byte order marks and numbers at the edges", "[json]") {
    using namespace std::string_literals;
    // a // comment runs to the end of its line, past a lone carriage return or a NUL byte
    // (nlohmann's lexer would end it there)
    CHECK(error_of("// a\r1") ==
          "f.json:1:7: not JSON: the file has no JSON value, expected a JSON object");
    CHECK(error_of("[1, // x\r 2\n]") ==
          "f.json:2:1: not JSON: ']' after a comma, expected another element (JSON allows no "
          "trailing comma)");
    CHECK(parse("[\"a\", // \0 x\n 1]"s, "f").items.size() == 2);
    CHECK(parse("[1, // x\r\n 2]", "f").items.size() == 2);
    CHECK(parse("/* \0 */ [1]"s, "f").items[0].text == "1");
    CHECK(parse("{\"a\" // key\n : /* colon */ 1}", "f").find("a")->number == 1.0);
    CHECK_THAT(error_of("[1 /x]"), Catch::StartsWith("f.json:1:4: not JSON: '/', expected ','"));
    // a NUL byte ends nothing
    CHECK_THAT(error_of("{}\0"s),
               Catch::StartsWith("f.json:1:3: not JSON: byte 0x00 after the end"));
    CHECK_THAT(error_of("[\0]"s),
               Catch::StartsWith("f.json:1:2: not JSON: byte 0x00, expected a value"));
    // read_file drops a UTF-8 byte order mark; parse takes the text as it is
    CHECK_THAT(error_of("\xEF\xBB\xBF{}"), Catch::StartsWith("f.json:1:1: not JSON: byte 0xEF"));
    // numbers: a leading zero at the number, even where nlohmann reads 0 and then 1
    CHECK_THAT(error_of("[01]"),
               Catch::StartsWith("f.json:1:2: not JSON: a number with a leading"));
    CHECK_THAT(error_of("[-00.5]"),
               Catch::StartsWith("f.json:1:2: not JSON: a number with a leading"));
    CHECK_THAT(error_of("[-0 1]"), Catch::StartsWith("f.json:1:5: not JSON: '1', expected ','"));
    CHECK_THAT(error_of("[1, -1e999]"),
               Catch::StartsWith("f.json:1:5: not JSON: the number -1e999"));
    // too small for a double: zero (with its sign, as IEEE-754 rounds it)
    CHECK(parse("[-1e-999]", "f").items[0].number == 0.0);
    CHECK(parse("[1e-999]", "f").items[0].number == 0.0);
    const auto big = parse("[18446744073709551616, -9223372036854775809, 1]", "f");
    CHECK(big.items[0].text == "18446744073709551616");
    CHECK(big.items[1].text == "-9223372036854775809");
    CHECK(big.items[2].text == "1");
    // a key is the same key however it is escaped
    CHECK(error_of("{\"a\": 1, \"\\u0061\": 2}") ==
          "f.json:1:10: not JSON: the key \"a\" a second time, expected each key once per object");
}
