// The shuffler's scan of selfplay's shards (pipeline/shard_scanner.h) and the shard names it
// reads rows and times from (pipeline/base_dir.h).
#include "pipeline/shard_scanner.h"

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
#include <ctime>

#include "pipeline/base_dir.h"
#include "shard_fixture.h"
#include "test_support.h"
#include "util/log.h"
#include "util/publish.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using testing::TempDir;

constexpr std::time_t kLongAgo = 1700000000;  // 2023: older than every settle age

// Makes a directory look unchanged for long (what settles it).
void Age(const std::string& path) { fs::last_write_time(path, kLongAgo); }

}  // namespace

TEST_CASE("shard names: rows and time round-trip; other names say nothing") {
  const std::string stem = "20261125-131503-vm-2342-ba3162f9b6785fcf";
  const std::string name = ShardFileName(stem, 2480);
  CHECK(name == stem + "-r2480.npz");
  CHECK(RowsInShardName(name) == 2480);
  CHECK(TimeInFileName(name) == 1795612503);  // 2026-11-25T13:15:03Z
  CHECK(TimeInFileName(UniqueFileStem()).has_value());
  CHECK_FALSE(RowsInShardName(stem + ".npz").has_value());  // older versions' names
  CHECK(TimeInFileName(stem + ".npz") == 1795612503);
  for (const char* other : {"x.npz", "-r.npz", "a-r12x.npz", "a_r12.npz", "a-r12.npy", "r12.npz",
                            "a-r1234567890123456789.npz"})
    CHECK_FALSE(RowsInShardName(other).has_value());
  for (const char* other : {"2026112-131503-x", "20261325-131503-x", "20261125-251503-x",
                            "summary.json", "20261125131503"})
    CHECK_FALSE(TimeInFileName(other).has_value());
}

TEST_CASE("shard scanner: rows from names without opening the files, headers of older names") {
  TempDir base;
  const std::string tdata = TdataDir(base.path(), "m1");
  EnsureDirectory(tdata);
  // Not a zip at all: only its name can say how many rows it holds.
  base.Write("selfplay/m1/tdata/" + ShardFileName("20261125-131503-h-1-0000000000000001", 7),
             "not an npz");
  testing::WriteTinyShard(tdata + "/20261125-131504-h-1-0000000000000002.npz", 3, "m1");
  base.Write("selfplay/m1/tdata/20261125-131505-h-1-0000000000000003.npz", "broken");
  Logger logger(LogLevel::kError);
  ShardScanner scanner;
  const std::vector<ShardFile> files = scanner.Scan(base.path(), logger);
  REQUIRE(files.size() == 2);  // the broken older one is skipped
  int64_t rows = 0;
  for (const ShardFile& f : files) {
    rows += f.rows;
    CHECK(f.model == "m1");
  }
  CHECK(rows == 10);
  CHECK(scanner.counts().headers_read == 2);  // the two older names, not the named one
  CHECK(scanner.counts().stats == 2);
  // The named shard's time is its name's.
  for (const ShardFile& f : files)
    if (f.rows == 7) CHECK(f.mtime_ns == int64_t{1795612503} * 1000000000);
}

TEST_CASE("shard scanner: settled directories are not listed again until they change") {
  TempDir base;
  const std::string tdata = TdataDir(base.path(), "m1");
  EnsureDirectory(tdata);
  base.Write("selfplay/m1/tdata/" + ShardFileName("20261125-131503-h-1-0000000000000001", 5), "");
  Age(tdata);
  EnsureDirectory(TdataDir(base.path(), "m2"));
  base.Write("selfplay/m2/tdata/" + ShardFileName("20261125-131503-h-1-0000000000000002", 4), "");
  Logger logger(LogLevel::kError);
  ShardScanner scanner;
  CHECK(scanner.Scan(base.path(), logger).size() == 2);
  CHECK(scanner.counts().listed == 2);
  // m1 is settled (old and without temporaries), m2 changed just now: only m2 is listed again.
  CHECK(scanner.Scan(base.path(), logger).size() == 2);
  CHECK(scanner.counts().directories == 2);
  CHECK(scanner.counts().listed == 1);
  // A new shard in m1 changes its time: listed again, and the new shard is found.
  base.Write("selfplay/m1/tdata/" + ShardFileName("20261125-131510-h-1-0000000000000003", 6), "");
  fs::last_write_time(tdata, kLongAgo + 10);
  const std::vector<ShardFile> files = scanner.Scan(base.path(), logger);
  CHECK(files.size() == 3);
  CHECK(scanner.counts().listed == 2);
  // A removed model directory disappears from the scan.
  fs::remove_all(SelfplayDir(base.path()) + "/m2");
  CHECK(scanner.Scan(base.path(), logger).size() == 2);
}

TEST_CASE("shard scanner: temporaries of dead writers are removed, young ones kept") {
  TempDir base;
  const std::string tdata = TdataDir(base.path(), "m1");
  const std::string sgfs = SgfsDir(base.path(), "m1");
  EnsureDirectory(tdata);
  EnsureDirectory(sgfs);
  base.Write("selfplay/m1/tdata/" + ShardFileName("20261125-131503-h-1-0000000000000001", 5), "");
  const std::string old_shard =
      base.Write("selfplay/m1/tdata/x-r9.npz.tmp.deadhost-77-00112233445566aa", "half written");
  const std::string old_sgfs =
      base.Write("selfplay/m1/sgfs/x.sgfs.tmp.deadhost-77-00112233445566ab", "(;");
  fs::last_write_time(old_shard, kLongAgo);
  fs::last_write_time(old_sgfs, kLongAgo);
  const std::string young =
      base.Write("selfplay/m1/tdata/y-r9.npz.tmp.livehost-78-00112233445566ac", "being written");
  Age(tdata);
  Age(sgfs);
  Logger logger(LogLevel::kError);
  ShardScanner scanner;
  CHECK(scanner.Scan(base.path(), logger).size() == 1);  // temporaries are never shards
  CHECK(scanner.counts().temporaries_removed == 2);
  CHECK_FALSE(fs::exists(old_shard));
  CHECK_FALSE(fs::exists(old_sgfs));
  CHECK(fs::exists(young));
  // A directory with a live writer's temporary is not settled: listed on every scan.
  Age(tdata);
  Age(sgfs);
  scanner.Scan(base.path(), logger);
  CHECK(scanner.counts().listed == 1);
  fs::remove(young);
  Age(tdata);
  scanner.Scan(base.path(), logger);
  scanner.Scan(base.path(), logger);
  CHECK(scanner.counts().listed == 0);
}

}  // namespace tengen::pipeline
