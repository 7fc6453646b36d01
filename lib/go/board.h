#pragma once
// The board: stones, chains and liberties for sizes 2..19 chosen at run time.
//
// Chains are circular linked lists through next_[]; head_[loc] names the chain's
// representative, and the representative's entries of libs_[] and stones_[] hold the chain's
// liberty and stone counts, kept incrementally as stones are placed and captured. The position
// hash (Zobrist, stones only) is incremental too. The board knows nothing of move history:
// superko, passes and undo live in GameState. It is a plain value of ~4 KB, cheap to copy, as
// search copies boards for every playout.

#include <array>
#include <cstdint>
#include <string>

#include "go/types.h"

namespace tengen::go {

class Board {
 public:
  explicit Board(int size = 19);

  // Builds a board from rows of 'X' (black), 'O' (white), '.' or '+' (empty), top row first;
  // spaces are ignored, the size is the number of rows. Chains that would have no liberties
  // are a FormatError. Used by tests and fixtures.
  static Board FromAscii(const std::string& text);
  // Rows of "X O ." top row first, one line per row.
  std::string ToAscii() const;

  int size() const { return size_; }
  int stride() const { return size_ + 1; }
  Loc LocOf(int x, int y) const { return MakeLoc(x, y, size_); }
  int X(Loc loc) const { return LocX(loc, size_); }
  int Y(Loc loc) const { return LocY(loc, size_); }
  bool OnBoard(Loc loc) const {
    return loc >= 0 && loc < kMaxArraySize && colors_[loc] != Color::kWall;
  }
  Color At(Loc loc) const { return colors_[loc]; }
  uint64_t hash() const { return hash_; }

  // Chain queries for the stone at loc.
  Loc ChainHead(Loc loc) const { return head_[loc]; }
  Loc NextInChain(Loc loc) const { return next_[loc]; }
  int Liberties(Loc loc) const { return libs_[head_[loc]]; }
  int ChainSize(Loc loc) const { return stones_[head_[loc]]; }
  int StoneCount(Color c) const { return c == Color::kBlack ? num_black_ : num_white_; }
  // Stones of colour c removed so far (captures and suicides).
  int CapturedCount(Color c) const {
    return c == Color::kBlack ? captured_black_ : captured_white_;
  }

  // The point the simple-ko rule bans for ko_banned_color() on the next move, or kNullLoc.
  Loc ko_loc() const { return ko_loc_; }
  Color ko_banned_color() const { return ko_banned_color_; }

  // True when `color` at empty `loc` would leave its own chain without liberties and
  // capture nothing.
  bool IsSuicide(Loc loc, Color color) const;
  // Legal under simple ko (no superko, which needs history): on the board, empty, not the
  // banned ko point, and not suicide unless allow_suicide (single-stone suicide is never a
  // legal board move: it would change nothing).
  bool IsLegal(Loc loc, Color color, bool allow_suicide) const;
  // The hash of the position after `color` plays at `loc` (captures and suicide included),
  // without playing it: what positional superko compares against history.
  uint64_t HashAfter(Loc loc, Color color) const;
  // Plays a stone that IsLegal() accepts; captures, and removes its own chain on suicide.
  // Returns the number of stones removed (captured opponents or own suicide).
  int Play(Loc loc, Color color);
  // A pass clears the ko ban; the position is unchanged.
  void PlayPass();
  // Places (or with kEmpty removes) a stone as SGF setup does: no captures, chains rebuilt.
  // Throws FormatError if a chain ends up without liberties.
  void SetStone(Loc loc, Color color);

  // True when loc is empty and every neighbour is `color` or wall, and at most one diagonal
  // (zero at an edge) belongs to the opponent: a single-point eye of `color`.
  bool IsSimpleEye(Loc loc, Color color) const;

  // Neighbours of an on-board point: loc-1, loc+1, loc-stride, loc+stride.
  std::array<Loc, 4> Neighbors(Loc loc) const {
    const Loc s = static_cast<Loc>(stride());
    return {static_cast<Loc>(loc - 1), static_cast<Loc>(loc + 1), static_cast<Loc>(loc - s),
            static_cast<Loc>(loc + s)};
  }

  // Recomputes every chain, liberty count and the hash from the stones alone. Used after
  // setup edits and by tests to check the incremental state.
  void RebuildChains();
  // Liberties of the chain at loc counted from scratch (tests).
  int CountLibertiesFromScratch(Loc loc) const;

 private:
  friend Board SymmetricBoard(const Board& board, int sym);
  void RemoveChain(Loc head);
  // FormatError naming `what` if any chain has no liberties.
  void CheckChainsHaveLiberties(const char* what) const;
  void MergeChains(Loc keep, Loc absorb);
  int CountLiberties(Loc head) const;

  int size_;
  uint64_t hash_ = 0;
  Loc ko_loc_ = kNullLoc;
  Color ko_banned_color_ = Color::kEmpty;
  int16_t num_black_ = 0, num_white_ = 0;
  int16_t captured_black_ = 0, captured_white_ = 0;
  std::array<Color, kMaxArraySize> colors_;
  std::array<Loc, kMaxArraySize> head_;
  std::array<Loc, kMaxArraySize> next_;
  std::array<int16_t, kMaxArraySize> libs_;    // valid at chain heads
  std::array<int16_t, kMaxArraySize> stones_;  // valid at chain heads
};

}  // namespace tengen::go
