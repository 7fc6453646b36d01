#pragma once
// A GTP version 2 engine over a GameState: the protocol (ids, comments, error answers), board
// and rules commands, SGF load/print, and genmove through a pluggable MoveGenerator (random
// play until a net exists; later issues plug in MCTS). It never throws on bad input: every
// malformed or illegal command gets a "?" answer.

#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "go/game.h"
#include "go/rules.h"
#include "util/rng.h"

namespace tengen::gtp {

// Chooses the engine's move for genmove.
class MoveGenerator {
 public:
  virtual ~MoveGenerator() = default;
  // A legal move for `color` in `game` (kPassLoc to pass).
  virtual go::Loc GenerateMove(const go::GameState& game, go::Color color) = 0;
};

// A uniformly random legal move that does not fill the mover's own single-point eye.
class RandomMoveGenerator : public MoveGenerator {
 public:
  explicit RandomMoveGenerator(uint64_t seed) : rng_(seed) {}
  go::Loc GenerateMove(const go::GameState& game, go::Color color) override;

 private:
  Rng rng_;
};

struct GtpOptions {
  go::Rules rules;
  int board_size = 19;
  int max_moves = 0;  // move cap for the game (0: none)
  std::string name = "tengen";
  std::string version = "0.1";
};

class GtpEngine {
 public:
  GtpEngine(GtpOptions options, std::unique_ptr<MoveGenerator> generator);

  // Handles one line of input and returns the whole answer ("=id text\n\n" or "?id error\n\n"),
  // or "" for a blank or comment-only line. Sets *quit after the quit command.
  std::string HandleLine(const std::string& line, bool* quit);
  // Answers commands from `in` until quit or end of input.
  void Run(std::istream& in, std::ostream& out);

  const go::GameState& game() const { return game_; }

 private:
  // implementation details are the engine's own
  struct Command;
  std::string Dispatch(const Command& command, bool* ok, bool* quit);

  // One handler per command: returns the answer text, or sets *ok = false and returns the
  // error message. Commands() lists them in list_commands order.
  using Handler = std::string (GtpEngine::*)(const Command& command, bool* ok);
  static const std::vector<std::pair<std::string, Handler>>& Commands();
  std::string ProtocolVersion(const Command& command, bool* ok);
  std::string Name(const Command& command, bool* ok);
  std::string Version(const Command& command, bool* ok);
  std::string KnownCommand(const Command& command, bool* ok);
  std::string ListCommands(const Command& command, bool* ok);
  std::string Quit(const Command& command, bool* ok);
  std::string BoardSize(const Command& command, bool* ok);
  std::string ClearBoard(const Command& command, bool* ok);
  std::string Komi(const Command& command, bool* ok);
  std::string PlayCommand(const Command& command, bool* ok);
  std::string GenMove(const Command& command, bool* ok);
  std::string UndoCommand(const Command& command, bool* ok);
  std::string ShowBoard(const Command& command, bool* ok);
  std::string FinalScore(const Command& command, bool* ok);
  std::string LoadSgf(const Command& command, bool* ok);
  std::string PrintSgf(const Command& command, bool* ok);
  std::string ListStones(const Command& command, bool* ok);
  std::string RulesCommand(const Command& command, bool* ok);
  // A fresh game with the current size, rules and move cap.
  void ResetGame();

  // The current board size and rules: boardsize, komi and loadsgf change them, so that
  // clear_board keeps what the controller set.
  GtpOptions options_;
  std::unique_ptr<MoveGenerator> generator_;
  go::GameState game_;
};

}  // namespace tengen::gtp
