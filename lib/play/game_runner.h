#pragma once
// The game runner shared by selfplay and the gatekeeper (KataGo's play.cpp serves both): plays
// one game between two players (each a LeafEvaluator with its own search tree; selfplay passes
// the same evaluator twice), with the board size and komi drawn from configured distributions,
// the search effort from playout cap randomisation, move temperature from a schedule, optional
// resignation, and turns finished games into training rows and an SGF record. What happens to
// a finished game (write rows, count a win) is the caller's.
//
// Each recorded row also gets the opponent's reply (KataGo's second policy target): the policy
// target of the search at the next turn, cheap or full (a cheap search's is its visit
// distribution), weighted 1; the row of the game's last move has none (weight 0). And its
// short-term values (SetShortTermValues), from the root values of every search of the game,
// cheap or full, and its result.
//
// A resigned game keeps its rows with their policy and value targets; its final board is
// unknown, so its rows' score and ownership targets are zeroed and weighted 0 (score_weight,
// ownership_weight).
// Resignation is off by default (as in KataGo selfplay). Game ids are drawn from entropy, not from
// the seed, so that a master seed reused across restarts does not repeat them; the seed still fixes
// the moves.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "data/training_rows.h"
#include "go/rules.h"
#include "go/sgf.h"
#include "search/leaf_evaluator.h"
#include "search/mcts.h"
#include "search/selfplay_helpers.h"
#include "util/rng.h"

namespace tengen::play {

struct GameParams {
  // Board sizes with relative weights, e.g. {{9, 1.0}}; komi values with relative weights.
  std::vector<std::pair<int, double>> board_sizes = {{9, 1.0}};
  std::vector<std::pair<double, double>> komis = {{7.0, 1.0}};
  // Fair komi (KataGo's komiAuto): the komi drawn from `komis` is moved by the black player's
  // net's expected score lead for black on the empty board, so that the net sees the game as
  // even, then by normal noise of komi_stdev points, and rounded to a half point (clamped to
  // the board area). Keeps value targets balanced while the nets cannot yet make use of the
  // first move: a net sure that black loses at komi 7 would otherwise pass at move 1 (and both
  // passes end the game), and those games would teach it the same.
  bool komi_auto = false;
  double komi_stdev = 0;
  // With this probability a fair komi's noise has komi_big_stdev points instead (KataGo's
  // komiBigStdevProb 0.06, komiBigStdev 12 on 19x19, which it scales by the board's side: 5.7
  // on 9x9): games whose komi is far from fair, from which the net learns what komi is worth.
  double komi_big_stdev_prob = 0;
  double komi_big_stdev = 0;
  go::Rules rules;  // ko and suicide; komi is drawn per game
  search::SearchParams search;
  search::PlayoutCap playout_cap;
  search::ResignParams resign;
  // Move selection temperature: early * 0.5^(turn / halflife) + late * (1 - that), with the
  // halflife in turns given for 19x19 and scaled by the board's side (KataGo's
  // 19 / sqrt(area)): 19 turns on 19x19 are 9 on 9x9. KataGo selfplay1.cfg: 0.75 / 0.15 / 19.
  double temperature_early = 0.75;
  double temperature_late = 0.15;
  double temperature_halflife = 19;
  // Move cap as a multiple of the board area; capped games are scored as they stand.
  double max_moves_per_area = 4.0;
  // End the game once the whole board is pass-alive (go/pass_alive.h; KataGo's selfplay does
  // the same): scored by that area, dead stones in it counted as captured, instead of playing
  // the captures and passes out.
  bool end_when_pass_alive = false;
  // Premature first passes: before the game's first pass, a pass the search chooses is checked
  // by the opponent's search of the position after it (no noise). When the
  // opponent would answer with a move into the mover's Tromp-Taylor area, the pass left points
  // to take: the mover plays its best other move instead, and a recorded row's policy target
  // has no pass. At most this many passes are refused in a game (0: no check).
  int premature_pass_checks = 0;
  // Visits of that check's search (0: the turn's own, cheap or full).
  int premature_pass_check_visits = 0;
  // Policy surprise weighting of the recorded rows (search::RowRepeats): the share of a
  // game's row weight that goes to the rows whose search policy differed most from the net's
  // prior (0: every row written once; KataGo's selfplay uses 0.5).
  double policy_surprise_weight = 0;
  // Openings from the net's raw policy (KataGo's initGamesWithPolicy, policyInitAreaProp
  // 0.04): each game first plays a number of moves drawn from an exponential distribution with
  // mean policy_init_area * board area, each drawn from the side to move's net policy over its
  // legal moves but the pass, without search and without rows (0: none).
  double policy_init_area = 0;
  // Handicap games (KataGo's handicapProb, which its selfplay uses on boards above 10x10 only):
  // with this probability a game starts with handicap_stones black stones on the fixed points
  // (go/handicap.h) and white to move (0: every game even). Its komi is made fair for that
  // position as komi_auto does with probability handicap_fair_komi_prob (KataGo's
  // handicapCompensateKomiProb 0.5), and is handicap_komi otherwise (0.5: the komi of a
  // handicap game under GTP's conventions).
  double handicap_game_prob = 0;
  int handicap_stones = 2;
  double handicap_fair_komi_prob = 0.5;
  double handicap_komi = 0.5;
  // Side positions (play/side_positions.h; KataGo's sidePositionProb 0.02): the probability
  // that a turn also notes the position after another move, searched and recorded once the
  // game is over (0: none).
  double side_position_prob = 0;
  // Training rows: every recorded row gets this pos_len (>= every board size).
  int pos_len = 19;
  bool record_rows = true;
};

struct Player {
  search::LeafEvaluator* evaluator = nullptr;
  std::string name;  // model name, written into the SGF (PB/PW) and the rows
};

// How a game ended.
enum class GameEnd { kPasses, kMoveCap, kResignation, kPassAlive };
const char* GameEndName(GameEnd end);  // "passes", "move_cap", "resignation", "pass_alive"
// The root comment (C) of the SGF record of a game ended by kPassAlive: GUIs show it, and
// GameEndStats::AddRecord reads the end from it.
extern const char* const kPassAliveComment;

struct FinishedGame {
  go::SgfRecord sgf;
  // Empty for a resigned game. Under policy_surprise_weight, or with a weight cut by
  // playout_cap.reduce_visits, a position's row may appear several times in a row, or not at all.
  std::vector<data::TrainingRow> rows;
  int64_t game_id = 0;  // random, unique across runs whatever the seed
  uint64_t seed = 0;
  go::Color winner = go::Color::kEmpty;  // kEmpty: draw
  // Black minus white (komi included): Tromp-Taylor, or the pass-alive area's count for a game
  // ended by kPassAlive; 0 on resignation.
  double final_score = 0;
  bool resigned = false;
  GameEnd end = GameEnd::kPasses;
  int moves = 0;  // moves played, passes included
  // Moves played after the game's first pass, that pass excluded (a game that ends with two
  // passes in a row has at least 1); -1 when nobody passed.
  int moves_after_first_pass = -1;
  int64_t search_visits = 0;  // root visits of all searches (a bound on NN evaluations)
  int passes_refused = 0;     // first passes refused by premature_pass_checks
  int reduced_searches = 0;   // full searches cut in a lopsided game (playout_cap.reduce_visits)
  int handicap_stones = 0;    // black's set-up stones (GameParams::handicap_game_prob; 0: even)
  int opening_moves = 0;      // moves drawn from the raw policy (GameParams::policy_init_area)
  int side_rows = 0;          // rows of side positions, at the end of `rows`
};

// Plays one game to the end. `stop` is polled between moves: when it returns true the game is
// abandoned and the function returns false (the game in flight is dropped: half a game has no
// outcome for its rows).
bool PlayGame(const GameParams& params, const Player& black, const Player& white, uint64_t seed,
              const std::function<bool()>& stop, FinishedGame* game);

// A row's inputs (PositionRow) and `result`'s policy target; the outcome's targets are left
// for the caller.
data::TrainingRow StartRow(const GameParams& params, const go::GameState& state,
                           const search::SearchResult& result, int64_t game_id);

// The komi of a game started at `start` under GameParams::komi_auto: its komi moved by the
// net's expected score lead for black there, plus normal noise of komi_stdev points
// (komi_big_stdev with probability komi_big_stdev_prob).
double FairKomi(const GameParams& params, const go::GameState& start,
                search::LeafEvaluator& evaluator, Rng& rng);

// Plays the opening of GameParams::policy_init_area on `state` (nothing when it is 0): the
// moves are drawn from the policies of `black`'s and `white`'s evaluators. Returns how many.
int PlayPolicyOpening(const GameParams& params, search::LeafEvaluator& black,
                      search::LeafEvaluator& white, Rng& rng, go::GameState* state);

// The temperature for `turn` on a board of `size` (see GameParams).
double MoveTemperature(const GameParams& params, int turn, int size);

// KataGo's short-term value targets (data/training_rows.h, td_value) of a row at `turn` whose
// side to move is `mover`: black_values[i] is the root value of the search at turn i (black's
// view, in [-1, 1]), one per turn searched (and the resigning turn's), and `winner` the result.
// For each horizon, with f = 1 / (1 + area * c), c = 0.176, 0.056, 0.016 (long to short):
// turn + k weighs f (1 - f)^k, the result what is left; a value v counts as win (1 + v) / 2,
// loss (1 - v) / 2. Sets td_value_weight to 1.
void SetShortTermValues(const std::vector<double>& black_values, go::Color winner, int area,
                        go::Color mover, int turn, data::TrainingRow* row);

// The training row of `state` for a net of this pos_len: its inputs and the game's fields
// (game_id, turn, board size, komi, rules); the targets are left for the caller, the policy
// target sized and all 0. Selfplay's rows and those of game records (pipeline/record_rows.h)
// start here.
data::TrainingRow PositionRow(const go::GameState& state, int pos_len, int64_t game_id);

}  // namespace tengen::play
