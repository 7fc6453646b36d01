// The trainer's torch-free bookkeeping: the train bucket, epoch plans, the checkpointed state,
// shuffle discovery and batches with symmetries.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <set>

#include "go/symmetry.h"
#include "pipeline/train_data.h"
#include "test_support.h"
#include "train_fixture.h"
#include "util/checksum.h"
#include "util/error.h"

namespace tengen::pipeline {
namespace {

Logger QuietLogger() { return Logger(LogLevel::kError); }

TEST_CASE("train bucket: KataGo's accounting, capped, never crediting twice") {
  Logger logger = QuietLogger();
  BucketOptions options;
  options.per_new_data = 4;
  options.max_size = 5000;
  options.samples_per_epoch = 1000;
  TrainState state = FreshTrainState(options, 1);
  CHECK(state.bucket_level == 1000);  // one epoch allowed from the start
  // The first shuffle only sets the mark.
  CHECK(CreditNewRows(state, 300, options, logger) == 0);
  CHECK(state.bucket_at_row == 300);
  CHECK(TrySpendEpoch(state, options));
  CHECK(state.bucket_level == 0);
  CHECK_FALSE(TrySpendEpoch(state, options));
  // 200 new rows: +800, not yet an epoch (needs > 990).
  CHECK(CreditNewRows(state, 500, options, logger) == 800);
  CHECK_FALSE(TrySpendEpoch(state, options));
  // The same total again (a restart re-reading the shuffle): nothing more.
  CHECK(CreditNewRows(state, 500, options, logger) == 0);
  CHECK(CreditNewRows(state, 550, options, logger) == 200);
  CHECK(TrySpendEpoch(state, options));
  CHECK(state.bucket_level == 0);
  // A flood of rows is capped at max_size.
  CreditNewRows(state, 100000, options, logger);
  CHECK(state.bucket_level == 5000);
  // Fewer rows than credited (data deleted): the mark moves back, no credit.
  CHECK(CreditNewRows(state, 50, options, logger) == 0);
  CHECK(state.bucket_at_row == 50);
  // The state survives its JSON form exactly.
  const TrainState back = TrainState::FromJson(state.ToJson(), "state");
  CHECK(back.bucket_level == state.bucket_level);
  CHECK(back.bucket_at_row == state.bucket_at_row);
  CHECK(back.seed == state.seed);
}

TEST_CASE("train bucket: off when per_new_data is 0") {
  BucketOptions options;
  options.samples_per_epoch = 1000;
  TrainState state = FreshTrainState(options, 1);
  for (int i = 0; i < 5; ++i) CHECK(TrySpendEpoch(state, options));
}

TEST_CASE("train state: JSON round trip and clear errors") {
  TrainState state;
  state.samples = 123456789012LL;
  state.epochs = 7;
  state.seed = 0xfedcba9876543210ULL;
  state.used_files = {"10-abcdef01", "20-01234567"};
  state.in_epoch = true;
  state.epoch_files = {"/a/data-0000.npz"};
  state.epoch_steps = 40;
  state.epoch_steps_done = 13;
  const TrainState back = TrainState::FromJson(state.ToJson(), "x");
  CHECK(back.samples == state.samples);
  CHECK(back.seed == state.seed);
  CHECK(back.used_files == state.used_files);
  CHECK(back.in_epoch);
  CHECK(back.epoch_files == state.epoch_files);
  CHECK(back.epoch_steps_done == 13);
  CHECK_THROWS_WITH_AS(TrainState::FromJson("{\"samples\": 1}", "ckpt/state.json"),
                       doctest::Contains("ckpt/state.json: missing field 'epochs'"), FormatError);
  CHECK_THROWS_AS(TrainState::FromJson("not json", "f"), FormatError);
}

TEST_CASE("train state: samples_before kept through JSON, 0 when absent, never negative") {
  TrainState state;
  state.samples = 64;
  state.samples_before = 1857024;
  const std::string text = state.ToJson();
  CHECK(TrainState::FromJson(text, "x").samples_before == 1857024);
  // A state written before the field existed: its names counted from 0.
  nlohmann::json older = nlohmann::json::parse(text);
  older.erase("samples_before");
  CHECK(TrainState::FromJson(older.dump(), "x").samples_before == 0);
  older["samples_before"] = -5;
  CHECK_THROWS_WITH_AS(TrainState::FromJson(older.dump(), "ckpt/state.json"),
                       doctest::Contains("ckpt/state.json: field 'samples_before' is negative"),
                       FormatError);
}

TEST_CASE("train state: the recorded size and CRC-32 of trainer.pt, kept through JSON") {
  TrainState older;  // recorded nothing: any bytes pass
  CHECK_NOTHROW(older.CheckTrainerFile("anything", "ckpt/trainer.pt"));
  CHECK(older.ToJson().find("trainer_file") == std::string::npos);
  TrainState s;
  s.trainer_file_bytes = 5;
  s.trainer_file_crc32 = Crc32Hex("hello");
  const TrainState back = TrainState::FromJson(s.ToJson(), "state.json");
  CHECK(back.trainer_file_bytes == 5);
  CHECK(back.trainer_file_crc32 == s.trainer_file_crc32);
  CHECK_NOTHROW(back.CheckTrainerFile("hello", "ckpt/trainer.pt"));
  CHECK_THROWS_WITH_AS(back.CheckTrainerFile("hell", "ckpt/trainer.pt"),
                       doctest::Contains("ckpt/trainer.pt has 4 bytes"), FormatError);
  CHECK_THROWS_WITH_AS(back.CheckTrainerFile("jello", "ckpt/trainer.pt"),
                       doctest::Contains("ckpt/trainer.pt has CRC-32"), FormatError);
}

TEST_CASE("epoch plan: random order, whole batches, no repeats when asked") {
  const std::vector<std::string> files = {"a", "b", "c", "d"};
  const std::vector<int64_t> rows = {100, 100, 30, 100};  // batch 50: c holds no whole batch
  const std::vector<std::string> keys = {"ka", "kb", "kc", "kd"};
  int64_t steps = 4;
  std::vector<std::string> plan = PlanEpochFiles(files, rows, {}, keys, false, 50, 9, 0, &steps);
  CHECK(steps == 4);
  CHECK(plan.size() == 2);
  for (const std::string& f : plan) CHECK(f != "c");
  // The same seed and epoch give the same plan; another epoch (almost surely) another order.
  int64_t again = 4;
  CHECK(PlanEpochFiles(files, rows, {}, keys, false, 50, 9, 0, &again) == plan);
  // Wrapping around: more steps than the files hold.
  steps = 10;
  plan = PlanEpochFiles(files, rows, {}, keys, false, 50, 9, 1, &steps);
  CHECK(steps == 10);
  CHECK(plan.size() == 5);
  // No repeat: used keys are skipped and the plan stops short.
  steps = 10;
  plan = PlanEpochFiles(files, rows, {"ka", "kd"}, keys, true, 50, 9, 2, &steps);
  CHECK(plan == std::vector<std::string>{"b"});
  CHECK(steps == 2);
  steps = 3;
  plan = PlanEpochFiles(files, rows, {"ka", "kb", "kd"}, keys, true, 50, 9, 3, &steps);
  CHECK(plan.empty());
  CHECK(steps == 0);
}

TEST_CASE("batches: symmetry maps planes, both policies and ownership within each board") {
  data::Shard shard;
  shard.shape = testing::TrainRowShape();
  const int l = testing::kTrainPosLen;
  const int area = l * l;
  data::TrainingRow row;
  row.board_size = 5;
  row.spatial.assign(static_cast<size_t>(shard.shape.num_spatial) * area, 0.0f);
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 5; ++x) row.spatial[static_cast<size_t>(y * l + x)] = 1;  // mask
  }
  row.spatial[static_cast<size_t>(area + 0 * l + 1)] = 1;  // own stone at (1, 0)
  row.global.assign(static_cast<size_t>(shard.shape.num_global), 0.5f);
  row.policy.assign(static_cast<size_t>(area + 1), 0.0f);
  row.policy[static_cast<size_t>(2 * l + 0)] = 0.75f;  // (0, 2)
  row.policy[static_cast<size_t>(area)] = 0.25f;       // pass
  row.ownership.assign(static_cast<size_t>(area), 0);
  row.ownership[static_cast<size_t>(4 * l + 3)] = -1;  // (3, 4)
  row.weight = 0.5f;
  row.opponent_policy.assign(static_cast<size_t>(area + 1), 0.0f);
  row.opponent_policy[static_cast<size_t>(1 * l + 4)] = 1.0f;  // (4, 1)
  row.opponent_policy_weight = 1.0f;
  shard.rows = {row};

  for (int sym = 0; sym < go::kNumSymmetries; ++sym) {
    const nn::TrainBatch b = MakeBatch(shard, 0, 1, sym);
    const auto at = [&](int x, int y) {
      go::ApplySymmetry(sym, 5, &x, &y);
      return static_cast<size_t>(y * l + x);
    };
    CHECK(b.spatial[static_cast<size_t>(area) + at(1, 0)] == 1);
    float stones = 0;
    for (int p = 0; p < area; ++p) stones += b.spatial[static_cast<size_t>(area + p)];
    CHECK(stones == 1);
    float mask = 0;
    for (int p = 0; p < area; ++p) mask += b.spatial[static_cast<size_t>(p)];
    CHECK(mask == 25);
    CHECK(b.policy[at(0, 2)] == 0.75f);
    CHECK(b.policy[static_cast<size_t>(area)] == 0.25f);
    CHECK(b.ownership[at(3, 4)] == -1);
    CHECK(b.opponent_policy[at(4, 1)] == 1.0f);
    CHECK(b.opponent_policy_weight[0] == 1.0f);
    CHECK(b.weight[0] == 0.5f);
    CHECK(b.global[0] == 0.5f);
  }
  // Symmetry 0 is the identity.
  const nn::TrainBatch id = MakeBatch(shard, 0, 1, 0);
  CHECK(std::equal(id.spatial.begin(), id.spatial.end(), row.spatial.begin()));
}

TEST_CASE("epoch batches: a rank's slice, the same batches after a skip") {
  testing::TempDir dir;
  const auto rows = testing::PlayTrainingRows(3, 5);
  REQUIRE(rows.size() >= 40);
  const std::string shuffle = testing::WriteShuffle(dir.path(), "s1", rows, 20, 100);
  const std::vector<std::string> files = {shuffle + "/data-0000.npz", shuffle + "/data-0001.npz"};
  Logger logger = QuietLogger();
  EpochBatches whole(files, 8, 0, 1, 3, 0);
  EpochBatches half0(files, 8, 0, 2, 3, 0);
  EpochBatches half1(files, 8, 1, 2, 3, 0);
  nn::TrainBatch a, b0, b1;
  int batches = 0;
  while (whole.Next(&a, logger)) {
    REQUIRE(half0.Next(&b0, logger));
    REQUIRE(half1.Next(&b1, logger));
    CHECK(b0.size == 4);
    const nn::TrainBatch first = a.Slice(0, 4);
    const nn::TrainBatch second = a.Slice(4, 8);
    CHECK(first.spatial == b0.spatial);
    CHECK(second.policy == b1.policy);
    ++batches;
  }
  CHECK(batches == 4);  // 20 rows per file, 2 whole batches of 8 each
  EpochBatches skipped(files, 8, 0, 1, 3, 0);
  skipped.Skip(3, logger);
  EpochBatches replay(files, 8, 0, 1, 3, 0);
  for (int i = 0; i < 4; ++i) REQUIRE(replay.Next(&a, logger));
  REQUIRE(skipped.Next(&b0, logger));
  CHECK(a.spatial == b0.spatial);
  CHECK(a.ownership == b0.ownership);
}

TEST_CASE("shuffle discovery: newest complete shuffle, content keys") {
  testing::TempDir dir;
  Logger logger = QuietLogger();
  CHECK_FALSE(FindNewestShuffle(dir.path(), logger).has_value());
  const auto rows = testing::PlayTrainingRows(1, 6);
  testing::WriteShuffle(dir.path(), "20260101-000000-a", rows, 1000, 77);
  const std::string newest = testing::WriteShuffle(dir.path(), "20260102-000000-a", rows, 1000, 88);
  // A newer directory without summary.json (a foreign or broken one) is skipped.
  EnsureDirectory(ShuffledDataDir(dir.path()) + "/20260103-000000-a");
  const auto found = FindNewestShuffle(dir.path(), logger);
  REQUIRE(found.has_value());
  CHECK(found->path == newest);
  CHECK(found->total_rows == 88);
  CHECK(found->files.size() == 1);
  // The same bytes under two names have one key; different bytes another.
  const std::string copy = dir.Write("copy.npz", ReadFile(found->files[0]));
  CHECK(FileContentKey(copy) == FileContentKey(found->files[0]));
  CHECK(FileContentKey(dir.Write("other.npz", "xyz")) != FileContentKey(copy));
}

}  // namespace
}  // namespace tengen::pipeline
