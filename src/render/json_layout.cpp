// Readable JSON: nlohmann/json's values, a line per member and per row (json_layout.hpp).
#include "json_layout.hpp"

#include <algorithm>

#include "json_text.hpp"

namespace attn::json_layout {
namespace {

// A scalar as JSON; a string as the dump writes it (json_text::append_string: characters that
// would act on a terminal escaped, which nlohmann's dump() leaves raw).
void append_scalar(std::string& out, const Json& v) {
    if (v.is_string()) {
        json_text::append_string(out, v.get_ref<const std::string&>());
    } else {
        out += v.dump();
    }
}

bool scalar(const Json& v) {
    return !v.is_array() && !v.is_object();
}

// Whether `v` goes on one line: a scalar, or an array or object of scalars only.
bool one_line(const Json& v) {
    return scalar(v) || std::all_of(v.begin(), v.end(), [](const Json& e) { return scalar(e); });
}

class Writer {
  public:
    explicit Writer(const std::vector<Comment>& comments) : comments_(comments) {}

    void value(const Json& v, const Json::json_pointer& at, std::size_t indent) {
        if (scalar(v)) {
            append_scalar(out_, v);
        } else if (one_line(v)) {
            inline_container(v);
        } else if (v.is_array()) {
            out_ += "[\n";
            for (std::size_t i = 0; i < v.size(); ++i) {
                out_.append(indent + 2, ' ');
                value(v[i], at / i, indent + 2);
                out_ += i + 1 < v.size() ? ",\n" : "\n";
            }
            out_.append(indent, ' ');
            out_ += ']';
        } else {
            out_ += "{\n";
            std::size_t i = 0;
            for (const auto& [key, member] : v.items()) {
                const auto member_at = at / key;
                comment(member_at, indent + 2);
                out_.append(indent + 2, ' ');
                json_text::append_string(out_, key);
                out_ += ": ";
                value(member, member_at, indent + 2);
                out_ += ++i < v.size() ? ",\n" : "\n";
            }
            out_.append(indent, ' ');
            out_ += '}';
        }
    }

    std::string take() { return std::move(out_); }

  private:
    // An array or object of scalars: "[1, 2]", {"a": 1, "b": 2}
    void inline_container(const Json& v) {
        out_ += v.is_array() ? '[' : '{';
        bool first = true;
        for (const auto& [key, element] : v.items()) {
            out_ += first ? "" : ", ";
            first = false;
            if (v.is_object()) {
                json_text::append_string(out_, key);
                out_ += ": ";
            }
            append_scalar(out_, element);
        }
        out_ += v.is_array() ? ']' : '}';
    }

    void comment(const Json::json_pointer& at, std::size_t indent) {
        const std::string path = at.to_string();
        for (const Comment& c : comments_) {
            if (c.at != path) {
                continue;
            }
            std::size_t start = 0;
            while (start <= c.text.size()) {
                const auto end = std::min(c.text.find('\n', start), c.text.size());
                out_.append(indent, ' ');
                out_ += "// ";
                out_.append(c.text, start, end - start);
                out_ += '\n';
                start = end + 1;
            }
        }
    }

    const std::vector<Comment>& comments_;
    std::string out_;
};

}  // namespace

std::string write(const Json& value, const std::vector<Comment>& comments) {
    Writer w(comments);
    w.value(value, Json::json_pointer(), 0);
    return w.take();
}

Json row(std::span<const double> values) {
    Json out = Json::array();
    for (const double v : values) {
        out.push_back(v);
    }
    return out;
}

Json matrix(const Matrix& m) {
    Json rows = Json::array();
    for (std::size_t r = 0; r < m.rows(); ++r) {
        rows.push_back(row(m.row(r)));
    }
    return rows;
}

Json vectors(const std::vector<std::string>& tokens, const Matrix& x) {
    Json out = Json::object();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i] != pad_token && !out.contains(tokens[i])) {
            out[tokens[i]] = row(x.row(i));
        }
    }
    return out;
}

Json weights(const Weights& w, std::size_t n_heads) {
    Json out = Json::object();
    if (n_heads > 1) {
        out["heads"] = n_heads;
    }
    out["W_Q"] = matrix(w.w_q);
    out["W_K"] = matrix(w.w_k);
    out["W_V"] = matrix(w.w_v);
    if (!w.w_o.empty()) {
        out["W_O"] = matrix(w.w_o);
    }
    for (const auto& [key, bias] : {std::pair{"b_Q", &w.b_q}, std::pair{"b_K", &w.b_k},
                                    std::pair{"b_V", &w.b_v}, std::pair{"b_O", &w.b_o}}) {
        if (!bias->empty()) {
            out[key] = row(bias->row(0));
        }
    }
    return out;
}

}  // namespace attn::json_layout
