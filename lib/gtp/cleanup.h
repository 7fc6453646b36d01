#pragma once
// Dead stones and the cleanup rule, for games against other engines scored by Tromp-Taylor.
//
// Tromp-Taylor counts every stone on the board as alive, so a game between engines that pass
// as soon as the outcome is clear is scored wrongly: dead stones inside an area still count
// for their owner and make the area around them dame. KGS solves this with a cleanup phase
// (kgs-genmove_cleanup): after both players pass, they play on until the dead stones are
// captured. This header holds what our engine needs for that, with no net:
//
// Dead stones by random playouts. From the position, `playouts` games are played to the end by
// both sides with uniformly random legal moves that never fill a single-point eye of their own
// (go/playout.h; simple ko, so the playouts need no history; capped at 3x the board area), and
// each point's Tromp-Taylor owner at the end is averaged: +1 black, -1 white, 0 dame. A stone
// is dead when the average says the other colour owns its point at least `dead_threshold`
// (0.5: the opponent owns it in 75% or more of the playouts, as a stone that random play
// cannot save is captured in nearly every playout, and stones with two eyes are never
// captured). This is the Monte Carlo status estimate of Monte Carlo Go programs (Pachi, the
// GNU Go Monte Carlo mode); it errs on seki, which random play usually breaks.
//
// The cleanup rule (ChooseCleanupMove). In cleanup mode our engine does not pass while
//   (a) some opponent stones are dead by the estimate above (they stand inside our area), and
//   (b) we have a legal move that does not fill a single-point eye of our own
//       (go::Board::IsSimpleEye; our true eyes are what keeps our groups alive) and that
//       either touches a dead chain or stands in our own area by the estimate.
// Among those moves it prefers, in order: a move that captures a dead chain; a move on a
// liberty of a dead chain that does not put our own new chain in atari (a move the opponent
// could answer by capturing it, which would make the cleanup go round in circles); any other
// liberty of a dead chain; a move elsewhere in our area. Within a class the search's visit
// count decides (the search knows the position), then the fewest liberties of the attacked
// chain, then a random draw. Every such move takes a liberty from a dead chain or fills our
// own area, so the phase ends: the dead chains are captured and then (a) no longer holds.
// Moves outside our area that touch no dead chain do not count for (b): they cannot capture
// anything and would only feed stones to the opponent, so with nothing else left we pass.
// When (a) does not hold, or no move satisfies (b), the engine passes: the game was settled
// when both players passed, and the cleanup phase only removes dead stones (KGS's meaning).
// Playing on there would let the search's rule against passing on an open board (search/mcts.h)
// keep a losing engine throwing stones into the winner's area until a move cap.
//
// The exception: the opponent takes the count away (CountTakenAway). The settled count is the
// Tromp-Taylor count once the dead stones of both colours (by the estimate above) are off the
// board: what the cleanup phase heads for. Capturing dead stones and filling one's own area do
// not change it; new stones in open space do. An opponent that plays on in the cleanup phase
// (a weak engine that passed on a nearly empty board and then builds a corner, say) can turn a
// settled count that was ours when both passed into one that is not; then the engine plays
// the search's move as in a normal genmove, until the settled count is ours again. Whether the
// count was ours when both passed is asked twice: of the settled count there, and of the
// engine's own search at its last normal genmove before (JudgedAheadBeforeCleanup). Random
// playouts call many live groups dead (a group with one large eye space that must answer a
// move inside it, a seki), so by the settled count alone an engine whose group the opponent
// now attacks could believe the game lost already and pass until the group is captured; its
// search, which passed believing the group alive, says otherwise. An engine that was behind
// by both never plays on, so a lost game still ends by passing.

#include <vector>

#include "go/game.h"
#include "go/types.h"
#include "util/rng.h"

namespace tengen::gtp {

struct CleanupParams {
  int playouts = 100;
  double dead_threshold = 0.5;  // see the header comment
};

// Average Tromp-Taylor owner of every point after random playouts from `game` (to move:
// game.to_move()): size * size entries indexed y * size + x, +1 black, -1 white.
std::vector<float> PlayoutOwnership(const go::GameState& game, int playouts, Rng& rng);

// Stones of `color` that the ownership (PlayoutOwnership) gives to the other colour by at
// least `threshold`.
std::vector<go::Loc> DeadStones(const go::Board& board, const std::vector<float>& ownership,
                                go::Color color, double threshold);

// DeadStones of both colours, Black's first.
std::vector<go::Loc> DeadStonesOfBoth(const go::Board& board, const std::vector<float>& ownership,
                                      double threshold);

// Black's Tromp-Taylor margin, komi included, once the stones that `ownership` gives to the
// other colour by at least `dead_threshold` are taken off the board: the settled count.
double SettledScore(const go::Board& board, const std::vector<float>& ownership,
                    double dead_threshold, double komi);

// Where the cleanup phase began: the game after its first two passes in a row (the end of the
// main phase), or the game as it stands when it has none.
go::GameState CleanupStart(const go::GameState& game);

// An engine's own view at one of its genmoves: the game's moves then and its search's value
// (the mover's view, in [-1, 1]).
struct SearchJudgement {
  std::vector<go::Move> moves;
  float value = 0;
};

// True when `judgement` was made in this game before its cleanup phase began (its moves are the
// first moves of CleanupStart(game)) and its search had the mover ahead (value > 0).
bool JudgedAheadBeforeCleanup(const SearchJudgement& judgement, const go::GameState& game);

// True when the opponent has played a stone since the cleanup phase began (CleanupStart), the
// count was `color`'s there (by the settled count, or `judged_ahead`: JudgedAheadBeforeCleanup
// of `color`'s last genmove) and the settled count is not `color`'s now (`ownership` is
// PlayoutOwnership of the game now): `color` plays on (see the header comment). The start's
// estimate draws its playouts from a seed of the start position, so every call of the phase
// judges the start the same way.
bool CountTakenAway(const go::GameState& game, go::Color color, const std::vector<float>& ownership,
                    const CleanupParams& params, bool judged_ahead = false);

// The cleanup move for `color` (see the header comment), or kPassLoc when the engine passes
// (no dead opponent stones, or no candidate move). `visits` has size * size + 1 entries
// indexed by search::MoveIndex (y * size + x, pass last), or is empty when there was no search.
go::Loc ChooseCleanupMove(const go::GameState& game, go::Color color,
                          const std::vector<float>& ownership, double dead_threshold,
                          const std::vector<int>& visits, Rng& rng);

}  // namespace tengen::gtp
