#pragma once
// The referee of tengen-match: plays two GTP engines (any command lines: tengen-gtp with a
// model, GNU Go at some level, ...) against each other, alternating colours, and judges every
// move with our own GameState, so the rules are ours whatever the engines think.
//
// A game. Both engines get boardsize, clear_board and komi; then the side to move is asked
// `genmove <colour>` and its move is checked and played on the referee's board and sent to the
// other engine with `play`. The game ends
//   - by resignation ("resign"): a loss for the engine that resigned (RE B+R / W+R);
//   - by forfeit (RE B+F / W+F), a loss for the engine at fault: an illegal move by our rules
//     (occupied, suicide, ko, superko), an answer that is not a move, a refused or failed
//     command, or an engine that dies, breaks the protocol or does not answer a command within
//     gtp_timeout. An engine that refuses a move
//     the referee found legal is at fault too: its rules differ from the match's, and the game
//     cannot go on;
//   - by the move cap (max_moves; default 4 x board area): scored as the board stands;
//   - by two consecutive passes, followed by the cleanup phase and the score.
// Cleanup and scoring. Tromp-Taylor counts every stone on the board, so dead stones must be
// captured before the count. When at least one engine lists kgs-genmove_cleanup, play goes on
// after the two passes: each engine is asked `kgs-genmove_cleanup <colour>` when it lists it
// (plain `genmove` otherwise) until two passes in a row again, or max_cleanup_moves (default
// the board area) cleanup moves, and the final board is scored by Tromp-Taylor. Cleanup moves
// are judged like any other. When neither engine lists it, the referee asks the first engine
// that lists final_status_list (engine 1, then engine 2) for its dead stones, removes them and
// scores by Tromp-Taylor; with neither command the board is scored as it stands. GNU Go and
// tengen-gtp both list kgs-genmove_cleanup, so their games are always cleaned up by play.
//
// Handicap games (handicap = N stones, 2 up to go::MaxFixedHandicap of the board size): the
// engine handicap_engine (1 or 2) is black in every game, its N stones on the fixed points of
// GTP's fixed_handicap (go/handicap.h), sent to both engines with set_free_handicap after komi;
// white moves first. Scoring stays Tromp-Taylor with the match's komi: white gets no point per
// stone (GNU Go under --chinese-rules counts one, so it misjudges the score by N points). A
// handicap match never goes on the ladder, which rates even games.
//
// Colours alternate in even games: engine 1 is black in games 1, 3, 5, ... Every game is published
// as <output_dir>/<sgf_prefix>-<NNN>.sgf (players = engine names, RE, KM, RU, a root comment saying
// how it ended), and <output_dir>/match.json (match/match_record.h) is rewritten atomically after
// every game, so a match stopped half way still has its results; run again with the same
// output_dir, names, board size, komi, rules and games, it goes on after its last finished game
// (the game in flight at the stop is played again from its start). An engine that failed (died,
// broke the protocol) is restarted before the next game.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "go/rules.h"
#include "go/sgf.h"
#include "go/types.h"
#include "gtp/gtp_client.h"
#include "match/ladder.h"
#include "pipeline/elo.h"
#include "util/log.h"

namespace tengen::match {

struct EngineSpec {
  std::vector<std::string> argv;  // the engine's command line (gtp::SplitCommandLine)
  std::string name;               // "" : "<name> <version>" as the engine answers them
};

struct MatchOptions {
  EngineSpec engines[2];
  int games = 2;
  int board_size = 9;
  go::Rules rules;
  int max_moves = 0;          // moves before two passes (0: 4 x board area)
  int max_cleanup_moves = 0;  // moves of the cleanup phase (0: board area)
  // How long an engine may take to answer one command, genmove included (zero: no limit). One
  // that takes longer forfeits the game and is restarted before the next.
  std::chrono::milliseconds gtp_timeout{600000};
  std::string output_dir;  // "" : nothing written
  std::string sgf_prefix = "game";
  int handicap = 0;         // black's stones in every game (0: even games, colours alternating)
  int handicap_engine = 2;  // the engine (1 or 2) that takes black and the stones
};

// Throws ConfigError naming handicap or handicap_engine when they do not fit the board size.
void CheckHandicap(const MatchOptions& options);

// The engine (0 or 1) that is black in game `index` (1-based): engine 1 in odd-numbered even
// games, the handicap engine in every handicap game.
int BlackEngineOfGame(const MatchOptions& options, int index);

enum class GameEnd { kScored, kMoveCap, kResignation, kForfeit };
const char* GameEndName(GameEnd end);  // "scored", "move cap", "resignation", "forfeit"

struct GameOutcome {
  int index = 0;                         // 1-based
  int black_engine = 0;                  // 0: engine 1 is black, 1: engine 2
  go::Color winner = go::Color::kEmpty;  // kEmpty: a draw
  std::string result;                    // SGF RE: "B+3.5", "W+R", "B+F", "0"
  GameEnd end = GameEnd::kScored;
  std::string detail;  // how it ended, in words (illegal move, dead stones removed, ...)
  int moves = 0;       // cleanup moves included
  int cleanup_moves = 0;
  double score = 0;             // black minus white by Tromp-Taylor (scored games)
  std::string sgf_file;         // "" when not written
  int faulty_engine = -1;       // 0 or 1 for a forfeit caused by an engine failure
  bool restart_engine = false;  // the faulty engine must be restarted
  bool interrupted = false;     // stopped by `stop` before the end: no result
};

// Plays one game between two running engines and fills the SGF record (moves, result,
// players, comment). Engines are reused between games. `stop` is polled before every move.
GameOutcome PlayGame(gtp::GtpClient* black, gtp::GtpClient* white, const std::string names[2],
                     const MatchOptions& options, go::SgfRecord* sgf,
                     const std::function<bool()>& stop = {});

struct MatchReport {
  std::string names[2];
  std::vector<std::string> commands[2];
  pipeline::MatchScore score;  // engine 1's wins, losses, draws
  pipeline::EloEstimate elo;   // engine 1 minus engine 2
  std::vector<GameOutcome> games;
  bool complete = false;  // every game played (not stopped)
  int resumed_games = 0;  // games taken from an earlier run's match.json
};

// Engine 1's result of `game` (win, loss or draw) added to `score`.
void CountGame(const GameOutcome& game, pipeline::MatchScore* score);

// Plays options.games games (see the header comment), after the finished games of a stopped
// run of the same match in <output_dir>/match.json. `stop` is polled before every move and
// every 100 ms while an engine is answering (that engine is then killed): the game in flight
// is dropped and the report has the finished games. Throws IoError when an engine cannot be
// started, ConfigError for bad options or an output_dir that holds another match.
MatchReport RunMatch(const MatchOptions& options, Logger& logger,
                     const std::function<bool()>& stop = {});

// "A vs B: 7 wins, 2 losses, 1 draw (75.0%), Elo +191 [-33, +398]"
std::string MatchSummary(const MatchReport& report);

// The result that goes on the ladder: only an even, complete match. A stopped match's part stays
// off (it is completed by a later run, which then adds all its games). A match that was complete
// before this run has its result too, so that one that could not reach the ladder when it ended
// (a ladder file that could not be written) gets there on the next run; the caller adds it only
// when the ladder does not hold it (HoldsMatch). match_dir is output_dir, made absolute.
std::optional<LadderMatch> LadderResult(const MatchReport& report, const MatchOptions& options);

}  // namespace tengen::match
