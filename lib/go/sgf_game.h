#pragma once
// Between SGF records and games: replaying a record into a GameState (checking every move
// against the rules) and turning a game into a record.

#include "go/game.h"
#include "go/sgf.h"

namespace tengen::go {

// Replays setup stones and the first `num_moves` moves (all when negative). An illegal move
// is a FormatError naming the move number, colour, vertex and reason.
GameState ReplaySgf(const SgfRecord& record, int num_moves = -1, int max_moves = 0);
// The record of a game: size, rules, setup (initial board), moves; players, result, date and
// extra properties are left for the caller to fill in.
SgfRecord RecordFromGame(const GameState& game);

}  // namespace tengen::go
