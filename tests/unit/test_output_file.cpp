#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attn/core/error.hpp"
#include "attn/io/output_file.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() /
               ("attn-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::create_directories(path);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() { fs::remove_all(path); }
    static inline int counter = 0;
};

std::size_t entries(const fs::path& dir) {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

}  // namespace

TEST_CASE("an atomic file replaces the old one only on commit", "[output]") {
    TempDir dir;
    const auto file = dir.path / "out.json";
    std::ofstream(file) << "old";
    {
        attn::AtomicFile f(file.string());
        f.write("new ");
        f.write("contents");
        CHECK(slurp(file) == "old");  // not yet
        f.commit();
    }
    CHECK(slurp(file) == "new contents");
    CHECK(entries(dir.path) == 1);  // no temporary file left behind
}

TEST_CASE("an uncommitted atomic file leaves the old one and no litter", "[output]") {
    TempDir dir;
    const auto file = dir.path / "out.json";
    std::ofstream(file) << "old";
    {
        attn::AtomicFile f(file.string());
        f.write("half");
    }
    CHECK(slurp(file) == "old");
    CHECK(entries(dir.path) == 1);
}

TEST_CASE("unwritable destinations are errors naming the path", "[output]") {
    TempDir dir;
    try {
        attn::AtomicFile f(dir.path.string());
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 1);
        CHECK_THAT(e.what(),
                   Catch::Contains(dir.path.string()) && Catch::Contains("is a directory"));
    }
    const auto missing = (dir.path / "no" / "such" / "dir.json").string();
    try {
        attn::AtomicFile f(missing);
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains(missing) && Catch::Contains("does not exist"));
    }
}
