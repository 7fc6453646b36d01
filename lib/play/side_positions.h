#pragma once
// Side positions (KataGo's sidePositionProb): now and then a selfplay turn also notes the
// position after another move than the one played, and once the game is over each such position
// gets a full search of its own and a training row. The rows show the net positions that its
// own play never reaches, answers to moves it would not make.
//
// A side position's row has the search's policy target and, for a value target, the search's
// root value (win (1 + v) / 2, loss (1 - v) / 2): there is no game outcome, final score or
// final ownership behind it, so the score, ownership, short-term value and reply targets are
// marked absent (weight 0). With probability kSideLineExtension the side line goes on: the
// searched position's best move, then another drawn move, gives one more side position.

#include <functional>
#include <vector>

#include "data/training_rows.h"
#include "go/game.h"
#include "go/types.h"
#include "play/game_runner.h"
#include "search/mcts.h"
#include "util/rng.h"

namespace tengen::play {

// KataGo's share of side positions that go on for another pair of moves.
inline constexpr double kSideLineExtension = 0.25;

// A move other than `banned` for the side to move at `state`, drawn as KataGo draws its
// forking moves: 70% of the time from `priors` (MoveIndex layout, size * size + 1), 25% from
// the priors at temperature 2, 5% uniformly among the legal points. Only legal moves, the pass
// only where it has a prior. go::kNullLoc when no move qualifies.
go::Loc DrawSideMove(const std::vector<float>& priors, const go::GameState& state, go::Loc banned,
                     Rng& rng);

// The row of a side position from its search: inputs, the search's policy target, its root
// value as the value target, every outcome target marked absent.
data::TrainingRow SideRow(const GameParams& params, const go::GameState& state,
                          const search::SearchResult& result, int64_t game_id);

// With probability params.side_position_prob (nothing drawn when it is 0 or the game records
// no rows), appends to `positions` the position after a move other than `played` at `state`,
// drawn by DrawSideMove from the net's priors at the root of `result`, unless that move ends
// the game.
void NoteSidePosition(const GameParams& params, const go::GameState& state,
                      const search::SearchResult& result, go::Loc played, Rng& rng,
                      std::vector<go::GameState>* positions);

// Searches each of `positions` (none of them over) with a full search of
// params.playout_cap.full_visits visits by the side to move's player and appends its row to
// `rows`, extending side lines as the header comment says. Stops early, dropping the rest,
// once `stop` returns true. Returns the rows appended.
int SearchSidePositions(const GameParams& params, const Player& black, const Player& white,
                        int64_t game_id, Rng& rng, const std::function<bool()>& stop,
                        std::vector<go::GameState> positions, std::vector<data::TrainingRow>* rows);

}  // namespace tengen::play
