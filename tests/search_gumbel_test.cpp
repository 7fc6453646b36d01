// Gumbel root selection with sequential halving (SearchParams::gumbel): the schedule, how the
// visits are shared out, the move drawn and the policy target, which searches use it, and that
// it starts from a fresh tree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "go/board.h"
#include "go/game.h"
#include "search/mcts.h"
#include "search_fakes.h"
#include "util/error.h"
#include "util/rng.h"

using namespace tengen;
using namespace tengen::go;
using namespace tengen::search;

namespace {

// The black chain of five in the middle row has one liberty, at (4, 3); black to move
// captures five stones there.
constexpr const char* kCapture = R"(
  . . . . .
  X X X X X
  O O O O O
  X X X X .
  . . . . .)";

SearchParams GumbelParams(Gumbel use, int moves) {
  SearchParams params;
  params.gumbel = use;
  params.gumbel_moves = moves;
  return params;
}

// The visit counts of the root's visited children, largest first.
std::vector<int> VisitedCounts(const SearchResult& result) {
  std::vector<int> counts;
  for (int v : result.visits)
    if (v > 0) counts.push_back(v);
  std::sort(counts.rbegin(), counts.rend());
  return counts;
}

}  // namespace

TEST_CASE("gumbel: sequential halving's schedule halves the moves round by round") {
  // 16 moves, 49 simulations: 16 moves once, 8 once, 4 three times, then 2 until the end.
  const std::vector<int> schedule = SequentialHalvingVisits(16, 49);
  REQUIRE(schedule.size() == 49);
  for (size_t k = 0; k < 16; ++k) CHECK(schedule[k] == 0);
  for (size_t k = 16; k < 24; ++k) CHECK(schedule[k] == 1);
  CHECK(std::vector<int>(schedule.begin() + 24, schedule.begin() + 36) ==
        std::vector<int>{2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4});
  CHECK(std::vector<int>(schedule.begin() + 36, schedule.end()) ==
        std::vector<int>{5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11});
  CHECK(SequentialHalvingVisits(4, 8) == std::vector<int>{0, 0, 0, 0, 1, 1, 2, 2});
  CHECK(SequentialHalvingVisits(2, 4) == std::vector<int>{0, 0, 1, 1});
  CHECK(SequentialHalvingVisits(1, 4) == std::vector<int>{0, 1, 2, 3});
  CHECK(SequentialHalvingVisits(8, 0).empty());
}

TEST_CASE("gumbel: the visits go to gumbel_moves moves, the better half kept each round") {
  // 8 moves and 24 simulations: 8 visited once, then 4 twice more, then 2 four times more.
  FakeEvaluator eval;
  Rng rng(3);
  Search search(GumbelParams(Gumbel::kAll, 8), eval, rng);
  search.SetPosition(GameState(9, Rules()));
  const SearchResult r = search.Run(25, true);
  CHECK(r.root_visits == 25);
  CHECK(VisitedCounts(r) == std::vector<int>{7, 7, 3, 3, 1, 1, 1, 1});
  // The move played is one of the two most visited.
  CHECK(r.visits[MoveIndex(r.best_move, 9)] == 7);
  CHECK(r.move_drawn);
}

TEST_CASE("gumbel: finds a one-move capture, and its policy target puts nearly all on it") {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    Rules rules;
    rules.komi = 12.5;  // behind on the board until the capture
    const GameState game(Board::FromAscii(kCapture), rules, Color::kBlack);
    FakeEvaluator eval;
    eval.value = [](const GameState& s) {
      const Board& b = s.board();
      const int diff = b.StoneCount(Color::kBlack) - b.StoneCount(Color::kWhite);
      const double black_view = std::tanh(diff / 5.0);
      return static_cast<float>(s.to_move() == Color::kBlack ? black_view : -black_view);
    };
    Rng rng(seed);
    Search search(GumbelParams(Gumbel::kAll, 16), eval, rng);
    search.SetPosition(game);
    const SearchResult r = search.Run(64, true);
    const Loc capture = MakeLoc(4, 3, 5);
    CHECK(r.best_move == capture);
    CHECK(r.policy_target[MoveIndex(capture, 5)] > 0.9);
    // Every legal move keeps a share of the target, visited or not; occupied points none.
    CHECK(std::accumulate(r.policy_target.begin(), r.policy_target.end(), 0.0) ==
          doctest::Approx(1.0));
    for (int i = 0; i < 26; ++i) {
      const Loc loc = IndexToLoc(i, 5);
      const bool open = loc == kPassLoc || game.board().At(loc) == Color::kEmpty;
      CHECK((r.policy_target[static_cast<size_t>(i)] > 0) == (open && r.net_priors[i] > 0));
    }
  }
}

TEST_CASE("gumbel: the move is the search's own draw, so equal moves are played in turn") {
  // A flat value and uniform priors on the empty board: only the Gumbel draw tells the moves
  // apart, so different seeds play different moves.
  std::set<Loc> played;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    FakeEvaluator eval;
    Rng rng(seed);
    Search search(GumbelParams(Gumbel::kAll, 16), eval, rng);
    search.SetPosition(GameState(9, Rules()));
    const SearchResult r = search.Run(33, true);
    played.insert(r.best_move);
    // Temperature does not apply to a drawn move.
    Rng choice(seed);
    CHECK(r.ChooseMove(1.0, choice) == r.best_move);
  }
  CHECK(played.size() >= 10);
}

TEST_CASE("gumbel: cheap applies to cheap searches only, all to every search, off to none") {
  for (const Gumbel use : {Gumbel::kOff, Gumbel::kCheap, Gumbel::kAll}) {
    CAPTURE(GumbelName(use));
    for (const bool full : {false, true}) {
      FakeEvaluator eval;
      Rng rng(5);
      Search search(GumbelParams(use, 16), eval, rng);
      search.SetPosition(GameState(9, Rules()));
      const bool expected = use == Gumbel::kAll || (use == Gumbel::kCheap && !full);
      CHECK(search.Run(40, full).move_drawn == expected);
    }
  }
}

TEST_CASE("gumbel: gumbel_after_pass false turns it off from the game's first pass on") {
  for (const bool after_pass : {true, false}) {
    CAPTURE(after_pass);
    FakeEvaluator eval;
    Rng rng(5);
    SearchParams params = GumbelParams(Gumbel::kAll, 16);
    params.gumbel_after_pass = after_pass;
    Search search(params, eval, rng);
    GameState state(9, Rules());
    search.SetPosition(state);
    CHECK(search.Run(40, false).move_drawn);
    // A pass and a reply: the consecutive passes are 0 again, the game's passes are not.
    state.Play(Move{kPassLoc, Color::kBlack});
    state.Play(Move{state.board().LocOf(4, 4), Color::kWhite});
    search.SetPosition(state);
    CHECK(search.Run(40, false).move_drawn == after_pass);
    CHECK(search.Run(40, true).move_drawn == after_pass);
  }
}

TEST_CASE("gumbel: a Gumbel search starts from a fresh tree") {
  FakeEvaluator eval;
  Rng rng(7);
  Search search(GumbelParams(Gumbel::kCheap, 16), eval, rng);
  search.SetPosition(GameState(9, Rules()));
  CHECK(search.Run(30, false).root_visits == 30);
  const int calls = eval.calls;
  // A PUCT search would find its 30 visits already there; this one searches them again.
  const SearchResult again = search.Run(30, false);
  CHECK(again.root_visits == 30);
  CHECK(std::accumulate(again.visits.begin(), again.visits.end(), 0) == 29);
  CHECK(eval.calls - calls >= 25);
}

TEST_CASE("gumbel: the choice's names parse, another name is an error naming the key") {
  for (const std::string& name : GumbelNames()) CHECK(GumbelName(ParseGumbel(name)) == name);
  CHECK_THROWS_WITH_AS(ParseGumbel("sometimes"), doctest::Contains("gumbel: 'sometimes'"),
                       ConfigError);
}

TEST_CASE("gumbel: all the prior on a pass held back still leaves every point to draw from") {
  // On the empty board a pass is held back (pass_only_when_settled), and the net puts all its
  // prior there: the points share the draw evenly instead.
  FakeEvaluator eval;
  eval.policy = [](const GameState& s) {
    std::vector<float> policy(static_cast<size_t>(s.size() * s.size() + 1), 0.0f);
    policy.back() = 1;
    return policy;
  };
  Rng rng(13);
  Search search(GumbelParams(Gumbel::kAll, 16), eval, rng);
  search.SetPosition(GameState(9, Rules()));
  const SearchResult r = search.Run(20, true);
  CHECK(r.best_move != kPassLoc);
  CHECK(r.policy_target[MoveIndex(kPassLoc, 9)] == 0);
  CHECK(std::accumulate(r.policy_target.begin(), r.policy_target.end(), 0.0) ==
        doctest::Approx(1.0));
  CHECK(std::count_if(r.policy_target.begin(), r.policy_target.end(),
                      [](float p) { return p > 0; }) == 81);
}
