// The colours: the heatmap's ramp (HTML, SVG, and the terminal in 24-bit or 256 colours), the
// text on it, and the formula lines, each chosen for contrast (WCAG 2's relative luminance and
// contrast ratio) on the theme's background. Projectors wash colours out: lightness is what
// survives, so the heatmap varies in lightness only, in one hue.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "toolkit.hpp"

namespace attn::toolkit {
namespace {

constexpr Rgb white{255, 255, 255};
constexpr Rgb black{0, 0, 0};

// The 6×6×6 cube's channel levels (xterm: 0, then 95 to 255 in steps of 40).
constexpr std::array<int, 6> cube_levels{0, 95, 135, 175, 215, 255};

}  // namespace

Rgb heat(double weight) {
    const double t = std::clamp(weight, 0.0, 1.0);
    const auto mix = [t](int from, int to) {
        return static_cast<int>(std::lround(from + (to - from) * t));
    };
    return {mix(255, 8), mix(255, 48), mix(255, 107)};
}

double luminance(Rgb colour) {
    const auto linear = [](int channel) {
        const double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(colour.r) + 0.7152 * linear(colour.g) + 0.0722 * linear(colour.b);
}

double contrast(Rgb a, Rgb b) {
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

bool light_text_on(double weight) {
    const Rgb background = heat(weight);
    return contrast(background, white) > contrast(background, black);
}

Rgb palette_rgb(int index) {
    if (index >= 232) {
        const int grey = 8 + 10 * (index - 232);  // the 24 greys
        return {grey, grey, grey};
    }
    const int i = std::clamp(index, 16, 231) - 16;
    return {cube_levels.at(static_cast<std::size_t>(i / 36)),
            cube_levels.at(static_cast<std::size_t>(i / 6 % 6)),
            cube_levels.at(static_cast<std::size_t>(i % 6))};
}

const std::vector<int>& heat_ramp_256() {
    // white; (215,215,255) ... (95,95,255); (0,0,255) ... (0,0,95): red = green, blue the most
    static const std::vector<int> ramp{231, 189, 147, 105, 63, 21, 20, 19, 18, 17};
    return ramp;
}

std::string heat_sgr(double weight, int depth, Theme theme) {
    double t = std::clamp(weight, 0.0, 1.0);
    if (theme == Theme::dark) {
        t = 1.0 - t;  // on a dark background the small weights are dark, the large ones bright
    }
    if (depth == 24) {
        const Rgb bg = heat(t);
        const bool light_text = contrast(bg, white) > contrast(bg, black);
        return fmt::format("48;2;{};{};{};38;2;{}", bg.r, bg.g, bg.b,
                           light_text ? "255;255;255" : "0;0;0");
    }
    const auto& ramp = heat_ramp_256();
    const auto step =
        static_cast<std::size_t>(std::lround(t * static_cast<double>(ramp.size() - 1)));
    const int bg = ramp[step];
    const bool light_text = contrast(palette_rgb(bg), white) > contrast(palette_rgb(bg), black);
    return fmt::format("48;5;{};38;5;{}", bg, light_text ? 231 : 16);
}

std::string formula_sgr(Theme theme) {
    switch (theme) {
        case Theme::light:
            return "38;5;25";  // #005faf: 6.4 on white
        case Theme::dark:
            return "38;5;117";  // #87d7ff: 13.2 on black
        case Theme::unknown:
            break;
    }
    return "38;5;63";  // #5f5fff: 4.6 on white and on black alike
}

}  // namespace attn::toolkit
