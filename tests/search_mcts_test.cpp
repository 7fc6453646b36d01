// MCTS with fake evaluators: captures, sign conventions, PUCT visit shares, root noise and
// temperature, move choice, forced playouts and target pruning, tree reuse, pass handling, and
// the playout-cap and resignation helpers. Statistical checks use fixed seeds and wide margins.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include "go/board.h"
#include "go/game.h"
#include "go/score.h"
#include "search/leaf_evaluator.h"
#include "search/mcts.h"
#include "search/selfplay_helpers.h"
#include "search_fakes.h"
#include "util/error.h"
#include "util/rng.h"

using namespace tengen;
using namespace tengen::go;
using namespace tengen::search;

namespace {

float ForSideToMove(const GameState& state, double black_view) {
  return static_cast<float>(state.to_move() == Color::kBlack ? black_view : -black_view);
}

// Stone difference, squashed into (-1, 1).
float MaterialValue(const GameState& s) {
  const Board& b = s.board();
  const int diff = b.StoneCount(Color::kBlack) - b.StoneCount(Color::kWhite);
  return ForSideToMove(s, std::tanh(diff / 5.0));
}

// The Tromp-Taylor lead as if the game ended now, squashed into (-1, 1).
float TrompTaylorValue(const GameState& s) {
  return ForSideToMove(s, std::tanh(TrompTaylorScore(s.board(), s.rules().komi) / 5.0));
}

// A policy with the given probabilities on points (pass last in MoveIndex order), 0 elsewhere.
std::vector<float> PolicyOn(int size, const std::vector<std::pair<Loc, float>>& moves) {
  std::vector<float> policy(size * size + 1, 0.0f);
  for (const auto& [loc, p] : moves) policy[MoveIndex(loc, size)] = p;
  return policy;
}

// Swaps the colours of an ASCII board.
std::string SwapColors(std::string text) {
  for (char& c : text) c = c == 'X' ? 'O' : c == 'O' ? 'X' : c;
  return text;
}

// The black chain of five in the middle row has one liberty, at C (4, 3); black to move
// captures five stones there.
constexpr const char* kCapture = R"(
  . . . . .
  X X X X X
  O O O O O
  X X X X .
  . . . . .)";

SearchParams NoNoise() {
  SearchParams params;
  params.dirichlet_weight = 0;
  return params;
}

double Share(const SearchResult& r, Loc loc) {
  const double total = std::accumulate(r.visits.begin(), r.visits.end(), 0.0);
  return r.visits[MoveIndex(loc, r.size)] / total;
}

}  // namespace

TEST_CASE("search: move indices put points row by row and the pass last") {
  CHECK(MoveIndex(MakeLoc(0, 0, 9), 9) == 0);
  CHECK(MoveIndex(MakeLoc(3, 2, 9), 9) == 21);
  CHECK(MoveIndex(kPassLoc, 9) == 81);
  for (int i = 0; i <= 81; ++i) CHECK(MoveIndex(IndexToLoc(i, 9), 9) == i);
}

TEST_CASE("search: uniform evaluator spreads the policy over legal moves only") {
  GameState game(GameState(Board::FromAscii(kCapture), Rules(), Color::kBlack));
  const LeafEvaluation eval = UniformEvaluator().Evaluate(game);
  REQUIRE(eval.policy.size() == 26);
  CHECK(std::accumulate(eval.policy.begin(), eval.policy.end(), 0.0) == doctest::Approx(1.0));
  CHECK(eval.policy[MoveIndex(MakeLoc(0, 1, 5), 5)] == 0);  // occupied
  CHECK(eval.policy[MoveIndex(MakeLoc(4, 3, 5), 5)] == doctest::Approx(1 / 12.0));
  CHECK(eval.value == 0);
}

TEST_CASE("search: finds a one-move capture of five stones, for either colour") {
  for (bool black : {true, false}) {
    for (auto value : {&MaterialValue, &TrompTaylorValue}) {
      CAPTURE(black);
      const Board board = Board::FromAscii(black ? kCapture : SwapColors(kCapture));
      Rules rules;
      // Behind on the board until the capture: 14 points to 5 before it, 25 to 0 after.
      rules.komi = black ? 12.5 : -12.5;
      GameState game(board, rules, black ? Color::kBlack : Color::kWhite);
      FakeEvaluator eval;
      eval.value = value;
      Rng rng(1);
      Search search(NoNoise(), eval, rng);
      search.SetPosition(game);
      const SearchResult r = search.Run(400, false);
      CHECK(r.best_move == MakeLoc(4, 3, 5));
      // Values are reported from the side to move's view, whichever colour it is.
      CHECK(r.root_value > 0.3);
      CHECK(r.root_visits == 400);
      CHECK(std::accumulate(r.visits.begin(), r.visits.end(), 0) == 399);
    }
  }
}

TEST_CASE("search: root value keeps the sign of the side to move through the tree") {
  // Every leaf says black is ahead by 0.5, whoever is to move and however deep.
  FakeEvaluator eval;
  eval.value = [](const GameState& s) { return ForSideToMove(s, 0.5); };
  for (Color to_move : {Color::kBlack, Color::kWhite}) {
    Rules rules;
    rules.komi = 0;  // a pass-pass leaf on a near-empty board is a draw, not a swing
    GameState game(Board(5), rules, to_move);
    Rng rng(2);
    Search search(NoNoise(), eval, rng);
    search.SetPosition(game);
    const SearchResult r = search.Run(300, false);
    if (to_move == Color::kBlack) {
      CHECK(r.root_value == doctest::Approx(0.5).epsilon(0.1));
    } else {
      CHECK(r.root_value == doctest::Approx(-0.5).epsilon(0.1));
    }
  }
}

TEST_CASE("search: under a flat value, visit shares follow the priors") {
  const Loc a = MakeLoc(2, 2, 9), b = MakeLoc(6, 6, 9), c = MakeLoc(4, 4, 9);
  FakeEvaluator eval;
  eval.policy = [&](const GameState&) { return PolicyOn(9, {{a, 0.6f}, {b, 0.3f}, {c, 0.1f}}); };
  for (double cpuct : {0.5, 1.1, 3.0}) {
    CAPTURE(cpuct);
    SearchParams params = NoNoise();
    params.cpuct = cpuct;
    Rng rng(3);
    Search search(params, eval, rng);
    search.SetPosition(GameState(9));
    const SearchResult r = search.Run(2000, false);
    CHECK(Share(r, a) == doctest::Approx(0.6).epsilon(0.05));
    CHECK(Share(r, b) == doctest::Approx(0.3).epsilon(0.1));
    CHECK(Share(r, c) == doctest::Approx(0.1).epsilon(0.2));
    CHECK(Share(r, kPassLoc) == 0);  // prior 0
    CHECK(r.best_move == a);
  }
}

TEST_CASE("search: a larger cpuct spreads visits onto the worse of two equal-prior moves") {
  const Loc a = MakeLoc(2, 2, 9), b = MakeLoc(6, 6, 9);
  FakeEvaluator eval;
  eval.policy = [&](const GameState&) { return PolicyOn(9, {{a, 0.5f}, {b, 0.5f}}); };
  // Black's view: +0.1 below a first move at a, -0.1 below b.
  eval.value = [&](const GameState& s) {
    if (s.moves().empty()) return 0.0f;
    return ForSideToMove(s, s.moves()[0].loc == a ? 0.1 : -0.1);
  };
  std::vector<double> worse_share;
  for (double cpuct : {0.25, 4.0}) {
    SearchParams params = NoNoise();
    params.cpuct = cpuct;
    Rng rng(4);
    Search search(params, eval, rng);
    search.SetPosition(GameState(9));
    const SearchResult r = search.Run(1000, false);
    CHECK(r.best_move == a);
    worse_share.push_back(Share(r, b));
  }
  // PUCT equilibrium: about 2% at cpuct 0.25 and 22% at 4.
  CHECK(worse_share[0] < 0.06);
  CHECK(worse_share[1] > 0.15);
}

TEST_CASE("search: Dirichlet noise perturbs the root priors of full searches only") {
  UniformEvaluator eval;
  SearchParams params;                    // noise weight 0.25 by default
  params.pass_only_when_settled = false;  // the pass too gets noise
  for (bool full : {false, true}) {
    CAPTURE(full);
    Rng rng(5);
    Search search(params, eval, rng);
    search.SetPosition(GameState(9));
    const SearchResult r = search.Run(1, full);
    CHECK(std::accumulate(r.root_priors.begin(), r.root_priors.end(), 0.0) == doctest::Approx(1.0));
    double max_diff = 0;
    for (float p : r.root_priors) {
      CHECK(p > 0);
      max_diff = std::max(max_diff, std::abs(p - 1 / 82.0));
    }
    if (full) {
      CHECK(max_diff > 0.005);
    } else {
      CHECK(max_diff < 1e-6);
    }
  }
  // Illegal moves get no noise.
  GameState game(Board::FromAscii(kCapture), Rules(), Color::kBlack);
  Rng rng(6);
  Search search(params, eval, rng);
  search.SetPosition(game);
  const SearchResult r = search.Run(1, true);
  CHECK(r.root_priors[MoveIndex(MakeLoc(0, 1, 5), 5)] == 0);
  CHECK(std::accumulate(r.root_priors.begin(), r.root_priors.end(), 0.0) == doctest::Approx(1.0));
}

TEST_CASE("search: root policy temperature above 1 flattens the root priors") {
  const Loc a = MakeLoc(2, 2, 9), b = MakeLoc(6, 6, 9), c = MakeLoc(4, 4, 9);
  FakeEvaluator eval;
  eval.policy = [&](const GameState&) { return PolicyOn(9, {{a, 0.6f}, {b, 0.3f}, {c, 0.1f}}); };
  SearchParams params = NoNoise();
  params.root_policy_temperature = 2.0;
  Rng rng(7);
  Search search(params, eval, rng);
  search.SetPosition(GameState(9));
  const SearchResult full = search.Run(1, true);
  const double norm = std::sqrt(0.6) + std::sqrt(0.3) + std::sqrt(0.1);
  CHECK(full.root_priors[MoveIndex(a, 9)] == doctest::Approx(std::sqrt(0.6) / norm));
  CHECK(full.root_priors[MoveIndex(c, 9)] == doctest::Approx(std::sqrt(0.1) / norm));
  CHECK(full.root_priors[MoveIndex(a, 9)] < 0.6);
  CHECK(full.root_priors[MoveIndex(c, 9)] > 0.1);
  // Cheap searches and later runs on the same tree see the evaluator's priors unchanged.
  const SearchResult cheap = search.Run(1, false);
  CHECK(cheap.root_priors[MoveIndex(a, 9)] == doctest::Approx(0.6));
}

TEST_CASE("search: a small root policy temperature sharpens the priors without underflow") {
  // Every prior is below 0.36, so p^(1/T) at T = 0.01 underflows each of them to 0.
  const Loc a = MakeLoc(2, 2, 9), b = MakeLoc(6, 6, 9), c = MakeLoc(4, 4, 9), d = MakeLoc(1, 7, 9);
  FakeEvaluator eval;
  eval.policy = [&](const GameState&) {
    return PolicyOn(9, {{a, 0.35f}, {b, 0.3f}, {c, 0.2f}, {d, 0.15f}});
  };
  SearchParams params = NoNoise();
  params.root_policy_temperature = 0.01;
  Rng rng(7);
  Search search(params, eval, rng);
  search.SetPosition(GameState(9));
  const SearchResult full = search.Run(1, true);
  CHECK(std::accumulate(full.root_priors.begin(), full.root_priors.end(), 0.0) ==
        doctest::Approx(1.0));
  CHECK(full.root_priors[MoveIndex(a, 9)] == doctest::Approx(1.0));
  CHECK(full.root_priors[MoveIndex(b, 9)] > 0);  // (0.3 / 0.35)^100 = 2e-7
  CHECK(full.root_priors[MoveIndex(b, 9)] < 1e-6);
  CHECK(full.root_priors[MoveIndex(c, 9)] < full.root_priors[MoveIndex(b, 9)]);
}

TEST_CASE("search: move choice with temperature 0 takes the most visits, 1 samples them") {
  SearchResult r;
  r.size = 2;
  r.visits = {0, 60, 30, 10, 0};
  r.policy_target = {0, 0.6f, 0.3f, 0.1f, 0};
  r.best_move = IndexToLoc(1, 2);
  Rng rng(8);
  CHECK(r.ChooseMove(0, rng) == IndexToLoc(1, 2));
  for (double temperature : {1.0, 0.5}) {
    std::vector<int> counts(5, 0);
    const int draws = 20000;
    for (int i = 0; i < draws; ++i) ++counts[MoveIndex(r.ChooseMove(temperature, rng), 2)];
    CHECK(counts[0] == 0);
    CHECK(counts[4] == 0);
    // p^(1/T), normalised: T = 1 keeps 0.6/0.3/0.1; T = 0.5 gives 0.78/0.20/0.02.
    const double norm = temperature == 1.0 ? 1.0 : 0.46;
    const double expected_top = std::pow(0.6, 1 / temperature) / norm;
    const double expected_low = std::pow(0.1, 1 / temperature) / norm;
    CHECK(counts[1] / double(draws) == doctest::Approx(expected_top).epsilon(0.03));
    CHECK(counts[3] / double(draws) == doctest::Approx(expected_low).epsilon(0.2));
  }
}

TEST_CASE("search: a pass is played when it is the best move, never drawn by temperature") {
  SearchResult r;
  r.size = 2;
  r.visits = {0, 50, 10, 0, 40};  // the pass (index 4) has 40 of 100 visits
  r.policy_target = {0, 0.5f, 0.1f, 0, 0.4f};
  r.best_move = IndexToLoc(1, 2);
  Rng rng(9);
  std::vector<int> counts(5, 0);
  for (int i = 0; i < 5000; ++i) ++counts[MoveIndex(r.ChooseMove(1.0, rng), 2)];
  CHECK(counts[4] == 0);
  CHECK(counts[1] + counts[2] == 5000);
  CHECK(counts[2] / 5000.0 == doctest::Approx(1.0 / 6).epsilon(0.1));
  // The most visited move is the pass: it is played at any temperature.
  r.visits = {0, 30, 10, 0, 60};
  r.policy_target = {0, 0.3f, 0.1f, 0, 0.6f};
  r.best_move = kPassLoc;
  for (int i = 0; i < 100; ++i) CHECK(r.ChooseMove(1.0, rng) == kPassLoc);
}

TEST_CASE(
    "search result: DropPass plays the most visited other move, its target without the pass") {
  SearchResult r;
  r.size = 2;
  r.visits = {0, 30, 10, 0, 60};
  r.policy_target = {0, 0.3f, 0.1f, 0, 0.6f};
  r.root_priors = {0.1f, 0.3f, 0.2f, 0.1f, 0.3f};
  r.best_move = kPassLoc;
  CHECK(r.DropPass());
  CHECK(r.best_move == IndexToLoc(1, 2));
  CHECK(r.visits[4] == 0);
  CHECK(r.policy_target[4] == 0);
  CHECK(r.policy_target[1] == doctest::Approx(0.75));
  CHECK(r.policy_target[2] == doctest::Approx(0.25));
  Rng rng(10);
  for (int i = 0; i < 100; ++i) CHECK(r.ChooseMove(1.0, rng) != kPassLoc);
  // Only the pass searched, from here on.
  const auto pass_only = [&r] {
    r.visits = {0, 0, 0, 0, 100};
    r.policy_target = {0, 0, 0, 0, 1};
    r.best_move = kPassLoc;
  };
  // The unvisited move with the higher prior gets all of the target.
  pass_only();
  CHECK(r.DropPass());
  CHECK(r.best_move == IndexToLoc(1, 2));
  CHECK(r.policy_target[1] == 1);
  // No other move has a prior (none is legal): the pass stays.
  pass_only();
  r.root_priors = {0, 0, 0, 0, 1};
  CHECK_FALSE(r.DropPass());
  CHECK(r.best_move == kPassLoc);
  CHECK(r.visits[4] == 100);
  CHECK(r.policy_target[4] == 1);
}

TEST_CASE("search: forced playouts visit a poor low-prior move, the pruned target drops them") {
  const Loc good = MakeLoc(2, 2, 9), poor = MakeLoc(6, 6, 9);
  FakeEvaluator eval;
  eval.policy = [&](const GameState&) { return PolicyOn(9, {{good, 0.9f}, {poor, 0.1f}}); };
  eval.value = [&](const GameState& s) {
    if (s.moves().empty()) return 0.0f;
    return ForSideToMove(s, s.moves()[0].loc == good ? 0.5 : -0.5);
  };
  std::vector<SearchResult> results;
  for (bool full : {false, true}) {
    Rng rng(9);
    Search search(NoNoise(), eval, rng);
    search.SetPosition(GameState(9));
    results.push_back(search.Run(400, full));
  }
  const SearchResult& cheap = results[0];
  const SearchResult& full = results[1];
  const int poor_index = MoveIndex(poor, 9);
  // Forced: at least sqrt(k * P * N) = sqrt(2 * 0.1 * 399), about 9, visits.
  CHECK(full.visits[poor_index] >= 8);
  CHECK(full.visits[poor_index] > cheap.visits[poor_index]);
  const double raw_share = full.visits[poor_index] / 399.0;
  CHECK(full.policy_target[poor_index] < raw_share);
  CHECK(full.policy_target[poor_index] < 0.01);
  CHECK(std::accumulate(full.policy_target.begin(), full.policy_target.end(), 0.0) ==
        doctest::Approx(1.0));
  // Cheap searches are not pruned: the target is the visit distribution.
  CHECK(cheap.policy_target[poor_index] == doctest::Approx(cheap.visits[poor_index] / 399.0));
}

TEST_CASE("search: Advance keeps the played move's subtree") {
  FakeEvaluator eval;
  eval.value = [](const GameState& s) { return ForSideToMove(s, 0.5); };
  Rules rules;
  rules.komi = 0;
  Rng rng(10);
  Search search(NoNoise(), eval, rng);
  search.SetPosition(GameState(Board(5), rules, Color::kBlack));
  const SearchResult first = search.Run(300, false);
  const int kept = first.visits[MoveIndex(first.best_move, 5)];
  REQUIRE(kept > 1);
  search.Advance({first.best_move, Color::kBlack});
  CHECK(search.root_state().to_move() == Color::kWhite);
  CHECK(search.root_visits() == kept);
  // The kept values now read from white's side.
  const int calls = eval.calls;
  const SearchResult same = search.Run(kept, false);
  CHECK(eval.calls == calls);
  CHECK(same.root_value == doctest::Approx(-0.5).epsilon(0.2));
  const SearchResult more = search.Run(kept + 50, false);
  CHECK(more.root_visits == kept + 50);
  CHECK(eval.calls - calls <= 50);
  // An unsearched move starts a fresh tree.
  search.SetPosition(GameState(5));
  const SearchResult small = search.Run(3, false);
  Loc unvisited = kNullLoc;
  for (int i = 0; i < 25 && unvisited == kNullLoc; ++i) {
    if (small.visits[i] == 0) unvisited = IndexToLoc(i, 5);
  }
  REQUIRE(unvisited != kNullLoc);
  search.Advance({unvisited, Color::kBlack});
  CHECK(search.root_visits() == 0);
  CHECK(search.Run(10, false).root_visits == 10);
}

// Uniform answers, except that an averaged evaluation puts most of the policy on one point
// (one for each side to move); records how many orientations each averaged one asked for.
class SymmetriesEvaluator : public FakeEvaluator {
 public:
  std::vector<int> asked;
  static constexpr int kBlackPoint = 2 * 5 + 2;  // MoveIndex of (2, 2) on 5x5
  static constexpr int kWhitePoint = 1 * 5 + 1;  // (1, 1)

  LeafEvaluation EvaluateSymmetries(const GameState& state, int symmetries) override {
    asked.push_back(symmetries);
    LeafEvaluation eval = Evaluate(state);
    std::fill(eval.policy.begin(), eval.policy.end(), 0.1f / (eval.policy.size() - 1));
    eval.policy[state.to_move() == Color::kBlack ? kBlackPoint : kWhitePoint] = 0.9f;
    return eval;
  }
};

TEST_CASE("search: the root averages root_symmetries orientations, a reused root again") {
  SymmetriesEvaluator eval;
  SearchParams params = NoNoise();
  params.root_symmetries = 4;
  Rng rng(5);
  Search search(params, eval, rng);
  search.SetPosition(GameState(5));
  const SearchResult first = search.Run(60, false);
  CHECK(eval.asked == std::vector<int>{4});  // the root only, once
  CHECK(first.net_priors[SymmetriesEvaluator::kBlackPoint] == doctest::Approx(0.9).epsilon(0.01));
  REQUIRE(first.best_move == MakeLoc(2, 2, 5));

  // The reused root was expanded as an inner node, with one orientation and uniform priors:
  // evaluated again with four at the next Run, its visits kept.
  const int kept = first.visits[SymmetriesEvaluator::kBlackPoint];
  REQUIRE(kept > 1);
  search.Advance({first.best_move, Color::kBlack});
  const SearchResult second = search.Run(kept + 10, false);
  CHECK(eval.asked == std::vector<int>{4, 4});
  CHECK(second.root_visits == kept + 10);
  CHECK(second.net_priors[SymmetriesEvaluator::kWhitePoint] == doctest::Approx(0.9).epsilon(0.01));
  // Once averaged, it stays so.
  search.Run(kept + 20, false);
  CHECK(eval.asked.size() == 2);

  // One orientation (the default): the averaged evaluation is never asked for.
  SymmetriesEvaluator plain_eval;
  Search plain(NoNoise(), plain_eval, rng);
  plain.SetPosition(GameState(5));
  plain.Run(30, false);
  CHECK(plain_eval.asked.empty());

  params.root_symmetries = 9;
  CHECK_THROWS_AS(Search(params, eval, rng), CheckError);
}

TEST_CASE("search: after the opponent passes, a winning pass ends the game") {
  Rules rules;
  rules.komi = 0.5;
  GameState game(Board::FromAscii(R"(
    . . X . .
    . . X . .
    . . X . .
    . . X . .
    . . X . .)"),
                 rules, Color::kWhite);
  game.Play({kPassLoc, Color::kWhite});
  UniformEvaluator eval;
  Rng rng(12);
  Search search(NoNoise(), eval, rng);
  search.SetPosition(game);
  const SearchResult r = search.Run(300, false);
  // The pass is scored exactly (+1) rather than by the flat evaluator (0).
  CHECK(r.best_move == kPassLoc);
  CHECK(r.root_value > 0.5);
  CHECK(r.root_score > 10);
}

// A confident, accurate net for settled positions: value +1 / -1 / 0 by the Tromp-Taylor
// result as the board stands, that score, and Tromp-Taylor area ownership, all for the side
// to move.
class SettledEvaluator : public LeafEvaluator {
 public:
  LeafEvaluation Evaluate(const GameState& state) override {
    LeafEvaluation eval = UniformEvaluator().Evaluate(state);
    const double black = TrompTaylorScore(state.board(), state.rules().komi);
    const double mine = state.to_move() == Color::kBlack ? black : -black;
    eval.value = mine > 0 ? 1.0f : mine < 0 ? -1.0f : 0.0f;
    eval.score = static_cast<float>(mine);
    const auto owner = AreaOwnership(state.board());
    const int size = state.size();
    eval.ownership.assign(static_cast<size_t>(size) * size, 0.0f);
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        const Color c = owner[MakeLoc(x, y, size)];
        if (IsStone(c)) eval.ownership[y * size + x] = c == state.to_move() ? 1.0f : -1.0f;
      }
    }
    return eval;
  }
};

// Two living groups, three one-point eyes each: black owns 28 points, white 21. Every legal
// move but a pass fills one of the mover's own eyes, which changes nothing (area scoring).
const char* kSettled = R"(
    X . X X O . O
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X X X X O O O)";

// Plays searches of both sides from `game` until it ends or `max_moves` are played.
GameState PlayOut(GameState game, const SearchParams& params, int max_moves) {
  SettledEvaluator eval;
  Rng rng(21);
  for (int i = 0; i < max_moves && !game.IsOver(); ++i) {
    Search search(params, eval, rng);
    search.SetPosition(game);
    game.Play({search.Run(200, false).best_move, game.to_move()});
  }
  return game;
}

TEST_CASE("search: a settled endgame ends at once with the score unchanged, winner or loser") {
  for (double komi : {0.5, 7.5}) {  // black wins by 6.5, or loses by 0.5
    CAPTURE(komi);
    Rules rules;
    rules.komi = komi;
    const GameState start(Board::FromAscii(kSettled), rules, Color::kBlack);
    const GameState end = PlayOut(start, NoNoise(), 8);
    CHECK(end.IsOver());
    CHECK(end.moves().size() == 2);  // pass, pass
    CHECK(TrompTaylorScore(end.board(), komi) == 7 - komi);
  }
}

TEST_CASE("search: after the opponent passes, the loser passes when nothing is left to gain") {
  Rules rules;
  rules.komi = 7.5;  // black loses by 0.5 whatever it does
  GameState game(Board::FromAscii(kSettled), rules, Color::kWhite);
  game.Play({kPassLoc, Color::kWhite});
  SettledEvaluator eval;
  for (bool full : {false, true}) {
    Rng rng(22);
    Search search(NoNoise(), eval, rng);
    search.SetPosition(game);
    const SearchResult r = search.Run(200, full);
    CHECK(r.best_move == kPassLoc);
    CHECK(r.root_value == doctest::Approx(-1.0));
  }
}

TEST_CASE("search: the ending bonus is what makes the pass preferred to filling an eye") {
  Rules rules;
  rules.komi = 7.5;
  GameState game(Board::FromAscii(kSettled), rules, Color::kWhite);
  game.Play({kPassLoc, Color::kWhite});
  SettledEvaluator eval;
  SearchParams params = NoNoise();
  params.no_fill = NoFill::kOff;  // either fill rule would take the fills away
  Rng rng(23);
  Search with_bonus(params, eval, rng);
  with_bonus.SetPosition(game);
  const int pass = MoveIndex(kPassLoc, 7);
  const SearchResult a = with_bonus.Run(400, false);
  params.root_ending_bonus_points = 0;
  Search without(params, eval, rng);
  without.SetPosition(game);
  const SearchResult b = without.Run(400, false);
  // Filling an eye and passing are worth the same to the search without the bonus.
  CHECK(a.visits[pass] > 300);
  CHECK(b.visits[pass] < a.visits[pass]);
}

// Black's eyes in kSettled, the only moves Black has there but the pass.
std::vector<Loc> BlackEyes() { return {MakeLoc(1, 0, 7), MakeLoc(1, 2, 7), MakeLoc(1, 4, 7)}; }

// White's eyes in kSettled.
std::vector<Loc> WhiteEyes() { return {MakeLoc(5, 0, 7), MakeLoc(5, 2, 7), MakeLoc(5, 4, 7)}; }

// A cheap search of 200 visits from `game` with a net that values every unfinished position at 0.
SearchResult HopefulSearch(const SearchParams& params, const GameState& game, uint64_t seed) {
  UniformEvaluator eval;
  Rng rng(seed);
  Search search(params, eval, rng);
  search.SetPosition(game);
  return search.Run(200, false);
}

// Visits of the root children at `points`.
int VisitsOn(const SearchResult& r, const std::vector<Loc>& points) {
  int visits = 0;
  for (Loc loc : points) visits += r.visits[MoveIndex(loc, r.size)];
  return visits;
}

TEST_CASE("search: after the opponent passes, the loser does not fill its own eyes in hope") {
  // A net that cannot tell a half-point loss from an even game: every unfinished position is
  // worth 0 to it, so filling an eye (the game goes on, value 0) looks better to the loser
  // than the pass that ends the game lost (-1).
  Rules rules;
  rules.komi = 7.5;  // black loses by 0.5 whatever it does
  GameState game(Board::FromAscii(kSettled), rules, Color::kWhite);
  game.Play({kPassLoc, Color::kWhite});
  const int pass = MoveIndex(kPassLoc, 7);
  for (bool full : {false, true}) {
    CAPTURE(full);
    UniformEvaluator eval;
    Rng rng(25);
    Search search(NoNoise(), eval, rng);
    search.SetPosition(game);
    const SearchResult r = search.Run(200, full);
    CHECK(r.best_move == kPassLoc);
    CHECK(r.visits[pass] == 200 - 1);  // the root's own visit is the rest
    for (Loc eye : BlackEyes()) CHECK(r.visits[MoveIndex(eye, 7)] == 0);
    SearchParams hopeful = NoNoise();
    hopeful.no_fill = NoFill::kOff;
    Search without(hopeful, eval, rng);
    without.SetPosition(game);
    CHECK(without.Run(200, full).best_move != kPassLoc);
  }
}

TEST_CASE("search: a fill is still searched when the opponent's last move was not a pass") {
  Rules rules;
  rules.komi = 7.5;
  // White has just filled one of its own eyes; black may fill its own.
  GameState game(Board::FromAscii(kSettled), rules, Color::kWhite);
  game.Play({MakeLoc(5, 0, 7), Color::kWhite});
  CHECK(VisitsOn(HopefulSearch(NoNoise(), game, 26), BlackEyes()) > 0);
}

TEST_CASE("search: once a pass has been played, no_fill once_passed keeps fills out for good") {
  Rules rules;
  rules.komi = 7.5;
  // White passed; black filled an eye of its own after it. White's last move was the pass two
  // plies ago, so no_fill after_pass lets white fill its own eyes now.
  GameState game(Board::FromAscii(kSettled), rules, Color::kWhite);
  game.Play({kPassLoc, Color::kWhite});
  game.Play({MakeLoc(1, 0, 7), Color::kBlack});
  for (bool rule : {true, false}) {
    CAPTURE(rule);
    SearchParams params = NoNoise();
    params.no_fill = rule ? NoFill::kOncePassed : NoFill::kAfterPass;
    const SearchResult r = HopefulSearch(params, game, 30);
    if (rule) {
      CHECK(VisitsOn(r, WhiteEyes()) == 0);
      CHECK(r.best_move == kPassLoc);
    } else {
      CHECK(VisitsOn(r, WhiteEyes()) > 0);
    }
  }
}

// Black's area has a 2x2 hole where a white stone can live for a while (the top left).
const char* const kBlackAreaWithHole = R"(
    X . . X O . O
    X . . X O O O
    X X X X O . O
    X X X X O O O
    X X X X O . O
    X X X X O O O
    X X X X O O O)";

TEST_CASE("search: PassLeavesPoints asks whether the opponent answers a pass in the mover's area") {
  // kBlackAreaWithHole, and a board where a dame point lies between the two sides (row 0,
  // column 4). A net that values every unfinished position at 0: after black's pass, white
  // passes when that wins and otherwise plays on in hope wherever it may (no_fill once_passed
  // keeps it out of its own eyes).
  const char* kDame = R"(
    X . X X . O .
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X X X X O O O)";
  struct Case {
    const char* board;
    double komi;
    bool leaves_points;
  };
  // kBlackAreaWithHole: black leads by 7 on the board; kDame: by 8.
  for (const Case& c : {Case{kBlackAreaWithHole, 6.5, true}, Case{kBlackAreaWithHole, 7.5, false},
                        Case{kDame, 7.5, false}, Case{kDame, 8.5, false}}) {
    CAPTURE(c.board);
    CAPTURE(c.komi);
    Rules rules;
    rules.komi = c.komi;
    const GameState game(Board::FromAscii(c.board), rules, Color::kBlack);
    UniformEvaluator eval;
    Rng rng(32);
    CHECK(PassLeavesPoints(NoNoise(), game, eval, 200, rng) == c.leaves_points);
  }
}

TEST_CASE("search: PassLeavesPoints is false when the pass reaches the move cap") {
  // White would answer black's pass in black's area (the first case above); with a cap of one
  // move, black's pass ends the game, so there is nothing to answer (searching the finished
  // position used to fail a check and stop selfplay).
  const Board board = Board::FromAscii(kBlackAreaWithHole);
  Rules rules;
  rules.komi = 6.5;
  for (int cap : {0, 1}) {
    CAPTURE(cap);
    const GameState game(board, rules, Color::kBlack, cap);
    UniformEvaluator eval;
    Rng rng(32);
    CHECK(PassLeavesPoints(NoNoise(), game, eval, 200, rng) == (cap == 0));
  }
}

TEST_CASE("search: a fill that joins a chain in atari is still searched after a pass") {
  // White's stone at C5 has one liberty, B5, a point of white's own area; filling it joins the
  // stone to the big white group. White's other own points, B3 and A1, join nothing in atari.
  const GameState start(Board::FromAscii(R"(
    O . O X .
    O O X X X
    O . O X .
    O O O X X
    . O O X .)"),
                        Rules(), Color::kBlack);
  const Loc saving = MakeLoc(1, 0, 5);
  for (bool once : {false, true}) {
    CAPTURE(once);
    SearchParams params = NoNoise();
    params.no_fill = once ? NoFill::kOncePassed : NoFill::kAfterPass;
    GameState game = start;
    game.Play({kPassLoc, Color::kBlack});
    std::vector<Loc> fills = {MakeLoc(1, 2, 5), MakeLoc(0, 4, 5)};
    if (once) {  // the pass is three plies back: only once_passed applies
      game.Play({fills.back(), Color::kWhite});
      game.Play({MakeLoc(4, 4, 5), Color::kBlack});
      fills.pop_back();
    }
    const SearchResult r = HopefulSearch(params, game, 31);
    CHECK(r.visits[MoveIndex(saving, 5)] > 0);
    for (Loc fill : fills) CHECK(r.visits[MoveIndex(fill, 5)] == 0);
  }
}

TEST_CASE("search: a settled game against a hopeful net ends with two passes") {
  Rules rules;
  rules.komi = 7.5;
  const GameState start(Board::FromAscii(kSettled), rules, Color::kBlack);
  for (bool rule : {true, false}) {
    CAPTURE(rule);
    SearchParams params = NoNoise();
    params.no_fill = rule ? NoFill::kAfterPass : NoFill::kOff;
    UniformEvaluator eval;
    Rng rng(29);
    GameState game = start;
    for (int i = 0; i < 12 && !game.IsOver(); ++i) {
      Search search(params, eval, rng);
      search.SetPosition(game);
      game.Play({search.Run(200, false).best_move, game.to_move()});
    }
    // With the rule: a pass and the answering pass, at most after the first player's fills
    // (no pass has been played yet when it moves). Without it the loser fills on.
    if (rule) {
      CHECK(game.IsOver());
      CHECK(TrompTaylorScore(game.board(), 7.5) == -0.5);
    } else {
      CHECK(game.moves().size() > 4);
    }
  }
}

TEST_CASE("search: the winner plays on while a point is left to gain") {
  // The dame at the bottom of the boundary is worth a point to whoever fills it.
  Rules rules;
  rules.komi = 0.5;
  GameState game(Board::FromAscii(R"(
    X . X X O . O
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X X X . O O O)"),
                 rules, Color::kWhite);
  game.Play({kPassLoc, Color::kWhite});
  const Loc dame = MakeLoc(3, 6, 7);
  SettledEvaluator eval;
  Rng rng(24);
  Search search(NoNoise(), eval, rng);
  search.SetPosition(game);
  const SearchResult r = search.Run(300, false);
  // Passing wins too (by 5.5); the dame wins by 6.5.
  CHECK(r.best_move == dame);
  // Win/loss alone values them alike, and gives the dame fewer visits.
  SearchParams win_loss_only = NoNoise();
  win_loss_only.dynamic_score_utility = 0;
  Search plain(win_loss_only, eval, rng);
  plain.SetPosition(game);
  const SearchResult p = plain.Run(300, false);
  CHECK(r.visits[MoveIndex(dame, 7)] > p.visits[MoveIndex(dame, 7)]);
}

TEST_CASE("search: no pass while a point counted for nobody can be played") {
  UniformEvaluator eval;
  Rules rules;
  rules.komi = 0.5;
  // The empty board is open: no pass, whatever the net says about it.
  FakeEvaluator passer;
  passer.policy = [](const GameState& s) {
    std::vector<float> p(s.size() * s.size() + 1, 0.001f);
    p.back() = 0.99f;
    return p;
  };
  const GameState empty(Board(5), rules, Color::kBlack);
  CHECK(HasOpenPoint(empty));
  for (bool full : {false, true}) {
    Rng rng(27);
    Search search(NoNoise(), passer, rng);
    search.SetPosition(empty);
    const SearchResult r = search.Run(100, full);
    CHECK(r.visits[25] == 0);
    CHECK(r.policy_target[25] == 0);
    CHECK(r.root_priors[25] == 0);
    CHECK(r.best_move != kPassLoc);
  }
  // Once the opponent has passed, a pass may end the game.
  GameState after_pass = empty;
  after_pass.Play({kPassLoc, Color::kBlack});
  Rng rng(28);
  Search search(NoNoise(), passer, rng);
  search.SetPosition(after_pass);
  CHECK(search.Run(100, false).visits[25] > 0);
  // Settled: every empty point is someone's territory.
  CHECK_FALSE(HasOpenPoint(GameState(Board::FromAscii(kSettled), rules, Color::kBlack)));
  // A dame between the walls is open to both.
  CHECK(HasOpenPoint(GameState(Board::FromAscii(R"(
    X . X X O . O
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X . X X O . O
    X X X X O O O
    X X X . O O O)"),
                               rules, Color::kBlack)));
}

TEST_CASE("search: the dynamic score center follows the root's score") {
  Rules rules;
  rules.komi = 0.5;
  SettledEvaluator eval;
  Rng rng(25);
  Search search(NoNoise(), eval, rng);
  search.SetPosition(GameState(Board::FromAscii(kSettled), rules, Color::kBlack));
  const SearchResult r = search.Run(50, false);
  // 6.5 points up: the center is 0.75 of that, within 0.5 * sqrt(49) = 3.5 points of it.
  CHECK(r.root_score == doctest::Approx(6.5));
  CHECK(r.score_center == doctest::Approx(0.75 * 6.5));
  CHECK(ScoreValue(6.5, 0, 2.0, 49) == doctest::Approx(2 / M_PI * std::atan(6.5 / 14)));
}

TEST_CASE("search: cheap searches use the normal FPU reduction at the root") {
  // The likely move is good (+0.2 for black): with a root reduction of 0 the unvisited
  // children get FPU +0.2 and are tried once the likely move's exploration term shrinks; with
  // the normal reduction of 1.0 they stay far below it.
  FakeEvaluator eval;
  Rules rules;
  rules.komi = 0;
  SearchParams params = NoNoise();
  params.dynamic_score_utility = 0;
  params.root_fpu_reduction = 0.0;
  params.fpu_reduction = 1.0;
  params.forced_playout_k = 0;
  eval.policy = [](const GameState& s) {
    std::vector<float> p(s.size() * s.size() + 1, 0.01f);
    p[12] = 0.7f;
    return p;
  };
  eval.value = [](const GameState& s) {
    return s.board().At(MakeLoc(2, 2, 5)) == Color::kEmpty ? 0.0f : ForSideToMove(s, 0.2);
  };
  const auto spread = [&](bool full) {
    Rng rng(26);
    Search search(params, eval, rng);
    search.SetPosition(GameState(Board(5), rules, Color::kBlack));
    const SearchResult r = search.Run(300, full);
    return 300 - 1 - r.visits[12];
  };
  // Full searches (root noise off here) use root_fpu_reduction 0: the others are tried.
  CHECK(spread(true) > 20);
  CHECK(spread(false) == 0);
}

TEST_CASE("search: search on a finished game is an error") {
  GameState game(5);
  game.Play({kPassLoc, Color::kBlack});
  game.Play({kPassLoc, Color::kWhite});
  UniformEvaluator eval;
  Rng rng(13);
  Search search(SearchParams(), eval, rng);
  search.SetPosition(game);
  CHECK_THROWS_AS(search.Run(10, false), CheckError);
}

TEST_CASE("search: playout cap draws full searches at the configured rate") {
  PlayoutCap cap;
  cap.full_visits = 600;
  cap.cheap_visits = 100;
  cap.full_probability = 0.25;
  Rng rng(14);
  int full = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    const SearchPlan plan = DrawSearchPlan(cap, rng);
    CHECK(plan.record_row == plan.full_search);
    CHECK(plan.visits == (plan.full_search ? 600 : 100));
    full += plan.full_search ? 1 : 0;
  }
  CHECK(full / double(draws) == doctest::Approx(0.25).epsilon(0.08));
  cap.cheap_visits = 1000;  // never more than a full search
  cap.full_probability = 0;
  CHECK(DrawSearchPlan(cap, rng).visits == 600);
}

TEST_CASE("search: full searches in a lopsided game get fewer visits and lighter rows") {
  PlayoutCap cap;
  cap.full_visits = 200;
  cap.reduce_visits = true;
  cap.reduce_visits_threshold = 0.9;
  cap.reduce_visits_lookback = 3;
  cap.reduced_visits_min = 50;
  cap.reduced_visits_weight = 0.1;
  const SearchPlan full{200, true, true, 1.0, false};
  const auto reduced = [&](const std::vector<double>& black_values) {
    SearchPlan plan = full;
    ReduceForLopsidedGame(cap, black_values, &plan);
    return plan;
  };
  // Black's last three values 0.99, 0.95, 0.97: the least extreme is half way from 0.9 to 1,
  // so the cut is a quarter of the way: 200 - 0.25 * 150 visits, weight 1 - 0.25 * 0.9.
  SearchPlan plan = reduced({-0.5, 0.99, 0.95, 0.97});
  CHECK(plan.reduced);
  CHECK(plan.visits == 163);  // 162.5 rounded away from zero
  CHECK(plan.row_weight == doctest::Approx(0.775));
  CHECK(plan.full_search);
  CHECK(plan.record_row);
  // White winning is as lopsided as black winning.
  plan = reduced({-0.95, -0.99, -0.97});
  CHECK(plan.visits == 163);
  CHECK(plan.row_weight == doctest::Approx(0.775));
  // A game won outright: the minimum visits and weight.
  plan = reduced({1.0, 1.0, 1.0});
  CHECK(plan.visits == 50);
  CHECK(plan.row_weight == doctest::Approx(0.1));
  // One search at or below the threshold, values on both sides, or too few searches: no cut.
  for (const std::vector<double>& values :
       std::vector<std::vector<double>>{{0.99, 0.9, 0.99}, {0.99, -0.99, 0.99}, {0.99, 0.99}, {}}) {
    plan = reduced(values);
    CHECK(!plan.reduced);
    CHECK(plan.visits == 200);
    CHECK(plan.row_weight == 1.0);
  }
  // Only the last three count: an early lead that has gone does not cut.
  CHECK(!reduced({1.0, 1.0, 1.0, 0.5, 1.0, 1.0}).reduced);
  // Cheap searches keep their visits; the option off changes nothing.
  SearchPlan cheap{16, false, false, 1.0, false};
  ReduceForLopsidedGame(cap, {1.0, 1.0, 1.0}, &cheap);
  CHECK(!cheap.reduced);
  CHECK(cheap.visits == 16);
  cap.reduce_visits = false;
  CHECK(reduced({1.0, 1.0, 1.0}).visits == 200);
  // A full search already below the minimum is not raised to it.
  cap.reduce_visits = true;
  cap.reduced_visits_min = 300;
  CHECK(reduced({1.0, 1.0, 1.0}).visits == 200);
}

TEST_CASE("search: policy surprise is the target's KL divergence from the net's priors") {
  SearchResult result;
  result.policy_target = {0.5f, 0.5f, 0.0f};
  result.net_priors = {0.5f, 0.5f, 0.0f};
  CHECK(PolicySurprise(result) == doctest::Approx(0.0).epsilon(1e-9));
  result.policy_target = {1.0f, 0.0f, 0.0f};
  result.net_priors = {0.25f, 0.25f, 0.5f};
  CHECK(PolicySurprise(result) == doctest::Approx(std::log(4.0)));
  // A move the net gave nothing is floored, not infinite.
  result.net_priors = {0.0f, 0.5f, 0.5f};
  CHECK(PolicySurprise(result) == doctest::Approx(std::log(1e6)));

  // A search reports the evaluator's priors before noise: uniform over the legal moves here.
  GameState game(5, Rules(), 100);
  UniformEvaluator eval;
  Rng rng(16);
  SearchParams params;
  params.pass_only_when_settled = false;
  Search search(params, eval, rng);
  search.SetPosition(game);
  const SearchResult full = search.Run(40, /*full_search=*/true);
  for (float p : full.net_priors) CHECK(p == doctest::Approx(1.0 / 26));
  CHECK(full.root_priors != full.net_priors);  // the noise changed those
  CHECK(PolicySurprise(full) > 0);
}

TEST_CASE("search: surprise weighting keeps a game's row weight and moves it to surprises") {
  Rng rng(17);
  const std::vector<double> surprises = {0.0, 0.0, 0.0, 3.0};
  const std::vector<double> ones(4, 1.0);
  CHECK(RowRepeats(ones, surprises, 0.0, rng) == std::vector<int>{1, 1, 1, 1});
  CHECK(RowRepeats({1.0, 1.0}, {0.0, 0.0}, 0.5, rng) == std::vector<int>{1, 1});
  // Weights 0.5, 0.5, 0.5 and 2.5: each row is written one of its two neighbouring counts, as
  // often as keeps the weight its mean.
  const std::vector<double> expected = {0.5, 0.5, 0.5, 2.5};
  std::vector<double> mean(4, 0.0);
  const int draws = 20000;
  for (int d = 0; d < draws; ++d) {
    const std::vector<int> repeats = RowRepeats(ones, surprises, 0.5, rng);
    for (size_t i = 0; i < 4; ++i) {
      CHECK((repeats[i] == std::floor(expected[i]) || repeats[i] == std::floor(expected[i]) + 1));
      mean[i] += repeats[i] / double(draws);
    }
  }
  for (size_t i = 0; i < 4; ++i) CHECK(mean[i] == doctest::Approx(expected[i]).epsilon(0.03));
  // All the weight on surprise: rows the net predicted are dropped.
  CHECK(RowRepeats({1.0, 1.0}, {0.0, 1.0}, 1.0, rng) == std::vector<int>{0, 2});
}

TEST_CASE("search: rows cut in a lopsided game are written as often as their weight says") {
  Rng rng(18);
  // No surprise: weights 1, 0.1 and 0.55 are written once, and 0 or 1 times with those means.
  const std::vector<double> weights = {1.0, 0.1, 0.55};
  std::vector<double> mean(3, 0.0);
  const int draws = 20000;
  for (int d = 0; d < draws; ++d) {
    const std::vector<int> repeats = RowRepeats(weights, {0.0, 0.0, 0.0}, 0.5, rng);
    CHECK(repeats[0] == 1);
    CHECK(repeats[1] <= 1);
    CHECK(repeats[2] <= 1);
    for (size_t i = 0; i < 3; ++i) mean[i] += repeats[i] / double(draws);
  }
  CHECK(mean[1] == doctest::Approx(0.1).epsilon(0.08));
  CHECK(mean[2] == doctest::Approx(0.55).epsilon(0.03));
  // With surprise weighting the game's total stays the sum of the weights, and a light row
  // draws on the surprise share in proportion to its weight times its surprise: weights 1 and
  // 0.25, surprises 0 and 1, share 0.5: W = 1.25 and the sum of w * s is 0.25, so row 0 gets
  // 0.5 * 1 and row 1 gets 0.5 * 0.25 + 1.25 * 0.5 = 0.75.
  std::vector<double> light_mean(2, 0.0);
  for (int d = 0; d < draws; ++d) {
    const std::vector<int> repeats = RowRepeats({1.0, 0.25}, {0.0, 1.0}, 0.5, rng);
    for (size_t i = 0; i < 2; ++i) light_mean[i] += repeats[i] / double(draws);
  }
  CHECK(light_mean[0] == doctest::Approx(0.5).epsilon(0.04));
  CHECK(light_mean[1] == doctest::Approx(0.75).epsilon(0.03));
  CHECK_THROWS_AS(RowRepeats({1.0}, {0.0, 1.0}, 0.5, rng), CheckError);
}

TEST_CASE("search: a move's utility lower bound tightens with visits and loosens with spread") {
  const double range = 1.4;
  CHECK(UtilityLcb(0.3, 0.5, 100, 5.0, range) < 0.3);
  CHECK(UtilityLcb(0.3, 0.5, 100, 5.0, range) < UtilityLcb(0.3, 0.5, 400, 5.0, range));
  CHECK(UtilityLcb(0.3, 0.8, 100, 5.0, range) < UtilityLcb(0.3, 0.5, 100, 5.0, range));
  // Large visit counts: the prior fades and the bound is the plain mean - stdevs * stderr.
  CHECK(UtilityLcb(0.3, 0.5, 10000, 5.0, range) ==
        doctest::Approx(0.3 - 5.0 * 0.005).epsilon(1e-4));
  // A move of 2 visits with no spread yet is not trusted: the prior's spread counts.
  CHECK(UtilityLcb(0.9, 0.0, 2, 5.0, range) < 0.0);
  CHECK(UtilityLcb(0.9, 0.0, 0, 5.0, range) < -range);
}

TEST_CASE("search: root results give each move's utility and its spread over the playouts") {
  // A 5x5 board, black to move. The position after black's centre move is worth 0.5 to black
  // and every one below it a fair coin flip (+1 or -1 by the position's hash); every other
  // position is worth -0.3 to black.
  GameState game(5, Rules(), 100);
  const Loc centre = MakeLoc(2, 2, 5);
  FakeEvaluator eval;
  eval.value = [&](const GameState& s) {
    const bool centre_played =
        !s.moves().empty() && s.moves()[0].loc == centre && s.moves()[0].color == Color::kBlack;
    const double coin = (s.board().hash() >> 7) & 1 ? 1.0 : -1.0;
    const double black = !centre_played ? -0.3 : s.moves().size() == 1 ? 0.5 : coin;
    return ForSideToMove(s, black);
  };
  SearchParams params;
  params.dynamic_score_utility = 0;  // utility = value
  params.pass_only_when_settled = false;
  params.root_ending_bonus_points = 0;
  Rng rng(18);
  Search search(params, eval, rng);
  search.SetPosition(game);
  const SearchResult result = search.Run(800, false);
  const int c = MoveIndex(centre, 5);
  REQUIRE(result.visits[c] >= 10);
  CHECK(result.utility_stdev[c] > 0.5);
  for (int i = 0; i < 26; ++i) {
    if (i == c || result.visits[i] < 2) continue;
    CAPTURE(i);
    // Below the other moves the value is a constant -0.3 for black: no spread, but for a game
    // that two passes end inside the tree (scored exactly), which is rare on an open 5x5 board.
    CHECK(std::abs(result.utility[i] + 0.3) < 0.05);
    CHECK(result.utility_stdev[i] < 0.2);
  }
  for (int i = 0; i < 26; ++i)
    if (result.visits[i] == 0) CHECK(result.utility_stdev[i] == 0.0f);
}

TEST_CASE("search: resignation needs consecutive low values of the same player") {
  Rng rng(15);
  ResignTracker off(ResignParams(), rng);  // off by default
  for (int i = 0; i < 10; ++i) CHECK(!off.Update(Color::kBlack, -1.0));

  ResignParams params;
  params.enabled = true;
  params.no_resign_fraction = 0;
  ResignTracker tracker(params, rng);
  CHECK(tracker.may_resign());
  CHECK(!tracker.Update(Color::kBlack, -0.95));
  CHECK(!tracker.Update(Color::kWhite, -0.95));
  CHECK(!tracker.Update(Color::kBlack, -0.95));
  CHECK(!tracker.Update(Color::kWhite, 0.2));  // resets white only
  CHECK(tracker.Update(Color::kBlack, -0.99));
  CHECK(!tracker.Update(Color::kWhite, -0.95));
  CHECK(!tracker.Update(Color::kBlack, -0.5));  // above the threshold: reset
  CHECK(!tracker.Update(Color::kBlack, -0.95));

  params.no_resign_fraction = 1;
  ResignTracker never(params, rng);
  CHECK(!never.may_resign());
  for (int i = 0; i < 10; ++i) CHECK(!never.Update(Color::kWhite, -1.0));
}

namespace tengen::search {
namespace {

TEST_CASE("search: a stop request ends the search between playouts") {
  UniformEvaluator evaluator;
  Rng rng(3);
  Search search(SearchParams(), evaluator, rng);
  search.SetPosition(go::GameState(9));
  int polls = 0;
  const SearchResult result = search.Run(10000, false, [&polls] { return ++polls > 20; });
  // The root expansion is one playout, then one playout per poll until the stop.
  CHECK(result.root_visits == 21);
  CHECK(polls == 21);
  // Without a stop the same search runs to its budget.
  Search full(SearchParams(), evaluator, rng);
  full.SetPosition(go::GameState(9));
  CHECK(full.Run(200, false).root_visits == 200);
}

}  // namespace
}  // namespace tengen::search
