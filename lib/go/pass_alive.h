#pragma once
// Pass-alive area (Benson's unconditional life): the chains of a colour that no sequence of
// opponent moves can capture even if their owner passes every turn, and the regions that are
// their eyes. A region here is a maximal connected set of points not of that colour (empty
// points and opponent stones); it is an eye of a chain (vital to it) when every empty point in
// it is a liberty of the chain. Chains with fewer than two eyes among regions bordered only by
// surviving chains are dropped, and the regions they border with them, until nothing changes.
// Opponent stones inside an eye are dead beyond rescue: the area counts them for the eye's
// owner. When the whole board is such area, nothing either side plays can change the
// Tromp-Taylor result once those stones are captured, so selfplay can end the game there
// (KataGo does) instead of playing the captures and passes out.

#include <array>

#include "go/board.h"

namespace tengen::go {

// The colour whose pass-alive area each location is (its alive chains and their eyes, dead
// opponent stones in them included), or kEmpty.
std::array<Color, kMaxArraySize> PassAliveArea(const Board& board);
// True when every point of the board is in one colour's pass-alive area. Such a board is
// scored by go::OwnedAreaScore (go/score.h) over PassAliveArea.
bool WholeBoardPassAlive(const Board& board);

}  // namespace tengen::go
