#include "play/net_leaf_evaluator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <utility>

#include "go/symmetry.h"
#include "nn/features.h"
#include "util/error.h"

namespace tengen::play {

NetLeafEvaluator::NetLeafEvaluator(nn::BatchingServer& server, Rng& rng, bool random_symmetry,
                                   FiberTask* fiber, nn::EvalCache* cache,
                                   nn::RulesInputs rules_inputs)
    : server_(server),
      rng_(rng),
      random_symmetry_(random_symmetry),
      fiber_(fiber),
      cache_(cache),
      rules_inputs_(rules_inputs) {
  if (cache_ != nullptr) {
    const size_t area = static_cast<size_t>(server_.pos_len()) * server_.pos_len();
    key_spatial_.resize(nn::kNumSpatialFeatures * area);
    key_global_.resize(nn::kNumGlobalFeatures);
  }
}

const nn::RowOutput& NetLeafEvaluator::Outputs(const go::GameState& state, int symmetry) {
  nn::EvalCacheKey key;
  if (cache_ != nullptr) {
    nn::FillFeatures(state, server_.pos_len(), 0, key_spatial_.data(), key_global_.data(),
                     rules_inputs_);
    key = nn::InputKey(key_spatial_.data(), key_spatial_.size(), key_global_.data(),
                       key_global_.size());
    if (cache_->Lookup(key, &identity_)) return identity_;
  }
  RunOnServer(state, symmetry);
  MapToIdentity(state.size(), symmetry);
  if (cache_ != nullptr) cache_->Store(key, identity_);
  return identity_;
}

void NetLeafEvaluator::MapToIdentity(int size, int symmetry) {
  const int pos_len = server_.pos_len();
  // The net's view of a point p was written at SymmetricLoc(p, symmetry): its outputs for p
  // are there. Points off the board and the pass keep their place.
  identity_.policy_logits = output_.policy_logits;
  identity_.ownership = output_.ownership;
  std::copy(output_.value_logits, output_.value_logits + 3, identity_.value_logits);
  identity_.score = output_.score;
  if (symmetry == 0) return;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = go::MakeLoc(x, y, size);
      const go::Loc seen = go::SymmetricLoc(loc, symmetry, size);
      identity_.policy_logits[static_cast<size_t>(nn::PolicyIndex(loc, size, pos_len))] =
          output_.policy_logits[static_cast<size_t>(nn::PolicyIndex(seen, size, pos_len))];
      identity_.ownership[static_cast<size_t>(y * pos_len + x)] =
          output_.ownership[static_cast<size_t>(go::LocY(seen, size) * pos_len +
                                                go::LocX(seen, size))];
    }
  }
}

void NetLeafEvaluator::RunOnServer(const go::GameState& state, int symmetry) {
  const nn::BatchingServer::Slot slot = server_.Reserve();
  nn::Doorbell* bell = fiber_ != nullptr ? fiber_->bell() : &bell_;
  const uint64_t tag = fiber_ != nullptr ? fiber_->tag() : 0;
  try {
    nn::FillFeatures(state, server_.pos_len(), symmetry, slot.spatial, slot.global, rules_inputs_);
  } catch (...) {
    // The batch waits for every reserved row: hand it over, to be answered and forgotten.
    server_.Submit(slot, nullptr, bell, tag);
    WaitForRow();
    throw;
  }
  server_.Submit(slot, &output_, bell, tag);
  WaitForRow();
  if (output_.error) std::rethrow_exception(std::exchange(output_.error, nullptr));
}

void NetLeafEvaluator::WaitForRow() {
  if (fiber_ != nullptr) {
    fiber_->WaitForRow();
  } else {
    bell_.Wait(&rung_);
    rung_.clear();
  }
}

search::LeafEvaluation NetLeafEvaluator::Evaluate(const go::GameState& state) {
  nn::CheckBoardFits(state.size(), server_.pos_len());
  const int symmetry = random_symmetry_ ? static_cast<int>(rng_.Uniform(go::kNumSymmetries)) : 0;
  return FromOutputs(state, Outputs(state, symmetry));
}

search::LeafEvaluation NetLeafEvaluator::EvaluateSymmetries(const go::GameState& state,
                                                            int symmetries) {
  TENGEN_CHECK(symmetries >= 1 && symmetries <= go::kNumSymmetries, "symmetries must be 1 to 8");
  if (symmetries == 1) return Evaluate(state);
  nn::CheckBoardFits(state.size(), server_.pos_len());
  // The first `symmetries` of a random permutation of the eight (without replacement).
  std::array<int, go::kNumSymmetries> order;
  for (int i = 0; i < go::kNumSymmetries; ++i) order[static_cast<size_t>(i)] = i;
  for (int i = 0; i < symmetries; ++i) {
    const int j = i + static_cast<int>(rng_.Uniform(static_cast<uint32_t>(go::kNumSymmetries - i)));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  search::LeafEvaluation mean;
  for (int i = 0; i < symmetries; ++i) {
    RunOnServer(state, order[static_cast<size_t>(i)]);
    MapToIdentity(state.size(), order[static_cast<size_t>(i)]);
    const search::LeafEvaluation one = FromOutputs(state, identity_);
    if (i == 0) {
      mean = one;
      continue;
    }
    for (size_t k = 0; k < mean.policy.size(); ++k) mean.policy[k] += one.policy[k];
    for (size_t k = 0; k < mean.ownership.size(); ++k) mean.ownership[k] += one.ownership[k];
    mean.value += one.value;
    mean.score += one.score;
  }
  const float scale = 1.0f / static_cast<float>(symmetries);
  for (float& p : mean.policy) p *= scale;
  for (float& o : mean.ownership) o *= scale;
  mean.value *= scale;
  mean.score *= scale;
  return mean;
}

search::LeafEvaluation NetLeafEvaluator::FromOutputs(const go::GameState& state,
                                                     const nn::RowOutput& out) const {
  const int size = state.size();
  const int pos_len = server_.pos_len();
  // Softmax of the logits of the legal moves only.
  search::LeafEvaluation result;
  result.policy.assign(static_cast<size_t>(size) * size + 1, 0.0f);
  const go::Color to_move = state.to_move();
  float max_logit = out.policy_logits[nn::PolicyIndex(go::kPassLoc, size, pos_len)];
  std::vector<std::pair<int, float>> legal;  // (search index, logit)
  legal.emplace_back(search::MoveIndex(go::kPassLoc, size), max_logit);
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = go::MakeLoc(x, y, size);
      if (state.board().At(loc) != go::Color::kEmpty || !state.IsLegal({loc, to_move})) continue;
      const float logit = out.policy_logits[nn::PolicyIndex(loc, size, pos_len)];
      legal.emplace_back(search::MoveIndex(loc, size), logit);
      max_logit = std::max(max_logit, logit);
    }
  }
  double total = 0;
  for (auto& [index, logit] : legal) total += std::exp(static_cast<double>(logit - max_logit));
  for (const auto& [index, logit] : legal)
    result.policy[index] =
        static_cast<float>(std::exp(static_cast<double>(logit - max_logit)) / total);

  const float* v = out.value_logits;
  const float v_max = std::max({v[0], v[1], v[2]});
  const double win = std::exp(v[0] - v_max), loss = std::exp(v[1] - v_max),
               draw = std::exp(v[2] - v_max);
  result.value = static_cast<float>((win - loss) / (win + loss + draw));
  result.score = out.score;
  result.ownership.resize(static_cast<size_t>(size) * size);
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      result.ownership[static_cast<size_t>(y * size + x)] =
          out.ownership[static_cast<size_t>(y * pos_len + x)];
    }
  }
  return result;
}

}  // namespace tengen::play
