// The message of the input error a piece of code throws, for the unit tests of the readers.
#pragma once

#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "attn/core/error.hpp"

namespace attn::test {

/// What `f` throws as an input error ("(no error)" when it throws nothing); a test fails
/// when it throws an error of another kind.
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::Error& e) {
        CHECK(e.kind() == attn::ErrorKind::input);
        return e.what();
    }
    return "(no error)";
}

}  // namespace attn::test
