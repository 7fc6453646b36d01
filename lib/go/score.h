#pragma once
// Tromp-Taylor area scoring: a player's score is their stones plus the empty points that reach
// only their stones. Used for game results, final_score and the ownership training target.

#include <array>
#include <string>

#include "go/board.h"

namespace tengen::go {

// Area owner of every location: the stone's colour, or the only colour an empty region
// reaches, or kEmpty (dame: reaches both or neither).
std::array<Color, kMaxArraySize> AreaOwnership(const Board& board);
// Black area minus white area minus komi.
double TrompTaylorScore(const Board& board, double komi);
// The same for any assignment of owners to points (AreaOwnership, or PassAliveArea of
// go/pass_alive.h): the points owned by black minus those owned by white, minus komi.
double OwnedAreaScore(const Board& board, const std::array<Color, kMaxArraySize>& owner,
                      double komi);
// "B+3.5", "W+0.5" or "0" (GTP final_score and SGF RE).
std::string ScoreToResult(double black_minus_white);

}  // namespace tengen::go
