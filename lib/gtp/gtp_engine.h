#pragma once
// A GTP version 2 engine over a GameState: the protocol (ids, comments, error answers), board
// and rules commands, SGF load/print, clock commands, and genmove / kgs-genmove_cleanup through
// a pluggable MoveGenerator (gtp/search_player.h plays with MCTS; RandomMoveGenerator plays
// random legal moves). It never throws on bad input: every malformed or illegal command gets a
// "?" answer.
//
// Clock: time_settings and time_left are accepted (Sabaki, GoGui and KGS send them); the
// seconds left on the mover's clock become a per-move time budget in GenMoveRequest (see
// MoveTimeBudget), which a generator applies on top of its own limits.

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

// What genmove asks of a generator.
struct GenMoveRequest {
  go::Color color = go::Color::kBlack;  // may differ from game.to_move(): GTP allows it
  // kgs-genmove_cleanup: do not pass while dead opponent stones can still be captured (the
  // rule is the generator's; gtp/cleanup.h has the one SearchPlayer uses).
  bool cleanup = false;
  // Seconds this move may take by the controller's clock (time_left); <= 0: no clock limit.
  double max_seconds = 0;
};

struct GenMoveReply {
  go::Loc loc = go::kPassLoc;  // a legal move for the colour, or kPassLoc
  bool resign = false;         // answer "resign" (loc is then ignored)
};

// Chooses the engine's move for genmove.
class MoveGenerator {
 public:
  virtual ~MoveGenerator() = default;
  virtual GenMoveReply GenerateMove(const go::GameState& game, const GenMoveRequest& request) = 0;
};

// A uniformly random legal move that does not fill the mover's own single-point eye. It never
// passes while such a move exists, so it satisfies the cleanup rule trivially.
class RandomMoveGenerator : public MoveGenerator {
 public:
  explicit RandomMoveGenerator(uint64_t seed) : rng_(seed) {}
  GenMoveReply GenerateMove(const go::GameState& game, const GenMoveRequest& request) override;

 private:
  Rng rng_;
};

// The controller's clock for one colour (time_settings / time_left).
struct ClockState {
  bool known = false;  // set by time_settings or time_left
  double seconds = 0;  // left in the current period
  int stones = 0;      // stones to play in it (0: main time, or no byo-yomi)
};

// Seconds to spend on this move given the clock: a 1/stones share of a byo-yomi period, or in
// main time a 1/max(10, empty points / 3) share (so a 9x9 game with 60 s left spends 2 s
// on move one); 90% of that, leaving the rest for pipes and process scheduling. 0 when the
// clock is unknown or there is no time limit (time_settings with 0 byo-yomi time and 0 main
// time means "no limit" in GTP).
double MoveTimeBudget(const ClockState& clock, const go::Board& board);

struct GtpOptions {
  go::Rules rules;
  int board_size = 19;
  // The largest board boardsize accepts (a net runs on planes of this side, its pos_len).
  int max_board_size = go::kMaxSize;
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
  std::string GenMoveCleanup(const Command& command, bool* ok);
  std::string GenerateAndPlay(const Command& command, bool cleanup, bool* ok);
  std::string UndoCommand(const Command& command, bool* ok);
  std::string ShowBoard(const Command& command, bool* ok);
  std::string FinalScore(const Command& command, bool* ok);
  std::string LoadSgf(const Command& command, bool* ok);
  std::string PrintSgf(const Command& command, bool* ok);
  std::string ListStones(const Command& command, bool* ok);
  std::string RulesCommand(const Command& command, bool* ok);
  std::string FinalStatusList(const Command& command, bool* ok);
  std::string TimeSettings(const Command& command, bool* ok);
  std::string TimeLeft(const Command& command, bool* ok);
  // A fresh game with the current size, rules and move cap.
  void ResetGame();

  // The current board size and rules: boardsize, komi and loadsgf change them, so that
  // clear_board keeps what the controller set.
  GtpOptions options_;
  std::unique_ptr<MoveGenerator> generator_;
  go::GameState game_;
  bool time_limited_ = false;  // time_settings gave a main or byo-yomi time
  ClockState clocks_[2];       // black, white
  Rng status_rng_{20260101};   // final_status_list's playouts: a fixed seed, repeatable answers
};

}  // namespace tengen::gtp
