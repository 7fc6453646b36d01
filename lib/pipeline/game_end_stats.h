#pragma once
// How a model's selfplay games end, for the heartbeat and the report: how many ended by two
// passes, by the move cap, by resignation or with the whole board pass-alive; the median and 90th
// percentile of the moves played after a game's first pass (that pass excluded, so a game that ends
// pass, pass has 1; games in which nobody passed are left out); and the mean |final score| of the
// games that were scored (not resigned). A settled game between players that understand it ends
// with a few capturing moves and two passes: long tails after the first pass, games at the move cap
// and large margins say the nets do not yet know when the game is over. Exact: the moves after the
// first pass are kept as a histogram (at most 4 x 361 distinct values).

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "go/sgf.h"
#include "play/game_runner.h"

namespace tengen::pipeline {

class GameEndStats {
 public:
  // `moves_after_first_pass` -1: nobody passed. `final_score` is ignored for resignations.
  void Add(play::GameEnd end, int moves_after_first_pass, double final_score);
  void Add(const play::FinishedGame& game) {
    Add(game.end, game.moves_after_first_pass, game.final_score);
    passes_refused_ += game.passes_refused;
    reduced_searches_ += game.reduced_searches;
    if (game.handicap_stones > 0) ++handicap_games_;
  }
  // The same from a game's SGF record as selfplay writes it: RE "B+R" / "W+R" is a
  // resignation, a game whose last two moves are passes ended by passes, one whose root
  // comment is kPassAliveComment (the game runner's mark) by kPassAlive, any other by the move cap;
  // the score is RE's ("B+3.5", "W+2", "0"). False (nothing added) for another RE.
  bool AddRecord(const go::SgfRecord& record);

  int64_t games() const { return games_; }
  int64_t ended_by(play::GameEnd end) const { return ends_[static_cast<size_t>(end)]; }
  // Games in which somebody passed.
  int64_t games_with_pass() const { return with_pass_; }
  // Games that were scored (not resigned).
  int64_t scored_games() const { return scored_; }
  // The q-quantile (0 < q <= 1, nearest rank: the smallest value with at least q of the games
  // at or below it) of the moves after the first pass; -1 when no game had a pass.
  int MovesAfterFirstPass(double q) const;
  // Mean |final score| over the scored games; 0 when there is none.
  double MeanAbsFinalScore() const;
  // First passes refused by GameParams::premature_pass_checks (games added as FinishedGame only).
  int64_t passes_refused() const { return passes_refused_; }
  // Full searches cut in lopsided games (playout_cap.reduce_visits; FinishedGame only).
  int64_t reduced_searches() const { return reduced_searches_; }
  // Games started with handicap stones (GameParams::handicap_game_prob; FinishedGame only).
  int64_t handicap_games() const { return handicap_games_; }

 private:
  int64_t games_ = 0;
  std::array<int64_t, 4> ends_{};  // indexed by GameEnd
  int64_t with_pass_ = 0;
  std::map<int, int64_t> after_first_pass_;  // moves -> games
  int64_t scored_ = 0;
  double abs_score_sum_ = 0;
  int64_t passes_refused_ = 0;
  int64_t reduced_searches_ = 0;
  int64_t handicap_games_ = 0;
};

// The heartbeat counters of selfplay's current model, in this order: model_games,
// games_end_passes, games_end_move_cap, games_end_resignation, games_end_pass_alive,
// moves_after_first_pass_median,
// moves_after_first_pass_p90, mean_abs_final_score. A figure that no game says anything about
// yet (no game with a pass, no scored game) is NaN, which the heartbeat writes as null: -1 or 0
// would read as a measurement.
std::vector<std::pair<std::string, double>> GameEndCounters(const GameEndStats& stats);

// The same for the progress line: "games of this model 40: ended by passes 38, move cap 2,
// resignation 0, pass-alive 0; moves after the first pass: median 3, 90th percentile 9; mean |final
// score| 6.2", without the parts no game says anything about yet; "" before the first game.
std::string FormatGameEnds(const GameEndStats& stats);

}  // namespace tengen::pipeline
