#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/filesystem.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/rng.h"

namespace tengen {
namespace {

namespace fs = boost::filesystem;
using testing::TempDir;

// Every entry of dir, temporaries included.
std::vector<std::string> ListAll(const std::string& dir) {
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir), end; it != end; ++it) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void SetAge(const std::string& path, std::chrono::seconds age) {
  fs::last_write_time(path, std::time(nullptr) - static_cast<std::time_t>(age.count()));
}

TEST_CASE("publish: temporary names") {
  const std::string a = TemporaryPathFor("/data/models/m1.pt");
  const std::string b = TemporaryPathFor("/data/models/m1.pt");
  CHECK(a != b);
  CHECK(a.rfind("/data/models/m1.pt.tmp.", 0) == 0);
  CHECK(a.find("-" + std::to_string(getpid()) + "-") != std::string::npos);
  CHECK(IsTemporaryName(fs::path(a).filename().string()));
  CHECK_FALSE(IsTemporaryName("m1.pt"));
  // Suffix ends in 16 hex digits.
  const std::string suffix = UniqueSuffix();
  REQUIRE(suffix.size() > 17);
  CHECK(suffix[suffix.size() - 17] == '-');
  CHECK(suffix.find_first_not_of("0123456789abcdef", suffix.size() - 16) == std::string::npos);
}

TEST_CASE("publish: a file round trip, replacing an older version") {
  TempDir dir;
  const std::string path = dir / "data.bin";
  std::string contents("binary\0data\n", 12);
  PublishFile(path, contents);
  CHECK(ReadFile(path) == contents);
  PublishFile(path, "second version");
  CHECK(ReadFile(path) == "second version");
  PublishFile(dir / "empty", "");
  CHECK(ReadFile(dir / "empty").empty());
  CHECK(ListAll(dir.path()) == std::vector<std::string>{"data.bin", "empty"});
}

TEST_CASE("publish: AppendLine adds whole lines and ends a torn one first") {
  TempDir dir;
  const std::string path = dir / "metrics.jsonl";
  AppendLine(path, "{\"epoch\": 1}");
  AppendLine(path, "{\"epoch\": 2}");
  CHECK(ReadFile(path) == "{\"epoch\": 1}\n{\"epoch\": 2}\n");
  // An append cut short by a full disk left half a line: the next line starts on its own.
  std::ofstream(path, std::ios::app) << "{\"epo";
  AppendLine(path, "{\"epoch\": 3}");
  CHECK(ReadFile(path) == "{\"epoch\": 1}\n{\"epoch\": 2}\n{\"epo\n{\"epoch\": 3}\n");
  CHECK_THROWS_WITH_AS(AppendLine(dir / "missing/x.jsonl", "x"),
                       doctest::Contains("missing/x.jsonl"), IoError);
}

TEST_CASE("publish: ListPublished skips temporaries and sorts") {
  TempDir dir;
  PublishFile(dir / "b", "b");
  PublishFile(dir / "a", "a");
  AtomicFile pending(dir / "c");
  pending.Write("not yet");
  AtomicDirectory pending_dir(dir / "d");
  CHECK(ListAll(dir.path()).size() == 4);
  int64_t temporaries = -1;
  CHECK(ListPublished(dir.path(), &temporaries) == std::vector<std::string>{"a", "b"});
  CHECK(temporaries == 2);
  CHECK(ListPublished(dir / "missing").empty());
  pending.Commit();
  pending_dir.Commit();
  CHECK(ListPublished(dir.path()) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(ReadFile(dir / "c") == "not yet");
}

TEST_CASE("publish: an AtomicFile destroyed uncommitted leaves nothing") {
  TempDir dir;
  {
    AtomicFile file(dir / "x");
    file.Write("partial");
    CHECK(fs::exists(file.temp_path()));
    CHECK_FALSE(fs::exists(file.final_path()));
  }
  CHECK(ListAll(dir.path()).empty());
  {
    AtomicDirectory tree(dir / "tree");
    PublishFile(tree.path() + "/inner", "inner");
    CHECK(fs::is_directory(tree.path()));
  }
  CHECK(ListAll(dir.path()).empty());
}

TEST_CASE("publish: AtomicDirectory commits whole and refuses an existing target") {
  TempDir dir;
  std::string temp_path;
  {
    AtomicDirectory tree(dir / "model-1");
    temp_path = tree.path();
    CHECK(IsTemporaryName(fs::path(temp_path).filename().string()));
    PublishFile(tree.path() + "/weights", "w");
    EnsureDirectory(tree.path() + "/sub/deeper");
    PublishFile(tree.path() + "/sub/deeper/meta", "m");
    tree.Commit();
  }
  CHECK_FALSE(fs::exists(temp_path));
  CHECK(ReadFile(dir / "model-1/weights") == "w");
  CHECK(ReadFile(dir / "model-1/sub/deeper/meta") == "m");
  CHECK(ListAll(dir.path()) == std::vector<std::string>{"model-1"});

  {
    AtomicDirectory again(dir / "model-1");
    PublishFile(again.path() + "/weights", "other");
    CHECK_THROWS_AS(again.Commit(), IoError);
  }
  CHECK(ReadFile(dir / "model-1/weights") == "w");

  // An empty existing directory is refused too, although rename(2) would replace it.
  EnsureDirectory(dir / "empty-target");
  {
    AtomicDirectory onto_empty(dir / "empty-target");
    try {
      onto_empty.Commit();
      FAIL("expected an IoError");
    } catch (const IoError& e) {
      CHECK(std::string(e.what()).find(dir / "empty-target") != std::string::npos);
    }
  }
  CHECK(ListAll(dir.path()) == std::vector<std::string>{"empty-target", "model-1"});
}

TEST_CASE("publish: RemoveStaleTemporaries removes only old temporaries") {
  TempDir dir;
  const std::string old_file = TemporaryPathFor(dir / "old-file");
  const std::string old_tree = TemporaryPathFor(dir / "old-tree");
  const std::string fresh = TemporaryPathFor(dir / "fresh");
  PublishFile(old_file, "x");
  EnsureDirectory(old_tree + "/a/b");
  PublishFile(old_tree + "/a/b/c", "x");
  PublishFile(fresh, "x");
  PublishFile(dir / "published", "x");
  // A temporary tree whose top directory is old but whose writer just added a file is alive.
  const std::string busy_tree = TemporaryPathFor(dir / "busy-tree");
  EnsureDirectory(busy_tree + "/sub");
  PublishFile(busy_tree + "/sub/new", "x");
  // Names that merely contain ".tmp" are not ours to delete.
  PublishFile(dir / "notes.tmp", "x");
  PublishFile(dir / "net.tmpl", "x");
  for (const char* inside : {"/a/b/c", "/a/b", "/a", ""})
    SetAge(old_tree + inside, std::chrono::hours(2));
  SetAge(old_file, std::chrono::hours(2));
  SetAge(busy_tree, std::chrono::hours(2));
  SetAge(dir / "published", std::chrono::hours(2));
  SetAge(dir / "notes.tmp", std::chrono::hours(2));
  SetAge(dir / "net.tmpl", std::chrono::hours(2));

  int64_t young = -1;
  CHECK(RemoveStaleTemporaries(dir.path(), std::chrono::hours(1), &young) == 2);
  CHECK(young == 2);  // fresh and busy-tree
  CHECK_FALSE(fs::exists(old_file));
  CHECK_FALSE(fs::exists(old_tree));
  CHECK(fs::exists(busy_tree + "/sub/new"));
  CHECK(fs::exists(fresh));
  CHECK(fs::exists(dir / "published"));
  CHECK(fs::exists(dir / "notes.tmp"));
  CHECK(fs::exists(dir / "net.tmpl"));

  CHECK(RemoveStaleTemporaries(dir.path(), std::chrono::seconds(0)) == 2);
  CHECK(ListAll(dir.path()) == std::vector<std::string>{"net.tmpl", "notes.tmp", "published"});
  CHECK(RemoveStaleTemporaries(dir / "missing", std::chrono::seconds(0)) == 0);
}

TEST_CASE("publish: RemovePublished removes a file or a tree and leaves no partial entry") {
  TempDir dir;
  EnsureDirectory(dir / "tree/sub");
  PublishFile(dir / "tree/a", "x");
  PublishFile(dir / "tree/sub/b", "x");
  PublishFile(dir / "file", "x");
  PublishFile(dir / "kept", "x");
  CHECK(RemovePublished(dir / "tree"));
  CHECK(RemovePublished(dir / "file"));
  CHECK(ListAll(dir.path()) == std::vector<std::string>{"kept"});
  // Already gone: another process removed it.
  CHECK_FALSE(RemovePublished(dir / "tree"));
  // A path that cannot be renamed (its parent is a file): the error names it, nothing is removed.
  EnsureDirectory(dir / "locked/inner");
  PublishFile(dir / "locked/inner/c", "x");
  CHECK_THROWS_WITH_AS(RemovePublished(dir / "locked/inner/c/d"), doctest::Contains("c/d"),
                       IoError);
  CHECK(fs::exists(dir / "locked/inner/c"));
}

TEST_CASE("publish: EnsureDirectory and ReadFile errors") {
  TempDir dir;
  EnsureDirectory(dir / "a/b/c");
  EnsureDirectory(dir / "a/b/c");
  EnsureDirectory(dir / "a/b/c/");
  CHECK(fs::is_directory(dir / "a/b/c"));
  PublishFile(dir / "file", "x");
  CHECK_THROWS_AS(EnsureDirectory(dir / "file/sub"), IoError);
  try {
    ReadFile(dir / "missing");
    FAIL("expected an IoError");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find(dir / "missing") != std::string::npos);
    CHECK(std::string(e.what()).find(std::strerror(ENOENT)) != std::string::npos);
  }
  CHECK_THROWS_AS(PublishFile(dir / "no/such/dir/file", "x"), IoError);
}

// Self-verifying contents for the kill test: [total size: u64][seed: u64][pattern from seed].
// A truncated, empty or mixed-up file fails Verify.
std::string MakeContents(uint64_t seed, size_t size) {
  std::string data(size, '\0');
  const uint64_t header[2] = {size, seed};
  std::memcpy(&data[0], header, sizeof(header));
  Rng pattern(seed);
  for (size_t at = sizeof(header); at < size; at += 8) {
    const uint64_t word = pattern.Next();
    std::memcpy(&data[at], &word, std::min<size_t>(8, size - at));
  }
  return data;
}

bool Verify(const std::string& data) {
  uint64_t header[2];
  if (data.size() < sizeof(header)) return false;
  std::memcpy(header, data.data(), sizeof(header));
  return header[0] == data.size() && data == MakeContents(header[1], data.size());
}

// The child of the kill test: publishes files forever (until SIGKILL). Only _exit leaves it.
[[noreturn]] void PublishForever(const std::string& dir, uint64_t round) {
  try {
    for (uint64_t i = 0;; ++i) {
      const uint64_t seed = (round << 32) | i;
      const size_t size = 200 * 1024 + static_cast<size_t>((seed * 7919) % (300 * 1024));
      // Eight names per round, each replaced again and again.
      PublishFile(dir + "/round" + std::to_string(round) + "-" + std::to_string(i % 8),
                  MakeContents(seed, size));
    }
  } catch (...) {
    _exit(1);
  }
}

TEST_CASE("publish: a reader never sees a partial file while a writer is killed mid-write") {
  TempDir dir;
  Rng rng(20240601);
  int files_read = 0;
  std::set<std::string> names_seen;
  // Reads every published file and checks it. A name seen once must stay readable.
  const auto read_all = [&] {
    for (const std::string& name : ListPublished(dir.path())) {
      const std::string data = ReadFile(dir / name);
      CAPTURE(name);
      CAPTURE(data.size());
      REQUIRE(Verify(data));
      names_seen.insert(name);
      ++files_read;
    }
  };
  constexpr int kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) PublishForever(dir.path(), static_cast<uint64_t>(round));
    // A failed REQUIRE below must not leave the writer running forever.
    struct KillOnExit {
      pid_t pid;
      ~KillOnExit() {
        if (pid <= 0) return;
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    } guard{child};
    const auto kill_at =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(20 + rng.Uniform(181));
    while (std::chrono::steady_clock::now() < kill_at) read_all();
    REQUIRE(kill(child, SIGKILL) == 0);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    guard.pid = -1;
    // Killed by our signal, not stopped by an exception of its own.
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    read_all();
  }
  CHECK(files_read > 0);
  CHECK(names_seen.size() == ListPublished(dir.path()).size());

  // Whatever the killed writers left behind is a temporary.
  for (const std::string& name : ListAll(dir.path())) {
    if (names_seen.count(name) == 0) {
      CAPTURE(name);
      CHECK(IsTemporaryName(name));
    }
  }
  RemoveStaleTemporaries(dir.path(), std::chrono::seconds(0));
  CHECK(ListAll(dir.path()) == ListPublished(dir.path()));
  read_all();
  MESSAGE("files read and verified: " << files_read << ", names: " << names_seen.size());
}

}  // namespace
}  // namespace tengen
