// Tromp-Taylor scoring: stones plus empty regions that reach only one colour.
#include <doctest/doctest.h>

#include "go/board.h"
#include "go/game.h"
#include "go/score.h"

using namespace tengen::go;

TEST_CASE("score: empty board is all dame, one stone owns everything") {
  Board b(9);
  CHECK(TrompTaylorScore(b, 0) == 0);
  CHECK(TrompTaylorScore(b, 7.5) == -7.5);
  b.Play(b.LocOf(4, 4), Color::kBlack);
  CHECK(TrompTaylorScore(b, 7.5) == 81 - 7.5);
  CHECK(ScoreToResult(TrompTaylorScore(b, 7.5)) == "B+73.5");
}

TEST_CASE("score: dame points count for nobody") {
  const Board b = Board::FromAscii(R"(
    . X O .
    X X O O
    X . O .
    X X O O)");
  const auto owner = AreaOwnership(b);
  CHECK(owner[b.LocOf(0, 0)] == Color::kBlack);
  CHECK(owner[b.LocOf(3, 0)] == Color::kWhite);
  CHECK(owner[b.LocOf(3, 2)] == Color::kWhite);
  CHECK(owner[b.LocOf(1, 2)] == Color::kEmpty);  // touches both colours
  CHECK(TrompTaylorScore(b, 0) == 7 - 8);
  CHECK(ScoreToResult(TrompTaylorScore(b, 0)) == "W+1");
  CHECK(ScoreToResult(TrompTaylorScore(b, 0.5)) == "W+1.5");
  CHECK(ScoreToResult(TrompTaylorScore(b, -1)) == "0");
}

TEST_CASE("score: seki stones count, the shared liberty is dame") {
  // Black and white each have one eye and share the liberty at (2,1): whoever fills it
  // puts their own group in atari, so both live in seki.
  const char* seki = R"(
    . X X O .
    X X . O O
    X X X O O
    X X X O O
    X X X O O)";
  const Board b = Board::FromAscii(seki);
  CHECK(b.Liberties(b.LocOf(1, 0)) == 2);
  CHECK(b.Liberties(b.LocOf(3, 0)) == 2);
  // The seki is real: filling the shared liberty leaves the filler in atari.
  for (Color c : {Color::kBlack, Color::kWhite}) {
    GameState g(b, Rules(), c);
    g.Play({b.LocOf(2, 1), c});
    CHECK(g.board().Liberties(b.LocOf(2, 1)) == 1);
  }
  const auto owner = AreaOwnership(b);
  CHECK(owner[b.LocOf(2, 1)] == Color::kEmpty);
  CHECK(owner[b.LocOf(0, 0)] == Color::kBlack);
  CHECK(owner[b.LocOf(4, 0)] == Color::kWhite);
  CHECK(TrompTaylorScore(b, 0) == 14 - 10);
  CHECK(ScoreToResult(TrompTaylorScore(b, 7.5)) == "W+3.5");
}
