#pragma once
// The GTP engine's move generator with MCTS (search/mcts.h) over any search::LeafEvaluator: a
// net behind a batching server (gtp/main.cpp wires it) or the uniform evaluator when there is
// no net. Torch-free: it sees only the LeafEvaluator interface.
//
// Limits. A move is searched until the root has `visits` visits or `seconds_per_move` have
// passed, whichever comes first (either may be 0 for "no limit", not both); the controller's
// clock (GenMoveRequest::max_seconds) is a further limit. The search is a play search: no
// root noise, no forced playouts, no temperature (Search::Run with full_search = false), and
// the most visited move is played, ties broken at random so that two games from the same
// position need not repeat each other.
//
// LCB move selection (KataGo's useLcbForSelection; off unless lcb_stdevs > 0): among the moves
// with at least lcb_min_visit_share of the most visited move's visits, the one with the highest
// lower confidence bound of its utility (search::UtilityLcb, lcb_stdevs standard errors below
// its mean) is played instead. A move that search found good late, with fewer visits than the
// favourite but a clearly better value, is then played. The trees' statistics are pooled per
// move (visits summed, means and spreads combined as one sample).
//
// Threads (root parallelisation). The search itself is single-threaded, so `threads` searches
// run side by side, one tree and one evaluator each, each to visits / threads root visits,
// and their root visit counts are summed to choose the move (Chaslot, Winands and van den
// Herik, "Parallel Monte-Carlo Tree Search", 2008: root parallelisation scales about as well
// as a shared tree at these sizes). Behind a batching server the trees' leaves are evaluated
// in one batch, which is what makes a GPU (or a second CPU core) pay off.
//
// Tree reuse. Each tree is kept between moves. When the next genmove's position follows on
// from the tree's root (same start position, size and rules, and the root's moves are a prefix
// of the game's), the moves in between are played into the tree with Search::Advance, and the
// subtree of the move actually played is kept. Otherwise (undo, a new game, a changed komi, a
// genmove for the colour not to move) the trees start afresh.
//
// Resignation, off by default: with `resign` on, the player resigns after `resign_turns` of
// its own moves in a row whose root value (its view, in [-1, 1]) is below `resign_threshold`.
// Never in cleanup mode.
//
// Analysis (lz-analyze, kata-analyze; Analyze). The trees search the position with no limit
// but analysis_visits root visits over all trees (a tree's memory grows with its visits:
// about 30 KB per visit on 19x19), pausing every report interval to merge their root children
// into one report (visits summed, values averaged by visits, the principal variation of the
// tree that visited the move most; the ownership is the net's at the first tree's root, not
// an average over the search as KataGo's). The trees are kept, so the next genmove on the
// position (or one that follows on from it) starts from them: pondering. lz-genmove_analyze
// and kata-genmove_analyze are genmove with the same reports along the way.
//
// Cleanup mode (kgs-genmove_cleanup): see gtp/cleanup.h. With dead opponent stones on the
// board the search runs and its root visits rank the cleanup moves; without, the answer is a
// pass and no search runs. When the opponent's moves have taken away a settled count that
// was ours when both passed (gtp::CountTakenAway), the move is a normal genmove's.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "go/game.h"
#include "gtp/cleanup.h"
#include "gtp/gtp_engine.h"
#include "search/leaf_evaluator.h"
#include "search/mcts.h"
#include "util/log.h"
#include "util/rng.h"

namespace tengen::gtp {

// The search rules for games against others: every legal move is searched. The fill rules
// (search/mcts.h) are selfplay's cure for young nets that fill their own eyes in hope; against
// an opponent, after its pass, they would keep tengen off the vital point of its own eye space.
// tengen-gtp's no_fill key turns them back on.
search::SearchParams PlaySearchParams();

// The position a search starts from: the game with `color` to move. After two passes (a
// cleanup phase, a controller that asks for one more move, a finished record analysed) the game
// is over for the search, so it starts from the board alone: passes and superko history are
// dropped, and a move finally chosen is checked against the real game.
go::GameState SearchState(const go::GameState& game, go::Color color);

// LCB move selection over the root results of one or more trees of the same position (see the
// header comment): the MoveIndex to play, or -1 when no move was visited. `params` gives the
// utility's range (the sum of its weights).
int LcbMoveIndex(const std::vector<const search::SearchResult*>& results, double stdevs,
                 double min_visit_share, const search::SearchParams& params);

struct SearchPlayerParams {
  search::SearchParams search = PlaySearchParams();
  int visits = 400;             // root visits per move, all threads together (0: no limit)
  double seconds_per_move = 0;  // 0: no limit
  bool reuse_tree = true;
  bool resign = false;
  double resign_threshold = -0.95;
  int resign_turns = 3;
  CleanupParams cleanup;
  double lcb_stdevs = 0;  // LCB move selection (see the header comment); 0: the most visited
  double lcb_min_visit_share = 0.15;
  int analysis_visits = 10000;  // root visits over all trees at which analysis stops searching
  int analysis_pv_length = 15;  // moves per principal variation in analysis reports (KataGo's)
};

// What the last genmove found, for the log line the program prints.
struct SearchSummary {
  int visits = 0;         // root visits over all trees (reused visits included)
  int reused_visits = 0;  // root visits the trees had before this search
  float value = 0;        // mover's view, in [-1, 1]
  float score = 0;        // mover's score lead
  double seconds = 0;
  int dead_stones = 0;    // opponent stones judged dead (cleanup mode only)
  bool plays_on = false;  // cleanup mode: the opponent took the settled count away
};

class SearchPlayer : public MoveGenerator {
 public:
  // One tree per evaluator, searched in parallel; the evaluators must outlive the player and
  // each is used by one thread at a time. With a logger, every move gets one info line
  // (move, visits, value, score, time).
  SearchPlayer(SearchPlayerParams params, std::vector<search::LeafEvaluator*> evaluators,
               uint64_t seed, Logger* logger = nullptr);
  ~SearchPlayer() override;
  SearchPlayer(const SearchPlayer&) = delete;
  SearchPlayer& operator=(const SearchPlayer&) = delete;

  GenMoveReply GenerateMove(const go::GameState& game, const GenMoveRequest& request) override;
  bool CanAnalyze() const override { return true; }
  void Analyze(const go::GameState& game, go::Color color, double report_seconds,
               const std::function<bool()>& stop, const AnalysisCallback& report) override;

  const SearchSummary& last_summary() const { return summary_; }

 private:
  struct Tree;
  // Puts every tree's root on `state`, reusing what follows on (see the header comment);
  // true when every tree followed on.
  bool SetRoots(const go::GameState& state);
  // Runs every tree until it has per_tree root visits or stop() returns true; with a report
  // callback and a positive interval, pauses every report_seconds to report, and with
  // final_report reports once more at the end. Returns the summed root visits per move index
  // and fills summary_.
  std::vector<int> RunSearches(int per_tree, const std::function<bool()>& stop,
                               double report_seconds = 0, const AnalysisCallback& report = {},
                               bool final_report = false);
  // One round: every tree searched (in parallel when there are several) until per_tree root
  // visits or stop().
  void RunTrees(int per_tree, const std::function<bool()>& stop);
  // Seconds this move may take: seconds_per_move and the clock's share, the smaller (0: none).
  double TimeLimit(const GenMoveRequest& request) const;
  // Root visits per tree for `visits` over all trees (0: no limit).
  int PerTree(int visits) const;
  // The trees' root children merged into one report (see the header comment).
  AnalysisReport MakeReport() const;
  GenMoveReply ChooseMove(const go::GameState& game, const go::GameState& state,
                          const GenMoveRequest& request);
  // The cleanup rule's move (ChooseCleanupMove ranked by a search; a pass with nothing dead).
  GenMoveReply CleanupReply(const go::GameState& game, const GenMoveRequest& request,
                            const std::vector<float>& ownership);

  SearchPlayerParams params_;
  std::vector<std::unique_ptr<Tree>> trees_;
  Rng rng_;
  Logger* logger_;
  SearchSummary summary_;
  // Own moves in a row below resign_threshold, per colour (a controller may ask one engine
  // for both colours' moves).
  int low_value_turns_[2] = {0, 0};
  // Each colour's last normal genmove: the game's moves then and the search's value (for the
  // cleanup rule, CountTakenAway).
  SearchJudgement last_judgement_[2];
};

}  // namespace tengen::gtp
