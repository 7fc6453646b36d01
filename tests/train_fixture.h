#pragma once
// Training data for trainer tests: real rows from games of a uniform-evaluator search on small
// boards, published as a shuffle directory the way tengen-shuffler publishes one.

#include <string>
#include <vector>

#include "data/training_rows.h"
#include "nn/features.h"
#include "pipeline/base_dir.h"
#include "play/game_runner.h"
#include "search/leaf_evaluator.h"
#include "util/publish.h"

namespace tengen::testing {

constexpr int kTrainPosLen = 7;

// Rows of `games` games on 5x5 and 7x7 boards (pos_len 7), deterministic for a seed.
inline std::vector<data::TrainingRow> PlayTrainingRows(int games, uint64_t seed) {
  search::UniformEvaluator evaluator;
  const play::Player player{&evaluator, "random"};
  std::vector<data::TrainingRow> rows;
  for (int g = 0; g < games; ++g) {
    play::GameParams params;
    params.board_sizes = {{5, 1.0}, {7, 1.0}};
    params.komis = {{0.5, 1.0}};
    params.playout_cap.full_visits = 16;
    params.playout_cap.cheap_visits = 16;
    params.playout_cap.full_probability = 1.0;
    params.pos_len = kTrainPosLen;
    play::FinishedGame game;
    play::PlayGame(
        params, player, player, seed * 1000 + static_cast<uint64_t>(g), [] { return false; },
        &game);
    rows.insert(rows.end(), game.rows.begin(), game.rows.end());
  }
  return rows;
}

inline data::RowShape TrainRowShape() {
  return {kTrainPosLen, nn::kNumSpatialFeatures, nn::kNumGlobalFeatures, nn::kFeatureVersion};
}

// Publishes shuffleddata/<name>/ with data-NNNN.npz of rows_per_file rows and a summary.json
// claiming total_rows rows ever seen. Returns the directory.
inline std::string WriteShuffle(const std::string& base, const std::string& name,
                                const std::vector<data::TrainingRow>& rows, int rows_per_file,
                                long long total_rows) {
  const std::string root = pipeline::ShuffledDataDir(base);
  EnsureDirectory(root);
  AtomicDirectory out(root + "/" + name);
  int file = 0;
  for (size_t begin = 0; begin < rows.size(); begin += static_cast<size_t>(rows_per_file)) {
    data::ShardWriter writer(TrainRowShape(), "random");
    for (size_t i = begin; i < std::min(rows.size(), begin + rows_per_file); ++i)
      writer.Add(rows[i]);
    char path[64];
    std::snprintf(path, sizeof(path), "/data-%04d.npz", file++);
    writer.WriteAndClear(out.path() + path);
  }
  PublishFile(out.path() + "/summary.json",
              "{\"total_rows_all_files\": " + std::to_string(total_rows) + "}\n");
  out.Commit();
  return out.final_path();
}

}  // namespace tengen::testing
