#pragma once
// What search sees of a neural net: one synchronous call per leaf that returns a policy over
// the board and the value and score of the position, all from the side to move's view.
//
// The call returns when the answer is ready. Behind it, pipeline's NetLeafEvaluator hands the
// leaf to a batching server (nn/batching.h) that runs the leaves of many games as one batch;
// a selfplay game on a fiber yields its thread meanwhile. Search does not need to know.
// This header uses only std and go/ types, so search is tested with fakes and never sees
// libtorch or nn/ (tests/layering_test.sh enforces it).

#include <vector>

#include "go/game.h"
#include "go/types.h"

namespace tengen::search {

// Policy index of a move on a board of side `size`: y * size + x for points (y = 0 is the top
// row, as in go/types.h), size * size for a pass.
inline int MoveIndex(go::Loc loc, int size) {
  return loc == go::kPassLoc ? size * size : go::LocY(loc, size) * size + go::LocX(loc, size);
}
inline go::Loc IndexToLoc(int index, int size) {
  return index == size * size ? go::kPassLoc : go::MakeLoc(index % size, index / size, size);
}

struct LeafEvaluation {
  // size * size + 1 entries indexed by MoveIndex (pass last): probabilities over the legal
  // moves. Search renormalises over the moves it finds legal, so small leaks onto illegal
  // points are harmless.
  std::vector<float> policy;
  // Expected result in [-1, 1] (win +1, loss -1) for the side to move.
  float value = 0;
  // Expected score lead in points for the side to move.
  float score = 0;
  // Expected final owner of each point, size * size entries indexed like the policy, in
  // [-1, 1]: +1 the side to move, -1 the opponent. Empty when the evaluator does not know.
  std::vector<float> ownership;
};

class LeafEvaluator {
 public:
  virtual ~LeafEvaluator() = default;
  // Called only for positions that are not over (search scores finished games itself).
  virtual LeafEvaluation Evaluate(const go::GameState& state) = 0;
  // The evaluation averaged over `symmetries` (1 to 8) different orientations of the board,
  // each a fresh evaluation (KataGo's root symmetries): search asks for it at the root. An
  // evaluator that sees no orientations answers Evaluate's.
  virtual LeafEvaluation EvaluateSymmetries(const go::GameState& state, int symmetries) {
    static_cast<void>(symmetries);
    return Evaluate(state);
  }
};

// Uniform policy over the legal moves (pass included), value and score 0: the "random net"
// stand-in for benchmarks and for tests that only need a legal, well-formed answer.
class UniformEvaluator : public LeafEvaluator {
 public:
  LeafEvaluation Evaluate(const go::GameState& state) override;
};

}  // namespace tengen::search
