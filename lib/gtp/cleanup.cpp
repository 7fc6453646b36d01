#include "gtp/cleanup.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <tuple>

#include "go/playout.h"
#include "go/score.h"

namespace tengen::gtp {
namespace {

// Playouts stop at this many moves per board point (random games end long before).
constexpr int kPlayoutMovesPerPoint = 3;

float OwnershipFor(const std::vector<float>& ownership, go::Loc loc, int size, go::Color color) {
  const float black = ownership[go::LocY(loc, size) * size + go::LocX(loc, size)];
  return color == go::Color::kBlack ? black : -black;
}

}  // namespace

std::vector<float> PlayoutOwnership(const go::GameState& game, int playouts, Rng& rng) {
  const int size = game.size();
  std::vector<double> sum(static_cast<size_t>(size) * size, 0.0);
  go::Rules rules = game.rules();
  rules.ko = go::KoRule::kSimple;
  for (int p = 0; p < playouts; ++p) {
    go::GameState state(game.board(), rules, game.to_move(), kPlayoutMovesPerPoint * size * size);
    while (!state.IsOver()) state.Play({go::RandomNonEyeMove(state, rng), state.to_move()});
    const auto owner = go::AreaOwnership(state.board());
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        const go::Color c = owner[go::MakeLoc(x, y, size)];
        sum[y * size + x] += c == go::Color::kBlack ? 1.0 : c == go::Color::kWhite ? -1.0 : 0.0;
      }
    }
  }
  std::vector<float> ownership(sum.size(), 0.0f);
  if (playouts > 0) {
    for (size_t i = 0; i < sum.size(); ++i) ownership[i] = static_cast<float>(sum[i] / playouts);
  }
  return ownership;
}

std::vector<go::Loc> DeadStones(const go::Board& board, const std::vector<float>& ownership,
                                go::Color color, double threshold) {
  std::vector<go::Loc> dead;
  const int size = board.size();
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = board.LocOf(x, y);
      if (board.At(loc) == color && -OwnershipFor(ownership, loc, size, color) >= threshold) {
        dead.push_back(loc);
      }
    }
  }
  return dead;
}

std::vector<go::Loc> DeadStonesOfBoth(const go::Board& board, const std::vector<float>& ownership,
                                      double threshold) {
  std::vector<go::Loc> dead = DeadStones(board, ownership, go::Color::kBlack, threshold);
  const std::vector<go::Loc> white = DeadStones(board, ownership, go::Color::kWhite, threshold);
  dead.insert(dead.end(), white.begin(), white.end());
  return dead;
}

double SettledScore(const go::Board& board, const std::vector<float>& ownership,
                    double dead_threshold, double komi) {
  go::Board settled = board;
  for (const go::Loc loc : DeadStonesOfBoth(board, ownership, dead_threshold)) {
    settled.SetStone(loc, go::Color::kEmpty);
  }
  return go::TrompTaylorScore(settled, komi);
}

go::GameState CleanupStart(const go::GameState& game) {
  const std::vector<go::Move>& moves = game.moves();
  for (size_t i = 1; i < moves.size(); ++i) {
    if (moves[i - 1].loc != go::kPassLoc || moves[i].loc != go::kPassLoc) continue;
    go::GameState start = game;
    for (size_t undone = i + 1; undone < moves.size(); ++undone) start.Undo();
    return start;
  }
  return game;
}

bool JudgedAheadBeforeCleanup(const SearchJudgement& judgement, const go::GameState& game) {
  const size_t start = CleanupStart(game).moves().size();
  const std::vector<go::Move>& moves = game.moves();
  return judgement.value > 0 && judgement.moves.size() <= start &&
         std::equal(judgement.moves.begin(), judgement.moves.end(), moves.begin());
}

bool CountTakenAway(const go::GameState& game, go::Color color, const std::vector<float>& ownership,
                    const CleanupParams& params, bool judged_ahead) {
  const go::GameState start = CleanupStart(game);
  const std::vector<go::Move>& moves = game.moves();
  const go::Color opponent = go::Opponent(color);
  const auto opponent_stone = [&](const go::Move& m) {
    return m.color == opponent && m.loc != go::kPassLoc;
  };
  const auto since_start = moves.begin() + static_cast<std::ptrdiff_t>(start.moves().size());
  if (std::none_of(since_start, moves.end(), opponent_stone)) return false;
  const double sign = color == go::Color::kBlack ? 1.0 : -1.0;
  const double komi = game.rules().komi;
  if (sign * SettledScore(game.board(), ownership, params.dead_threshold, komi) > 0) return false;
  if (judged_ahead) return true;
  Rng start_rng(start.board().hash());
  const std::vector<float> start_ownership = PlayoutOwnership(start, params.playouts, start_rng);
  return sign * SettledScore(start.board(), start_ownership, params.dead_threshold, komi) > 0;
}

go::Loc ChooseCleanupMove(const go::GameState& game, go::Color color,
                          const std::vector<float>& ownership, double dead_threshold,
                          const std::vector<int>& visits, Rng& rng) {
  const go::Board& board = game.board();
  const int size = board.size();
  const go::Color opponent = go::Opponent(color);
  std::set<go::Loc> dead_heads;
  for (const go::Loc loc : DeadStones(board, ownership, opponent, dead_threshold)) {
    dead_heads.insert(board.ChainHead(loc));
  }
  if (dead_heads.empty()) return go::kPassLoc;

  // (class, -visits, liberties of the attacked chain, random): smallest wins.
  using Key = std::tuple<int, int, int, uint64_t>;
  bool found = false;
  Key best{};
  go::Loc best_loc = go::kPassLoc;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = board.LocOf(x, y);
      if (board.At(loc) != go::Color::kEmpty || board.IsSimpleEye(loc, color) ||
          !game.IsLegal({loc, color})) {
        continue;
      }
      bool attacks = false, captures = false;
      int fewest_liberties = 4 * size * size;
      for (const go::Loc n : board.Neighbors(loc)) {
        if (board.At(n) != opponent || dead_heads.count(board.ChainHead(n)) == 0) continue;
        attacks = true;
        fewest_liberties = std::min(fewest_liberties, board.Liberties(n));
        if (board.Liberties(n) == 1) captures = true;
      }
      int move_class = -1;
      if (captures) {
        move_class = 0;
      } else if (attacks) {
        go::Board after = board;
        after.Play(loc, color);
        move_class = after.Liberties(loc) == 1 ? 2 : 1;
      } else if (OwnershipFor(ownership, loc, size, color) >= dead_threshold) {
        move_class = 3;
      }
      if (move_class < 0) continue;
      const int v = visits.empty() ? 0 : visits[y * size + x];
      const Key key{move_class, -v, fewest_liberties, rng.Next()};
      if (!found || key < best) {
        found = true;
        best = key;
        best_loc = loc;
      }
    }
  }
  return best_loc;
}

}  // namespace tengen::gtp
