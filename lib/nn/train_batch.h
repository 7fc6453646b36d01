#pragma once
// One batch of training rows as plain arrays, the trainer's input (pipeline/train_data.h builds
// it from shuffled shards; nn/torch/trainer.h learns from it). Row-major, every array holds
// `size` rows; L = pos_len, C = num_spatial, G = num_global (nn/features.h).

#include <vector>

namespace tengen::nn {

// Horizons of the short-term value targets (data::kTdHorizons).
constexpr int kTdHorizons = 3;

struct TrainBatch {
  int size = 0;
  int pos_len = 0;
  int num_spatial = 0;
  int num_global = 0;
  std::vector<float> spatial;           // [N][C][L][L] input planes, plane 0 the on-board mask
  std::vector<float> global;            // [N][G]
  std::vector<float> policy;            // [N][L*L+1] visit distribution, pass last
  std::vector<float> value;             // [N][3] win, loss, draw of the side to move
  std::vector<float> score;             // [N] final score from the side to move
  std::vector<float> ownership;         // [N][L*L] +1 side to move, -1 opponent, 0 dame / off board
  std::vector<float> weight;            // [N] row weight
  std::vector<float> score_weight;      // [N] extra weight of the score target
  std::vector<float> ownership_weight;  // [N] extra weight of the ownership target
  std::vector<float> opponent_policy;   // [N][L*L+1] the opponent's reply, pass last (or 0)
  std::vector<float> opponent_policy_weight;  // [N] 1 where the reply is known
  std::vector<float> td_value;  // [N][kTdHorizons][3] short-term values (data/training_rows.h)
  std::vector<float> td_value_weight;  // [N] 1 where they are known

  // Empty arrays sized for `rows` rows of this shape.
  void Reset(int rows, int pos_len_, int num_spatial_, int num_global_);
  // Rows [begin, end) as a new batch (a micro-batch or a rank's share).
  TrainBatch Slice(int begin, int end) const;
};

}  // namespace tengen::nn
