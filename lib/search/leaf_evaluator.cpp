#include "search/leaf_evaluator.h"

namespace tengen::search {

LeafEvaluation UniformEvaluator::Evaluate(const go::GameState& state) {
  const int size = state.size();
  LeafEvaluation eval;
  eval.policy.assign(size * size + 1, 0.0f);
  int legal = 1;  // a pass is always legal
  eval.policy[size * size] = 1.0f;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = go::MakeLoc(x, y, size);
      if (state.board().At(loc) == go::Color::kEmpty && state.IsLegal({loc, state.to_move()})) {
        eval.policy[y * size + x] = 1.0f;
        ++legal;
      }
    }
  }
  for (float& p : eval.policy) p /= static_cast<float>(legal);
  return eval;
}

}  // namespace tengen::search
