#pragma once
// A GTP version 2 engine over a GameState: the protocol (ids, comments, error answers), board
// and rules commands (KataGo's kata-get-rules / kata-set-rules too, gtp/kata_rules.h), handicap
// (go/handicap.h), SGF load/print, clock commands, live analysis (gtp/analysis.h), and
// genmove / kgs-genmove_cleanup through a pluggable MoveGenerator (gtp/search_player.h plays
// with MCTS; RandomMoveGenerator plays random legal moves). It never throws on bad input:
// every malformed or illegal command gets a "?" answer. The handlers are in three files by
// command group (gtp/gtp_command.h lists them).
//
// Clock: time_settings, kgs-time_settings and time_left are accepted (Sabaki, GoGui and KGS
// send them); the mover's clock becomes a per-move time budget in GenMoveRequest (see
// gtp/clock.h), which a generator applies on top of its own limits, and is run down by the
// time each genmove took until the next time_left.

#include <atomic>
#include <functional>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "go/game.h"
#include "go/rules.h"
#include "gtp/analysis.h"
#include "gtp/clock.h"
#include "util/rng.h"

namespace tengen::gtp {

// What genmove asks of a generator.
struct GenMoveRequest {
  go::Color color = go::Color::kBlack;  // may differ from game.to_move(): GTP allows it
  // kgs-genmove_cleanup: do not pass while dead opponent stones can still be captured, and
  // play on when the opponent takes the count away (the rule is the generator's;
  // gtp/cleanup.h has the one SearchPlayer uses).
  bool cleanup = false;
  // Seconds this move may take by the controller's clock (time_left); <= 0: no clock limit.
  double max_seconds = 0;
  // lz-genmove_analyze / kata-genmove_analyze: with a callback and a positive interval, the
  // generator reports its search every report_seconds while it runs, and once at its end.
  double report_seconds = 0;
  AnalysisCallback report;
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

  // Analysis (lz-analyze, kata-analyze): whether Analyze works, and the search itself, for
  // `color` to move on `game`, until stop() returns true (polled often: the engine expects the
  // call to return within a few milliseconds of it), calling report every report_seconds (0:
  // never). A generator that analyses keeps what it found for the next GenerateMove
  // (pondering). The default cannot analyse and throws.
  virtual bool CanAnalyze() const { return false; }
  virtual void Analyze(const go::GameState& game, go::Color color, double report_seconds,
                       const std::function<bool()>& stop, const AnalysisCallback& report);
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

struct GtpOptions {
  go::Rules rules;
  int board_size = 19;
  // The largest board boardsize accepts (a net runs on planes of this side, its pos_len).
  int max_board_size = go::kMaxSize;
  int max_moves = 0;  // move cap for the game (0: none)
  std::string name = "tengen";
  std::string version = "0.1";
};

// Streaming (lz-analyze, kata-analyze). An analysis command's answer starts at once ("=id" and
// a newline), then the analysis runs on a background thread whose reports go out as "info"
// lines at the interval; the next line of input (any command, or an empty line) stops it
// within a few milliseconds and ends the answer with its empty line, before that command is
// handled. lz-genmove_analyze and kata-genmove_analyze stream reports while genmove searches
// and end with "play MOVE". Both write through the engine's output (set_output; Run sets it to
// its stream), from one thread at a time. An error in the analysis thread is the answer to the
// next command.
class GtpEngine {
 public:
  // Writes text to the controller as it is.
  using Output = std::function<void(const std::string&)>;

  GtpEngine(GtpOptions options, std::unique_ptr<MoveGenerator> generator);
  ~GtpEngine();  // stops a running analysis
  GtpEngine(const GtpEngine&) = delete;
  GtpEngine& operator=(const GtpEngine&) = delete;

  // Where streamed answers go; without one the analysis commands answer with an error.
  void set_output(Output output) { output_ = std::move(output); }

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
  std::string GenerateAndPlay(GenMoveRequest request, bool* ok);
  std::string LzAnalyze(const Command& command, bool* ok);
  std::string KataAnalyze(const Command& command, bool* ok);
  std::string StartAnalysis(const Command& command, AnalysisFormat format, bool* ok);
  std::string LzGenMoveAnalyze(const Command& command, bool* ok);
  std::string KataGenMoveAnalyze(const Command& command, bool* ok);
  std::string GenMoveAnalyze(const Command& command, AnalysisFormat format, bool* ok);
  // The analysis commands' common start: parses the arguments into *request and checks that
  // answers can stream; false with *error set when the command fails.
  bool PrepareAnalysis(const Command& command, AnalysisFormat format, AnalysisRequest* request,
                       std::string* error) const;
  // Writes "=id" and a newline: the handler then writes the rest of its answer itself.
  void BeginStreamedAnswer(const Command& command);
  // Writes non-empty text through output_.
  void Stream(const std::string& text);
  // Stops a running analysis and ends its answer; returns the analysis thread's error, or "".
  std::string StopAnalysis();
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
  std::string KgsTimeSettings(const Command& command, bool* ok);
  void SetTimeControl(const TimeControl& control);
  std::string FixedHandicap(const Command& command, bool* ok);
  std::string PlaceFreeHandicap(const Command& command, bool* ok);
  std::string SetFreeHandicap(const Command& command, bool* ok);
  // Puts black stones on an empty board, white to move; "" or the error.
  std::string PlaceHandicap(const std::vector<go::Loc>& stones);
  std::string KataGetRules(const Command& command, bool* ok);
  std::string KataSetRules(const Command& command, bool* ok);
  // A fresh game with the current size, rules and move cap.
  void ResetGame();

  // The current board size and rules: boardsize, komi and loadsgf change them, so that
  // clear_board keeps what the controller set.
  GtpOptions options_;
  std::unique_ptr<MoveGenerator> generator_;
  go::GameState game_;
  bool time_limited_ = false;  // time_settings gave a main or byo-yomi time
  TimeControl time_control_;
  ClockState clocks_[2];      // black, white
  int handicap_ = 0;          // handicap stones of the game (fixed, free or SGF HA); 0: none
  Rng status_rng_{20260101};  // final_status_list's playouts: a fixed seed, repeatable answers

  Output output_;
  bool streamed_ = false;  // the handler has written the start of its answer through output_
  std::thread analysis_thread_;
  std::atomic<bool> analysis_stop_{false};
  std::string analysis_error_;  // written by the analysis thread, read after joining it
};

}  // namespace tengen::gtp
