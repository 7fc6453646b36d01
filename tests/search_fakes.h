#pragma once
// A leaf evaluator for search tests whose value and policy are functions of the position.

#include <functional>
#include <vector>

#include "go/game.h"
#include "search/leaf_evaluator.h"

namespace tengen::search {

// Value and policy from functions of the position; the policy defaults to uniform over legal
// moves. Counts its calls.
class FakeEvaluator : public LeafEvaluator {
 public:
  std::function<float(const go::GameState&)> value;  // side to move's view
  std::function<std::vector<float>(const go::GameState&)> policy;
  int calls = 0;

  LeafEvaluation Evaluate(const go::GameState& state) override {
    ++calls;
    LeafEvaluation eval = UniformEvaluator().Evaluate(state);
    if (policy) eval.policy = policy(state);
    if (value) eval.value = value(state);
    return eval;
  }
};

}  // namespace tengen::search
