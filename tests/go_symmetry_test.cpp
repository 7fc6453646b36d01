// The 8 symmetries of the square: round trips, composition, and whole positions.
#include <doctest/doctest.h>

#include <set>

#include "go/board.h"
#include "go/playout.h"
#include "go/symmetry.h"

using namespace tengen::go;

TEST_CASE("symmetry: the 8 maps are distinct and each has an inverse") {
  const int size = 7;
  std::set<std::pair<int, int>> images;
  for (int s = 0; s < kNumSymmetries; ++s) {
    int x = 1, y = 2;
    ApplySymmetry(s, size, &x, &y);
    images.insert({x, y});
    const int inv = InverseSymmetry(s);
    CHECK(ComposeSymmetries(s, inv) == 0);
    CHECK(ComposeSymmetries(inv, s) == 0);
    for (int yy = 0; yy < size; ++yy) {
      for (int xx = 0; xx < size; ++xx) {
        const Loc loc = MakeLoc(xx, yy, size);
        CHECK(SymmetricLoc(SymmetricLoc(loc, s, size), inv, size) == loc);
      }
    }
  }
  CHECK(images.size() == 8);
  CHECK(SymmetricLoc(kPassLoc, 5, size) == kPassLoc);
  // Rotation by 90 degrees four times is the identity; composition matches application.
  for (int a = 0; a < kNumSymmetries; ++a) {
    for (int b = 0; b < kNumSymmetries; ++b) {
      int x = 0, y = 3;
      ApplySymmetry(a, size, &x, &y);
      ApplySymmetry(b, size, &x, &y);
      int cx = 0, cy = 3;
      ApplySymmetry(ComposeSymmetries(a, b), size, &cx, &cy);
      CHECK(x == cx);
      CHECK(y == cy);
    }
  }
}

TEST_CASE("symmetry: whole positions round-trip and keep chains, liberties and ko") {
  tengen::Rng rng(7);
  for (int size : {5, 9, 19}) {
    GameState g(size, Rules(), 0);
    for (int i = 0; i < size * size / 2; ++i) {
      const Loc loc = RandomNonEyeMove(g, rng);
      g.Play({loc, g.to_move()});
    }
    const Board& b = g.board();
    for (int s = 0; s < kNumSymmetries; ++s) {
      const Board t = SymmetricBoard(b, s);
      const Board back = SymmetricBoard(t, InverseSymmetry(s));
      CHECK(back.hash() == b.hash());
      CHECK(back.ToAscii() == b.ToAscii());
      CHECK(back.ko_loc() == b.ko_loc());
      for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
          const Loc loc = b.LocOf(x, y);
          const Loc image = SymmetricLoc(loc, s, size);
          REQUIRE(t.At(image) == b.At(loc));
          if (IsStone(b.At(loc))) {
            CHECK(t.Liberties(image) == b.Liberties(loc));
            CHECK(t.ChainSize(image) == b.ChainSize(loc));
          }
        }
      }
    }
  }
}
