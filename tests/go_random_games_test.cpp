// Random games checked move by move against positions recomputed from scratch: the incremental
// chains, liberties, stone counts and hashes must always agree with a fresh rebuild.
#include <doctest/doctest.h>

#include <vector>

#include "go/board.h"
#include "go/game.h"
#include "go/playout.h"

using namespace tengen::go;

namespace {

// Compares the incremental state of `b` with a rebuild from its stones alone; returns the
// number of mismatches (0 when consistent).
int Mismatches(const Board& b, const int placed[3]) {
  Board fresh = b;
  fresh.RebuildChains();
  int bad = 0;
  if (fresh.hash() != b.hash()) ++bad;
  int counted[3] = {0, 0, 0};
  for (int y = 0; y < b.size(); ++y) {
    for (int x = 0; x < b.size(); ++x) {
      const Loc loc = b.LocOf(x, y);
      const Color c = b.At(loc);
      if (!IsStone(c)) continue;
      ++counted[static_cast<int>(c)];
      if (b.Liberties(loc) != fresh.Liberties(loc)) ++bad;
      if (b.ChainSize(loc) != fresh.ChainSize(loc)) ++bad;
      if (b.Liberties(loc) <= 0) ++bad;
      // Same chain membership: both boards agree on which stones share a head.
      if (fresh.ChainHead(b.ChainHead(loc)) != fresh.ChainHead(loc)) ++bad;
    }
  }
  for (Color c : {Color::kBlack, Color::kWhite}) {
    const int i = static_cast<int>(c);
    if (b.StoneCount(c) != counted[i]) ++bad;
    if (b.StoneCount(c) != placed[i] - b.CapturedCount(c)) ++bad;
  }
  return bad;
}

struct GameStats {
  int moves = 0;
  int captures = 0;
  int mismatches = 0;
};

GameStats PlayRandomGame(int size, const Rules& rules, tengen::Rng& rng) {
  GameState game(size, rules, /*max_moves=*/3 * size * size);
  GameStats stats;
  int placed[3] = {0, 0, 0};
  while (!game.IsOver()) {
    // Mostly non-eye random moves; sometimes any empty point, to reach suicides and eyes.
    Loc loc = RandomNonEyeMove(game, rng);
    if (rng.Uniform(8) == 0) {
      const Loc any = game.board().LocOf(static_cast<int>(rng.Uniform(size)),
                                         static_cast<int>(rng.Uniform(size)));
      if (game.IsLegal({any, game.to_move()})) loc = any;
    }
    const int captured_before =
        game.board().CapturedCount(Color::kBlack) + game.board().CapturedCount(Color::kWhite);
    if (loc != kPassLoc) ++placed[static_cast<int>(game.to_move())];
    game.Play({loc, game.to_move()});
    ++stats.moves;
    stats.captures += game.board().CapturedCount(Color::kBlack) +
                      game.board().CapturedCount(Color::kWhite) - captured_before;
    stats.mismatches += Mismatches(game.board(), placed);
    // A spot check of one chain's liberties by a flood fill that ignores chain bookkeeping.
    const Loc probe = game.board().LocOf(static_cast<int>(rng.Uniform(size)),
                                         static_cast<int>(rng.Uniform(size)));
    if (IsStone(game.board().At(probe)) &&
        game.board().Liberties(probe) != game.board().CountLibertiesFromScratch(probe))
      ++stats.mismatches;
  }
  return stats;
}

void RunRandomGames(int size, int games, uint64_t seed) {
  tengen::Rng rng(seed);
  long moves = 0, captures = 0, mismatches = 0;
  for (int i = 0; i < games; ++i) {
    Rules rules;
    rules.ko = i % 2 ? KoRule::kSimple : KoRule::kPositional;
    rules.suicide = i % 3 == 0;
    const GameStats s = PlayRandomGame(size, rules, rng);
    moves += s.moves;
    captures += s.captures;
    mismatches += s.mismatches;
  }
  MESSAGE(size << "x" << size << ": " << games << " games, " << moves << " moves, " << captures
               << " stones captured");
  CHECK(mismatches == 0);
  CHECK(captures > games);  // random games capture a lot: the check above was exercised
}

}  // namespace

TEST_CASE("random games 9x9: incremental state equals a rebuild after every move") {
  RunRandomGames(9, 2000, 91);
}

TEST_CASE("random games 19x19: incremental state equals a rebuild after every move") {
  RunRandomGames(19, 1000, 191);
}

TEST_CASE("random games: zobrist hashes survive undo back to the start") {
  tengen::Rng rng(5);
  for (int size : {9, 13, 19}) {
    GameState game(size);
    std::vector<uint64_t> hashes{game.board().hash()};
    std::vector<std::string> boards{game.board().ToAscii()};
    while (!game.IsOver() && game.moves().size() < 300) {
      game.Play({RandomNonEyeMove(game, rng), game.to_move()});
      hashes.push_back(game.board().hash());
      boards.push_back(game.board().ToAscii());
    }
    REQUIRE(game.moves().size() > 50);
    while (game.Undo()) {
      hashes.pop_back();
      boards.pop_back();
      Board fresh = game.board();
      fresh.RebuildChains();
      REQUIRE(game.board().hash() == hashes.back());
      REQUIRE(fresh.hash() == hashes.back());
      REQUIRE(game.board().ToAscii() == boards.back());
    }
    CHECK(hashes.size() == 1);
    CHECK(game.board().hash() == 0);
    // Replaying after undo takes the same course (the superko history was rolled back).
    CHECK(game.moves().empty());
  }
}
