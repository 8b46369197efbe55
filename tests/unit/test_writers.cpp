// The small JSON writers: attn init's model file, the answers template and the HTML page's
// data, whose values come from nlohmann/json, laid out for people to read.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/io/json_reader.hpp"
#include "attn/io/model_file.hpp"
#include "attn/render/render.hpp"
#include "json_layout.hpp"
#include "plan.hpp"

namespace fs = std::filesystem;
using attn::json_layout::Json;

namespace {

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// The text of the <script type="application/json" id="ID"> block of a page.
std::string script_data(const std::string& page, const std::string& id) {
    const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
    const auto begin = page.find(open);
    REQUIRE(begin != std::string::npos);
    const auto end = page.find("</script>", begin);
    REQUIRE(end != std::string::npos);
    return page.substr(begin + open.size(), end - begin - open.size());
}

}  // namespace

TEST_CASE("json_layout: scalars' containers on one line, the rest a line per element",
          "[writers]") {
    const Json value = {{"name", "a \"quoted\" \\ word\n"},
                        {"flags", {{"on", true}, {"off", false}, {"none", nullptr}}},
                        {"row", {1.5, -0.25, 2}},
                        {"matrix", {{1, 2}, {3, 4}}},
                        {"empty", Json::array()},
                        {"nested", {{"deep", {{"row", {0.5}}}}}}};
    const std::vector<attn::json_layout::Comment> comments{
        {"/matrix", "two rows\nof two"}, {"/nested/deep", "inside"}, {"/absent", "never"}};
    CHECK(attn::json_layout::write(value, comments) == R"({
  "name": "a \"quoted\" \\ word\n",
  "flags": {"on": true, "off": false, "none": null},
  "row": [1.5, -0.25, 2],
  // two rows
  // of two
  "matrix": [
    [1, 2],
    [3, 4]
  ],
  "empty": [],
  "nested": {
    // inside
    "deep": {
      "row": [0.5]
    }
  }
})");
    CHECK(Json::parse(attn::json_layout::write(value)) == value);
    CHECK(attn::json_layout::write(Json::object()) == "{}");
    CHECK(attn::json_layout::write(Json("é ✓")) == "\"é ✓\"");
}

TEST_CASE("attn init's file: every number and token reads back exactly", "[writers][init]") {
    attn::Config c;
    c.d_model = 4;
    c.n_heads = 2;
    c.d_k = 2;
    c.d_v = 2;
    attn::Input in = attn::seeded_input("He said \"hi \\ twice:", c);
    REQUIRE(!in.weights.w_o.empty());
    // numbers a seeded file does not have: -0.0, whole numbers, tiny, huge, 17 digits
    const std::vector<double> awkward{
        -0.0, 1.0, -3.0, 1e-05, 123456789.0, 1e22, 5e-324, 0.1 + 0.2, -0.0007626450645834362};
    for (std::size_t i = 0; i < in.x.data().size(); ++i) {
        in.x.data()[i] = awkward[i % awkward.size()];
    }
    const std::string text = attn::render_model_file(in, c, "attn init ...");
    CHECK_THAT(text, Catch::Contains("    // 2 heads: head h uses columns"));
    CHECK_THAT(text, Catch::Contains("    // W_O: (heads·d_v) × d_model = 4 × 4; mixes the heads\n"
                                     "    \"W_O\": [\n      ["));
    CHECK_THAT(text, Catch::Contains("      \"\\\"\": ["));  // the token " as a key
    const auto path =
        fs::temp_directory_path() / ("attn-" + std::to_string(::getpid()) + "-writers-init.json");
    std::ofstream(path) << text;
    attn::InputSpec spec;
    spec.model_path = path.string();
    const auto loaded = attn::load_input(spec);
    fs::remove(path);
    CHECK(loaded.input.tokens == in.tokens);
    REQUIRE(loaded.input.x.data().size() == in.x.data().size());
    for (std::size_t i = 0; i < in.x.data().size(); ++i) {
        INFO(i);
        CHECK(same_bits(loaded.input.x.data()[i], in.x.data()[i]));
    }
    CHECK(loaded.input.weights.w_q == in.weights.w_q);
    CHECK(loaded.input.weights.w_o == in.weights.w_o);
    CHECK(loaded.config.n_heads == 2);
}

TEST_CASE("the answers template: the worksheet's settings and a null per blank cell",
          "[writers][worksheet]") {
    attn::Config c;
    c.seed = 18446744073709551615ULL;  // above 2^53: written exactly
    const auto trace = attn::explain(attn::seeded_input("This is \"book\"", c), c);
    const std::string text = attn::render_answers_template(trace, {"scores", "output"});
    const auto doc = Json::parse(text);
    CHECK(doc["schema"] == "attn.answers");
    CHECK(doc["worksheet"]["sentence"] == "This is \"book\"");
    CHECK_THAT(text, Catch::Contains("    \"seed\": 18446744073709551615,\n"));
    CHECK(doc["answers"].size() == 2);
    CHECK(doc["answers"]["scores"] == Json(5, Json(5, nullptr)));
    CHECK_THAT(text, Catch::Contains("    \"scores\": [\n      [null, null, null, null, null],\n"));
    CHECK_THAT(attn::render_answers_template(trace, {}), Catch::EndsWith("  \"answers\": {}\n}\n"));
}

TEST_CASE("html: the page's data is JSON with no '<' that could end its script",
          "[writers][html]") {
    attn::Config c;
    const auto trace = attn::explain(attn::seeded_input("A </script> <!-- \"b\\", c), c);
    const std::string page = attn::render_html(trace, attn::TextStyle{});
    const std::string tokens = script_data(page, "token-data");
    const std::string why = script_data(page, "why-data");
    CHECK(tokens.find('<') == std::string::npos);
    CHECK(why.find('<') == std::string::npos);
    CHECK_THAT(tokens, Catch::Contains("\"\\u003c\""));
    CHECK(Json::parse(tokens) == Json(trace.tokens));
    const auto cells = Json::parse(why);
    REQUIRE(cells.is_object());
    CHECK(cells.contains("scores|1|0"));
    CHECK_THAT(cells["scores|1|0"].get<std::string>(), Catch::Contains("<"));
}

TEST_CASE("html: several heads get a grid of their heatmaps before the steps", "[writers][html]") {
    attn::Config c;
    c.d_model = 16;
    c.n_heads = 8;
    c.d_k = 2;
    c.d_v = 2;
    const auto trace = attn::explain(attn::seeded_input("He took <b>the</b> hat", c), c);
    const std::string page = attn::render_html(trace, attn::TextStyle{});
    const auto grid = page.find("<section class=\"heads\"");
    REQUIRE(grid != std::string::npos);
    CHECK(grid < page.find("<section class=\"step\""));
    for (int h = 1; h <= 8; ++h) {
        const auto at = page.find(fmt::format("<figcaption>head {}</figcaption>", h));
        CHECK(at > grid);
        CHECK(at < page.find("<section class=\"step\""));
    }
    CHECK(page.find("<figcaption>head 9</figcaption>") == std::string::npos);
    // each head's cells: T × T, coloured by the weight, titled with the tokens and the weight
    const std::size_t t = trace.tokens.size();
    std::size_t cells = 0;
    for (auto at = page.find("title=\"", grid); at < page.find("<section class=\"step\"");
         at = page.find("title=\"", at + 1)) {
        ++cells;
    }
    CHECK(cells == 8 * t * t);
    const auto& a = trace.heads[2].attention;
    CHECK_THAT(page, Catch::Contains(fmt::format("title=\"He → hat: {}\"",
                                                 attn::format_number(a(0, t - 1), 4, true))));
    // a token is text, never markup
    CHECK_THAT(page, Catch::Contains("<th class=\"key\"><span>&lt;</span></th>"));
    CHECK_THAT(page, Catch::Contains("<tr><th>&gt;</th>"));
    // one head: nothing to compare
    attn::Config one;
    const auto single =
        attn::render_html(attn::explain(attn::seeded_input("a b", one), one), attn::TextStyle{});
    CHECK(single.find("<section class=\"heads\"") == std::string::npos);
}

TEST_CASE("html: the lines view's words are counted and its data is every head's weights",
          "[writers][html]") {
    attn::Config c;
    c.d_model = 6;
    c.n_heads = 3;
    c.d_k = 2;
    c.d_v = 2;
    c.mask = attn::MaskKind::causal;
    auto trace = attn::explain(attn::seeded_input("a <b> c", c), c);
    const std::size_t t = trace.tokens.size();  // a < b > c
    REQUIRE(t == 5);
    std::string page = attn::render_html(trace, attn::TextStyle{});
    CHECK(page.find("<section class=\"lines\"") < page.find("<section class=\"step\""));
    CHECK_THAT(page, Catch::Contains("one colour per head (3 heads,"));
    CHECK_THAT(page, Catch::Contains("a weight of 1 would be 12 pixels thick"));
    CHECK_THAT(page, Catch::Contains("The mask blocks 10 of the 25 query–key pairs: their "
                                     "weights are exactly 0, so they draw no line; every other "
                                     "pair draws one."));
    // the data: the tokens (made visible, as the tables show them) and every weight exactly
    const auto data = nlohmann::json::parse(script_data(page, "lines-data"));
    CHECK(data["labels"] == nlohmann::json({"a", "<", "b", ">", "c"}));
    CHECK(data["widthOfOne"] == 12.0);
    REQUIRE(data["heads"].size() == 3);
    for (std::size_t h = 0; h < 3; ++h) {
        for (std::size_t r = 0; r < t; ++r) {
            for (std::size_t col = 0; col < t; ++col) {
                CHECK(same_bits(data["heads"][h][r][col].get<double>(),
                                trace.heads[h].attention(r, col)));
            }
        }
    }
    // a weight the mask allows that came out 0 is counted apart, and the mask's sentence no
    // longer says every other pair draws a line
    trace.heads[1].attention(4, 0) = 0.0;
    page = attn::render_html(trace, attn::TextStyle{});
    CHECK_THAT(page, Catch::Contains("so they draw no line.</p>"));
    CHECK_THAT(page, Catch::Contains("1 of the 45 weights the mask allows is exactly 0 as "
                                     "computed and draws no line either."));
    // one head: no colours per head; beyond 40 tokens, a note instead of the view
    attn::Config one;
    const auto single =
        attn::render_html(attn::explain(attn::seeded_input("a b", one), one), attn::TextStyle{});
    const auto begin = single.find("<section class=\"lines\"");
    REQUIRE(begin != std::string::npos);
    const std::string view = single.substr(begin, single.find("</section>", begin) - begin);
    CHECK_THAT(view, Catch::Contains("id=\"lines-view\""));
    CHECK_THAT(view, !Catch::Contains("per head"));
    CHECK_THAT(view, !Catch::Contains("The mask blocks"));
    std::string words;
    for (int i = 0; i < 41; ++i) {
        words += fmt::format("w{} ", i);
    }
    const auto long_trace = attn::explain(attn::seeded_input(words, one), one);
    const auto long_page = attn::render_html(long_trace, attn::TextStyle{});
    CHECK(long_page.find("id=\"lines-view\"") == std::string::npos);
    CHECK_THAT(long_page, Catch::Contains("drawn for up to 40 tokens; this input has 41, too "
                                          "many lines to follow: the heatmaps of the weights "
                                          "below show every weight."));
    // without the weights' step (--steps scores) the note sends nobody to it
    attn::TextStyle scores_only;
    scores_only.steps = {"scores"};
    CHECK_THAT(attn::render_html(long_trace, scores_only),
               Catch::Contains("this input has 41, too many lines to follow.</p>"));
}

TEST_CASE("svg: the picture is as wide as its title, however few the tokens", "[writers][svg]") {
    attn::Config c;
    const auto trace = attn::explain(attn::seeded_input("a b", c), c);
    const std::string svg = attn::render_svg(trace);
    const std::string title = "Attention weights A: rows are queries, columns are keys";
    REQUIRE_THAT(svg, Catch::Contains(">" + title + "</text>"));
    const auto at = svg.find("<svg ");
    const int width = std::stoi(svg.substr(svg.find("width=\"", at) + 7));
    const auto x_at = svg.find("<text x=\"", svg.find("</title>"));
    const int x = std::stoi(svg.substr(x_at + 9));
    // bold DejaVu Sans at 15 px averages about 0.62 em a character: the title needs this much
    CHECK(width >= x + static_cast<int>(0.62 * 15 * static_cast<double>(title.size())));
}

namespace {

// The text of every <text> element that `svg` draws above its first panel, in order.
std::vector<std::string> svg_title_lines(const std::string& svg) {
    std::vector<std::string> lines;
    const auto end = svg.find("<g id=\"head1\">");
    for (auto at = svg.find("<text ", svg.find("<rect ")); at < end;
         at = svg.find("<text ", at + 1)) {
        const auto begin = svg.find('>', at) + 1;
        lines.push_back(svg.substr(begin, svg.find("</text>", begin) - begin));
    }
    return lines;
}

// Whether every line of the title fits the picture: bold DejaVu Sans at 15 px and the
// regular at 12 px average about 0.62 em a character.
void check_title_fits(const std::string& svg) {
    const int width = std::stoi(svg.substr(svg.find("width=\"", svg.find("<svg ")) + 7));
    for (auto at = svg.find("<text ", svg.find("<rect ")); at < svg.find("<g id=\"head1\">");
         at = svg.find("<text ", at + 1)) {
        const int x = std::stoi(svg.substr(at + 9));
        const bool bold = svg.substr(at, svg.find('>', at) - at).find("bold") != std::string::npos;
        const auto begin = svg.find('>', at) + 1;
        // the columns of the line as drawn: an entity (&#39;) and a multibyte character are one
        std::size_t columns = 0;
        for (auto i = begin; i < svg.find("</text>", begin); ++i) {
            const auto byte = static_cast<unsigned char>(svg[i]);
            if (svg[i] == '&') {
                i = svg.find(';', i);
            }
            columns += (byte & 0xC0U) == 0x80U ? 0U : 1U;
        }
        CHECK(width >=
              x + static_cast<int>(0.62 * (bold ? 15 : 12) * static_cast<double>(columns)));
    }
}

}  // namespace

TEST_CASE("svg: a rule that is not the right one is named in the title, never attention's",
          "[writers][svg]") {
    attn::Config c;
    SECTION("softmax over each key") {
        c.softmax_over = attn::SoftmaxOver::columns;
        const std::string svg =
            attn::render_svg(attn::explain(attn::seeded_input("This is book", c), c));
        CHECK(svg_title_lines(svg) ==
              std::vector<std::string>{"Not attention&#39;s weights: A from one",
                                       "softmax per key (over its queries)",
                                       "Rows are queries, columns are keys; the right rule&#39;s",
                                       "weights, A_right, are step 7′ of the walk-through."});
        CHECK_THAT(svg, Catch::Contains("<title>Not attention&#39;s weights: A from one softmax "
                                        "per key (over its queries): This is book</title>"));
        CHECK_THAT(svg, Catch::Contains(
                            "<desc>Not attention&#39;s weights: A from one softmax per key (over "
                            "its queries); the right rule&#39;s weights, A_right, are step 7′ of "
                            "the walk-through.</desc>"));
        CHECK_THAT(svg, !Catch::Contains("Attention weights A:"));
        check_title_fits(svg);
    }
    SECTION("not scaled, with several heads and a mask") {
        c.scale_by = attn::ScaleBy::none;
        c.d_model = 6;
        c.n_heads = 2;
        c.mask = attn::MaskKind::causal;
        const std::string svg =
            attn::render_svg(attn::explain(attn::seeded_input("This is book", c), c));
        const auto lines = svg_title_lines(svg);
        REQUIRE(lines.size() == 4);
        CHECK(lines[0] + " " + lines[1] ==
              "Not attention&#39;s weights: A from scores that were not scaled");
        CHECK(lines[2] + " " + lines[3] ==
              "Rows are queries, columns are keys; the right rule&#39;s weights, A_right, are "
              "each head&#39;s step 10′ of the walk-through.");
        check_title_fits(svg);
    }
    SECTION("a mistake that changes nothing keeps the title and says so") {
        c.scale_by = attn::ScaleBy::d_model;
        c.d_model = c.d_k;
        const std::string svg =
            attn::render_svg(attn::explain(attn::seeded_input("This is book", c), c));
        const auto lines = svg_title_lines(svg);
        REQUIRE(lines.size() == 3);
        CHECK(lines[0] == "Attention weights A: rows are queries, columns are keys");
        CHECK(lines[1] + " " + lines[2] ==
              "Made from scores divided by √d_model, which here gives exactly the right "
              "rule&#39;s weights (A_right, step 7′).");
        check_title_fits(svg);
    }
    SECTION("the right rule: the title alone") {
        const std::string svg =
            attn::render_svg(attn::explain(attn::seeded_input("This is book", c), c));
        CHECK(svg_title_lines(svg) ==
              std::vector<std::string>{"Attention weights A: rows are queries, columns are keys"});
        CHECK_THAT(svg, !Catch::Contains("<desc>"));
    }
}

TEST_CASE("html: the heads grid and In short name a rule that is not the right one",
          "[writers][html]") {
    attn::Config c;
    c.d_model = 6;
    c.n_heads = 2;
    const auto section = [](const std::string& page, const std::string& id) {
        const auto begin = page.find("id=\"" + id + "\"");
        REQUIRE(begin != std::string::npos);
        return page.substr(begin, page.find("</section>", begin) - begin);
    };
    SECTION("softmax over each key") {
        c.softmax_over = attn::SoftmaxOver::columns;
        const std::string page = attn::render_html(
            attn::explain(attn::seeded_input("This is book", c), c), attn::TextStyle{});
        const std::string grid = section(page, "heads");
        CHECK_THAT(grid, Catch::Contains("<h2>Every head's weights, not attention's: A from one "
                                         "softmax per key (over its queries)</h2>"));
        CHECK_THAT(grid, Catch::Contains("The right rule&#39;s weights, A_right, are each "
                                         "head&#39;s step 8′ of the walk-through.</p>"));
        CHECK_THAT(grid, !Catch::Contains("attention weights"));
        const std::string in_short = section(page, "result");
        CHECK_THAT(in_short,
                   Catch::Contains("<p class=\"note\">Not attention&#39;s weights: A from one "
                                   "softmax per key (over its queries). The right rule&#39;s "
                                   "weights, A_right, are each head&#39;s step 8′ of the "
                                   "walk-through.</p>"));
        CHECK_THAT(in_short, Catch::Contains("the key it gives its largest weight, in each"));
        // the lines view sends the reader to the step that holds them, not to a fixed number
        CHECK_THAT(page, Catch::Contains("each head's step 8′ shows those weights."));
    }
    SECTION("not scaled") {
        c.scale_by = attn::ScaleBy::none;
        const std::string page = attn::render_html(
            attn::explain(attn::seeded_input("This is book", c), c), attn::TextStyle{});
        CHECK_THAT(section(page, "heads"),
                   Catch::Contains("<h2>Every head's weights, not attention's: A from scores "
                                   "that were not scaled</h2>"));
        CHECK_THAT(section(page, "result"),
                   Catch::Contains("<p class=\"note\">Not attention&#39;s weights: A from "
                                   "scores that were not scaled."));
    }
    SECTION("the right rule: as before") {
        const std::string page = attn::render_html(
            attn::explain(attn::seeded_input("This is book", c), c), attn::TextStyle{});
        CHECK_THAT(section(page, "heads"),
                   Catch::Contains("<h2>Every head's attention weights</h2>\n<p class=\"note\">"
                                   "The attention weights A of each of the 2 heads"));
        CHECK_THAT(section(page, "result"), !Catch::Contains("class=\"note\""));
        CHECK_THAT(section(page, "result"),
                   Catch::Contains("the key it gives its largest attention weight"));
    }
}
