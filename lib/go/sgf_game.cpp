#include "go/sgf_game.h"

#include <algorithm>
#include <string>

#include "util/error.h"
#include "util/text.h"

namespace tengen::go {
namespace {

std::string MoveName(const Move& move, int size) {
  return std::string(ColorLetter(move.color)) + " " + LocToGtp(move.loc, size);
}

}  // namespace

// A record may come from a file or be built by hand, so every setup stone and move is checked
// here and reported as a FormatError, never trusted as an invariant.
GameState ReplaySgf(const SgfRecord& record, int num_moves, int max_moves) {
  const int size = record.size;
  if (size < kMinSize || size > kMaxSize) {
    throw FormatError(
        StrCat("SGF board size ", size, " is not between ", kMinSize, " and ", kMaxSize));
  }
  if (!IsStone(record.first_player)) throw FormatError("SGF first player is not a colour");
  Board board(size);
  for (const Color color : {Color::kBlack, Color::kWhite}) {
    const std::vector<Loc>& stones =
        color == Color::kBlack ? record.setup_black : record.setup_white;
    for (Loc loc : stones) {
      if (loc == kPassLoc || !board.OnBoard(loc)) {
        throw FormatError(StrCat("SGF setup stone ", loc, " is not on the board"));
      }
      try {
        board.SetStone(loc, color);
      } catch (const FormatError& e) {
        throw FormatError(std::string("SGF record: ") + e.what());
      }
    }
  }
  GameState game(board, record.rules, record.first_player, max_moves);
  const int total = static_cast<int>(record.moves.size());
  // A request for more moves than the record holds replays the whole record.
  const int count = num_moves < 0 ? total : std::min(num_moves, total);
  for (int i = 0; i < count; ++i) {
    const Move& move = record.moves[i];
    const std::string number = StrCat("SGF move ", i + 1);
    if (!IsStone(move.color)) throw FormatError(number + " has no colour");
    if (move.loc != kPassLoc && !board.OnBoard(move.loc)) {
      throw FormatError(StrCat(number, " (", ColorLetter(move.color), " at location ", move.loc,
                               ") is not on the board"));
    }
    const Illegal reason = game.Check(move);
    if (reason != Illegal::kNone) {
      throw FormatError(number + " (" + MoveName(move, size) +
                        ") is illegal: " + IllegalName(reason));
    }
    game.Play(move);
  }
  return game;
}

SgfRecord RecordFromGame(const GameState& game) {
  SgfRecord record;
  record.size = game.size();
  record.rules = game.rules();
  const Board& initial = game.initial_board();
  for (int y = 0; y < record.size; ++y) {
    for (int x = 0; x < record.size; ++x) {
      const Loc loc = initial.LocOf(x, y);
      if (initial.At(loc) == Color::kBlack) record.setup_black.push_back(loc);
      if (initial.At(loc) == Color::kWhite) record.setup_white.push_back(loc);
    }
  }
  record.moves = game.moves();
  record.first_player = game.initial_to_move();
  return record;
}

}  // namespace tengen::go
