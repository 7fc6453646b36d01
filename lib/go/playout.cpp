#include "go/playout.h"

#include <vector>

namespace tengen::go {

Loc RandomNonEyeMove(const GameState& game, Rng& rng) {
  const Board& board = game.board();
  const Color color = game.to_move();
  std::vector<Loc> candidates;
  candidates.reserve(board.size() * board.size());
  for (int y = 0; y < board.size(); ++y) {
    for (int x = 0; x < board.size(); ++x) {
      const Loc loc = board.LocOf(x, y);
      if (board.At(loc) == Color::kEmpty && !board.IsSimpleEye(loc, color))
        candidates.push_back(loc);
    }
  }
  // Draw without replacement until a legal one turns up: uniform over the legal candidates.
  while (!candidates.empty()) {
    const uint32_t i = rng.Uniform(static_cast<uint32_t>(candidates.size()));
    const Loc loc = candidates[i];
    if (game.IsLegal({loc, color})) return loc;
    candidates[i] = candidates.back();
    candidates.pop_back();
  }
  return kPassLoc;
}

}  // namespace tengen::go
