#pragma once
// A game in progress: the board plus what the rules need beyond it (who is to move, the
// positions seen for positional superko, consecutive passes, a move cap) and an undo stack.
// Undo restores a saved board copy; boards are small enough that this is the simplest
// correct choice.

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "go/board.h"
#include "go/rules.h"

namespace tengen::go {

// Why a move is illegal, for error messages.
enum class Illegal { kNone, kOffBoard, kOccupied, kSuicide, kKo, kSuperko };
const char* IllegalName(Illegal reason);

class GameState {
 public:
  // max_moves = 0 means no cap.
  explicit GameState(int size = 19, Rules rules = Rules(), int max_moves = 0);
  // Starts from a set-up position (handicap or SGF AB/AW); black moves first unless to_move.
  GameState(const Board& initial, Rules rules, Color to_move, int max_moves = 0);

  const Board& board() const { return board_; }
  const Rules& rules() const { return rules_; }
  int size() const { return board_.size(); }
  Color to_move() const { return to_move_; }
  void set_to_move(Color c) { to_move_ = c; }
  void set_komi(double komi) { rules_.komi = komi; }
  int max_moves() const { return max_moves_; }
  const std::vector<Move>& moves() const { return moves_; }
  int consecutive_passes() const { return consecutive_passes_; }
  // Passes played in the game so far, by either colour.
  int passes() const { return passes_; }
  const Board& initial_board() const { return initial_board_; }
  Color initial_to_move() const { return initial_to_move_; }

  // Why `move` would be illegal now (kNone if legal). Either colour may move (GTP allows it);
  // a pass is always legal.
  Illegal Check(Move move) const;
  bool IsLegal(Move move) const { return Check(move) == Illegal::kNone; }
  // Plays a legal move (CheckError otherwise); the opponent of move.color moves next.
  void Play(Move move);
  // Plays and returns true if legal; returns false and changes nothing otherwise.
  bool TryPlay(Move move);
  // Takes back the last move; false when there is none.
  bool Undo();

  // Two consecutive passes (by either colour: GTP may send the same colour twice), or the
  // move cap reached.
  bool IsOver() const;
  bool ReachedMoveCap() const {
    return max_moves_ > 0 && static_cast<int>(moves_.size()) >= max_moves_;
  }

 private:
  void RecordPosition(uint64_t hash, int delta);
  bool SeenPosition(uint64_t hash) const;

  Board board_;
  Board initial_board_;
  Rules rules_;
  Color to_move_ = Color::kBlack;
  Color initial_to_move_ = Color::kBlack;
  int max_moves_ = 0;
  int consecutive_passes_ = 0;
  int passes_ = 0;
  struct UndoRecord {
    Board board;
    int consecutive_passes;
    Color to_move;
  };
  std::vector<Move> moves_;
  std::vector<UndoRecord> undo_;
  std::unordered_map<uint64_t, int> position_counts_;  // hash -> times seen (superko)
  // How many recorded positions fall in each bucket of the hash's top bits: a bucket at 0
  // answers SeenPosition without touching the map. Search asks for every empty point of
  // every leaf, and with thousands of games in flight the map is rarely in cache (the lookups
  // took a quarter of selfplay's CPU time at 1,024 games); the 2 KB here are.
  static constexpr int kFilterBits = 10;
  std::array<uint16_t, size_t{1} << kFilterBits> position_filter_{};
};

}  // namespace tengen::go
