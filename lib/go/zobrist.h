#pragma once
// Zobrist keys for positions: one 64-bit key per (location, colour), from a fixed seed so that
// hashes are the same in every process and every run (they may be written to disk).

#include <cstdint>

#include "go/types.h"

namespace tengen::go {

uint64_t ZobristStone(Loc loc, Color color);

}  // namespace tengen::go
