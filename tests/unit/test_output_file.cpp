#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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

namespace {

attn::OutputSet::Producer text(std::string s) {
    return [s = std::move(s)](const attn::OutputSet::Sink& sink) { sink(s); };
}

}  // namespace

TEST_CASE("an output set commits every output or none", "[output]") {
    TempDir dir;
    const auto a = dir.path / "a.svg";
    const auto b = dir.path / "b.html";
    std::ofstream(a) << "old a";
    std::ofstream(b) << "old b";
    SECTION("all succeed: all replaced, each reported") {
        attn::OutputSet set;
        set.add({"--svg", a.string()}, text("new a"));
        set.add({"--html", b.string()}, text("new b"));
        bool printed = false;
        const auto written = set.write_all([&] {
            printed = true;
            CHECK(slurp(a) == "old a");  // stdout is written before anything is committed
        });
        CHECK(printed);
        CHECK(slurp(a) == "new a");
        CHECK(slurp(b) == "new b");
        REQUIRE(written.size() == 2);
        CHECK(written[1].bytes == 5);
        CHECK(written[1].in_place.empty());
        CHECK(attn::describe(written[1]) == b.string());
    }
    SECTION("the third fails: the first two keep what they had") {
        attn::OutputSet set;
        set.add({"--svg", a.string()}, text("new a"));
        set.add({"--html", b.string()}, text("new b"));
        const auto c = (dir.path / "no" / "c.json").string();
        set.add({"--json", c}, text("new c"));
        try {
            (void)set.write_all();
            FAIL("no error");
        } catch (const attn::Error& e) {
            CHECK(e.exit_code() == 1);
            CHECK(std::string(e.what()) ==
                  "cannot write " + c +
                      " (--json): its directory does not exist; no output was changed: " +
                      a.string() + " and " + b.string() + " were left as they were");
        }
        CHECK(slurp(a) == "old a");
        CHECK(slurp(b) == "old b");
        CHECK(entries(dir.path) == 2);  // no temporary file left behind
    }
    SECTION("stdout fails: nothing is committed") {
        attn::OutputSet set;
        set.add({"--svg", a.string()}, text("new a"));
        CHECK_THROWS_AS(set.write_all([] { throw attn::Error(attn::ErrorKind::output, "full"); }),
                        attn::Error);
        CHECK(slurp(a) == "old a");
        CHECK(entries(dir.path) == 2);
    }
}

TEST_CASE("an output set puts back what it replaced when a later rename fails", "[output]") {
    // the folder changes under attn between preparing and committing: the second output's
    // temporary file disappears, so its rename fails after the first output was replaced
    TempDir dir;
    fs::create_directories(dir.path / "x");
    fs::create_directories(dir.path / "y");
    const auto a = dir.path / "x" / "a.svg";
    const auto b = dir.path / "y" / "b.html";
    std::ofstream(a) << "old a";
    std::ofstream(b) << "old b";
    attn::OutputSet set;
    set.add({"--svg", a.string()}, text("new a"));
    set.add({"--html", b.string()}, text("new b"));
    try {
        (void)set.write_all([&] {
            for (const auto& entry : fs::directory_iterator(dir.path / "y")) {
                if (entry.path().filename().string().starts_with(".attn-")) {
                    fs::remove(entry.path());
                }
            }
        });
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("cannot write " + b.string() + " (--html): ") &&
                                 Catch::EndsWith("; no output was changed (" + a.string() +
                                                 " put back as before)"));
    }
    CHECK(slurp(a) == "old a");
    CHECK(slurp(b) == "old b");
    CHECK(entries(dir.path / "x") == 1);  // neither the new nor the old file left behind
    CHECK(entries(dir.path / "y") == 1);
}

TEST_CASE("an output set keeps the mode of the file it replaces", "[output]") {
    TempDir dir;
    const auto a = dir.path / "a.json";
    std::ofstream(a) << "old";
    fs::permissions(a, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    attn::OutputSet set;
    set.add({"--json", a.string()}, text("new"));
    (void)set.write_all();
    CHECK(slurp(a) == "new");
    CHECK((fs::status(a).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
}

TEST_CASE("outputs that clobber are refused before any work", "[output]") {
    TempDir dir;
    const auto in = (dir.path / "m.json").string();
    std::ofstream(in) << "{}";
    const auto refused = [](const std::vector<attn::OutputTarget>& outs,
                            const std::vector<attn::InputTarget>& ins) -> std::string {
        try {
            attn::check_outputs(outs, ins, false);
        } catch (const attn::Error& e) {
            CHECK(e.exit_code() == 2);
            return e.what();
        }
        return "";
    };
    const auto x = (dir.path / "x").string();
    CHECK(refused({{"--json", x}, {"--html", x}}, {}) ==
          "--json " + x + " and --html " + x +
              " are the same file, expected a different file for each output");
    CHECK_THAT(refused({{"--svg", (dir.path / "sub" / ".." / "x").string()}, {"--html", x}}, {}),
               Catch::Contains("are the same file"));
    CHECK(refused({{"--json", in}}, {{"--model", in}}) ==
          "--json " + in + " is the file --model " + in +
              " reads, expected another path for the output (attn never writes over its input)");
    fs::create_hard_link(in, dir.path / "hard.json");
    CHECK_THAT(refused({{"--json", (dir.path / "hard.json").string()}}, {{"--model", in}}),
               Catch::Contains("reads, expected another path"));
    CHECK_THAT(refused({{"--json", ""}}, {}), Catch::Contains("--json is an empty file name"));
    CHECK_THAT(refused({{"--json", dir.path.string()}}, {}), Catch::Contains("is a folder"));
    CHECK(
        refused({{"--json", (dir.path / "y").string()}, {"--html", x}}, {{"--model", in}}).empty());
    // a file without write permission (for root: without any write bit) needs --force
    const auto ro = (dir.path / "ro.json").string();
    std::ofstream(ro) << "{}";
    fs::permissions(ro, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    CHECK(refused({{"--json", ro}}, {}) ==
          "--json " + ro +
              " is write-protected (mode 0444), expected --force to replace it anyway, or "
              "another path");
    CHECK_NOTHROW(attn::check_outputs({{"--json", ro}}, {}, true));
}

TEST_CASE("special files are written into in place, and said so", "[output]") {
    // a FIFO in a temporary folder, not /dev/null: were this code wrong, a test run as root
    // must not replace the system's device
    TempDir dir;
    const auto fifo = (dir.path / "fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(attn::special_file_kind(fifo) == "a FIFO");
    CHECK(attn::special_file_kind((dir.path / "none").string()).empty());
    std::string received;
    std::thread reader([&] { received = slurp(fifo); });
    attn::OutputSet set;
    set.add({"--json", fifo}, text("through the pipe"));
    const auto written = set.write_all();
    reader.join();
    CHECK(received == "through the pipe");
    REQUIRE(written.size() == 1);
    CHECK(written[0].in_place == "a FIFO");
    CHECK(attn::describe(written[0]) == fifo + " (a FIFO: written into in place, not replaced)");
    struct stat st {};
    REQUIRE(::stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("temporary names are short enough for a 255-byte file name", "[output]") {
    TempDir dir;
    const auto name = dir.path / (std::string(250, 'n') + ".json");
    attn::AtomicFile f(name.string());
    f.write("x");
    f.commit();
    CHECK(slurp(name) == "x");
}
