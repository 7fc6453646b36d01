#pragma once
// A real shard for the tests that only need one that reads: `rows` rows of a 2x2 board.

#include <string>

#include "data/training_rows.h"

namespace tengen::testing {

// Writes `rows` rows (turns 0, 1, ...) of a 2x2 board into `path`, readable by its headers.
inline void WriteTinyShard(const std::string& path, int rows, const std::string& model) {
  data::RowShape shape;
  shape.pos_len = 2;
  shape.num_spatial = 1;
  shape.num_global = 1;
  shape.feature_version = 1;
  data::ShardWriter writer(shape, model);
  for (int i = 0; i < rows; ++i) {
    data::TrainingRow row;
    row.spatial.assign(4, 0.0f);
    row.global = {0.0f};
    row.policy.assign(5, 0.2f);
    row.ownership.assign(4, 0);
    row.turn = i;
    row.board_size = 2;
    writer.Add(row);
  }
  writer.WriteAndClear(path);
}

}  // namespace tengen::testing
