#include "nn/features.h"

#include <algorithm>
#include <string>

#include "go/symmetry.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::nn {
namespace {

// How many past moves the planes 7..11 and globals 3..7 describe.
constexpr int kNumHistoryMoves = 5;
// Komi is divided by this so that common values land near [-1, 1].
constexpr float kKomiScale = 20.0f;

// Spatial planes and global inputs, numbered as features.h documents.
constexpr int kOnBoard = 0;
constexpr int kOwn = 1;
constexpr int kOpponent = 2;
constexpr int kLibs1 = 3;
constexpr int kLibs2 = 4;
constexpr int kLibs3Plus = 5;
constexpr int kKo = 6;
constexpr int kLastMove0 = 7;

constexpr int kKomi = 0;
constexpr int kPositionalSuperko = 1;
constexpr int kMultiStoneSuicide = 2;
constexpr int kLastPass0 = 3;

}  // namespace

void FillFeatures(const go::GameState& state, int pos_len, int symmetry, float* spatial,
                  float* global, const RulesInputs& told) {
  const go::Board& board = state.board();
  const int size = board.size();
  TENGEN_CHECK(size <= pos_len, StrCat("board size ", size, " > pos_len ", pos_len));
  TENGEN_CHECK(symmetry >= 0 && symmetry < go::kNumSymmetries, StrCat("symmetry ", symmetry));
  const int area = pos_len * pos_len;
  std::fill(spatial, spatial + kNumSpatialFeatures * area, 0.0f);
  std::fill(global, global + kNumGlobalFeatures, 0.0f);

  // Sets plane `plane` at the image of on-board point `loc` under the symmetry.
  auto set = [&](int plane, go::Loc loc) {
    const go::Loc image = go::SymmetricLoc(loc, symmetry, size);
    spatial[plane * area + board.Y(image) * pos_len + board.X(image)] = 1.0f;
  };

  const go::Color own = state.to_move();
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = board.LocOf(x, y);
      set(kOnBoard, loc);
      const go::Color c = board.At(loc);
      if (!go::IsStone(c)) continue;
      set(c == own ? kOwn : kOpponent, loc);
      const int libs = board.Liberties(loc);
      set(libs == 1 ? kLibs1 : libs == 2 ? kLibs2 : kLibs3Plus, loc);
    }
  }
  if (board.ko_loc() != go::kNullLoc && board.ko_banned_color() == own) set(kKo, board.ko_loc());

  const std::vector<go::Move>& moves = state.moves();
  const int history = std::min<int>(kNumHistoryMoves, static_cast<int>(moves.size()));
  for (int i = 0; i < history; ++i) {
    const go::Move& move = moves[moves.size() - 1 - i];
    if (move.loc == go::kPassLoc) {
      global[kLastPass0 + i] = 1.0f;
    } else if (board.OnBoard(move.loc)) {
      set(kLastMove0 + i, move.loc);
    }
  }

  const go::Rules& rules = state.rules();
  const float komi = static_cast<float>(rules.komi) / kKomiScale;
  global[kKomi] = own == go::Color::kWhite ? komi : -komi;
  global[kPositionalSuperko] = told.ko.value_or(rules.ko) == go::KoRule::kPositional ? 1.0f : 0.0f;
  global[kMultiStoneSuicide] = told.suicide.value_or(rules.suicide) ? 1.0f : 0.0f;
}

int PolicyIndex(go::Loc loc, int board_size, int pos_len) {
  if (loc == go::kPassLoc) return pos_len * pos_len;
  TENGEN_CHECK(loc != go::kNullLoc, "null location has no policy index");
  return go::LocY(loc, board_size) * pos_len + go::LocX(loc, board_size);
}

void CheckBoardFits(int size, int pos_len) {
  if (size > pos_len) throw ConfigError(StrCat("board size ", size, " exceeds pos_len ", pos_len));
}

}  // namespace tengen::nn
