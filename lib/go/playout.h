#pragma once
// Random play, as the GTP engine uses before a net exists and as benchmarks and fuzz tests use:
// a uniformly random legal move that does not fill the mover's own single-point eye.

#include "go/game.h"
#include "util/rng.h"

namespace tengen::go {

// A uniformly random move among the legal, non-eye-filling moves of game.to_move(); kPassLoc
// when there is none.
Loc RandomNonEyeMove(const GameState& game, Rng& rng);

}  // namespace tengen::go
