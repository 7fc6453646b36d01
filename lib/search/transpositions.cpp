// Transpositions in a search tree (search/transpositions.h): the position key and the walk over
// a Search's tree that counts them.

#include "search/transpositions.h"

#include <unordered_set>
#include <utility>
#include <vector>

#include "search/mcts.h"
#include "util/rng.h"

namespace tengen::search {

uint64_t PositionKey(const go::GameState& state) {
  const uint64_t side = state.to_move() == go::Color::kBlack ? 1 : 2;
  const uint64_t ko = static_cast<uint64_t>(state.board().ko_loc() + 1);
  const uint64_t passes = static_cast<uint64_t>(state.consecutive_passes());
  return MixBits(state.board().hash() ^ MixBits(side | (ko << 8) | (passes << 24)));
}

TreeTranspositions Search::CountTranspositions() const {
  std::unordered_set<uint64_t> positions;
  TreeTranspositions counts;
  go::GameState state = root_state_;
  // Depth first over the expanded nodes; each frame is a node and the next child to look at.
  std::vector<std::pair<const Node*, size_t>> stack;
  if (root_.expanded) stack.emplace_back(&root_, 0);
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next == 0) {
      ++counts.expanded;
      positions.insert(PositionKey(state));
    }
    while (next < node->children.size() && !node->children[next].expanded) ++next;
    if (next == node->children.size()) {
      stack.pop_back();
      if (!stack.empty()) state.Undo();
      continue;
    }
    const Node* child = &node->children[next++];
    state.Play({child->move, state.to_move()});
    stack.emplace_back(child, 0);
  }
  counts.distinct = static_cast<int>(positions.size());
  return counts;
}

}  // namespace tengen::search
