// The shuffler: the window taper against hand-computed values, and the real tengen-shuffler
// binary (--once) on synthetic shards whose rows each carry a unique (game_id, turn), so that
// every published row can be traced to its source and checked field by field.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/filesystem.hpp>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "pipeline/shuffle.h"
#include "test_support.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/subprocess.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using Key = std::pair<int64_t, int32_t>;  // (game_id, turn)

const std::string kShuffler = TENGEN_BIN_DIR "/tengen-shuffler";
constexpr int kPosLen = 3;
constexpr int kPoints = kPosLen * kPosLen;

data::RowShape Shape() {
  data::RowShape shape;
  shape.pos_len = kPosLen;
  shape.num_spatial = 2;
  shape.num_global = 2;
  shape.feature_version = 1;
  return shape;
}

// Every field is a function of (game_id, turn).
data::TrainingRow MakeRow(int64_t game_id, int32_t turn) {
  data::TrainingRow row;
  const int64_t h = game_id * 31 + turn;
  for (int i = 0; i < 2 * kPoints; ++i)
    row.spatial.push_back(static_cast<float>((h >> (i % 13)) & 1));
  row.global = {static_cast<float>(h % 7), 0.5f};
  row.policy.assign(kPoints + 1, 0.0f);
  row.policy[static_cast<size_t>(h % (kPoints + 1))] = 1.0f;
  row.value[h % 3] = 1.0f;
  row.score = static_cast<float>(h % 11) - 5.5f;
  for (int i = 0; i < kPoints; ++i) row.ownership.push_back(static_cast<int8_t>((h + i) % 3 - 1));
  row.weight = 1.0f + static_cast<float>(h % 4) * 0.25f;
  row.game_id = game_id;
  row.turn = turn;
  row.board_size = kPosLen;
  row.komi = 7.5f;
  row.ko_positional = static_cast<int8_t>(h % 2);
  row.suicide = static_cast<int8_t>((h / 2) % 2);
  return row;
}

void CheckIntact(const data::TrainingRow& row) {
  const data::TrainingRow want = MakeRow(row.game_id, row.turn);
  CHECK(row.spatial == want.spatial);
  CHECK(row.global == want.global);
  CHECK(row.policy == want.policy);
  CHECK(std::equal(row.value, row.value + 3, want.value));
  CHECK(row.score == want.score);
  CHECK(row.ownership == want.ownership);
  CHECK(row.weight == want.weight);
  CHECK(row.board_size == want.board_size);
  CHECK(row.komi == want.komi);
  CHECK(row.ko_positional == want.ko_positional);
  CHECK(row.suicide == want.suicide);
}

struct SourceFile {
  std::string path;
  std::vector<Key> keys;  // in file order
};

// Writes `rows` rows for game ids file_index*1000 + turn/5 into selfplay/<model>/tdata with
// mtime base_time + file_index (so a larger index is newer).
SourceFile WriteShard(const std::string& base, const std::string& model, int file_index, int rows) {
  const std::string dir = TdataDir(base, model);
  EnsureDirectory(dir);
  char name[64];
  std::snprintf(name, sizeof(name), "20260101-%06d-test.npz", file_index);
  SourceFile source;
  source.path = dir + "/" + name;
  data::ShardWriter writer(Shape(), model);
  for (int i = 0; i < rows; ++i) {
    const int64_t game_id = int64_t{file_index} * 1000 + i / 5;
    writer.Add(MakeRow(game_id, i));
    source.keys.emplace_back(game_id, i);
  }
  writer.WriteAndClear(source.path);
  fs::last_write_time(source.path, std::time_t{1700000000} + file_index * 10);
  return source;
}

struct Output {
  std::vector<std::string> files;  // data-NNNN.npz, sorted
  std::vector<int64_t> file_rows;  // rows in each
  std::vector<Key> keys;           // in output order
  std::string summary;
  std::string dir;
};

Output ReadOutput(const std::string& base) {
  Output out;
  const std::vector<std::string> shuffles = ListPublished(ShuffledDataDir(base));
  REQUIRE(shuffles.size() == 1);
  out.dir = ShuffledDataDir(base) + "/" + shuffles[0];
  for (const std::string& name : ListPublished(out.dir))
    if (name != "summary.json") out.files.push_back(name);
  std::sort(out.files.begin(), out.files.end());
  for (const std::string& name : out.files) {
    CHECK(name.rfind("data-", 0) == 0);
    const data::Shard shard = data::ReadShard(out.dir + "/" + name);
    out.file_rows.push_back(static_cast<int64_t>(shard.rows.size()));
    for (const data::TrainingRow& row : shard.rows) {
      CheckIntact(row);
      out.keys.emplace_back(row.game_id, row.turn);
    }
  }
  out.summary = ReadFile(out.dir + "/summary.json");
  return out;
}

bool AnyTemporaryUnder(const std::string& dir) {
  for (fs::recursive_directory_iterator it(dir), end; it != end; ++it)
    if (IsTemporaryName(it->path().filename().string())) return true;
  return false;
}

ProcessResult RunShuffler(const std::string& base, std::vector<std::string> extra) {
  std::vector<std::string> argv = {kShuffler, "--output-dir",         base, "--once", "--min-rows",
                                   "50",      "--taper-window-scale", "50", "--seed", "7"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return RunProcess(argv);
}

std::multiset<Key> Multiset(const std::vector<Key>& keys) { return {keys.begin(), keys.end()}; }

TEST_CASE("shuffler: window taper against hand-computed values") {
  // N <= min_rows: the window is min_rows.
  CHECK(DesiredWindowRows(100, 250000, 0.65, 0.4, 50000) == doctest::Approx(250000));
  CHECK(DesiredWindowRows(250000, 250000, 0.65, 0.4, 50000) == doctest::Approx(250000));
  // N = 1,250,000: 250000 + 0.4*((1050000^0.65 - 50000^0.65) / (0.65 * 50000^-0.35))
  //   1050000^0.65 = 8199.23, 50000^0.65 = 1133.26, 50000^-0.35 = 0.0226652
  //   -> 250000 + 0.4 * 7065.97 / 0.0147324 = 250000 + 191848 = 441848
  CHECK(DesiredWindowRows(1250000, 250000, 0.65, 0.4, 50000) ==
        doctest::Approx(441848).epsilon(1e-4));
  // Exponent 1: linear growth, min + expand*(N - min).
  CHECK(DesiredWindowRows(1000, 100, 1.0, 0.4, 50) == doctest::Approx(100 + 0.4 * 900));
  // Small numbers used by the end-to-end test: N = 170, min 50, scale 50 -> 87.40.
  CHECK(DesiredWindowRows(170, 50, 0.65, 0.4, 50) == doctest::Approx(87.40).epsilon(1e-3));
  // The slope at N = min_rows is expand.
  const double slope = DesiredWindowRows(250001, 250000, 0.65, 0.4, 50000) - 250000;
  CHECK(slope == doctest::Approx(0.4).epsilon(1e-3));
}

TEST_CASE("shuffler: --once publishes the newest-first window, shuffled, intact") {
  testing::TempDir tmp;
  const std::string base = tmp / "base";
  // Three older random-net files (60 rows, counted as 50 = min_rows), then six of model m1.
  std::vector<SourceFile> random_files, m1_files;
  for (int i = 0; i < 3; ++i) random_files.push_back(WriteShard(base, "random", i, 20));
  for (int i = 3; i < 9; ++i) m1_files.push_back(WriteShard(base, "m1", i, 20));
  // A corrupt shard (newest, must be skipped) and a writer's temporary (ignored silently).
  {
    const std::string corrupt = TdataDir(base, "m1") + "/20270101-000000-corrupt.npz";
    std::ofstream(corrupt, std::ios::binary) << "this is not a zip file";
    std::ofstream(TdataDir(base, "m1") + "/20270101-000001-x.npz.tmp.abc", std::ios::binary)
        << "half written";
  }
  // N = 120 + min(60, 50) = 170 -> window 87.4 rows: the five newest m1 files (100 rows).
  std::vector<Key> window_keys;  // input order, newest file first
  for (int i = 5; i >= 1; --i)
    for (const Key& key : m1_files[static_cast<size_t>(i)].keys) window_keys.push_back(key);

  const ProcessResult run = RunShuffler(base, {"--rows-per-output-file", "16"});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("skipping unreadable shard") != std::string::npos);
  CHECK(run.output.find("20270101-000000-corrupt.npz") != std::string::npos);
  CHECK(run.output.find("x.npz.tmp") == std::string::npos);
  CHECK_FALSE(AnyTemporaryUnder(ShuffledDataDir(base)));

  const Output out = ReadOutput(base);
  CHECK(Multiset(out.keys) == Multiset(window_keys));
  CHECK(out.keys.size() == 100);
  CHECK(out.keys != window_keys);      // shuffled
  REQUIRE(out.file_rows.size() == 7);  // 6 x 16 + 4
  for (size_t i = 0; i + 1 < out.file_rows.size(); ++i) CHECK(out.file_rows[i] == 16);
  CHECK(out.file_rows.back() == 4);

  // The summary: N with random rows capped at min_rows, the files used and the window start.
  const nlohmann::json summary = nlohmann::json::parse(out.summary);
  CHECK(summary["total_rows"] == 170);
  CHECK(summary["total_rows_all_files"] == 180);
  CHECK(summary["output_rows"] == 100);
  REQUIRE(summary["files"].size() == 5);
  std::set<std::string> listed;
  for (const nlohmann::json& file : summary["files"]) {
    listed.insert(file["path"].get<std::string>());
    CHECK(file["model"] == "m1");
    CHECK(file["rows"] == 20);
  }
  for (int i = 1; i <= 5; ++i) CHECK(listed.count(m1_files[static_cast<size_t>(i)].path) == 1);
  CHECK(out.summary.find(m1_files[0].path) == std::string::npos);
  CHECK(summary["window_start"]["file"] == m1_files[1].path);
  for (const SourceFile& file : random_files)
    CHECK(out.summary.find(file.path) == std::string::npos);

  // Logs and heartbeat.
  CHECK_FALSE(ListPublished(LogsDir(base, "shuffler")).empty());
  bool heartbeat = false;
  for (const std::string& name : ListPublished(StatusDir(base)))
    heartbeat = heartbeat || name.rfind("shuffler-", 0) == 0;
  CHECK(heartbeat);

  SUBCASE("a tiny memory budget streams through several buckets: same rows") {
    fs::remove_all(ShuffledDataDir(base));
    const ProcessResult small = RunShuffler(base, {"--memory-budget-rows", "25", "--seed", "11"});
    INFO(small.output);
    REQUIRE(small.exit_code == 0);
    CHECK_FALSE(AnyTemporaryUnder(ShuffledDataDir(base)));
    const Output bucketed = ReadOutput(base);
    CHECK(bucketed.summary.find("\"buckets\": 5,") != std::string::npos);
    CHECK(Multiset(bucketed.keys) == Multiset(window_keys));
    CHECK(bucketed.keys != window_keys);
    CHECK(bucketed.files.size() == 1);  // default rows-per-output-file
  }
  SUBCASE("--keep-target-rows subsamples the window without duplicates") {
    fs::remove_all(ShuffledDataDir(base));
    const ProcessResult sub = RunShuffler(base, {"--keep-target-rows", "30"});
    INFO(sub.output);
    REQUIRE(sub.exit_code == 0);
    const Output kept = ReadOutput(base);
    REQUIRE(kept.keys.size() == 30);
    const std::set<Key> unique(kept.keys.begin(), kept.keys.end());
    CHECK(unique.size() == 30);
    const std::set<Key> window(window_keys.begin(), window_keys.end());
    for (const Key& key : kept.keys) CHECK(window.count(key) == 1);
  }
}

TEST_CASE("shuffler: --threads 1 and --threads 2 publish identical files for one seed") {
  testing::TempDir tmp;
  const std::string base = tmp / "base";
  for (int i = 0; i < 12; ++i) WriteShard(base, "m1", i, 20 + i);
  // In memory, and through 4 buckets (kept 306 rows, budget 100: ceil(382.5 / 100) = 4).
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--memory-budget-rows", "100"}}) {
    std::vector<Output> outputs;
    for (const char* threads : {"1", "2", "3"}) {
      fs::remove_all(ShuffledDataDir(base));
      std::vector<std::string> args = {"--threads",
                                       threads,
                                       "--rows-per-output-file",
                                       "23",
                                       "--expand-window-per-row",
                                       "1",
                                       "--taper-window-exponent",
                                       "1"};
      args.insert(args.end(), extra.begin(), extra.end());
      const ProcessResult run = RunShuffler(base, args);
      INFO(run.output);
      REQUIRE(run.exit_code == 0);
      CHECK_FALSE(AnyTemporaryUnder(ShuffledDataDir(base)));
      outputs.push_back(ReadOutput(base));
    }
    CHECK(outputs[0].keys.size() == 306);  // 20 + 21 + ... + 31: the whole window
    CHECK(outputs[0].summary.find(extra.empty() ? "\"buckets\": 1," : "\"buckets\": 4,") !=
          std::string::npos);
    for (size_t i = 1; i < outputs.size(); ++i) {
      CHECK(outputs[i].files == outputs[0].files);
      CHECK(outputs[i].file_rows == outputs[0].file_rows);
      CHECK(outputs[i].keys == outputs[0].keys);  // same rows in the same order
    }
  }
}

TEST_CASE("shuffler: below min-rows publishes nothing and exits 0") {
  testing::TempDir tmp;
  const std::string base = tmp / "base";
  WriteShard(base, "m1", 1, 20);
  const ProcessResult run = RunShuffler(base, {"--min-rows", "50"});
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK(run.output.find("20 rows, fewer than min-rows 50: nothing to do") != std::string::npos);
  CHECK(ListPublished(ShuffledDataDir(base)).empty());
}

TEST_CASE("shuffler: cleanup keeps the newest shuffles and young ones") {
  testing::TempDir tmp;
  const std::string base = tmp / "base";
  const std::string dir = ShuffledDataDir(base);
  const std::time_t old = std::time(nullptr) - 7200;
  for (int i = 1; i <= 5; ++i) {
    const std::string path = dir + "/2026010" + std::to_string(i) + "-000000-x";
    EnsureDirectory(path);
    std::ofstream(path + "/summary.json") << "{}";
    // The two oldest and the newest are past the grace period; 3 and 4 are young.
    if (i != 3 && i != 4) fs::last_write_time(path, old);
  }
  const std::string stale = TemporaryPathFor(dir + "/buckets-x");
  EnsureDirectory(stale);
  fs::last_write_time(stale, old);
  const std::string young = TemporaryPathFor(dir + "/buckets-y");
  EnsureDirectory(young);
  Logger logger(LogLevel::kError);
  CHECK(CleanupShuffles(base, 2, std::chrono::seconds(3600), logger) == 2);
  CHECK(ListPublished(dir) ==
        std::vector<std::string>{"20260103-000000-x", "20260104-000000-x", "20260105-000000-x"});
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(young));
}

}  // namespace
}  // namespace tengen::pipeline
