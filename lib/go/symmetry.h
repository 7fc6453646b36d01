#pragma once
// The 8 symmetries of the square. Symmetry s in 0..7 maps (x, y) by: if s & 4, transpose
// (swap x and y); then if s & 1, mirror x; then if s & 2, mirror y. 0 is the identity.
// The same numbering serves data augmentation, so it must never change.

#include "go/board.h"

namespace tengen::go {

constexpr int kNumSymmetries = 8;

// Image of (x, y) on a board of this size.
void ApplySymmetry(int sym, int size, int* x, int* y);
// Image of a location; kPassLoc and kNullLoc map to themselves.
Loc SymmetricLoc(Loc loc, int sym, int size);
// The symmetry that undoes sym.
int InverseSymmetry(int sym);
// The symmetry equal to applying a, then b.
int ComposeSymmetries(int a, int b);
// The whole position mapped by sym (stones, chains, hash, ko point).
Board SymmetricBoard(const Board& board, int sym);

}  // namespace tengen::go
