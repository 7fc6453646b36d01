// Transpositions in a search tree (search/transpositions.h): the position key, and the counts
// of positions a tree holds more than once.
#include <doctest/doctest.h>

#include <vector>

#include "go/board.h"
#include "go/game.h"
#include "search/mcts.h"
#include "search_fakes.h"
#include "util/rng.h"

using namespace tengen;
using namespace tengen::go;
using namespace tengen::search;

namespace {

const Loc kA = MakeLoc(2, 2, 9), kB = MakeLoc(6, 6, 9), kC = MakeLoc(2, 6, 9);

// Nearly all of the policy on three points while they are empty: the searches play them in
// every order, and black's two moves commute (A, B, C and C, B, A reach one position).
FakeEvaluator ThreePoints() {
  FakeEvaluator eval;
  eval.policy = [](const GameState& s) {
    std::vector<float> policy(9 * 9 + 1, 0.001f);
    for (const Loc loc : {kA, kB, kC})
      if (s.board().At(loc) == Color::kEmpty) policy[MoveIndex(loc, 9)] = 1;
    return policy;
  };
  return eval;
}

GameState After(const std::vector<Loc>& moves) {
  GameState state(9, Rules());
  for (const Loc loc : moves) state.Play({loc, state.to_move()});
  return state;
}

}  // namespace

TEST_CASE("transpositions: the key is the stones, the side to move, the ko point and passes") {
  CHECK(PositionKey(After({kA, kB, kC})) == PositionKey(After({kC, kB, kA})));
  CHECK(PositionKey(After({kA, kB, kC})) != PositionKey(After({kA, kC, kB})));
  GameState other_side = After({kA, kB, kC});
  other_side.set_to_move(Color::kBlack);
  CHECK(PositionKey(other_side) != PositionKey(After({kA, kB, kC})));
  // A pass changes no stone but what the next pass would do.
  GameState passed = After({kA, kB});
  passed.Play({kPassLoc, Color::kBlack});
  passed.Play({kPassLoc, Color::kWhite});
  GameState not_passed = After({kA, kB});
  CHECK(passed.to_move() == not_passed.to_move());
  CHECK(PositionKey(passed) != PositionKey(not_passed));
}

TEST_CASE("transpositions: a tree too shallow for two move orders holds every position once") {
  FakeEvaluator eval = ThreePoints();
  Rng rng(1);
  Search search(SearchParams(), eval, rng);
  search.SetPosition(GameState(9, Rules()));
  search.Run(6, /*full_search=*/false);
  const TreeTranspositions counts = search.CountTranspositions();
  CHECK(counts.expanded == eval.calls);
  CHECK(counts.distinct == counts.expanded);
}

TEST_CASE("transpositions: a deeper tree holds A, B, C and C, B, A as one position twice") {
  FakeEvaluator eval = ThreePoints();
  Rng rng(1);
  Search search(SearchParams(), eval, rng);
  search.SetPosition(GameState(9, Rules()));
  search.Run(200, /*full_search=*/false);
  const TreeTranspositions counts = search.CountTranspositions();
  // Every net evaluation expanded a node, and the walk reached each of them.
  CHECK(counts.expanded == eval.calls);
  CHECK(counts.distinct < counts.expanded);
  // Dropping the tree leaves nothing to count.
  search.ClearTree();
  const TreeTranspositions cleared = search.CountTranspositions();
  CHECK(cleared.expanded == 0);
  CHECK(cleared.distinct == 0);
}
