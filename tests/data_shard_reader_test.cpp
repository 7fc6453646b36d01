// ShardReader (data/shard_reader.h): shards come back in the order of the paths whatever the
// thread count, and a shard that cannot be read comes back with its problem, not thrown.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "data/shard_reader.h"
#include "data/training_rows.h"
#include "test_support.h"
#include "util/error.h"

namespace tengen::data {
namespace {

RowShape Shape() { return {3, 2, 2, /*feature_version=*/1}; }

// A shard of `rows` packed rows whose first byte is `tag`.
std::string WriteTagged(const testing::TempDir& dir, const std::string& name, int rows,
                        uint8_t tag) {
  std::vector<PackedRow> packed;
  for (int i = 0; i < rows; ++i) {
    PackedRow row(PackedRowBytes(Shape()), '\0');
    row[0] = static_cast<char>(tag);
    packed.push_back(row);
  }
  const std::string path = dir / name;
  WritePackedShard(Shape(), "m", packed, path);
  return path;
}

TEST_CASE("shard reader: in order, with reads ahead or inline, and unreadable shards reported") {
  testing::TempDir dir;
  std::vector<std::string> paths;
  for (int i = 0; i < 6; ++i)
    paths.push_back(
        WriteTagged(dir, "s" + std::to_string(i) + ".npz", i + 1, static_cast<uint8_t>(10 + i)));
  paths.insert(paths.begin() + 3, dir.Write("broken.npz", "not a zip"));
  for (const int threads : {1, 2, 4, 16}) {
    CAPTURE(threads);
    ShardReader reader(paths, threads);
    int shard = 0;
    for (size_t i = 0; i < paths.size(); ++i) {
      const ShardRead read = reader.Next();
      if (i == 3) {
        CHECK_FALSE(read.problem.empty());
        CHECK(read.error != nullptr);
        CHECK_THROWS_AS(std::rethrow_exception(read.error), Error);
        continue;
      }
      CHECK(read.problem.empty());
      REQUIRE(read.shard.rows.size() == static_cast<size_t>(shard + 1));
      CHECK(read.shard.rows.front()[0] == 10 + shard);
      CHECK(read.shard.model_name == "m");
      ++shard;
    }
  }
}

TEST_CASE("shard reader: a reader left early waits for its reads") {
  testing::TempDir dir;
  std::vector<std::string> paths;
  for (int i = 0; i < 8; ++i)
    paths.push_back(WriteTagged(dir, "s" + std::to_string(i) + ".npz", 50, 1));
  {
    ShardReader reader(paths, 4);
    CHECK(reader.Next().problem.empty());
  }  // the destructor joins the reads in flight
  CHECK(ReadShardOrProblem(paths.back()).problem.empty());
  CHECK_FALSE(ReadShardOrProblem(dir / "missing.npz").problem.empty());
}

}  // namespace
}  // namespace tengen::data
