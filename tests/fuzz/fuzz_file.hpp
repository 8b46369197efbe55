// Shared by the fuzz targets whose readers take a path: the input is written to a file of
// this process's own, read back by the real reader, and every attn::Error is an expected
// outcome. Anything else (a crash, a sanitizer report, another exception) is a finding.
#pragma once

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace attn_fuzz {

inline const std::string& scratch_path() {
    static const std::string path =
        "/tmp/attn-fuzz-" + std::to_string(static_cast<long>(::getpid())) + ".json";
    return path;
}

inline const std::string& write_scratch(const std::uint8_t* data, std::size_t size) {
    const std::string& path = scratch_path();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

}  // namespace attn_fuzz
