// Side positions (play/side_positions.h): the moves drawn for them, their rows, and a game that
// records them after its own rows.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "go/game.h"
#include "go/sgf_game.h"
#include "nn/features.h"
#include "play/game_runner.h"
#include "play/side_positions.h"
#include "search/leaf_evaluator.h"
#include "search/mcts.h"
#include "util/rng.h"

namespace tengen::play {
namespace {

GameParams SmallGame() {
  GameParams params;
  params.board_sizes = {{5, 1.0}};
  params.komis = {{0.5, 1.0}};
  params.playout_cap.full_visits = 16;
  params.playout_cap.cheap_visits = 8;
  params.playout_cap.full_probability = 0.5;
  params.pos_len = 5;
  return params;
}

}  // namespace

TEST_CASE("side positions: moves come from the priors, sometimes any legal point, never banned") {
  // Black stones on the top row; all the prior on (2, 2), the banned move (3, 3) aside.
  go::GameState state(5, go::Rules());
  state.Play({go::MakeLoc(0, 0, 5), go::Color::kBlack});
  state.Play({go::MakeLoc(4, 4, 5), go::Color::kWhite});
  std::vector<float> priors(26, 0.0f);
  priors[static_cast<size_t>(search::MoveIndex(go::MakeLoc(2, 2, 5), 5))] = 1;
  const go::Loc banned = go::MakeLoc(3, 3, 5);
  Rng rng(1);
  int favourite = 0, others = 0;
  for (int i = 0; i < 2000; ++i) {
    const go::Loc loc = DrawSideMove(priors, state, banned, rng);
    REQUIRE(loc != go::kNullLoc);
    CHECK(loc != banned);
    CHECK(loc != go::kPassLoc);  // no prior on the pass
    CHECK(state.board().At(loc) == go::Color::kEmpty);
    (loc == go::MakeLoc(2, 2, 5) ? favourite : others) += 1;
  }
  // Temperatures 1 and 2 (95%) give the one move with a prior; the uniform 5% mostly others.
  CHECK(favourite > 1850);
  CHECK(others > 40);
  CHECK(others < 150);
  // All the prior on the banned move: only the uniform share draws a move.
  std::vector<float> only_banned(26, 0.0f);
  only_banned[static_cast<size_t>(search::MoveIndex(banned, 5))] = 1;
  int drawn = 0;
  for (int i = 0; i < 200; ++i)
    drawn += DrawSideMove(only_banned, state, banned, rng) != go::kNullLoc;
  CHECK(drawn > 0);  // the uniform share still finds a legal point
  CHECK(drawn < 40);
}

TEST_CASE("side positions: a row's value target is its search's root value, the rest absent") {
  const GameParams params = SmallGame();
  search::SearchResult result;
  result.size = 5;
  result.root_value = 0.5f;
  result.policy_target.assign(26, 0.0f);
  result.policy_target[3] = 1;
  const go::GameState state(5, go::Rules());
  const data::TrainingRow row = SideRow(params, state, result, 7);
  CHECK(row.value[0] == doctest::Approx(0.75));
  CHECK(row.value[1] == doctest::Approx(0.25));
  CHECK(row.value[2] == 0);
  CHECK(row.policy[3] == 1);
  CHECK(row.game_id == 7);
  CHECK(row.score_weight == 0);
  CHECK(row.ownership_weight == 0);
  CHECK(row.td_value_weight == 0);
  CHECK(row.opponent_policy_weight == 0);
  CHECK(row.ownership.size() == 25);
}

TEST_CASE("side positions: a game records them after its own rows, off the game's line") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  int side_rows = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    GameParams params = SmallGame();
    params.side_position_prob = 0.5;
    FinishedGame game;
    REQUIRE(PlayGame(
        params, player, player, seed, [] { return false; }, &game));
    REQUIRE(game.side_rows <= static_cast<int>(game.rows.size()));
    side_rows += game.side_rows;
    const size_t first_side = game.rows.size() - static_cast<size_t>(game.side_rows);
    for (size_t i = 0; i < game.rows.size(); ++i) {
      const data::TrainingRow& row = game.rows[i];
      if (i < first_side) {
        CHECK(row.td_value_weight == 1.0f);  // the game's own rows keep their targets
        continue;
      }
      CHECK(row.game_id == game.game_id);
      CHECK(row.score_weight == 0);
      CHECK(row.td_value_weight == 0);
      CHECK(row.value[0] + row.value[1] == doctest::Approx(1.0));
      // The position is not the game's at that turn: another move was played there.
      if (row.turn > game.moves) continue;  // an extended side line, past the game's end
      const go::GameState on_line = go::ReplaySgf(game.sgf, row.turn);
      std::vector<float> spatial(static_cast<size_t>(nn::kNumSpatialFeatures) * 25);
      std::vector<float> global(nn::kNumGlobalFeatures);
      nn::FillFeatures(on_line, params.pos_len, 0, spatial.data(), global.data());
      CHECK(row.spatial != spatial);
    }
  }
  // About half the turns of four games: many side positions, and some lines extended.
  CHECK(side_rows >= 10);
}

}  // namespace tengen::play
