// Throughput of one shuffle (lib/pipeline/shuffle.h) on synthetic 9x9 shards: writes --rows rows
// in files of --rows-per-file under a temporary base directory, then runs ShuffleOnce in-process
// --repeats times (each into a fresh shuffleddata/, the previous one deleted) and prints the
// median rows/s, once with everything in memory and once with a memory budget that forces 4
// buckets.
//
//   build/release/bin/tengen-bench-shuffle [--rows 200000] [--rows-per-file 10000]
//       [--repeats 3] [--threads N]

#include <algorithm>
#include <atomic>
#include <boost/filesystem.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "data/training_rows.h"
#include "nn/features.h"
#include "pipeline/base_dir.h"
#include "pipeline/shuffle.h"
#include "util/config.h"
#include "util/error.h"
#include "util/log.h"
#include "util/program.h"
#include "util/publish.h"
#include "util/rng.h"

namespace {

namespace fs = boost::filesystem;
using Clock = std::chrono::steady_clock;
using namespace tengen;

constexpr int kPosLen = 9;
constexpr int kPoints = kPosLen * kPosLen;

data::TrainingRow RandomRow(Rng& rng, int64_t game_id, int32_t turn) {
  data::TrainingRow row;
  row.spatial.resize(static_cast<size_t>(nn::kNumSpatialFeatures) * kPoints);
  for (float& v : row.spatial) v = static_cast<float>(rng.Next() & 1);
  row.global.resize(nn::kNumGlobalFeatures);
  for (float& v : row.global) v = static_cast<float>(rng.Next() & 1);
  row.policy.assign(kPoints + 1, 0.0f);
  float total = 0;
  for (int i = 0; i < 4; ++i) {
    const float w = static_cast<float>(1 + rng.Uniform(8));
    row.policy[rng.Uniform(kPoints + 1)] += w;
    total += w;
  }
  for (float& p : row.policy) p /= total;
  row.value[rng.Uniform(3)] = 1.0f;
  row.score = static_cast<float>(rng.Uniform(41)) - 20.5f;
  row.ownership.resize(kPoints);
  for (int8_t& o : row.ownership) o = static_cast<int8_t>(static_cast<int>(rng.Uniform(3)) - 1);
  row.weight = 1.0f;
  row.game_id = game_id;
  row.turn = turn;
  row.board_size = kPosLen;
  row.komi = 7.0f;
  return row;
}

void WriteInputs(const std::string& base, int64_t rows, int64_t rows_per_file) {
  data::RowShape shape;
  shape.pos_len = kPosLen;
  shape.num_spatial = nn::kNumSpatialFeatures;
  shape.num_global = nn::kNumGlobalFeatures;
  shape.feature_version = nn::kFeatureVersion;
  const std::string dir = pipeline::TdataDir(base, "bench-model");
  EnsureDirectory(dir);
  Rng rng(12345);
  int64_t written = 0;
  for (int file = 0; written < rows; ++file) {
    data::ShardWriter writer(shape, "bench-model");
    const int64_t n = std::min(rows_per_file, rows - written);
    for (int64_t i = 0; i < n; ++i)
      writer.Add(RandomRow(rng, (written + i) / 60, static_cast<int32_t>((written + i) % 60)));
    char name[64];
    std::snprintf(name, sizeof(name), "/20260101-%06d-bench.npz", file);
    writer.WriteAndClear(dir + name);
    written += n;
  }
}

// Median rows/s of `repeats` shuffles of everything under `base`.
double ShuffleRowsPerSecond(const std::string& base, int64_t rows, int64_t budget, int threads,
                            int level, int repeats, int* buckets) {
  pipeline::ShuffleOptions options;
  options.base_dir = base;
  options.min_rows = 1000;
  options.taper_window_exponent = 1.0;  // window = all rows
  options.expand_window_per_row = 1.0;
  options.keep_target_rows = rows;
  options.memory_budget_rows = budget;
  options.rows_per_output_file = 25000;
  options.threads = threads;
  options.compression_level = level;
  Logger logger(LogLevel::kWarning);
  std::atomic<bool> flag{false};
  const StopToken stop(&flag);
  std::vector<double> runs;
  for (int r = 0; r < repeats; ++r) {
    fs::remove_all(pipeline::ShuffledDataDir(base));
    pipeline::ShardScanner scanner;
    scanner.Scan(base, logger);  // row counts cached, as in a running shuffler
    Rng rng(static_cast<uint64_t>(r + 1));
    const auto start = Clock::now();
    const pipeline::ShuffleResult result =
        pipeline::ShuffleOnce(options, scanner, logger, rng, stop);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    TENGEN_CHECK(result.published && result.output_rows == rows, "the shuffle did not publish");
    *buckets = result.buckets;
    runs.push_back(static_cast<double>(result.output_rows) / seconds);
  }
  fs::remove_all(pipeline::ShuffledDataDir(base));
  return bench::Median(runs);
}

}  // namespace

int main(int argc, char** argv) {
  return RunProgram("tengen-bench-shuffle", [&] {
    ConfigSpec spec("tengen-bench-shuffle", "Rows/s of one shuffle of synthetic 9x9 shards.");
    spec.Int("rows", 200000, 1000, int64_t{1} << 40, "rows in the synthetic window");
    spec.Int("rows_per_file", 10000, 1, int64_t{1} << 40, "rows in each input shard");
    spec.Int("repeats", 3, 1, 100, "shuffles per case; the median is printed");
    spec.Int("threads", static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency())), 1,
             256, "shuffler threads");
    spec.String("levels", "1,-1",
                "zlib levels of the output files to compare (1 fast, -1 zlib's default 6)");
    spec.String("tmp_dir", "", "where the temporary base directory goes (default: system temp)");
    Config config(spec);
    if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
    const int64_t rows = config.GetInt("rows");
    const int repeats = static_cast<int>(config.GetInt("repeats"));
    const int threads = static_cast<int>(config.GetInt("threads"));
    const std::string parent = config.GetString("tmp_dir").empty()
                                   ? fs::temp_directory_path().string()
                                   : config.GetString("tmp_dir");
    const std::string base =
        (fs::path(parent) / fs::unique_path("tengen-shuffle-bench-%%%%%%%%")).string();
    struct Cleanup {
      std::string path;
      ~Cleanup() {
        boost::system::error_code error;
        fs::remove_all(path, error);
      }
    } cleanup{base};
    const auto start = Clock::now();
    WriteInputs(base, rows, config.GetInt("rows_per_file"));
    std::printf("wrote %lld rows in %.1f s; shuffling with %d thread(s)\n",
                static_cast<long long>(rows),
                std::chrono::duration<double>(Clock::now() - start).count(), threads);
    std::printf("%-28s %6s %8s %14s\n", "case", "level", "buckets", "median rows/s");
    for (const std::string& text : bench::SplitCommas(config.GetString("levels"))) {
      const int level = std::stoi(text);
      int buckets = 0;
      const double in_memory =
          ShuffleRowsPerSecond(base, rows, rows, threads, level, repeats, &buckets);
      std::printf("%-28s %6d %8d %14.0f\n", "in memory", level, buckets, in_memory);
      // buckets = ceil(kept * 5/4 / budget): a budget just over 5/16 of the rows gives 4.
      const double bucketed =
          ShuffleRowsPerSecond(base, rows, rows * 5 / 16 + 1, threads, level, repeats, &buckets);
      std::printf("%-28s %6d %8d %14.0f\n", "memory budget 5/16 of rows", level, buckets, bucketed);
    }
    return 0;
  });
}
