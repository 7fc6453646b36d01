#pragma once
// Handicap stone placement for GTP's fixed_handicap and place_free_handicap (GTP 2, sections
// 4.1.1 and 4.1.2).
//
// Fixed placement is defined on boards of 7 to 25 lines: up to 4 stones on 7x7 and on even
// sizes, up to 9 on odd sizes from 9 on, on the star points of the line 3 from the edge (4 from
// 12x12 on, as GNU Go places them), in the order of the GTP table (19x19: D4 Q16 D16 Q4, then K10
// for 5 and 7 stones, D10 Q10 for 6 to 9, K4 K16 for 8 and 9).
//
// Scoring. tengen scores by area (Tromp-Taylor): handicap stones are stones like any other and
// white gets no compensation for them beyond komi, as KataGo's "tromp-taylor" rules
// (whiteHandicapBonus 0). GNU Go's and KataGo's Chinese rules add one point per handicap stone
// to white's score; a controller that wants that sets komi to its komi plus the stone count.

#include <string>
#include <vector>

#include "go/types.h"

namespace tengen::go {

// The largest fixed_handicap for the board size (0 where none is defined).
int MaxFixedHandicap(int size);

// The fixed points for `stones` (2..MaxFixedHandicap(size)); empty when not defined.
std::vector<Loc> FixedHandicapPoints(int size, int stones);

// The engine's free placement of `stones` (2 .. size * size - 1): the fixed points as far as
// they go, then each further stone on the empty point farthest from the stones placed
// (Manhattan distance; off the first two lines when the board allows), so the stones spread
// evenly.
std::vector<Loc> FreeHandicapPoints(int size, int stones);

}  // namespace tengen::go
