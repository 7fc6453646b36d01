#include "go/score.h"

#include <sstream>
#include <vector>

namespace tengen::go {

std::array<Color, kMaxArraySize> AreaOwnership(const Board& board) {
  std::array<Color, kMaxArraySize> owner;
  owner.fill(Color::kEmpty);
  std::array<bool, kMaxArraySize> visited{};
  std::vector<Loc> region;
  std::vector<Loc> stack;
  const int size = board.size();
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const Loc start = board.LocOf(x, y);
      const Color c = board.At(start);
      if (IsStone(c)) {
        owner[start] = c;
        continue;
      }
      if (visited[start]) continue;
      // Flood the empty region, noting which colours it reaches.
      bool reaches_black = false;
      bool reaches_white = false;
      region.clear();
      stack.assign(1, start);
      visited[start] = true;
      while (!stack.empty()) {
        const Loc s = stack.back();
        stack.pop_back();
        region.push_back(s);
        for (Loc n : board.Neighbors(s)) {
          const Color nc = board.At(n);
          if (nc == Color::kBlack) reaches_black = true;
          if (nc == Color::kWhite) reaches_white = true;
          if (nc == Color::kEmpty && !visited[n]) {
            visited[n] = true;
            stack.push_back(n);
          }
        }
      }
      const Color region_owner = reaches_black == reaches_white ? Color::kEmpty
                                 : reaches_black                ? Color::kBlack
                                                                : Color::kWhite;
      for (Loc s : region) owner[s] = region_owner;
    }
  }
  return owner;
}

double TrompTaylorScore(const Board& board, double komi) {
  return OwnedAreaScore(board, AreaOwnership(board), komi);
}

double OwnedAreaScore(const Board& board, const std::array<Color, kMaxArraySize>& owner,
                      double komi) {
  int black_minus_white = 0;
  for (int y = 0; y < board.size(); ++y) {
    for (int x = 0; x < board.size(); ++x) {
      const Color c = owner[board.LocOf(x, y)];
      if (c == Color::kBlack) ++black_minus_white;
      if (c == Color::kWhite) --black_minus_white;
    }
  }
  return black_minus_white - komi;
}

std::string ScoreToResult(double black_minus_white) {
  if (black_minus_white == 0) return "0";
  std::ostringstream out;
  out << (black_minus_white > 0 ? "B+" : "W+")
      << (black_minus_white > 0 ? black_minus_white : -black_minus_white);
  return out.str();
}

}  // namespace tengen::go
