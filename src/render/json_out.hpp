#pragma once
// JsonOut: the JSON dump's writer (json.cpp), a private header of render. It appends to a
// buffer and hands the sink pieces of 64 KiB, so that a dump of millions of numbers is never
// held whole; strings and numbers are written by json_text.hpp.

#include <cmath>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "attn/core/model.hpp"
#include "attn/core/trace.hpp"
#include "attn/render/render.hpp"
#include "json_text.hpp"

namespace attn::json_out {

class JsonOut {
  public:
    explicit JsonOut(const Sink& sink) : sink_(sink) { buf_.reserve(chunk + 4096); }
    JsonOut(const JsonOut&) = delete;
    JsonOut& operator=(const JsonOut&) = delete;
    JsonOut(JsonOut&&) = delete;
    JsonOut& operator=(JsonOut&&) = delete;
    ~JsonOut() = default;

    void raw(std::string_view s) {
        if (s.size() >= chunk) {  // a large piece goes to the sink as it is, not copied
            flush();
            sink_(s);
            return;
        }
        buf_ += s;
        if (buf_.size() >= chunk) {
            flush();
        }
    }
    void flush() {
        if (!buf_.empty()) {
            sink_(buf_);
            buf_.clear();
        }
    }
    void string(std::string_view s) { json_text::append_string(buf_, s); }
    void number(double x) { json_text::append_number(buf_, x); }
    /// A variance: the shortest double, or beyond the range of a double a string with its own
    /// exponent ("7.500000000000e+399", "2.187500000000e-400"), not "inf" or 0: the variance of
    /// finite numbers is finite, and 0 only when they are all equal. A string, as "inf" is,
    /// because a JSON number beyond a double is read as inf or 0 (or refused, as attn's reader
    /// refuses it).
    void number(const Variance& v) {
        const double x = v.value();
        if (std::isfinite(x) && (x != 0.0 || v.scaled == 0.0)) {
            number(x);
        } else {
            string(format_number(v, 12, false));
        }
    }
    void value(std::string_view s) { string(s); }
    void value(double x) { number(x); }
    void integer(std::size_t n) { fmt::format_to(std::back_inserter(buf_), "{}", n); }
    void key(std::string_view indent, std::string_view k) {
        raw(indent);
        string(k);
        raw(": ");
    }

  private:
    static constexpr std::size_t chunk = 1U << 16U;
    const Sink& sink_;
    std::string buf_;
};

// [a, b, c]: an array of strings or of numbers, on one line.
template <typename Items>
void array(JsonOut& j, const Items& items) {
    j.raw("[");
    bool first = true;
    for (const auto& item : items) {
        if (!first) {
            j.raw(", ");
        }
        first = false;
        j.value(item);
    }
    j.raw("]");
}

/// A source of numbers: {"kind": "seeded"}, {"kind": "file", "path": ...}, {"kind": "set"}
inline void source(JsonOut& j, const Source& s) {
    j.raw("{\"kind\": ");
    j.string(s.kind == Source::Kind::file  ? "file"
             : s.kind == Source::Kind::set ? "set"
                                           : "seeded");
    if (s.kind == Source::Kind::file) {
        j.raw(", \"path\": ");
        j.string(s.path);
    }
    if (!s.layout.empty()) {
        j.raw(", \"layout\": ");
        j.string(s.layout);
    }
    if (!s.seeded_tokens.empty()) {
        j.raw(", \"seeded_tokens\": ");
        array(j, s.seeded_tokens);
    }
    j.raw("}");
}

/// The what-if a run was made with (--set; Trace::comparison): its changes, with the values
/// before and after, so that --from can put the run before them back together
/// (json_whatif.cpp).
void write_what_if(JsonOut& j, const Trace& trace);

}  // namespace attn::json_out
