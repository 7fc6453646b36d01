// tengen-status's look at big directories (status/disk_survey.h): exact up to kExactFiles
// files, a sample above, rows and times from shard names.
#include "status/disk_survey.h"

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "pipeline/base_dir.h"
#include "shard_fixture.h"
#include "test_support.h"
#include "util/publish.h"

namespace tengen::status {
namespace {

namespace fs = boost::filesystem;
using testing::TempDir;

// "<yyyymmdd-hhmmss of t>-h-1-<16 hex of i>": a name like UniqueFileStem's, made at time t.
std::string StemAt(std::time_t t, int i) {
  std::tm utc{};
  gmtime_r(&t, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  char suffix[32];
  std::snprintf(suffix, sizeof(suffix), "-h-1-%016x", i);
  return std::string(stamp) + suffix;
}

// `count` files of `bytes` bytes in dir, named by StemAt(t, i); returns their names.
std::vector<std::string> WriteFiles(const TempDir& dir, int count, std::time_t t, size_t bytes) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    names.push_back(StemAt(t, i) + ".sgfs");
    dir.Write(names.back(), std::string(bytes, 'x'));
  }
  return names;
}

}  // namespace

TEST_CASE("disk survey: exact up to kExactFiles, estimated from a sample above") {
  const std::time_t now = std::time(nullptr);
  TempDir small;
  const std::vector<std::string> few = WriteFiles(small, 10, now - 86400, 100);
  const DiskUsage exact = MeasureFiles(small.path(), few, static_cast<double>(now) - 3600);
  CHECK(exact.files == 10);
  CHECK(exact.bytes == 1000);
  CHECK(exact.recent_bytes == 1000);  // written just now, whatever the names say
  CHECK_FALSE(exact.estimated);

  TempDir big;
  std::vector<std::string> many =
      WriteFiles(big, static_cast<int>(kExactFiles) + 500, now - 86400, 100);
  const DiskUsage sampled = MeasureFiles(big.path(), many, static_cast<double>(now) - 3600);
  CHECK(sampled.files == kExactFiles + 500);
  CHECK(sampled.bytes == (kExactFiles + 500) * 100);  // equal sizes: the sample is exact
  CHECK(sampled.estimated);
  // A file gone since the listing is not counted.
  fs::remove(big / many[1]);
  CHECK(MeasureFiles(big.path(), {many[1]}, 0).files == 0);
}

TEST_CASE("disk survey: shards' rows, recent rows and the newest shard from their names") {
  TempDir base;
  const std::time_t now = std::time(nullptr);
  const std::string tdata = pipeline::TdataDir(base.path(), "m1");
  EnsureDirectory(tdata);
  base.Write("selfplay/m1/tdata/" + pipeline::ShardFileName(StemAt(now - 7200, 1), 40), "x");
  base.Write("selfplay/m1/tdata/" + pipeline::ShardFileName(StemAt(now - 60, 2), 25), "xy");
  base.Write("selfplay/m1/tdata/" + pipeline::ShardFileName(StemAt(now - 10, 3), 5) +
                 ".tmp.h-1-0123456789abcdef",
             "being written");
  EnsureDirectory(pipeline::TdataDir(base.path(), "m2"));
  std::vector<std::string> notes;
  ShardSurvey survey = SurveyShards(base.path(), static_cast<double>(now) - 3600, true, &notes);
  CHECK(survey.usage.files == 2);
  CHECK(survey.usage.bytes == 3);
  CHECK(survey.rows == 65);
  CHECK(survey.rows_since == 25);
  CHECK(survey.models == 1);  // m2 holds no shard
  CHECK(survey.newest == tdata + "/" + pipeline::ShardFileName(StemAt(now - 60, 2), 25));
  REQUIRE(survey.newest_time.has_value());
  CHECK(notes.empty());

  // A shard of an older version (no rows in its name): its headers count when asked to open
  // it, an unknown count otherwise; an unreadable one adds a note.
  testing::WriteTinyShard(tdata + "/" + StemAt(now - 30, 4) + ".npz", 1, "m1");
  CHECK(SurveyShards(base.path(), static_cast<double>(now) - 3600, true, &notes).rows == 66);
  CHECK(SurveyShards(base.path(), static_cast<double>(now) - 3600, false, &notes).rows == -1);
  base.Write("selfplay/m1/tdata/" + StemAt(now - 20, 5) + ".npz", "broken");
  survey = SurveyShards(base.path(), static_cast<double>(now) - 3600, true, &notes);
  CHECK(survey.unreadable == 1);
  CHECK(survey.rows == 66);
  CHECK(notes.size() == 1);
}

}  // namespace tengen::status
