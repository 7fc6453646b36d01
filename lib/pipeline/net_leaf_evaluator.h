#pragma once
// Adapts a batching server (nn/) to what search asks for (search/): features from the
// position under a random symmetry, one blocking evaluation, then the policy mapped back
// through the inverse symmetry and softmaxed over the legal moves, and the value as
// P(win) - P(loss), and the ownership mapped back like the policy. One object per game thread
// (it owns scratch buffers).

#include <vector>

#include "nn/batching.h"
#include "search/evaluator.h"
#include "util/rng.h"

namespace tengen::pipeline {

class NetLeafEvaluator : public search::LeafEvaluator {
 public:
  // random_symmetry: draw one of the 8 symmetries per evaluation (as KataGo does in selfplay);
  // otherwise always the identity.
  NetLeafEvaluator(nn::BatchingServer& server, Rng& rng, bool random_symmetry = true);
  search::LeafEvaluation Evaluate(const go::GameState& state) override;

 private:
  nn::BatchingServer& server_;
  Rng& rng_;
  bool random_symmetry_;
  std::vector<float> spatial_;
  std::vector<float> global_;
  nn::RowOutput output_;
};

}  // namespace tengen::pipeline
