// The colour decisions: the heatmap's ramp (one hue, lightness only, in 256 and 24-bit
// colour, turned round on a dark background), the text on it, the formula lines' colour on
// light, dark and unknown backgrounds, and the theme from --theme or $COLORFGBG.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <sstream>

#include "attn/core/error.hpp"
#include "cli.hpp"
#include "toolkit.hpp"

namespace {

using attn::Theme;
using attn::toolkit::contrast;
using attn::toolkit::luminance;
using attn::toolkit::palette_rgb;
using attn::toolkit::Rgb;

constexpr Rgb white{255, 255, 255};
constexpr Rgb black{0, 0, 0};

// The background and the text of a heatmap cell's SGR parameters.
struct Cell {
    Rgb background;
    Rgb text;
};

Cell parse_sgr(const std::string& sgr) {
    std::vector<int> n;
    std::istringstream in(sgr);
    for (std::string part; std::getline(in, part, ';');) {
        n.push_back(std::stoi(part));
    }
    if (n.size() == 6) {  // 48;5;B;38;5;F
        REQUIRE(n[0] == 48);
        REQUIRE(n[3] == 38);
        return {palette_rgb(n[2]), palette_rgb(n[5])};
    }
    REQUIRE(n.size() == 10);  // 48;2;R;G;B;38;2;R;G;B
    return {{n[2], n[3], n[4]}, {n[7], n[8], n[9]}};
}

// The hue of a colour in degrees (HSL), for colours with some saturation.
double hue(Rgb c) {
    const double r = c.r / 255.0;
    const double g = c.g / 255.0;
    const double b = c.b / 255.0;
    const double hi = std::max({r, g, b});
    const double lo = std::min({r, g, b});
    const double d = hi - lo;
    double h = hi == r ? std::fmod((g - b) / d, 6.0) : hi == g ? (b - r) / d + 2 : (r - g) / d + 4;
    h *= 60;
    return h < 0 ? h + 360 : h;
}

attn::Theme theme(const std::string& flag, std::map<std::string, std::string> env) {
    std::ostringstream sink;
    attn::cli::Io io{sink, sink};
    io.getenv = [env](const std::string& name) -> std::optional<std::string> {
        const auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    return attn::cli::theme_of(flag, io);
}

}  // namespace

TEST_CASE("colour: the 256-colour ramp is one hue, lightness only", "[colour]") {
    CHECK(palette_rgb(16) == black);
    CHECK(palette_rgb(231) == white);
    CHECK(palette_rgb(63) == Rgb{95, 95, 255});
    CHECK(palette_rgb(232) == Rgb{8, 8, 8});
    CHECK(palette_rgb(255) == Rgb{238, 238, 238});
    const auto& ramp = attn::toolkit::heat_ramp_256();
    REQUIRE(ramp.size() >= 8);
    CHECK(ramp.front() == 231);
    for (std::size_t i = 1; i < ramp.size(); ++i) {
        const Rgb c = palette_rgb(ramp[i]);
        CHECK(c.r == c.g);  // with blue the largest: hue 240°, only the lightness changes
        CHECK(c.b > c.r);
        CHECK(hue(c) == Approx(240));
        CHECK(luminance(c) < luminance(palette_rgb(ramp[i - 1])));
    }
}

TEST_CASE("colour: the 24-bit heat is one hue from white to deep blue", "[colour]") {
    // white mixed into one colour: each channel's distance from white is the same fraction t
    // of the deep colour's, up to the rounding to whole channels, so the hue does not change
    const Rgb deep = attn::toolkit::heat(1.0);
    for (int i = 1; i <= 100; ++i) {
        const double t = i / 100.0;
        const Rgb c = attn::toolkit::heat(t);
        CHECK(std::abs((255 - c.r) - t * (255 - deep.r)) <= 0.5);
        CHECK(std::abs((255 - c.g) - t * (255 - deep.g)) <= 0.5);
        CHECK(std::abs((255 - c.b) - t * (255 - deep.b)) <= 0.5);
        if (t >= 0.25) {
            CHECK(std::abs(hue(c) - hue(deep)) < 3.0);  // the rounding matters less and less
        }
        CHECK(luminance(c) < luminance(attn::toolkit::heat((i - 1) / 100.0)));
    }
    CHECK(attn::toolkit::heat(0.0) == white);
}

TEST_CASE(
    "colour: heatmap cells darken with the weight, or lighten on a dark theme; the text "
    "on them readable",
    "[colour]") {
    for (const int depth : {256, 24}) {
        for (const Theme t : {Theme::unknown, Theme::light, Theme::dark}) {
            double previous = t == Theme::dark ? -1.0 : 2.0;
            for (int i = 0; i <= 100; ++i) {
                const Cell cell = parse_sgr(attn::toolkit::heat_sgr(i / 100.0, depth, t));
                const double l = luminance(cell.background);
                if (t == Theme::dark) {
                    CHECK(l >= previous);
                } else {
                    CHECK(l <= previous);
                }
                previous = l;
                CHECK((cell.text == white || cell.text == black));
                CHECK(contrast(cell.text, cell.background) >= 4.5);
            }
        }
        // the ends: white for 0 on a light background, and for 1 on a dark one
        CHECK(parse_sgr(attn::toolkit::heat_sgr(0.0, depth, Theme::light)).background == white);
        CHECK(parse_sgr(attn::toolkit::heat_sgr(1.0, depth, Theme::dark)).background == white);
        CHECK(parse_sgr(attn::toolkit::heat_sgr(0.0, depth, Theme::unknown)).background == white);
    }
    // out of range is held at the ends
    CHECK(attn::toolkit::heat_sgr(-0.5, 256, Theme::light) ==
          attn::toolkit::heat_sgr(0.0, 256, Theme::light));
    CHECK(attn::toolkit::heat_sgr(7.0, 24, Theme::light) ==
          attn::toolkit::heat_sgr(1.0, 24, Theme::light));
    // the HTML page's and the SVG's text rule is the same contrast rule
    CHECK_FALSE(attn::toolkit::light_text_on(0.0));
    CHECK(attn::toolkit::light_text_on(1.0));
    for (int i = 0; i <= 100; ++i) {
        const Rgb bg = attn::toolkit::heat(i / 100.0);
        CHECK(contrast(attn::toolkit::light_text_on(i / 100.0) ? white : black, bg) >= 4.5);
    }
}

TEST_CASE("colour: the formula lines are readable on the theme's background", "[colour]") {
    const auto colour_of = [](Theme t) {
        const std::string sgr = attn::toolkit::formula_sgr(t);
        REQUIRE(sgr.starts_with("38;5;"));
        return palette_rgb(std::stoi(sgr.substr(5)));
    };
    // light backgrounds: white, Solarized light; dark ones: black, Solarized dark, Ubuntu's
    const std::vector<Rgb> light{white, {253, 246, 227}, {238, 238, 238}};
    const std::vector<Rgb> dark{black, {0, 43, 54}, {48, 10, 36}, {40, 44, 52}};
    for (const Rgb bg : light) {
        CHECK(contrast(colour_of(Theme::light), bg) >= 4.5);
    }
    for (const Rgb bg : dark) {
        CHECK(contrast(colour_of(Theme::dark), bg) >= 4.5);
    }
    // not knowing the background: readable on pure white and pure black alike
    CHECK(contrast(colour_of(Theme::unknown), white) >= 4.5);
    CHECK(contrast(colour_of(Theme::unknown), black) >= 4.5);
    // and all three are blue, the heatmap's hue
    for (const Theme t : {Theme::unknown, Theme::light, Theme::dark}) {
        const Rgb c = colour_of(t);
        CHECK(c.b > c.r);
        CHECK(c.b >= c.g);
    }
}

TEST_CASE("colour: the theme from --theme, else from $COLORFGBG", "[colour][cli]") {
    CHECK(theme("light", {{"COLORFGBG", "15;0"}}) == Theme::light);  // the flag wins
    CHECK(theme("dark", {}) == Theme::dark);
    CHECK(theme("auto", {}) == Theme::unknown);
    CHECK(theme("auto", {{"COLORFGBG", "15;0"}}) == Theme::dark);
    CHECK(theme("auto", {{"COLORFGBG", "0;15"}}) == Theme::light);
    CHECK(theme("auto", {{"COLORFGBG", "0;7"}}) == Theme::light);
    CHECK(theme("auto", {{"COLORFGBG", "7;8"}}) == Theme::dark);  // rxvt: 8 is dark grey
    CHECK(theme("auto", {{"COLORFGBG", "15;default;0"}}) == Theme::dark);
    CHECK(theme("auto", {{"COLORFGBG", "default;default"}}) == Theme::unknown);
    CHECK(theme("auto", {{"COLORFGBG", "15"}}) == Theme::unknown);
    CHECK(theme("auto", {{"COLORFGBG", "15;16"}}) == Theme::unknown);
    CHECK(theme("auto", {{"COLORFGBG", "15;-1"}}) == Theme::unknown);
    CHECK(theme("auto", {{"COLORFGBG", ""}}) == Theme::unknown);
    try {
        (void)theme("sepia", {});
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(attn::cli::message_of(e) == "--theme is 'sepia', expected one of: auto, light, dark");
    }
}

TEST_CASE("colour: the walk-through's colours follow the theme", "[colour][cli]") {
    const auto run = [](std::vector<std::string> args, std::map<std::string, std::string> env) {
        std::ostringstream out;
        std::ostringstream err;
        attn::cli::Io io{out, err};
        io.getenv = [env](const std::string& name) -> std::optional<std::string> {
            const auto it = env.find(name);
            return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
        };
        REQUIRE(attn::cli::run(args, io) == 0);
        return out.str();
    };
    const std::vector<std::string> args{"explain", "This is book", "--steps",
                                        "weights", "--color",      "always"};
    const auto unknown = run(args, {});
    CHECK_THAT(unknown, Catch::Contains("\x1b[38;5;63mA = softmax"));
    CHECK_THAT(unknown, Catch::Contains("\x1b[48;5;231;38;5;16m0.0074"));  // near 0: white
    auto dark_args = args;
    dark_args.insert(dark_args.end(), {"--theme", "dark"});
    const auto dark = run(dark_args, {});
    CHECK_THAT(dark, Catch::Contains("\x1b[38;5;117mA = softmax"));
    CHECK_THAT(dark, Catch::Contains("\x1b[48;5;17;38;5;231m0.0074"));  // near 0: darkest
    CHECK(run(args, {{"COLORFGBG", "15;0"}}) == dark);
    const auto light = run(args, {{"COLORFGBG", "0;15"}});
    CHECK_THAT(light, Catch::Contains("\x1b[38;5;25mA = softmax"));
}
