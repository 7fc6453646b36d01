// Pass-alive area (Benson's unconditional life) and the score of a board that is pass-alive
// throughout.
#include <doctest/doctest.h>

#include "go/board.h"
#include "go/pass_alive.h"
#include "go/score.h"

using namespace tengen::go;

namespace {

// Black lives on the left with eyes at A5, A3 and A1, white on the right with eyes at E5, E3
// and E1: every point is one side's pass-alive area.
const char* kSettled = R"(
  . X X O .
  X X X O O
  . X X O .
  X X X O O
  . X X O .)";

int Count(const Board& b, const std::array<Color, kMaxArraySize>& area, Color c) {
  int n = 0;
  for (int y = 0; y < b.size(); ++y)
    for (int x = 0; x < b.size(); ++x) n += area[b.LocOf(x, y)] == c ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("pass-alive: the empty board and a lone stone are nobody's") {
  Board b(9);
  CHECK_FALSE(WholeBoardPassAlive(b));
  b.Play(b.LocOf(4, 4), Color::kBlack);
  const auto area = PassAliveArea(b);
  CHECK(Count(b, area, Color::kBlack) == 0);
  CHECK(Count(b, area, Color::kWhite) == 0);
  CHECK_FALSE(WholeBoardPassAlive(b));
}

TEST_CASE("pass-alive: two chains with two eyes each cover the board") {
  const Board b = Board::FromAscii(kSettled);
  const auto area = PassAliveArea(b);
  CHECK(area[b.LocOf(0, 0)] == Color::kBlack);  // an eye
  CHECK(area[b.LocOf(1, 2)] == Color::kBlack);  // a stone
  CHECK(area[b.LocOf(4, 4)] == Color::kWhite);
  CHECK(Count(b, area, Color::kBlack) == 15);
  CHECK(Count(b, area, Color::kWhite) == 10);
  CHECK(WholeBoardPassAlive(b));
  CHECK(OwnedAreaScore(b, area, 0.5) == 15 - 10 - 0.5);
  CHECK(OwnedAreaScore(b, area, 0.5) == TrompTaylorScore(b, 0.5));  // nothing dead here
}

TEST_CASE("pass-alive: a dead stone in an eye counts for the eye's owner") {
  // White's stone at A5 sits in black's two-point eye (A5, B5): it cannot live, and black
  // need not capture it. Tromp-Taylor counts it for white and B5 as dame until it is taken.
  const Board b = Board::FromAscii(R"(
    O . X O .
    X X X O O
    . X X O .
    X X X O O
    . X X O .)");
  const auto area = PassAliveArea(b);
  CHECK(area[b.LocOf(0, 0)] == Color::kBlack);
  CHECK(area[b.LocOf(1, 0)] == Color::kBlack);
  CHECK(WholeBoardPassAlive(b));
  CHECK(OwnedAreaScore(b, area, 0) == 15 - 10);
  CHECK(TrompTaylorScore(b, 0) == 13 - 11);
}

TEST_CASE("pass-alive: one eye is not enough, nor a big open area") {
  // Black's group has one eye (A5) and a wide open area below it whose inner points are not
  // its liberties: white could live there or fill it, so nothing is pass-alive.
  const Board b = Board::FromAscii(R"(
    . X . . .
    X X . . .
    . . . . .
    . . . . .
    . . . . .)");
  const auto area = PassAliveArea(b);
  CHECK(Count(b, area, Color::kBlack) == 0);
  CHECK_FALSE(WholeBoardPassAlive(b));
  // The settled board with white's eyes filled from E5 down to E3 to one: white's chain keeps
  // one eye (E1) and dies; black's side stays alive, the board is no longer covered.
  const Board filled = Board::FromAscii(R"(
    . X X O O
    X X X O O
    . X X O O
    X X X O O
    . X X O .)");
  const auto filled_area = PassAliveArea(filled);
  CHECK(Count(filled, filled_area, Color::kBlack) == 15);
  CHECK(Count(filled, filled_area, Color::kWhite) == 0);
  CHECK_FALSE(WholeBoardPassAlive(filled));
}
