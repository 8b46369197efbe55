// attn's JSON reader: nlohmann/json's SAX parser reads the text (strict RFC 8259 with
// comments, UTF-8, numbers) and Builder, its handler, makes the tree of Values, each with the
// byte offset where it starts, and rejects duplicate keys and deep nesting. A syntax error is
// worded by json_syntax.cpp from where Builder stood.
#include "attn/io/json_reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "json_syntax.hpp"

namespace attn::json::detail {

/// The text as nlohmann's parser reads it, a character at a time (through nlohmann's public
/// iterator-pair interface): a pointer, in a type of attn's own.
class Builder;

/// Thrown when one token (a string, a number) grows past what the budget leaves: nlohmann's
/// lexer holds its characters in a buffer of its own before the handler sees them.
struct TokenTooLong {
    std::size_t end;  ///< the offset where it was found too long
};

struct Chars {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    const char* at = nullptr;
    const char* start = nullptr;       ///< the text's first character
    const Builder* builder = nullptr;  ///< asked whether the token being read still fits

    reference operator*() const noexcept { return *at; }
    Chars& operator++();  // all that nlohmann's iterator_input_adapter uses
    friend bool operator==(Chars a, Chars b) noexcept { return a.at == b.at; }
};

}  // namespace attn::json::detail

namespace attn::json {
namespace detail {
namespace {

constexpr std::size_t npos = std::string_view::npos;

// What may stand between two tokens besides comments: white space, ',' and ':'
constexpr std::array<bool, 256> between_tokens = [] {
    std::array<bool, 256> table{};
    for (const char c : {' ', '\t', '\n', '\r', ',', ':'}) {
        table[static_cast<unsigned char>(c)] = true;
    }
    return table;
}();

}  // namespace

/// nlohmann's SAX handler that makes the Values. nlohmann's parser calls it once it has read
/// each token (but ',' and ':'), so the token starts at the first character after the end of
/// the one before (pos_) that is not white space, a comment, ',' or ':'.
class Builder {
  public:
    /// `held`: the bytes the text (and any copy of it) already take; `budget`: what they and
    /// the tree of Values may take (--max-memory, less what the run held before).
    Builder(std::string_view text, const Syntax& syntax, std::size_t held,
            const MemoryBudget& budget) noexcept
        : text_(text),
          syntax_(syntax),
          held_(held),
          used_(held),
          limit_(budget.left()),
          budget_(budget) {}

    /// Whether a token that reaches `offset`, read since the end of the last one, still fits:
    /// the lexer's buffer (its capacity up to twice the characters) and the string made from
    /// it, three times its length, in what the budget leaves.
    [[nodiscard]] bool token_fits(std::size_t offset) const noexcept {
        return offset < pos_ || (offset - pos_) <= (limit_ - std::min(used_, limit_)) / 3;
    }
    /// The start of the token after the last one read, for the messages.
    [[nodiscard]] std::size_t token_start() const { return after_between(pos_); }
    [[noreturn]] void too_long(std::size_t end) const {
        const std::size_t at = token_start();
        syntax_.too_much_memory(at, used_ + 3 * (end - std::min(end, at)), budget_, held_, end);
    }

    /// The document, once nlohmann's parser has read it all: nothing may follow.
    Value finish() {
        syntax_.expect_end(pos_);
        return std::move(root_);
    }

    bool null() {
        const std::size_t at = next_token();
        pos_ = at + 4;
        (void)place(at);
        return true;
    }
    bool boolean(bool b) {
        const std::size_t at = next_token();
        pos_ = at + (b ? 4 : 5);
        Value& v = place(at);
        v.type = Value::Type::boolean;
        v.boolean = b;
        return true;
    }
    bool number_unsigned(std::uint64_t n) {
        const std::size_t at = next_token();
        number(at, integer_end(at), static_cast<double>(n), true);
        return true;
    }
    bool number_integer(std::int64_t n) {  // a negative integer, or -0
        const std::size_t at = next_token();
        number(at, integer_end(at), n == 0 ? -0.0 : static_cast<double>(n), true);
        return true;
    }
    bool number_float(double x, const std::string& literal) {
        const std::size_t at = next_token();
        // a literal without point or exponent is an integer too long for 64 bits
        const bool integer = std::none_of(literal.begin(), literal.end(),
                                          [](char c) { return c == '.' || c == 'e' || c == 'E'; });
        number(at, at + literal.size(), x, integer);
        return true;
    }
    bool string(std::string& s) {
        const std::size_t at = next_token();
        pos_ = string_end(at);
        charge(at, heap_bytes(s));
        Value& v = place(at);
        v.type = Value::Type::string;
        v.text = std::move(s);
        return true;
    }
    static bool binary(nlohmann::json::binary_t& /*unused*/) { return true; }  // not in JSON
    bool start_object(std::size_t /*unknown*/) {
        open(Value::Type::object);
        return true;
    }
    bool key(std::string& k) {
        const std::size_t at = next_token();
        auto& members = stack_.back()->members;
        charge(at, heap_bytes(k), growth(members));
        // a linear search in a small object; a set of the keys in a large one, such as GPT-2's
        // vocab.json (50,257 keys: the search alone took 19 s)
        bool duplicate = false;
        if (members.size() < 32) {
            duplicate = std::any_of(members.begin(), members.end(),
                                    [&](const Member& m) { return m.first == k; });
        } else {
            auto& keys = keys_[stack_.back()];  // the object stays in place while it is open
            if (keys.empty()) {
                for (const Member& m : members) {
                    charge(at, key_bytes(m.first));
                    keys.insert(m.first);
                }
            }
            charge(at, key_bytes(k));
            duplicate = !keys.insert(k).second;
        }
        if (duplicate) {
            syntax_.duplicate_key(at, k);
        }
        pos_ = string_end(at);
        members.push_back({std::move(k), Value{}});
        last_ = Last::key;
        return true;
    }
    bool end_object() {
        keys_.erase(stack_.back());
        close();
        return true;
    }
    bool start_array(std::size_t /*unknown*/) {
        open(Value::Type::array);
        return true;
    }
    bool end_array() {
        if (const auto& numbers = stack_.back()->items.numbers_; !numbers.empty()) {
            last_numbers_ = numbers.size();
        }
        close();
        return true;
    }
    // nlohmann's message is not used: Syntax reads on from the last good token instead
    bool parse_error(std::size_t stopped, const std::string& /*token*/,
                     const nlohmann::detail::exception& /*error*/) {
        syntax_.explain(pos_, expected(), stack_.size(), last_number_, stopped);
    }

  private:
    enum class Last { nothing, open, key, value };

    // The start of the token nlohmann's parser has just read.
    std::size_t next_token() {
        last_number_ = npos;
        return after_between(pos_);
    }
    // The first offset from `p` that is not white space, a comment, ',' or ':'.
    [[nodiscard]] std::size_t after_between(std::size_t p) const {
        while (p < text_.size()) {
            const auto c = static_cast<unsigned char>(text_[p]);
            if (between_tokens[c]) {
                ++p;
            } else if (c == '/') {
                p = syntax_.skip_comment(p);
            } else {
                break;
            }
        }
        return p;
    }

    // The end of the string (or key) that starts at `at`, which nlohmann has read as valid.
    [[nodiscard]] std::size_t string_end(std::size_t at) const noexcept {
        std::size_t p = at + 1;
        while (p < text_.size() && text_[p] != '"') {
            p += text_[p] == '\\' ? 2U : 1U;
        }
        return p + 1;
    }

    // The end of the integer that starts at `at`, as nlohmann's lexer read it: "01" is 0 and 1.
    [[nodiscard]] std::size_t integer_end(std::size_t at) const noexcept {
        std::size_t p = at + (text_[at] == '-' ? 1 : 0);
        if (text_[p++] == '0') {
            return p;
        }
        while (p < text_.size() && text_[p] >= '0' && text_[p] <= '9') {
            ++p;
        }
        return p;
    }

    // What the parser expected when it stopped, and at which depth.
    [[nodiscard]] Expect expected() const noexcept {
        if (stack_.empty()) {
            return last_ == Last::nothing ? Expect::document : Expect::end;
        }
        const bool array = stack_.back()->is(Value::Type::array);
        switch (last_) {
            case Last::open:
                return array ? Expect::value : Expect::first_key;
            case Last::key:
                return Expect::colon;
            case Last::nothing:
            case Last::value:
                break;
        }
        return array ? Expect::next_element : Expect::next_member;
    }

    // A new value at `at`: the document, the value of the last key, or an array's element.
    Value& place(std::size_t at) {
        if (stack_.size() > max_depth) {
            syntax_.too_deep(at);
        }
        last_ = Last::value;
        Value* v = &root_;
        if (!stack_.empty()) {
            Value& parent = *stack_.back();
            if (parent.is(Value::Type::object)) {
                v = &parent.members.back().second;
            } else {
                spill(at, parent.items);
                charge(at, 0, growth(parent.items.values_));
                v = &parent.items.values_.emplace_back();
            }
        }
        compact_ = nullptr;
        v->position.offset = at;
        return *v;
    }

    // A number from `at` to `end`. The elements of an array that are all numbers go into its
    // compact lists, unless an integer has more digits than a double holds exactly.
    void number(std::size_t at, std::size_t end, double x, bool integer) {
        pos_ = end;
        constexpr std::size_t exact_digits = 15;  // < 2^53: the double holds it exactly
        if (compact_ != nullptr &&
            (!integer || end - at - (text_[at] == '-' ? 1 : 0) <= exact_digits)) {
            if (compact_->numbers_.empty()) {  // rows of a matrix come one after another, all alike
                charge(at, last_numbers_ * (sizeof(double) + sizeof(std::uint64_t)));
                compact_->numbers_.reserve(last_numbers_);
                compact_->number_at_.reserve(last_numbers_);
            }
            charge(at, 0, growth(compact_->numbers_) + growth(compact_->number_at_));
            // and the matrix cell it becomes: a reader converts the tree while it holds it
            charge(at, sizeof(double));
            compact_->numbers_.push_back(x);
            compact_->number_at_.push_back(std::uint64_t{at} << 1U | (integer ? 1U : 0U));
            last_ = Last::value;
        } else {
            Value& v = place(at);
            v.type = Value::Type::number;
            v.number = x;
            if (integer) {
                v.text.assign(text_.substr(at, end - at));  // exactly as written (seeds > 2^53)
                charge(at, heap_bytes(v.text));
            }
        }
        last_number_ = at;
    }

    // The numbers of an array that turns out not to be all numbers, as Values.
    void spill(std::size_t at, Items& items) {
        if (!items.numbers_.empty()) {
            charge(at, items.numbers_.size() * sizeof(Value));
            (void)items.made();
            items.numbers_ = {};
            items.number_at_ = {};
        }
    }

    void open(Value::Type type) {
        const std::size_t at = next_token();
        Value& v = place(at);
        v.type = type;
        stack_.push_back(&v);
        pos_ = at + 1;
        last_ = Last::open;
        // its elements are held compactly while they are numbers (and not nested too deeply)
        if (type == Value::Type::array && stack_.size() <= max_depth) {
            compact_ = &v.items;
        }
    }

    void close() {
        pos_ = next_token() + 1;
        stack_.pop_back();
        last_ = Last::value;
        compact_ = nullptr;  // the array around holds a container: not all numbers
    }

    // What the tree takes in memory, counted as it grows (see docs/hardening.md): each value,
    // member and number where it is held, each string's and key's characters, the set of an
    // object's keys. `bytes` more are now held; `transient` more are held for a moment (a
    // vector's new buffer, before the old one is freed). Throws, naming the place, as soon as
    // the limit would be passed: before the allocation where one follows.
    void charge(std::size_t at, std::size_t bytes, std::size_t transient = 0) {
        used_ += bytes;
        if (used_ > limit_ || transient > limit_ - used_) {
            syntax_.too_much_memory(at, used_ + transient, budget_, held_, at);
        }
        used_ += transient / 2;  // the vector's capacity doubles: half of the new buffer is new
    }
    // The bytes that the next push_back onto `v` allocates (its capacity doubles when full).
    template <typename T>
    static std::size_t growth(const std::vector<T>& v) noexcept {
        return v.size() < v.capacity() ? 0 : 2 * std::max<std::size_t>(1, v.capacity()) * sizeof(T);
    }
    // The characters of a string kept outside the string itself (beyond its short buffer).
    static std::size_t heap_bytes(const std::string& s) noexcept {
        return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
    }
    // A key in an object's set of keys: the node, its string and a bucket.
    static std::size_t key_bytes(const std::string& k) noexcept { return 64 + heap_bytes(k); }

    std::string_view text_;
    const Syntax& syntax_;
    std::size_t held_;   // the bytes of the text (and its copy without comments)
    std::size_t used_;   // the bytes held: the text and the tree so far
    std::size_t limit_;  // the most they may take
    MemoryBudget budget_;
    Value root_;
    std::vector<Value*> stack_;       // the open arrays and objects, innermost last
    std::size_t pos_ = 0;             // where the last token read ends
    Last last_ = Last::nothing;       // what that token was
    std::size_t last_number_ = npos;  // where it starts, if it is a number
    Items* compact_ = nullptr;        // the innermost array while it holds only numbers
    std::size_t last_numbers_ = 0;    // how many numbers the last array held compactly
    // the keys of each open object of 32 members or more (see key())
    std::unordered_map<const Value*, std::unordered_set<std::string>> keys_;
};

Chars& Chars::operator++() {
    ++at;
    if (builder != nullptr && !builder->token_fits(static_cast<std::size_t>(at - start))) {
        throw TokenTooLong{static_cast<std::size_t>(at - start)};
    }
    return *this;
}

namespace {

// Parses `text`, or the same text with its comments blanked out (`plain`, see CommentsDiffer),
// within `budget`, the text included.
Value read(std::string_view text, std::string_view file, const MemoryBudget& budget,
           const std::string* plain = nullptr) {
    const Syntax syntax(text, file, plain != nullptr);
    if (text.starts_with("\xEF\xBB\xBF")) {
        // nlohmann's lexer skips a UTF-8 byte order mark; attn's reader wants it gone before
        syntax.explain(0, Expect::document, 0, npos, 0);
    }
    const std::size_t held = text.size() + (plain != nullptr ? plain->capacity() : 0);
    if (plain != nullptr) {
        text = *plain;
    }
    Builder builder(text, syntax, held, budget);
    // its handler throws rather than return false: the result is always true
    try {
        (void)nlohmann::json::sax_parse(Chars{text.data(), text.data(), &builder},
                                        Chars{text.data() + text.size()}, &builder,
                                        nlohmann::json::input_format_t::json,
                                        /*strict=*/true, /*ignore_comments=*/true);
    } catch (const TokenTooLong& long_token) {
        builder.too_long(long_token.end);
    }
    return builder.finish();
}

}  // namespace
}  // namespace detail

const std::vector<Value>& Items::made() const {
    if (values_.empty() && !numbers_.empty()) {
        values_.resize(numbers_.size());
        for (std::size_t i = 0; i < numbers_.size(); ++i) {
            Value& item = values_[i];
            item.type = Value::Type::number;
            item.position.offset = number_at_[i] >> 1U;
            item.number = numbers_[i];
            if ((number_at_[i] & 1U) != 0) {
                // exactly its literal: an integer of at most 15 digits, and no leading zeros
                item.text = std::signbit(item.number) && item.number == 0.0
                                ? "-0"
                                : fmt::format("{}", static_cast<std::int64_t>(item.number));
            }
        }
    }
    return values_;
}

const Value* Value::find(std::string_view key) const noexcept {
    for (const auto& [k, v] : members) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

LineColumn line_column(std::string_view text, std::size_t offset) noexcept {
    const auto before = text.substr(0, offset);
    const std::size_t newline = before.rfind('\n');
    const auto line = newline == std::string_view::npos ? before : before.substr(newline + 1);
    return {
        .line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')),
        // count characters, not the continuation bytes of UTF-8
        .column = 1 + static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) {
                      return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
                  }))};
}

std::string_view describe(Value::Type type) noexcept {
    // in the order of Value::Type: null, boolean, number, string, array, object
    constexpr std::array<std::string_view, 6> kinds{"null",     "a boolean", "a number",
                                                    "a string", "an array",  "an object"};
    const auto i = static_cast<std::size_t>(type);
    return i < kinds.size() ? kinds[i] : "a value";
}

Value parse(std::string_view text, std::string_view file, const MemoryBudget& budget) {
    try {
        return detail::read(text, file, budget);
    } catch (const detail::CommentsDiffer&) {
        // a comment nlohmann's lexer reads otherwise than attn: parse the text without them
        const std::string plain = detail::without_comments(text);
        return detail::read(text, file, budget, &plain);
    }
}

}  // namespace attn::json
