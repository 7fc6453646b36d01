// The training-row shard: round trip through our reader, row counting from headers, and the
// arrays as numpy sees them (names, dtypes, shapes, bit order of the packed planes).
#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "data/npz.h"
#include "data/training_rows.h"
#include "test_support.h"
#include "util/error.h"
#include "util/rng.h"
#include "util/subprocess.h"

namespace tengen::data {
namespace {

constexpr int kPosLen = 5;
constexpr int kSpatial = 3;
constexpr int kGlobal = 2;

RowShape Shape() { return {kPosLen, kSpatial, kGlobal, /*feature_version=*/7}; }

TrainingRow RandomRow(Rng& rng, int i) {
  const int area = kPosLen * kPosLen;
  TrainingRow row;
  for (int k = 0; k < kSpatial * area; ++k)
    row.spatial.push_back(static_cast<float>(rng.Uniform(2)));
  row.global = {0.25f * i, -1.0f};
  row.policy.assign(area + 1, 0.0f);
  row.policy[static_cast<size_t>(i) % (area + 1)] = 0.75f;
  row.policy[area] += 0.25f;
  row.value[i % 3] = 1.0f;
  row.score = -3.5f + i;
  for (int k = 0; k < area; ++k) row.ownership.push_back(static_cast<int8_t>(rng.Uniform(3)) - 1);
  row.weight = 1.0f + i;
  row.score_weight = static_cast<float>(i % 2);
  row.ownership_weight = i == 0 ? 0.0f : 1.0f;
  row.game_id = (int64_t{1} << 40) + i;
  row.turn = 10 * i;
  row.board_size = 5;
  row.komi = 6.5f;
  row.ko_positional = static_cast<int8_t>(i % 2);
  row.suicide = 0;
  if (i % 2 == 1) {  // odd rows know the opponent's reply, even ones do not
    row.opponent_policy.assign(area + 1, 0.0f);
    row.opponent_policy[static_cast<size_t>(2 * i)] = 0.5f;
    row.opponent_policy[area] = 0.5f;
    row.opponent_policy_weight = 1.0f;
  }
  if (i % 2 == 0) {  // even rows know their short-term values, odd ones do not
    for (int h = 0; h < kTdHorizons; ++h) {
      row.td_value[h][0] = 0.25f * h;
      row.td_value[h][1] = 1.0f - 0.25f * h;
    }
    row.td_value_weight = 1.0f;
  }
  return row;
}

// A copy of the shard at `path` without the arrays `left_out` (as older tengen wrote shards),
// at `copy`; returns `copy`.
std::string WithoutArrays(const std::string& path, const std::set<std::string>& left_out,
                          const std::string& copy) {
  const NpzReader reader(path);
  NpzWriter old(copy);
  for (const std::string& name : reader.names()) {
    if (!left_out.count(name)) old.Add(name, reader.ReadArray(name));
  }
  old.Finish();
  return copy;
}

// `rows` random rows written to DIR/new.npz, and a copy without `left_out` at DIR/old.npz (as
// older tengen wrote shards); returns the old one's path.
std::string NewAndOldShards(const testing::TempDir& dir, uint64_t seed, int rows,
                            const std::set<std::string>& left_out) {
  Rng rng(seed);
  ShardWriter writer(Shape(), "old");
  for (int i = 0; i < rows; ++i) writer.Add(RandomRow(rng, i));
  const std::string path = dir / "new.npz";
  writer.WriteAndClear(path);
  return WithoutArrays(path, left_out, dir / "old.npz");
}

void CheckSame(const TrainingRow& a, const TrainingRow& b) {
  CHECK(a.spatial == b.spatial);
  CHECK(a.global == b.global);
  CHECK(a.policy == b.policy);
  for (int k = 0; k < 3; ++k) CHECK(a.value[k] == b.value[k]);
  CHECK(a.score == b.score);
  CHECK(a.ownership == b.ownership);
  CHECK(a.weight == b.weight);
  CHECK(a.score_weight == b.score_weight);
  CHECK(a.ownership_weight == b.ownership_weight);
  CHECK(a.game_id == b.game_id);
  CHECK(a.turn == b.turn);
  CHECK(a.board_size == b.board_size);
  CHECK(a.komi == b.komi);
  CHECK(a.ko_positional == b.ko_positional);
  CHECK(a.suicide == b.suicide);
  // An unknown reply is written, and so read back, as zeros.
  const auto reply = [](const TrainingRow& row) {
    return row.opponent_policy.empty() ? std::vector<float>(row.policy.size(), 0.0f)
                                       : row.opponent_policy;
  };
  CHECK(reply(a) == reply(b));
  CHECK(a.opponent_policy_weight == b.opponent_policy_weight);
  for (int h = 0; h < kTdHorizons; ++h)
    for (int k = 0; k < 3; ++k) CHECK(a.td_value[h][k] == b.td_value[h][k]);
  CHECK(a.td_value_weight == b.td_value_weight);
}

TEST_CASE("training rows: a shard round-trips and counts its rows from headers") {
  testing::TempDir dir;
  Rng rng(3);
  std::vector<TrainingRow> rows;
  ShardWriter writer(Shape(), "run-a-s100-d200");
  for (int i = 0; i < 7; ++i) {
    rows.push_back(RandomRow(rng, i));
    writer.Add(rows.back());
  }
  CHECK(writer.rows() == 7);
  const std::string path = dir / "shard.npz";
  writer.WriteAndClear(path);
  CHECK(writer.rows() == 0);
  CHECK(CountShardRows(path) == 7);
  const Shard shard = ReadShard(path);
  CHECK(shard.model_name == "run-a-s100-d200");
  CHECK(shard.shape.pos_len == kPosLen);
  CHECK(shard.shape.num_spatial == kSpatial);
  CHECK(shard.shape.num_global == kGlobal);
  CHECK(shard.shape.feature_version == 7);
  REQUIRE(shard.rows.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i) CheckSame(shard.rows[i], rows[i]);

  TrainingRow bad = RandomRow(rng, 0);
  bad.policy.pop_back();
  CHECK_THROWS_AS(writer.Add(bad), CheckError);
  CHECK_THROWS_AS(ReadShard(dir.Write("foreign.npz", "not a zip")), FormatError);
}

TEST_CASE("training rows: packed rows move between files byte for byte") {
  testing::TempDir dir;
  Rng rng(5);
  std::vector<TrainingRow> rows;
  ShardWriter writer(Shape(), "run-a-s1-d2");
  for (int i = 0; i < 9; ++i) {
    rows.push_back(RandomRow(rng, i));
    writer.Add(rows.back());
  }
  const std::string path = dir / "shard.npz";
  writer.WriteAndClear(path);
  PackedShard packed = ReadPackedShard(path);
  CHECK(packed.model_name == "run-a-s1-d2");
  CHECK(packed.shape.feature_version == 7);
  REQUIRE(packed.rows.size() == 9);
  for (const PackedRow& row : packed.rows) CHECK(row.size() == PackedRowBytes(Shape()));
  // Reverse the rows, write them at another level, and read them back decoded.
  std::vector<PackedRow> reversed(packed.rows.rbegin(), packed.rows.rend());
  const std::string out = dir / "reversed.npz";
  WritePackedShard(packed.shape, "shuffled", reversed, out, 1);
  const Shard back = ReadShard(out);
  CHECK(back.model_name == "shuffled");
  CHECK(back.shape.feature_version == 7);
  REQUIRE(back.rows.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i) CheckSame(back.rows[i], rows[rows.size() - 1 - i]);
  // Errors as ReadShard's; a row of the wrong size is the caller's bug.
  CHECK_THROWS_AS(ReadPackedShard(dir.Write("foreign.npz", "not a zip")), FormatError);
  reversed[3].pop_back();
  CHECK_THROWS_AS(WritePackedShard(packed.shape, "x", reversed, dir / "bad.npz"), CheckError);
}

TEST_CASE("training rows: a shard written before ownership_weight reads it as its score_weight") {
  testing::TempDir dir;
  const std::string old_path = NewAndOldShards(dir, 8, 4, {"ownership_weight"});
  const Shard fresh = ReadShard(dir / "new.npz");
  const PackedShard packed = ReadPackedShard(old_path);
  REQUIRE(packed.rows.size() == 4);
  for (size_t i = 0; i < packed.rows.size(); ++i) {
    const TrainingRow row = UnpackRow(packed.shape, packed.rows[i]);
    CHECK(fresh.rows[i].ownership_weight == (i == 0 ? 0.0f : 1.0f));
    CHECK(row.ownership_weight == static_cast<float>(i % 2));  // the score_weight written
    CHECK(row.score_weight == fresh.rows[i].score_weight);
    CHECK(row.turn == fresh.rows[i].turn);
  }
}

TEST_CASE("training rows: a shard written before score_weight existed reads it as 1") {
  testing::TempDir dir;
  // The same arrays but the weights, as older tengen wrote them.
  const std::string old_path = NewAndOldShards(dir, 7, 3, {"score_weight", "ownership_weight"});
  REQUIRE_FALSE(NpzReader(old_path).Has("score_weight"));  // nor ownership_weight
  const Shard fresh = ReadShard(dir / "new.npz");
  const Shard shard = ReadShard(old_path);
  REQUIRE(shard.rows.size() == 3);
  for (size_t i = 0; i < shard.rows.size(); ++i) {
    CHECK(fresh.rows[i].score_weight == static_cast<float>(i % 2));
    CHECK(shard.rows[i].score_weight == 1.0f);
    CHECK(shard.rows[i].ownership_weight == 1.0f);
    CHECK(shard.rows[i].policy == fresh.rows[i].policy);
    CHECK(shard.rows[i].game_id == fresh.rows[i].game_id);
  }
}

TEST_CASE("training rows: a shard written before opponent_policy reads it as unknown") {
  testing::TempDir dir;
  const std::string old_path =
      NewAndOldShards(dir, 9, 4, {"opponent_policy", "opponent_policy_weight"});
  const Shard fresh = ReadShard(dir / "new.npz");
  const Shard shard = ReadShard(old_path);
  REQUIRE(shard.rows.size() == 4);
  for (size_t i = 0; i < shard.rows.size(); ++i) {
    CHECK(fresh.rows[i].opponent_policy_weight == static_cast<float>(i % 2));
    CHECK(shard.rows[i].opponent_policy_weight == 0.0f);
    CHECK(shard.rows[i].opponent_policy == std::vector<float>(kPosLen * kPosLen + 1, 0.0f));
    CHECK(shard.rows[i].policy == fresh.rows[i].policy);
  }
  // A row may not claim a reply it does not carry.
  Rng rng(10);
  TrainingRow bad = RandomRow(rng, 0);
  bad.opponent_policy_weight = 1.0f;
  ShardWriter writer(Shape(), "new");
  CHECK_THROWS_AS(writer.Add(bad), CheckError);
}

TEST_CASE("training rows: a shard written before td_value reads it as unknown") {
  testing::TempDir dir;
  const std::string old_path = NewAndOldShards(dir, 12, 4, {"td_value", "td_value_weight"});
  const Shard fresh = ReadShard(dir / "new.npz");
  const Shard shard = ReadShard(old_path);
  REQUIRE(shard.rows.size() == 4);
  for (size_t i = 0; i < shard.rows.size(); ++i) {
    CHECK(fresh.rows[i].td_value_weight == static_cast<float>(1 - i % 2));
    CHECK(fresh.rows[i].td_value[kTdHorizons - 1][1] == (i % 2 == 0 ? 0.5f : 0.0f));
    CHECK(shard.rows[i].td_value_weight == 0.0f);
    for (int h = 0; h < kTdHorizons; ++h)
      for (int k = 0; k < 3; ++k) CHECK(shard.rows[i].td_value[h][k] == 0.0f);
    CHECK(shard.rows[i].value[0] == fresh.rows[i].value[0]);
    CHECK(shard.rows[i].opponent_policy == fresh.rows[i].opponent_policy);
  }
}

TEST_CASE("training rows: numpy reads every array with the documented dtype and shape") {
  const std::string python = testing::FindNumpyPython();
  REQUIRE_MESSAGE(!python.empty(), "no python3 with numpy: install python3-numpy");
  testing::TempDir dir;
  Rng rng(11);
  ShardWriter writer(Shape(), "random");
  std::vector<TrainingRow> rows;
  for (int i = 0; i < 4; ++i) {
    rows.push_back(RandomRow(rng, i));
    writer.Add(rows.back());
  }
  const std::string path = dir / "shard.npz";
  writer.WriteAndClear(path);
  // numpy unpacks the planes and prints one line per array: name dtype shape sum.
  const std::string script = R"(
import sys, numpy as np
d = np.load(sys.argv[1])
for name in sorted(d.files):
    a = d[name]
    print(name, a.dtype.str, 'x'.join(map(str, a.shape)), repr(float(a.astype(np.float64).sum())))
planes = np.unpackbits(d['spatial_packed'], axis=-1)[..., :25].reshape(4, 3, 5, 5)
print('unpacked', int(planes.sum()), int(planes[2, 1, 3, 4]))
print('model', bytes(d['model_name']).decode())
)";
  const ProcessResult result = RunProcess({python, "-c", script, path});
  REQUIRE_MESSAGE(result.exit_code == 0, result.output);
  double spatial_sum = 0;
  for (const TrainingRow& row : rows)
    for (float v : row.spatial) spatial_sum += v;
  const int plane_2_1_3_4 = static_cast<int>(rows[2].spatial[1 * 25 + 3 * 5 + 4]);
  const std::string expected_lines[] = {
      "board_size |i1 4 20.0",
      "feature_version <i4 1 7.0",
      "game_id <i8 4 4398046511110.0",
      "global <f4 4x2 -2.5",
      "komi <f4 4 26.0",
      "model_name |u1 6 ",  // the sum of the bytes follows
      "ownership |i1 4x25 ",
      "policy <f4 4x26 4.0",
      "rules |i1 4x2 2.0",
      "score <f4 4 -8.0",
      "spatial_packed |u1 4x3x4 ",
      "turn <i4 4 60.0",
      "value <f4 4x3 4.0",
      "weight <f4 4 10.0",
      "score_weight <f4 4 2.0",
      "ownership_weight <f4 4 3.0",
      "opponent_policy <f4 4x26 2.0",
      "opponent_policy_weight <f4 4 2.0",
      "td_value <f4 4x3x3 6.0",  // rows 0 and 2: (0 + 1) + (0.25 + 0.75) + (0.5 + 0.5)
      "td_value_weight <f4 4 2.0",
  };
  for (const std::string& line : expected_lines)
    CHECK_MESSAGE(result.output.find(line) != std::string::npos, line << "\n" << result.output);
  std::ostringstream unpacked;
  unpacked << "unpacked " << static_cast<int>(spatial_sum) << " " << plane_2_1_3_4;
  CHECK_MESSAGE(result.output.find(unpacked.str()) != std::string::npos, result.output);
  CHECK(result.output.find("model random") != std::string::npos);
}

}  // namespace
}  // namespace tengen::data
