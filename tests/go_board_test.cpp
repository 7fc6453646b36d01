// Rules tests on ASCII boards (top row first, X black, O white): captures, suicide, ko,
// superko, passes and game end.
#include <doctest/doctest.h>

#include "go/board.h"
#include "go/game.h"
#include "util/error.h"

using namespace tengen::go;

namespace {

GameState FromAscii(const std::string& ascii, KoRule ko = KoRule::kPositional,
                    bool suicide = false) {
  Rules rules;
  rules.ko = ko;
  rules.suicide = suicide;
  return GameState(Board::FromAscii(ascii), rules, Color::kBlack);
}

Move B(const GameState& g, int x, int y) { return {g.board().LocOf(x, y), Color::kBlack}; }
Move W(const GameState& g, int x, int y) { return {g.board().LocOf(x, y), Color::kWhite}; }
Color ColorAt(const GameState& g, int x, int y) { return g.board().At(g.board().LocOf(x, y)); }

}  // namespace

TEST_CASE("board: ascii round trip and chain bookkeeping") {
  const Board b = Board::FromAscii(R"(
    . X O . .
    X X O . .
    . . O O .
    . . . . .
    . . . . X)");
  CHECK(b.size() == 5);
  CHECK(Board::FromAscii(b.ToAscii()).hash() == b.hash());
  CHECK(b.ChainSize(b.LocOf(1, 0)) == 3);
  CHECK(b.Liberties(b.LocOf(1, 0)) == 3);
  CHECK(b.ChainSize(b.LocOf(2, 0)) == 4);
  CHECK(b.Liberties(b.LocOf(2, 0)) == 6);
  CHECK(b.Liberties(b.LocOf(4, 4)) == 2);
  CHECK(b.StoneCount(Color::kBlack) == 4);
  CHECK(b.StoneCount(Color::kWhite) == 4);
  CHECK_THROWS_AS(Board::FromAscii("X O\nO ."), tengen::FormatError);  // X has no liberty
  CHECK_THROWS_AS(Board::FromAscii("X .\n. . ."), tengen::FormatError);
}

TEST_CASE("board: single stone capture") {
  GameState g = FromAscii(R"(
    . . . . .
    . . X . .
    . X O . .
    . . X . .
    . . . . .)");
  CHECK(g.board().Liberties(g.board().LocOf(2, 2)) == 1);
  g.Play(B(g, 3, 2));
  CHECK(ColorAt(g, 2, 2) == Color::kEmpty);
  CHECK(g.board().CapturedCount(Color::kWhite) == 1);
  CHECK(g.board().StoneCount(Color::kWhite) == 0);
  CHECK(g.board().Liberties(g.board().LocOf(3, 2)) == 4);
  CHECK(g.board().Liberties(g.board().LocOf(2, 1)) == 4);
}

TEST_CASE("board: group capture on the edge restores liberties") {
  GameState g = FromAscii(R"(
    O O O . .
    X X X . .
    . . . . .
    . . . . .
    . . . . .)");
  const Loc black_row = g.board().LocOf(0, 1);
  CHECK(g.board().Liberties(black_row) == 4);
  g.Play(B(g, 3, 0));
  for (int x = 0; x < 3; ++x) CHECK(ColorAt(g, x, 0) == Color::kEmpty);
  CHECK(g.board().CapturedCount(Color::kWhite) == 3);
  CHECK(g.board().Liberties(black_row) == 7);  // 3 freed above + (0,2),(1,2),(2,2),(3,1)
  CHECK(g.board().Liberties(black_row) == g.board().CountLibertiesFromScratch(black_row));
}

TEST_CASE("board: one move captures several groups") {
  GameState g = FromAscii(R"(
    O X . X O
    . O X O .
    . . . . .
    . . . . .
    . . . . .)");
  CHECK(g.board().Liberties(g.board().LocOf(1, 0)) == 1);
  CHECK(g.board().Liberties(g.board().LocOf(3, 0)) == 1);
  CHECK(g.board().Liberties(g.board().LocOf(2, 1)) == 2);
  g.Play(W(g, 2, 0));
  CHECK(ColorAt(g, 1, 0) == Color::kEmpty);
  CHECK(ColorAt(g, 3, 0) == Color::kEmpty);
  CHECK(ColorAt(g, 2, 1) == Color::kBlack);
  CHECK(g.board().CapturedCount(Color::kBlack) == 2);
  CHECK(g.board().Liberties(g.board().LocOf(2, 0)) == 2);
  CHECK(g.board().Liberties(g.board().LocOf(2, 1)) == 1);
  CHECK(g.board().Liberties(g.board().LocOf(0, 0)) == 2);  // (1,0) was freed
}

TEST_CASE("board: suicide is illegal by default and legal with the rule switch") {
  // Each white stone has the single liberty (0,0).
  const char* position = R"(
    . O X . .
    O X . . .
    X . . . .
    . . . . .
    . . . . .)";
  GameState g = FromAscii(position);
  CHECK(g.Check(W(g, 0, 0)) == Illegal::kSuicide);  // multi-stone suicide
  // Black at (0,0) fills its own last liberty but captures both stones: not suicide.
  CHECK(g.Check(B(g, 0, 0)) == Illegal::kNone);
  g.Play(B(g, 0, 0));
  CHECK(ColorAt(g, 1, 0) == Color::kEmpty);
  CHECK(ColorAt(g, 0, 1) == Color::kEmpty);
  CHECK(g.board().CapturedCount(Color::kWhite) == 2);
  CHECK(g.board().Liberties(g.board().LocOf(0, 0)) == 2);

  GameState s = FromAscii(position, KoRule::kPositional, /*suicide=*/true);
  CHECK(s.Check(W(s, 0, 0)) == Illegal::kNone);
  const int removed_before = s.board().CapturedCount(Color::kWhite);
  s.Play(W(s, 0, 0));
  CHECK(ColorAt(s, 0, 0) == Color::kEmpty);
  CHECK(ColorAt(s, 1, 0) == Color::kEmpty);
  CHECK(ColorAt(s, 0, 1) == Color::kEmpty);
  CHECK(s.board().CapturedCount(Color::kWhite) == removed_before + 3);
  CHECK(s.board().StoneCount(Color::kWhite) == 0);
  CHECK(s.board().Liberties(s.board().LocOf(1, 1)) == 4);

  // Single-stone suicide changes nothing, so it is illegal under either setting.
  const char* corner = R"(
    . O . . .
    O . . . .
    . . . . .
    . . . . .
    . . . . .)";
  for (bool suicide : {false, true}) {
    GameState c = FromAscii(corner, KoRule::kPositional, suicide);
    CHECK(c.Check(B(c, 0, 0)) == Illegal::kSuicide);
  }
}

TEST_CASE("board: snapback") {
  GameState g = FromAscii(R"(
    . . . . .
    . . . . .
    X X . . .
    O O X . .
    . . X . .)");
  // Black throws in at the corner; white captures; black retakes three stones.
  g.Play(B(g, 0, 4));
  CHECK(g.board().Liberties(g.board().LocOf(0, 3)) == 1);
  g.Play(W(g, 1, 4));
  CHECK(ColorAt(g, 0, 4) == Color::kEmpty);
  CHECK(g.board().ko_loc() == kNullLoc);  // three stones in the capturing chain: no ko
  CHECK(g.board().Liberties(g.board().LocOf(1, 4)) == 1);
  g.Play(B(g, 0, 4));
  CHECK(ColorAt(g, 0, 3) == Color::kEmpty);
  CHECK(ColorAt(g, 1, 3) == Color::kEmpty);
  CHECK(ColorAt(g, 1, 4) == Color::kEmpty);
  CHECK(g.board().CapturedCount(Color::kWhite) == 3);
  CHECK(g.board().CapturedCount(Color::kBlack) == 1);
}

namespace {
const char* kKoPosition = R"(
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . . . . .)";
}

TEST_CASE("board: simple ko bans the immediate recapture only") {
  for (KoRule rule : {KoRule::kSimple, KoRule::kPositional}) {
    GameState g = FromAscii(kKoPosition, rule);
    g.Play(B(g, 2, 1));
    CHECK(ColorAt(g, 1, 1) == Color::kEmpty);
    CHECK(g.board().ko_loc() == g.board().LocOf(1, 1));
    CHECK(g.Check(W(g, 1, 1)) == Illegal::kKo);
    CHECK(g.Check(B(g, 1, 1)) == Illegal::kNone);  // filling the ko is fine
    g.Play(W(g, 4, 4));
    g.Play(B(g, 4, 3));
    CHECK(g.Check(W(g, 1, 1)) == Illegal::kNone);  // after a ko threat exchange
    g.Play(W(g, 1, 1));
    CHECK(ColorAt(g, 2, 1) == Color::kEmpty);
    CHECK(g.Check(B(g, 2, 1)) == Illegal::kKo);
  }
}

TEST_CASE("board: positional superko forbids a cycle that simple ko allows") {
  // Black takes the ko, white passes (which clears the simple-ko ban), and white retakes:
  // the board returns to the position before black's capture.
  GameState simple = FromAscii(kKoPosition, KoRule::kSimple);
  GameState positional = FromAscii(kKoPosition, KoRule::kPositional);
  for (GameState* g : {&simple, &positional}) {
    g->Play(B(*g, 2, 1));
    g->Play({kPassLoc, Color::kWhite});
    g->Play({kPassLoc, Color::kBlack});
  }
  CHECK(simple.Check(W(simple, 1, 1)) == Illegal::kNone);
  CHECK(positional.Check(W(positional, 1, 1)) == Illegal::kSuperko);
  const uint64_t start_hash = Board::FromAscii(kKoPosition).hash();
  simple.Play(W(simple, 1, 1));
  CHECK(simple.board().hash() == start_hash);
  // Undo forgets the repeated position: positional superko sees the same history again.
  positional.Undo();
  positional.Undo();
  CHECK(positional.Check(W(positional, 1, 1)) == Illegal::kKo);
}

TEST_CASE("game: passes end the game, move cap ends it too") {
  GameState g(9);
  CHECK_FALSE(g.IsOver());
  CHECK(g.passes() == 0);
  g.Play({kPassLoc, Color::kBlack});
  CHECK(g.consecutive_passes() == 1);
  CHECK(g.passes() == 1);
  CHECK_FALSE(g.IsOver());
  g.Play({g.board().LocOf(4, 4), Color::kWhite});
  CHECK(g.consecutive_passes() == 0);
  CHECK(g.passes() == 1);  // all passes of the game, not only the consecutive ones
  g.Play({kPassLoc, Color::kBlack});
  g.Play({kPassLoc, Color::kWhite});
  CHECK(g.IsOver());
  CHECK(g.passes() == 3);
  CHECK(g.to_move() == Color::kBlack);
  g.Undo();
  CHECK_FALSE(g.IsOver());
  CHECK(g.passes() == 2);
  CHECK(g.to_move() == Color::kWhite);
  g.Undo();
  CHECK(g.passes() == 1);
  g.Undo();  // the stone: the count of passes stays
  CHECK(g.passes() == 1);
  g.Undo();
  CHECK(g.passes() == 0);

  GameState capped(9, Rules(), /*max_moves=*/3);
  capped.Play({capped.board().LocOf(0, 0), Color::kBlack});
  capped.Play({capped.board().LocOf(1, 0), Color::kWhite});
  CHECK_FALSE(capped.IsOver());
  capped.Play({capped.board().LocOf(2, 0), Color::kBlack});
  CHECK(capped.IsOver());
  CHECK(capped.ReachedMoveCap());
}

TEST_CASE("game: illegal moves are reported and change nothing") {
  GameState g(5);
  const Loc center = g.board().LocOf(2, 2);
  g.Play({center, Color::kBlack});
  const uint64_t hash = g.board().hash();
  CHECK(g.Check({center, Color::kWhite}) == Illegal::kOccupied);
  CHECK_FALSE(g.TryPlay({center, Color::kWhite}));
  CHECK(g.Check({kNullLoc, Color::kWhite}) == Illegal::kOffBoard);
  CHECK(g.board().hash() == hash);
  CHECK(g.moves().size() == 1);
  CHECK_THROWS_AS(g.Play({center, Color::kWhite}), tengen::CheckError);
  // A move without a colour is a bug in the caller, caught before it can touch the board.
  CHECK_THROWS_AS(g.Check({g.board().LocOf(0, 0), Color::kEmpty}), tengen::CheckError);
  CHECK(g.board().hash() == hash);
}
