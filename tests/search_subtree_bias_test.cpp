// Subtree value bias correction (SearchParams::subtree_bias_factor): the key of a node's local
// shape, the entries a search keeps and what they learn, their release when a tree is dropped.
#include <doctest/doctest.h>

#include <numeric>
#include <utility>
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

// Every position looks won by 0.5 to the side to move: the net's value of a node is always
// worse for the player who moved into it than the playouts below it show.
FakeEvaluator Optimist() {
  FakeEvaluator eval;
  eval.value = [](const GameState&) { return 0.5f; };
  return eval;
}

// The optimist whose policy puts nearly everything on the four corners while they are empty:
// its searches go deep, through many move orders that end in the same two moves (the same
// shape, keys that recur), and so correct many nodes.
FakeEvaluator CornerOptimist() {
  FakeEvaluator eval = Optimist();
  eval.policy = [](const GameState& s) {
    const int size = s.size();
    std::vector<float> policy(static_cast<size_t>(size * size + 1), 0.001f);
    for (const Loc corner : {MakeLoc(0, 0, size), MakeLoc(size - 1, 0, size),
                             MakeLoc(0, size - 1, size), MakeLoc(size - 1, size - 1, size)}) {
      if (s.board().At(corner) == Color::kEmpty) policy[MoveIndex(corner, size)] = 1;
    }
    return policy;
  };
  return eval;
}

double TotalWeight(const Search& search) {
  double total = 0;
  for (const auto& entry : search.SubtreeBiasEntries()) total += entry.second;
  return total;
}

GameState After(const std::vector<std::pair<int, int>>& points) {
  GameState state(9, Rules());
  for (const auto& [x, y] : points) state.Play({MakeLoc(x, y, 9), state.to_move()});
  return state;
}

}  // namespace

TEST_CASE("subtree bias: the key is the last two moves and the shape around the last") {
  CHECK(SubtreeBiasKey(GameState(9, Rules())) == 0);
  CHECK(SubtreeBiasKey(After({{4, 4}})) == 0);  // no move before it
  GameState passed = After({{4, 4}});
  passed.Play({kPassLoc, passed.to_move()});
  CHECK(SubtreeBiasKey(passed) == 0);
  passed.Play({MakeLoc(2, 2, 9), passed.to_move()});
  CHECK(SubtreeBiasKey(passed) == 0);  // the move before it was a pass

  const uint64_t base = SubtreeBiasKey(After({{0, 8}, {8, 0}, {3, 3}, {4, 4}}));
  CHECK(base != 0);
  // A stone outside the 5x5 window around (4, 4) does not matter; one inside does.
  CHECK(SubtreeBiasKey(After({{0, 8}, {8, 8}, {3, 3}, {4, 4}})) == base);
  CHECK(SubtreeBiasKey(After({{0, 8}, {6, 6}, {3, 3}, {4, 4}})) != base);
  // Another move before it, or another last move, is another key.
  CHECK(SubtreeBiasKey(After({{0, 8}, {8, 0}, {3, 5}, {4, 4}})) != base);
  CHECK(SubtreeBiasKey(After({{0, 8}, {8, 0}, {3, 3}, {4, 5}})) != base);
  // A stone in the window in atari is another shape, though the window looks the same: the
  // black chain (3, 4)-(4, 4) reaches out of the window around (6, 4), where white takes all
  // its liberties but one in the first board and none in the second.
  const char* kAtari = R"(
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . O O . . . .
    . . O X X O . . .
    . . . . O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .)";
  const char* kFree = R"(
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . O . . . .
    . . . X X O . . .
    . . . . O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .)";
  const auto key_after_two = [](const char* ascii) {
    GameState state(Board::FromAscii(ascii), Rules(), Color::kBlack);
    state.Play({MakeLoc(0, 8, 9), Color::kBlack});
    state.Play({MakeLoc(6, 4, 9), Color::kWhite});
    return SubtreeBiasKey(state);
  };
  CHECK(key_after_two(kAtari) != key_after_two(kFree));
}

TEST_CASE("subtree bias: off by default, no entries and the search as before") {
  FakeEvaluator eval = Optimist();
  Rng rng(1);
  Search search(SearchParams(), eval, rng);
  search.SetPosition(After({{4, 4}, {2, 2}}));
  search.Run(200, false);
  CHECK(search.SubtreeBiasEntries().empty());
}

TEST_CASE("subtree bias: the entries learn that the net underrates the mover, and correct it") {
  SearchParams on;
  on.subtree_bias_factor = 0.3;
  FakeEvaluator eval = CornerOptimist();
  Rng rng(2);
  Search search(on, eval, rng);
  search.SetPosition(After({{4, 4}, {2, 2}}));
  const SearchResult with_bias = search.Run(400, false);
  const auto entries = search.SubtreeBiasEntries();
  REQUIRE(!entries.empty());
  // The net says -0.5 for the player who moved into a node; the playouts below it (its
  // children at +0.5, minus their corrections, its grandchildren at -0.5, plus theirs, and a
  // rare finished game) come out better: the entries learn a positive difference.
  int learned = 0, positive = 0;
  double weighted = 0, total = 0;
  for (const auto& [mean, weight] : entries) {
    if (weight <= 0) continue;
    ++learned;
    positive += mean > 0 ? 1 : 0;
    weighted += mean * weight;
    total += weight;
  }
  CHECK(learned > 10);
  CHECK(positive >= 0.8 * learned);
  CHECK(weighted / total > 0.2);

  // The same search without the correction spends its visits differently.
  FakeEvaluator plain_eval = CornerOptimist();
  Rng plain_rng(2);
  Search plain(SearchParams(), plain_eval, plain_rng);
  plain.SetPosition(After({{4, 4}, {2, 2}}));
  CHECK(plain.Run(400, false).visits != with_bias.visits);
}

TEST_CASE("subtree bias: a dropped tree takes free_prop of what it added back out") {
  for (const double free_prop : {0.8, 1.0}) {
    CAPTURE(free_prop);
    SearchParams on;
    on.subtree_bias_factor = 0.3;
    on.subtree_bias_free_prop = free_prop;
    FakeEvaluator eval = Optimist();
    Rng rng(3);
    Search search(on, eval, rng);
    search.SetPosition(After({{4, 4}, {2, 2}}));
    search.Run(300, false);
    const double before = TotalWeight(search);
    REQUIRE(before > 0);
    search.ClearTree();
    CHECK(TotalWeight(search) == doctest::Approx((1 - free_prop) * before).epsilon(1e-9));
    // A new game starts without entries.
    search.SetPosition(After({{4, 4}}));
    CHECK(search.SubtreeBiasEntries().empty());
  }
}
