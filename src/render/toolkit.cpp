// The renderers' shared toolkit, and the number formats of render.hpp.
#include "toolkit.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "attn/core/error.hpp"
#include "attn/core/utf8.hpp"
#include "attn/core/whatif.hpp"
#include "attn/render/render.hpp"

namespace attn {

std::string format_number(double value, int precision, bool unicode) {
    if (std::isnan(value)) {
        return "nan";
    }
    if (std::isinf(value)) {
        if (value < 0) {
            return unicode ? "−∞" : "-inf";
        }
        return unicode ? "∞" : "inf";
    }
    // past ten million, fixed notation gets too wide to read: 1.2346e+08
    if (std::abs(value) >= 1e7) {
        return fmt::format("{:.{}e}", value, std::min(precision, significant_digits - 1));
    }
    // never more than significant_digits significant digits: past them a double's digits are
    // the rounding of the computation (−7.116554649999999 for the exact −7.11655465)
    if (value != 0.0) {
        int leading = static_cast<int>(std::floor(std::log10(std::abs(value))));
        // 0.99999999999999989 rounds up to 1.000...: its leading digit is then a place higher
        if (std::abs(value) >= 0.5 * std::pow(10.0, leading + 1) &&
            std::abs(std::round(value * std::pow(10.0, significant_digits - 1 - leading))) >=
                std::pow(10.0, significant_digits)) {
            ++leading;
        }
        precision = std::min(precision, std::max(0, significant_digits - 1 - leading));
    }
    std::string s = fmt::format("{:.{}f}", value, precision);
    // -0.00004 rounds to "-0.0000": drop the sign of a number that prints as zero
    if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) {
        s.erase(0, 1);
    }
    return s;
}

bool is_whole(double x) noexcept {
    return std::isfinite(x) && std::abs(x) < 1e15 && x == std::round(x);
}

std::string format_number(const Variance& value, int precision, bool unicode) {
    const double x = value.value();
    const bool too_small = value.scaled > 0.0 && x < 0.5 * std::pow(10.0, -precision);
    if (value.scaled == 0.0 || (std::isfinite(x) && !too_small)) {
        return format_number(x, precision, unicode);
    }
    // 1e-9 is not 0.0000: as the worked arithmetic writes it; but a subnormal double (below
    // 2.2e-308) keeps only a few digits of scaled · 2^exponent, so those take the way below
    if (std::isfinite(x) && x >= std::numeric_limits<double>::min()) {
        return fmt::format("{:.{}e}", x, std::max(precision, 1));
    }
    // past the largest double, or below the smallest: m · 10^e, from log10 of scaled · 2^exponent
    const double lg = std::log10(value.scaled) + value.exponent * std::log10(2.0);
    double e = std::floor(lg);
    std::string digits = fmt::format("{:.{}f}", std::pow(10.0, lg - e), std::max(precision, 1));
    if (digits.starts_with("10")) {  // 9.99996 rounded up to 10.0000: 1.0000 and e + 1
        e += 1.0;
        digits = fmt::format("{:.{}f}", 1.0, std::max(precision, 1));
    }
    return fmt::format("{}e{}{:02}", digits, e < 0 ? '-' : '+',
                       static_cast<long long>(std::abs(e)));
}

TableNumbers table_numbers(const Step& step, int precision) {
    TableNumbers out{precision, false};
    if (step.matrix == nullptr || step.kind == StepKind::mask) {
        return out;
    }
    const auto& data = step.matrix->data();
    const auto infinite_or_whole = [](double x) { return std::isinf(x) || is_whole(x); };
    if (step.kind == StepKind::matrix && std::all_of(data.begin(), data.end(), infinite_or_whole)) {
        out.precision = 0;
        return out;
    }
    // tiny by the sentences' measure too: at --precision 0 a row of weights like 0.23 prints
    // as 0, as the user asked, and stays in fixed notation
    const double shows_as_zero = 0.5 * std::pow(10.0, -std::max(precision, prose_digits));
    bool some_nonzero = false;
    double largest = 0.0;
    for (double x : data) {
        if (std::isfinite(x)) {
            largest = std::max(largest, std::abs(x));
            some_nonzero = some_nonzero || x != 0.0;
        }
    }
    if (largest >= shows_as_zero) {
        // the digits before the point count: 12.3 at 15 decimals would print 17 (from 1e7 on,
        // numbers are written m.mmm e+N, one digit before the point of m)
        const auto before_point = [](double x, int decimals) {
            const std::string text = format_number(x, decimals, false);
            const auto point = text.find_first_of(".e");
            const std::string whole = text.substr(0, point);
            return whole == "0" ? 0 : static_cast<int>(whole.size());
        };
        int most = std::max(0, significant_digits - before_point(largest, out.precision));
        // 9.99999999999999 may round up to 10.0000000000000 at fewer decimals
        most = std::max(0, std::min(most, significant_digits - before_point(largest, most)));
        if (out.precision > most) {
            out.precision = most;
            out.capped = true;
        }
        return out;
    }
    out.scientific = some_nonzero;
    if (out.scientific && out.precision > significant_digits - 1) {  // m.mmm e-N
        out.precision = significant_digits - 1;
        out.capped = true;
    }
    return out;
}

std::string TableNumbers::format(double value, bool unicode) const {
    if (scientific && std::isfinite(value)) {
        return fmt::format("{:.{}e}", value, std::max(precision, 1));
    }
    return format_number(value, precision, unicode);
}

namespace toolkit {
std::string cell_label(std::span<const std::string> labels, std::size_t i) {
    return std::count(labels.begin(), labels.end(), labels[i]) > 1
               ? fmt::format("{}#{}", labels[i], i)
               : labels[i];
}
}  // namespace toolkit

std::string format_tidy(double value, int precision, bool unicode) {
    return format_number(value, is_whole(value) ? 0 : precision, unicode);
}

std::string format_checkable(double value, int precision, bool unicode) {
    if (value != 0.0 && std::isfinite(value) &&
        std::abs(value) < 0.5 * std::pow(10.0, -precision)) {
        return fmt::format("{:.{}e}", value, std::clamp(precision, 1, significant_digits - 1));
    }
    return format_tidy(value, precision, unicode);
}

std::string to_ascii(std::string_view text) {
    return toolkit::to_ascii(text);
}

namespace toolkit {

std::size_t width_of(std::string_view text) {
    return utf8::display_width(text);
}

std::vector<std::string> wrap(std::string_view text, std::size_t width, std::size_t first,
                              std::size_t rest) {
    width = std::max<std::size_t>(width, 20);
    std::vector<std::string> lines;
    std::string current;
    std::size_t current_width = 0;
    std::size_t room = width > first ? width - first : 1;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto end = std::min(text.find(' ', pos), text.size());
        const std::string_view word = text.substr(pos, end - pos);
        pos = end + 1;
        if (word.empty()) {
            continue;
        }
        const auto w = width_of(word);
        if (!current.empty() && current_width + 1 + w > room) {
            lines.push_back(std::move(current));
            current.clear();
            current_width = 0;
            room = width > rest ? width - rest : 1;
        }
        if (!current.empty()) {
            current += ' ';
            ++current_width;
        }
        current += word;
        current_width += w;
    }
    if (!current.empty()) {
        lines.push_back(std::move(current));
    }
    return lines;
}

std::vector<std::string> wrap_lines(std::string_view text, std::size_t width) {
    std::vector<std::string> out;
    while (!text.empty()) {
        const auto end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        const auto indent = std::min(line.find_first_not_of(' '), line.size());
        const std::string lead(indent, ' ');
        const std::string more(indent + 2, ' ');
        const auto pieces = wrap(line.substr(indent), width, indent, indent + 2);
        if (pieces.empty()) {
            out.emplace_back();
        }
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            out.push_back((i == 0 ? lead : more) + pieces[i]);
        }
    }
    return out;
}

std::vector<std::string> heading_rule(std::string_view title, std::size_t width, bool unicode) {
    const std::string lead = unicode ? "━━ " : "== ";
    const std::string bar = unicode ? "━" : "=";
    // a title too long for one line is wrapped under itself, the rule after its last line
    std::vector<std::string> lines;
    const auto parts = width_of(title) + 6 > width ? wrap(title, width, 3, 3)
                                                   : std::vector<std::string>{std::string(title)};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        lines.push_back((i == 0 ? lead : std::string(3, ' ')) + parts[i]);
    }
    const std::size_t used = width_of(lines.back()) + 1;
    if (used + 2 <= width) {
        lines.back() += " " + repeat(bar, width - used);
    } else {
        lines.push_back(std::string(3, ' ') + repeat(bar, width > 5 ? width - 3 : 2));
    }
    return lines;
}

std::string repeat(std::string_view s, std::size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

std::string pad_left(std::string_view s, std::size_t width) {
    const auto w = width_of(s);
    return w >= width ? std::string(s) : std::string(width - w, ' ') + std::string(s);
}

std::string pad_right(std::string_view s, std::size_t width) {
    const auto w = width_of(s);
    return w >= width ? std::string(s) : std::string(s) + std::string(width - w, ' ');
}

std::string truncate(std::string_view s, std::size_t width, bool unicode) {
    if (width_of(s) <= width) {
        return std::string(s);
    }
    const std::string_view ellipsis = unicode ? "…" : "~";
    std::string out;
    std::size_t used = 0;
    std::size_t i = 0;
    while (i < s.size()) {
        // whole characters only: never half a flag or a mark without its letter
        const std::size_t len = utf8::grapheme_length(s.substr(i));
        const std::size_t w = utf8::display_width(s.substr(i, len));
        if (used + w + 1 > width) {
            break;
        }
        out.append(s.substr(i, len));
        used += w;
        i += len;
    }
    return out + std::string(ellipsis);
}

namespace {

// The length of the colour code (ESC [ parameters final byte) at the start of `s`, 0 if none.
std::size_t code_length(std::string_view s) {
    if (s.size() < 2 || s[0] != '\x1b' || s[1] != '[') {
        return 0;
    }
    std::size_t i = 2;
    while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x3F) {
        ++i;
    }
    return i < s.size() ? i + 1 : s.size();
}

}  // namespace

std::size_t painted_width(std::string_view line) {
    std::size_t width = 0;
    std::size_t i = 0;
    while (i < line.size()) {
        if (const std::size_t code = code_length(line.substr(i))) {
            i += code;
            continue;
        }
        const std::size_t len = utf8::grapheme_length(line.substr(i));
        width += utf8::display_width(line.substr(i, len));
        i += len;
    }
    return width;
}

std::string clip_painted(std::string_view line, std::size_t width, bool unicode) {
    if (painted_width(line) <= width) {
        return std::string(line);
    }
    std::string out;
    std::size_t used = 0;
    std::size_t i = 0;
    bool painted = false;
    while (i < line.size()) {
        if (const std::size_t code = code_length(line.substr(i))) {
            out.append(line.substr(i, code));
            painted = true;
            i += code;
            continue;
        }
        const std::size_t len = utf8::grapheme_length(line.substr(i));
        const std::size_t w = utf8::display_width(line.substr(i, len));
        if (used + w + 1 > width) {
            break;
        }
        out.append(line.substr(i, len));
        used += w;
        i += len;
    }
    if (width > 0) {
        out += unicode ? "…" : "~";
    }
    return painted ? out + "\x1b[0m" : out;
}

std::vector<std::optional<std::size_t>> shown_indices(std::size_t n, std::size_t head,
                                                      std::size_t tail) {
    std::vector<std::optional<std::size_t>> out;
    if (n <= head + tail + 1) {
        for (std::size_t i = 0; i < n; ++i) {
            out.emplace_back(i);
        }
        return out;
    }
    for (std::size_t i = 0; i < head; ++i) {
        out.emplace_back(i);
    }
    out.emplace_back(std::nullopt);
    for (std::size_t i = n - tail; i < n; ++i) {
        out.emplace_back(i);
    }
    return out;
}

std::string numbered_tokens(const std::vector<std::string>& tokens, Escape escape) {
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        out += fmt::format("{}{}: {}", i > 0 ? ", " : "", i, escape(tokens[i]));
    }
    return out;
}

std::vector<const Step*> visible_steps(const Trace& trace, const std::vector<std::string>& ids,
                                       Layout layout) {
    std::vector<const Step*> out;
    for (const Step& s : steps_in(trace, layout)) {
        if (ids.empty() || std::find(ids.begin(), ids.end(), s.id) != ids.end()) {
            out.push_back(&s);
        }
    }
    return out;
}

bool halfway(double x, int decimals) {
    const double scaled = std::abs(x) * std::pow(10.0, decimals);
    if (!std::isfinite(scaled) || scaled >= 1e15 || scaled < 0.5) {
        return false;  // past a double's digits, or written in scientific notation
    }
    return std::abs(scaled - std::floor(scaled) - 0.5) < 1e-6;
}

const Step* before_of(const Trace& trace, const Step& step) {
    if (!trace.comparison) {
        return nullptr;
    }
    const Step* before =
        find_step(trace.comparison->before, step.id, step.transposed ? Layout::col : Layout::row);
    return before != nullptr && before->shape == step.shape ? before : nullptr;
}

bool changed(const Step& step, const Step* before, std::size_t r, std::size_t c) {
    if (before == nullptr) {
        return false;
    }
    if (step.kind == StepKind::mask) {
        return step.allowed(r, c) != before->allowed(r, c);
    }
    return step.value(r, c) != before->value(r, c);
}

double as_shown(double x, int decimals) {
    if (!std::isfinite(x)) {
        return x;
    }
    const std::string s = format_checkable(x, decimals, false);
    double shown = x;
    std::from_chars(s.data(), s.data() + s.size(), shown);
    return shown;
}

}  // namespace toolkit
}  // namespace attn
