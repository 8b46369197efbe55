# Build speed (docs/design.md, Build; the figures are in docs/performance.md, CI). CI builds the
# project four times on 2 cores within its 30 minutes, so the dev and asan presets precompile
# the external headers that most files of a target include: the standard library, fmt
# (header-only: its whole implementation is in the header), CLI11 (header-only, about 7 s of
# parsing per file), nlohmann/json and Catch2. Each target parses them once instead of once
# per file.
#
# ATTN_PCH is off by default and in the release preset, so that a user's build, and the release
# build bench/run makes in CI, compile every file with exactly the headers it includes: a
# missing #include, which a precompiled header would hide, fails there. scripts/tidy uses a
# compile database of its own without precompiled headers for the same reason (and because
# clang cannot read gcc's).
#
# The dev, asan and fuzz presets also set CMAKE_UNITY_BUILD: CMake compiles the files of each
# library and of the command line as a few large files that #include them, so the headers they
# share are parsed and instantiated once per batch instead of once per file. It asks that two
# files of one target never define the same name in their anonymous namespaces; the unit tests, whose files
# each keep such helpers, are built file by file (tests/CMakeLists.txt). The release build and
# scripts/tidy compile file by file, so a missing #include still fails there.
option(ATTN_PCH "Precompile the external headers of each target (dev and asan presets)" OFF)

set(ATTN_PCH_STD <algorithm> <array> <cmath> <cstddef> <cstdint> <functional> <limits>
                 <optional> <span> <string> <string_view> <utility> <vector>)

# attn_precompile_headers(TARGET HEADER...): the standard library's common headers and the
# HEADERs, precompiled for TARGET when ATTN_PCH is on.
function(attn_precompile_headers target)
    if(ATTN_PCH)
        target_precompile_headers(${target} PRIVATE ${ATTN_PCH_STD} ${ARGN})
    endif()
endfunction()
