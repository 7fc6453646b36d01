#pragma once
// Two small per-turn decisions of a selfplay game that sit next to search: how hard to search
// this turn (playout cap randomisation) and whether the side to move resigns.

#include <vector>

#include "go/types.h"
#include "util/rng.h"

namespace tengen::go {
class GameState;
}

namespace tengen::search {

struct SearchParams;
struct SearchResult;
class LeafEvaluator;

// Playout cap randomisation (KataGo, play.cpp:1093-1225): most turns get a cheap search that
// only chooses the move; the rest get a full search with noise and forced playouts whose policy
// target is recorded. Defaults are selfplay1.cfg's: maxVisits 600, cheapSearchVisits 100,
// cheapSearchProb 0.75.
struct PlayoutCap {
  int full_visits = 600;
  int cheap_visits = 100;
  double full_probability = 0.25;
  // Visit reduction in lopsided games (KataGo's reduceVisits, play.cpp; selfplay1.cfg: threshold
  // 0.9, lookback 3, min 100 of 600, weight 0.1): once the root values of the game's last
  // `reduce_visits_lookback` searches all say one side wins by more than
  // `reduce_visits_threshold`, a full search gets fewer visits and its row less weight (see
  // ReduceForLopsidedGame). Off when reduce_visits is false.
  bool reduce_visits = false;
  double reduce_visits_threshold = 0.9;
  int reduce_visits_lookback = 3;
  int reduced_visits_min = 100;
  double reduced_visits_weight = 0.1;
};

struct SearchPlan {
  int visits = 0;
  // Full search: Search::Run(visits, true) (noise, root temperature, forced playouts).
  bool full_search = false;
  // Whether this turn becomes a training row: full searches only (cheapSearchTargetWeight 0).
  bool record_row = false;
  // The weight of that row (RowRepeats): below 1 in a lopsided game.
  double row_weight = 1;
  // Whether ReduceForLopsidedGame cut this full search's visits.
  bool reduced = false;
};

// Draws this turn's plan; a cheap search never has more visits than a full one.
SearchPlan DrawSearchPlan(const PlayoutCap& cap, Rng& rng);

// Cuts a full search in a lopsided game (PlayoutCap::reduce_visits). `black_values` holds the
// root value of each earlier search of the game, black's view, in [-1, 1]. When the last
// reduce_visits_lookback of them all lie beyond the threshold on one side, let p be how far the
// least extreme of them lies beyond it, as a share of the way from the threshold to 1; the
// visits move p^2 of the way to reduced_visits_min (rounded, never past it, never up) and the row
// weight p^2 of the way to reduced_visits_weight. Cheap searches, and games not that lopsided, keep
// their plan.
void ReduceForLopsidedGame(const PlayoutCap& cap, const std::vector<double>& black_values,
                           SearchPlan* plan);

// Policy surprise of a search: the KL divergence, in nats, of its policy target from the net's
// priors at the root (SearchResult::net_priors, floored at 1e-6 so that a move the net all but
// ruled out costs a finite amount). 0 when the search found what the net expected.
double PolicySurprise(const SearchResult& result);

// How many times each recorded row of a game is written, from the rows' own weights w (1, or
// less where ReduceForLopsidedGame cut the search) and policy surprise weighting (KataGo's
// policySurpriseDataWeight, 0.5 in its selfplay). Each row's weight is (1 - surprise_weight) *
// w + W * surprise_weight * w * surprise / (sum over the game's rows of w * surprise), W the
// sum of the w, so the game's total weight stays W and the rows whose search disagreed most
// with the net carry the share surprise_weight of it; each weight is then rounded to one of its
// two neighbouring integers at random, with the mean kept (a row may be written 0, 1, 2 or more
// times). The weights are w alone when surprise_weight is 0 or no row was surprising. KataGo
// also lends weight to cheap searches' positions and to value surprise; tengen records full
// searches only.
std::vector<int> RowRepeats(const std::vector<double>& weights,
                            const std::vector<double>& surprises, double surprise_weight, Rng& rng);

// Resignation, off by default. A player resigns after `consecutive_turns` of its own turns in
// a row with root value (its own view) below `threshold`. A fraction of games never resigns so
// that the rate of wrong resignations can be measured from how those games end (AlphaGo Zero
// played out 10%). KataGo's resignThreshold / resignConsecTurns are -0.90 / 3.
struct ResignParams {
  bool enabled = false;
  double threshold = -0.9;
  int consecutive_turns = 3;
  double no_resign_fraction = 0.1;
};

// One per game.
class ResignTracker {
 public:
  // Draws here whether this game may resign at all.
  ResignTracker(const ResignParams& params, Rng& rng);

  // Records `player`'s root value after its search; true when it should resign now.
  bool Update(go::Color player, double root_value);
  bool may_resign() const { return may_resign_; }

 private:
  ResignParams params_;
  bool may_resign_;
  int low_turns_[2] = {0, 0};  // black, white: consecutive own turns below the threshold
};

// Premature first passes (GameParams::premature_pass_checks): true when the opponent, searching
// the position after the side to move passes (`visits`, no noise), would answer with a move
// into the mover's Tromp-Taylor area: the pass left points to take. False when the pass ends
// the game (the move cap).
bool PassLeavesPoints(const SearchParams& params, const go::GameState& state,
                      LeafEvaluator& opponent, int visits, Rng& rng);

}  // namespace tengen::search
