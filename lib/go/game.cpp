#include "go/game.h"

#include "util/error.h"

namespace tengen::go {

const char* IllegalName(Illegal reason) {
  switch (reason) {
    case Illegal::kNone:
      return "legal";
    case Illegal::kOffBoard:
      return "off the board";
    case Illegal::kOccupied:
      return "occupied";
    case Illegal::kSuicide:
      return "suicide";
    case Illegal::kKo:
      return "ko";
    case Illegal::kSuperko:
      return "positional superko";
  }
  return "?";
}

GameState::GameState(int size, Rules rules, int max_moves)
    : GameState(Board(size), rules, Color::kBlack, max_moves) {}

GameState::GameState(const Board& initial, Rules rules, Color to_move, int max_moves)
    : board_(initial),
      initial_board_(initial),
      rules_(rules),
      to_move_(to_move),
      initial_to_move_(to_move),
      max_moves_(max_moves) {
  RecordPosition(board_.hash(), +1);
}

Illegal GameState::Check(Move move) const {
  TENGEN_CHECK(IsStone(move.color), "a move needs a colour");
  if (move.loc == kPassLoc) return Illegal::kNone;
  if (!board_.OnBoard(move.loc)) return Illegal::kOffBoard;
  if (board_.At(move.loc) != Color::kEmpty) return Illegal::kOccupied;
  if (move.loc == board_.ko_loc() && move.color == board_.ko_banned_color()) return Illegal::kKo;
  if (!board_.IsLegal(move.loc, move.color, rules_.suicide)) return Illegal::kSuicide;
  if (rules_.ko == KoRule::kPositional && SeenPosition(board_.HashAfter(move.loc, move.color)))
    return Illegal::kSuperko;
  return Illegal::kNone;
}

void GameState::Play(Move move) {
  const Illegal reason = Check(move);
  TENGEN_CHECK(reason == Illegal::kNone, std::string("illegal move: ") + IllegalName(reason));
  undo_.push_back({board_, consecutive_passes_, to_move_});
  if (move.loc == kPassLoc) {
    board_.PlayPass();
    ++consecutive_passes_;
    ++passes_;
  } else {
    board_.Play(move.loc, move.color);
    consecutive_passes_ = 0;
  }
  RecordPosition(board_.hash(), +1);
  moves_.push_back(move);
  to_move_ = Opponent(move.color);
}

bool GameState::TryPlay(Move move) {
  if (Check(move) != Illegal::kNone) return false;
  Play(move);
  return true;
}

bool GameState::Undo() {
  if (moves_.empty()) return false;
  RecordPosition(board_.hash(), -1);
  if (moves_.back().loc == kPassLoc) --passes_;
  const UndoRecord& record = undo_.back();
  board_ = record.board;
  consecutive_passes_ = record.consecutive_passes;
  to_move_ = record.to_move;
  undo_.pop_back();
  moves_.pop_back();
  return true;
}

bool GameState::IsOver() const { return consecutive_passes_ >= 2 || ReachedMoveCap(); }

void GameState::RecordPosition(uint64_t hash, int delta) {
  position_filter_[hash >> (64 - kFilterBits)] =
      static_cast<uint16_t>(position_filter_[hash >> (64 - kFilterBits)] + delta);
  auto it = position_counts_.find(hash);
  if (it == position_counts_.end()) {
    position_counts_.emplace(hash, delta);
  } else if ((it->second += delta) == 0) {
    position_counts_.erase(it);
  }
}

bool GameState::SeenPosition(uint64_t hash) const {
  return position_filter_[hash >> (64 - kFilterBits)] != 0 && position_counts_.count(hash) > 0;
}

}  // namespace tengen::go
