// Subtree value bias correction (search/subtree_bias.h): the key of a node's local shape and
// the Search members that keep, apply and release the entries.

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "search/mcts.h"
#include "util/rng.h"

namespace tengen::search {

uint64_t SubtreeBiasKey(const go::GameState& state) {
  const std::vector<go::Move>& moves = state.moves();
  if (moves.size() < 2) return 0;
  const go::Move last = moves.back();
  const go::Move before = moves[moves.size() - 2];
  if (last.loc == go::kPassLoc || before.loc == go::kPassLoc) return 0;
  const go::Board& board = state.board();
  const int size = state.size();
  uint64_t key =
      MixBits(static_cast<uint64_t>(last.loc) ^ (static_cast<uint64_t>(before.loc) << 16) ^
              (static_cast<uint64_t>(last.color == go::Color::kBlack ? 1 : 2) << 32) ^
              (static_cast<uint64_t>(board.ko_loc() + 1) << 40));
  const int x0 = go::LocX(last.loc, size), y0 = go::LocY(last.loc, size);
  for (int dy = -2; dy <= 2; ++dy) {
    for (int dx = -2; dx <= 2; ++dx) {
      const int x = x0 + dx, y = y0 + dy;
      if (x < 0 || y < 0 || x >= size || y >= size) continue;
      const go::Loc loc = go::MakeLoc(x, y, size);
      const go::Color color = board.At(loc);
      if (!go::IsStone(color)) continue;
      const uint64_t code =
          (color == go::Color::kBlack ? 1 : 2) + (board.Liberties(loc) == 1 ? 2 : 0);
      key = MixBits(key ^ ((static_cast<uint64_t>((dy + 2) * 5 + dx + 2) << 8) | code));
    }
  }
  return key == 0 ? 1 : key;  // 0 means "no entry"
}

std::vector<std::pair<double, double>> Search::SubtreeBiasEntries() const {
  std::vector<std::pair<double, double>> entries;
  for (const auto& [key, entry] : bias_table_) {
    const double mean = entry.weight > 0 ? entry.value_delta / entry.weight : 0.0;
    entries.emplace_back(mean, entry.weight);
  }
  return entries;
}

void Search::ReleaseSubtreeBias(const Node& node, const Node* kept) {
  const double share = params_.subtree_bias_free_prop;
  std::vector<const Node*> pending = {&node};
  while (!pending.empty()) {
    const Node* n = pending.back();
    pending.pop_back();
    if (n == kept) continue;
    if (n->bias != nullptr) {
      n->bias->value_delta -= share * n->added.value_delta;
      n->bias->score_delta -= share * n->added.score_delta;
      n->bias->weight -= share * n->added.weight;
    }
    for (const Node& child : n->children) pending.push_back(&child);
  }
}

void Search::ApplySubtreeBias(Node& node, const go::GameState& state, double* value,
                              double* score) {
  const uint64_t key = SubtreeBiasKey(state);
  if (key == 0) return;
  node.bias = &bias_table_[key];
  // The node's values are from the view of the player who moved into it.
  node.net_value = static_cast<float>(-*value);
  node.net_score = static_cast<float>(-*score);
  double own_value = node.net_value, own_score = node.net_score;
  // Below this weight an entry has seen too little to move anything (KataGo's 0.001).
  if (node.bias->weight > 0.001) {
    const double factor = params_.subtree_bias_factor;
    own_value =
        std::clamp(own_value + factor * node.bias->value_delta / node.bias->weight, -1.0, 1.0);
    own_score += factor * node.bias->score_delta / node.bias->weight;
  }
  node.own_value = static_cast<float>(own_value);
  node.own_score = static_cast<float>(own_score);
  *value = -own_value;
  *score = -own_score;
}

void Search::UpdateSubtreeBias() {
  for (Node* node : path_) {
    if (node->bias == nullptr || node->visits < 2) continue;
    // The playouts below the node: all of its visits but its own evaluation.
    const double below = node->visits - 1;
    const double weight = std::pow(below, params_.subtree_bias_weight_exponent);
    BiasEntry now;
    now.value_delta = ((node->value_sum - node->own_value) / below - node->net_value) * weight;
    now.score_delta = ((node->score_sum - node->own_score) / below - node->net_score) * weight;
    now.weight = weight;
    node->bias->value_delta += now.value_delta - node->added.value_delta;
    node->bias->score_delta += now.score_delta - node->added.score_delta;
    node->bias->weight += now.weight - node->added.weight;
    node->added = now;
  }
}

}  // namespace tengen::search
