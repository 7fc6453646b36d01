#include "go/symmetry.h"

#include <utility>

#include "util/error.h"

namespace tengen::go {
namespace {

// Two points whose images tell every symmetry of the square apart.
constexpr int kProbeSize = 5;
constexpr int kProbes[2][2] = {{0, 1}, {1, 3}};

bool SameOnProbes(int sym_a_then_b_a, int sym_a_then_b_b, int candidate) {
  for (const auto& p : kProbes) {
    int x = p[0], y = p[1];
    ApplySymmetry(sym_a_then_b_a, kProbeSize, &x, &y);
    ApplySymmetry(sym_a_then_b_b, kProbeSize, &x, &y);
    int cx = p[0], cy = p[1];
    ApplySymmetry(candidate, kProbeSize, &cx, &cy);
    if (x != cx || y != cy) return false;
  }
  return true;
}

}  // namespace

void ApplySymmetry(int sym, int size, int* x, int* y) {
  if (sym & 4) std::swap(*x, *y);
  if (sym & 1) *x = size - 1 - *x;
  if (sym & 2) *y = size - 1 - *y;
}

Loc SymmetricLoc(Loc loc, int sym, int size) {
  if (loc == kPassLoc || loc == kNullLoc) return loc;
  int x = LocX(loc, size);
  int y = LocY(loc, size);
  ApplySymmetry(sym, size, &x, &y);
  return MakeLoc(x, y, size);
}

int ComposeSymmetries(int a, int b) {
  for (int c = 0; c < kNumSymmetries; ++c)
    if (SameOnProbes(a, b, c)) return c;
  TENGEN_CHECK(false, "symmetries do not compose");
  return 0;
}

int InverseSymmetry(int sym) {
  for (int c = 0; c < kNumSymmetries; ++c)
    if (ComposeSymmetries(sym, c) == 0) return c;
  TENGEN_CHECK(false, "symmetry has no inverse");
  return 0;
}

Board SymmetricBoard(const Board& board, int sym) {
  const int size = board.size();
  Board out(size);
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const Loc from = board.LocOf(x, y);
      out.colors_[SymmetricLoc(from, sym, size)] = board.At(from);
    }
  }
  out.RebuildChains();
  out.ko_loc_ = SymmetricLoc(board.ko_loc_, sym, size);
  out.ko_banned_color_ = board.ko_banned_color_;
  out.captured_black_ = board.captured_black_;
  out.captured_white_ = board.captured_white_;
  return out;
}

}  // namespace tengen::go
