#pragma once
// Checks shared by the selfplay end-to-end tests (random net and real net): every row of every
// shard against its game replayed from the SGFs.

#include <doctest/doctest.h>

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "data/training_rows.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "nn/features.h"
#include "util/publish.h"

namespace tengen::testing {

// Every entry of dir (temporaries included), with the given extension.
inline std::vector<std::string> FilesWith(const std::string& dir, const std::string& extension) {
  std::vector<std::string> files;
  if (!boost::filesystem::exists(dir)) return files;
  for (const auto& entry : boost::filesystem::directory_iterator(dir))
    if (entry.path().extension() == extension) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

inline bool AnyTemporary(const std::string& dir) {
  for (const auto& entry : boost::filesystem::recursive_directory_iterator(dir))
    if (IsTemporaryName(entry.path().filename().string())) return true;
  return false;
}

// Winner and black's score from an SGF RE ("B+3.5", "W+0.5", "0").
inline void ParseResult(const std::string& re, go::Color* winner, double* black_score) {
  REQUIRE(!re.empty());
  if (re == "0") {
    *winner = go::Color::kEmpty;
    *black_score = 0;
    return;
  }
  REQUIRE(re.size() > 2);
  REQUIRE(re[1] == '+');
  *winner = re[0] == 'B' ? go::Color::kBlack : go::Color::kWhite;
  const double margin = std::stod(re.substr(2));
  *black_score = re[0] == 'B' ? margin : -margin;
}

// Checks every row of every shard in tdata against its game in sgfs; returns the row count.
inline int64_t CheckRows(const std::string& tdata, const std::string& sgfs, int max_rows_per_file,
                         const std::string& model_name = "random", int expected_pos_len = 7) {
  std::map<int64_t, go::SgfRecord> games;
  for (const std::string& file : FilesWith(sgfs, ".sgfs"))
    for (const go::SgfRecord& record : go::ReadSgfFile(file)) {
      std::string gn;
      for (const auto& property : record.extra_properties)
        if (property.first == "GN") gn = property.second;
      REQUIRE(!gn.empty());
      games[std::stoll(gn)] = record;
    }
  int64_t total = 0;
  for (const std::string& file : FilesWith(tdata, ".npz")) {
    const data::Shard shard = data::ReadShard(file);
    CHECK(shard.model_name == model_name);
    CHECK(static_cast<int64_t>(shard.rows.size()) == data::CountShardRows(file));
    CHECK(static_cast<int>(shard.rows.size()) <= max_rows_per_file);
    CHECK(!shard.rows.empty());
    const int pos_len = shard.shape.pos_len;
    CHECK(pos_len == expected_pos_len);
    total += static_cast<int64_t>(shard.rows.size());
    for (const data::TrainingRow& row : shard.rows) {
      REQUIRE(games.count(row.game_id) == 1);
      const go::SgfRecord& record = games[row.game_id];
      CHECK(row.board_size == record.size);
      CHECK(row.komi == static_cast<float>(record.rules.komi));
      const go::GameState state = go::ReplaySgf(record, row.turn);
      CHECK(static_cast<int>(state.moves().size()) == row.turn);
      const go::Color mover = state.to_move();

      std::vector<float> spatial(static_cast<size_t>(nn::kNumSpatialFeatures) * pos_len * pos_len);
      std::vector<float> global(nn::kNumGlobalFeatures);
      nn::FillFeatures(state, pos_len, 0, spatial.data(), global.data());
      CHECK(row.spatial == spatial);
      CHECK(row.global == global);

      double sum = 0;
      for (int index = 0; index <= pos_len * pos_len; ++index) {
        const float p = row.policy[index];
        CHECK(p >= 0);
        sum += p;
        if (p <= 0) continue;
        go::Loc loc = go::kPassLoc;
        if (index < pos_len * pos_len) {
          const int x = index % pos_len, y = index / pos_len;
          REQUIRE(x < record.size);
          REQUIRE(y < record.size);
          loc = go::MakeLoc(x, y, record.size);
        }
        CHECK(state.IsLegal(go::Move{loc, mover}));
      }
      CHECK(std::fabs(sum - 1.0) < 1e-4);
      CHECK(row.weight > 0);

      go::Color winner;
      double black_score;
      ParseResult(record.result, &winner, &black_score);
      CHECK(row.value[0] == (winner == mover ? 1.0f : 0.0f));
      CHECK(row.value[1] == (winner == go::Opponent(mover) ? 1.0f : 0.0f));
      CHECK(row.value[2] == (winner == go::Color::kEmpty ? 1.0f : 0.0f));
      const double mover_score = mover == go::Color::kBlack ? black_score : -black_score;
      CHECK(std::fabs(row.score - mover_score) < 1e-4);
    }
  }
  return total;
}

}  // namespace tengen::testing
