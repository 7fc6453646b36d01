#pragma once
// Adapts a batching server (nn/) to what search asks for (search/): features from the
// position under a random symmetry, written straight into a row of the server's batch, one
// evaluation, then the policy mapped back through the inverse symmetry and softmaxed over the
// legal moves, and the value as P(win) - P(loss), and the ownership mapped back like the
// policy. One object per game (it owns the row's outputs). On a fiber (play/fiber_pool.h)
// the game suspends while its row is in the batch and its thread runs other games; otherwise
// the calling thread blocks.
//
// With an evaluation cache (nn/eval_cache.h, shared by the evaluators of one model) a position
// whose inputs were evaluated before is answered from it; the symmetry is drawn all the same,
// so that a game's random draws do not depend on what other games put in the cache. Search
// asks for its root averaged over several symmetries (EvaluateSymmetries): those are fresh
// evaluations, one a symmetry, and are not cached.
//
// The net may be told other rules than the game's (nn::RulesInputs, for a net trained under
// one rule set); the search and the legal moves still follow the game's.

#include <cstdint>
#include <vector>

#include "nn/batching.h"
#include "nn/eval_cache.h"
#include "nn/features.h"
#include "play/fiber_pool.h"
#include "search/leaf_evaluator.h"
#include "util/rng.h"

namespace tengen::play {

class NetLeafEvaluator : public search::LeafEvaluator {
 public:
  // random_symmetry: draw one of the 8 symmetries per evaluation (as KataGo does in selfplay);
  // otherwise always the identity. fiber: the task of the fiber this evaluator's game runs on
  // (null: block the thread). cache: shared with the other evaluators of the server's model,
  // or null for none. rules_inputs: what the net is told about the rules (unset: the game's).
  NetLeafEvaluator(nn::BatchingServer& server, Rng& rng, bool random_symmetry = true,
                   FiberTask* fiber = nullptr, nn::EvalCache* cache = nullptr,
                   nn::RulesInputs rules_inputs = {});
  search::LeafEvaluation Evaluate(const go::GameState& state) override;
  // `symmetries` different orientations drawn at random, each evaluated by the net (never
  // from the cache), their policies (after the softmax), values, scores and ownerships averaged.
  search::LeafEvaluation EvaluateSymmetries(const go::GameState& state, int symmetries) override;

 private:
  // The net's outputs for the position in the identity orientation, in identity_: from the
  // cache, or from the server under `symmetry` and mapped back.
  const nn::RowOutput& Outputs(const go::GameState& state, int symmetry);
  // output_ (the server's answer for the position under `symmetry`) mapped back to the
  // identity orientation, into identity_.
  void MapToIdentity(int size, int symmetry);
  // The search's view of identity-oriented outputs: policy softmaxed over the legal moves,
  // value P(win) - P(loss), score, ownership.
  search::LeafEvaluation FromOutputs(const go::GameState& state, const nn::RowOutput& out) const;
  // Hands the position to the server and waits for its outputs in output_.
  void RunOnServer(const go::GameState& state, int symmetry);
  void WaitForRow();

  nn::BatchingServer& server_;
  Rng& rng_;
  bool random_symmetry_;
  FiberTask* fiber_;
  nn::Doorbell bell_;  // when not on a fiber
  std::vector<uint64_t> rung_;
  nn::RowOutput output_;    // as the server answered, under the drawn symmetry
  nn::RowOutput identity_;  // the same mapped back to the identity orientation
  nn::EvalCache* cache_;
  nn::RulesInputs rules_inputs_;
  std::vector<float> key_spatial_, key_global_;  // the identity inputs the cache key hashes
};

}  // namespace tengen::play
