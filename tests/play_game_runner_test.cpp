// The shared game runner: a whole game with a uniform evaluator, its rows checked against the
// game replayed from its own SGF record.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "go/handicap.h"
#include "go/pass_alive.h"
#include "go/score.h"
#include "go/sgf_game.h"
#include "nn/features.h"
#include "play/game_runner.h"
#include "search/leaf_evaluator.h"
#include "search_fakes.h"
#include "util/error.h"

namespace tengen::play {
namespace {

GameParams SmallGame(int size) {
  GameParams params;
  params.board_sizes = {{size, 1.0}};
  params.komis = {{0.5, 1.0}, {1.5, 1.0}};
  params.playout_cap.full_visits = 24;
  params.playout_cap.cheap_visits = 8;
  params.playout_cap.full_probability = 0.5;
  params.pos_len = 7;
  return params;
}

TEST_CASE("game runner: rows match the game replayed from its SGF, with PUCT or Gumbel searches") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  int games_with_rows = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    GameParams params = SmallGame(seed % 2 ? 5 : 7);
    // Seeds 5-8: every search chooses the root's moves by Gumbel sequential halving.
    if (seed > 4) params.search.gumbel = search::Gumbel::kAll;
    FinishedGame game;
    REQUIRE(PlayGame(
        params, player, player, seed, [] { return false; }, &game));
    CHECK(game.moves > 0);
    CHECK(game.sgf.black_player == "random");
    const std::string gn = game.sgf.extra_properties.at(0).second;
    CHECK(gn == std::to_string(game.game_id));

    // The SGF replays to a finished game whose Tromp-Taylor result is the recorded one.
    const go::GameState replayed = go::ReplaySgf(game.sgf);
    CHECK(replayed.moves().size() == static_cast<size_t>(game.moves));
    const double score = go::TrompTaylorScore(replayed.board(), replayed.rules().komi);
    CHECK(go::ScoreToResult(score) == game.sgf.result);
    CHECK(score == game.final_score);

    if (!game.rows.empty()) ++games_with_rows;
    const int pos_len = params.pos_len;
    const int area = pos_len * pos_len;
    for (const data::TrainingRow& row : game.rows) {
      CHECK(row.game_id == game.game_id);
      const go::GameState at_row = go::ReplaySgf(game.sgf, row.turn);
      const go::Color mover = at_row.to_move();
      // Inputs are the features of that position.
      std::vector<float> spatial(static_cast<size_t>(nn::kNumSpatialFeatures) * area);
      std::vector<float> global(nn::kNumGlobalFeatures);
      nn::FillFeatures(at_row, pos_len, 0, spatial.data(), global.data());
      CHECK(row.spatial == spatial);
      CHECK(row.global == global);
      // The policy target sums to 1 over legal moves only.
      double total = 0;
      for (int index = 0; index <= area; ++index) {
        const float p = row.policy[static_cast<size_t>(index)];
        if (p <= 0) continue;
        total += p;
        const go::Loc loc = index == area
                                ? go::kPassLoc
                                : go::MakeLoc(index % pos_len, index / pos_len, at_row.size());
        const bool legal =
            index == area || (index % pos_len < at_row.size() && index / pos_len < at_row.size() &&
                              at_row.IsLegal({loc, mover}));
        CHECK_MESSAGE(legal, "policy mass on an illegal point " << index);
      }
      CHECK(std::abs(total - 1.0) < 1e-4);
      // Outcome targets agree with the final result, from the mover's view.
      const double mover_score = mover == go::Color::kBlack ? score : -score;
      CHECK(row.score == doctest::Approx(mover_score));
      CHECK(row.value[0] == (mover_score > 0 ? 1.0f : 0.0f));
      CHECK(row.value[1] == (mover_score < 0 ? 1.0f : 0.0f));
      CHECK(row.weight == 1.0f);
      CHECK(row.komi == static_cast<float>(replayed.rules().komi));
      // Short-term values for every horizon: a win, loss, draw triple.
      CHECK(row.td_value_weight == 1.0f);
      for (int h = 0; h < data::kTdHorizons; ++h)
        CHECK(row.td_value[h][0] + row.td_value[h][1] + row.td_value[h][2] == doctest::Approx(1.0));
      // The opponent's reply: the next turn's search, which gave the move played some mass.
      if (row.turn + 1 < game.moves) {
        REQUIRE(row.opponent_policy_weight == 1.0f);
        double reply_total = 0;
        for (float p : row.opponent_policy) reply_total += p;
        CHECK(std::abs(reply_total - 1.0) < 1e-4);
        const go::Loc reply = game.sgf.moves[static_cast<size_t>(row.turn) + 1].loc;
        CHECK(row.opponent_policy[static_cast<size_t>(
                  nn::PolicyIndex(reply, at_row.size(), pos_len))] > 0);
      } else {
        CHECK(row.opponent_policy_weight == 0.0f);
      }
      // Ownership: + for the mover's area, zero off the board.
      const auto owner = go::AreaOwnership(replayed.board());
      for (int y = 0; y < pos_len; ++y) {
        for (int x = 0; x < pos_len; ++x) {
          const int8_t o = row.ownership[static_cast<size_t>(y * pos_len + x)];
          if (x >= at_row.size() || y >= at_row.size()) {
            CHECK(o == 0);
            continue;
          }
          const go::Color c = owner[go::MakeLoc(x, y, at_row.size())];
          CHECK(o == (c == mover ? 1 : c == go::Opponent(mover) ? -1 : 0));
        }
      }
    }
  }
  CHECK(games_with_rows > 0);
}

TEST_CASE(
    "game runner: short-term values weigh the searches from the row's turn, then the result") {
  const std::vector<double> black_values = {0.2, -0.4, 0.6, -0.8};
  const int area = 81;
  const double factors[data::kTdHorizons] = {0.176, 0.056, 0.016};
  for (const go::Color winner : {go::Color::kBlack, go::Color::kWhite, go::Color::kEmpty}) {
    for (int turn = 0; turn <= 4; ++turn) {
      const go::Color mover = turn % 2 == 0 ? go::Color::kBlack : go::Color::kWhite;
      data::TrainingRow row;
      SetShortTermValues(black_values, winner, area, mover, turn, &row);
      CHECK(row.td_value_weight == 1.0f);
      for (int h = 0; h < data::kTdHorizons; ++h) {
        // KataGo's form, computed backwards: start from the result, and move it towards each
        // earlier turn's value by the horizon's factor.
        const double now = 1.0 / (1.0 + area * factors[h]);
        double smoothed[3] = {winner == mover ? 1.0 : 0.0,
                              winner == go::Opponent(mover) ? 1.0 : 0.0,
                              winner == go::Color::kEmpty ? 1.0 : 0.0};
        for (int i = 3; i >= turn; --i) {
          const double v = mover == go::Color::kBlack ? black_values[i] : -black_values[i];
          const double turn_value[3] = {(1 + v) / 2, (1 - v) / 2, 0};
          for (int k = 0; k < 3; ++k) smoothed[k] += now * (turn_value[k] - smoothed[k]);
        }
        CAPTURE(turn);
        CAPTURE(h);
        for (int k = 0; k < 3; ++k)
          CHECK(row.td_value[h][k] == doctest::Approx(smoothed[k]).epsilon(1e-6));
      }
      // The short horizon leans on this turn's own search more than the long one does.
      if (turn < 4 && winner == go::Color::kEmpty) CHECK(row.td_value[2][2] < row.td_value[0][2]);
    }
  }
  data::TrainingRow row;
  CHECK_THROWS_AS(
      SetShortTermValues(black_values, go::Color::kBlack, area, go::Color::kBlack, 5, &row),
      CheckError);
}

// Uniform over the legal moves, except that all the policy is on the top left corner while
// that point is empty.
class CornerEvaluator : public search::LeafEvaluator {
 public:
  search::LeafEvaluation Evaluate(const go::GameState& state) override {
    search::LeafEvaluation eval = search::UniformEvaluator().Evaluate(state);
    if (state.board().At(go::MakeLoc(0, 0, state.size())) == go::Color::kEmpty) {
      std::fill(eval.policy.begin(), eval.policy.end(), 0.0f);
      eval.policy[0] = 1;
    }
    return eval;
  }
};

TEST_CASE(
    "game runner: policy_init_area opens with moves drawn from the policy, no rows for them") {
  CornerEvaluator corner;
  search::UniformEvaluator uniform;
  int opened = 0, opening_moves = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    GameParams params = SmallGame(5);
    params.policy_init_area = 0.2;  // 5 moves on average before rounding down
    FinishedGame game;
    REQUIRE(PlayGame(
        params, {&corner, "corner"}, {&uniform, "uniform"}, seed, [] { return false; }, &game));
    opening_moves += game.opening_moves;
    if (game.opening_moves == 0) continue;
    ++opened;
    // Black's first move is the only one its policy allows; no move of the opening passes.
    CHECK(game.sgf.moves.at(0).loc == go::MakeLoc(0, 0, 5));
    for (int i = 0; i < game.opening_moves; ++i)
      CHECK(game.sgf.moves.at(static_cast<size_t>(i)).loc != go::kPassLoc);
    // Rows come from searched turns only, each with its short-term values.
    for (const data::TrainingRow& row : game.rows) {
      CHECK(row.turn >= game.opening_moves);
      CHECK(row.td_value_weight == 1.0f);
    }
  }
  // An exponential number of mean 5, rounded down: 4.5 on average, none in about 1 game of 5.
  CHECK(opened >= 10);
  CHECK(opening_moves > 20 * 2);
  CHECK(opening_moves < 20 * 8);
  // Off by default: the game starts from the empty board.
  FinishedGame plain;
  REQUIRE(PlayGame(
      SmallGame(5), {&corner, "corner"}, {&uniform, "uniform"}, 1, [] { return false; }, &plain));
  CHECK(plain.opening_moves == 0);
}

TEST_CASE("game runner: a reused seed replays the moves under a new game id") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  FinishedGame a, b;
  REQUIRE(PlayGame(
      SmallGame(5), player, player, 3, [] { return false; }, &a));
  REQUIRE(PlayGame(
      SmallGame(5), player, player, 3, [] { return false; }, &b));
  REQUIRE(a.sgf.moves.size() == b.sgf.moves.size());
  for (size_t i = 0; i < a.sgf.moves.size(); ++i) CHECK(a.sgf.moves[i].loc == b.sgf.moves[i].loc);
  CHECK(a.rows.size() == b.rows.size());
  CHECK(a.game_id != b.game_id);
  CHECK(a.game_id >= 0);
  CHECK(b.game_id >= 0);
}

TEST_CASE("game runner: policy surprise weighting repeats and drops rows, the game unchanged") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  int repeated = 0, dropped = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    GameParams plain = SmallGame(5);
    GameParams weighted = plain;
    weighted.policy_surprise_weight = 0.8;
    FinishedGame a, b;
    REQUIRE(PlayGame(
        plain, player, player, seed, [] { return false; }, &a));
    REQUIRE(PlayGame(
        weighted, player, player, seed, [] { return false; }, &b));
    // The weighting comes after the game: the same moves and result.
    REQUIRE(a.sgf.moves.size() == b.sgf.moves.size());
    for (size_t i = 0; i < a.sgf.moves.size(); ++i) CHECK(a.sgf.moves[i].loc == b.sgf.moves[i].loc);
    CHECK(a.final_score == b.final_score);
    // Each weighted row is a plain row of the same turn, written 0, 1 or more times in order.
    size_t j = 0;
    for (const data::TrainingRow& plain_row : a.rows) {
      int copies = 0;
      for (; j < b.rows.size() && b.rows[j].turn == plain_row.turn; ++j, ++copies) {
        CHECK(b.rows[j].policy == plain_row.policy);
        CHECK(b.rows[j].spatial == plain_row.spatial);
        CHECK(b.rows[j].score == plain_row.score);
      }
      repeated += copies > 1 ? 1 : 0;
      dropped += copies == 0 ? 1 : 0;
    }
    CHECK(j == b.rows.size());
  }
  CHECK(repeated > 0);
  CHECK(dropped > 0);
}

TEST_CASE("game runner: a lopsided game cuts its full searches and the weight of their rows") {
  // Every position is a sure win for black: each search's root value, black's view, is 1.
  search::FakeEvaluator evaluator;
  evaluator.value = [](const go::GameState& s) {
    return s.to_move() == go::Color::kBlack ? 1.0f : -1.0f;
  };
  const Player player{&evaluator, "black wins"};
  GameParams params = SmallGame(5);
  params.playout_cap.full_probability = 1;
  FinishedGame plain;
  REQUIRE(PlayGame(
      params, player, player, 3, [] { return false; }, &plain));
  CHECK(plain.reduced_searches == 0);
  CHECK(plain.search_visits == 24 * static_cast<int64_t>(plain.moves));
  CHECK(plain.rows.size() == static_cast<size_t>(plain.moves));

  // From the fourth search on (three values to look back on) every full search gets the
  // minimum visits, and its row weight 0 drops it.
  params.playout_cap.reduce_visits = true;
  params.playout_cap.reduced_visits_min = 4;
  params.playout_cap.reduced_visits_weight = 0;
  FinishedGame cut;
  REQUIRE(PlayGame(
      params, player, player, 3, [] { return false; }, &cut));
  REQUIRE(cut.moves > 3);
  CHECK(cut.reduced_searches == cut.moves - 3);
  CHECK(cut.search_visits == 3 * 24 + 4 * static_cast<int64_t>(cut.moves - 3));
  REQUIRE(cut.rows.size() == 3);
  for (size_t i = 0; i < 3; ++i) CHECK(cut.rows[i].turn == static_cast<int>(i));
}

TEST_CASE("game runner: a resigned game keeps policy and value rows, without score targets") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  GameParams params = SmallGame(5);
  params.playout_cap.full_probability = 1;  // every turn before the resignation has a row
  params.resign.enabled = true;
  params.resign.threshold = 1.0;  // every root value is below it
  // Black resigns on its third turn, after four recorded turns; with a single turn black
  // would resign before any row exists.
  params.resign.consecutive_turns = 3;
  params.resign.no_resign_fraction = 0;
  FinishedGame game;
  REQUIRE(PlayGame(
      params, player, player, 5, [] { return false; }, &game));
  CHECK(game.resigned);
  CHECK(game.end == GameEnd::kResignation);
  CHECK(std::string(GameEndName(game.end)) == "resignation");
  CHECK(game.winner == go::Color::kWhite);
  CHECK(game.moves == 4);
  CHECK(game.sgf.result == "W+R");
  REQUIRE(game.rows.size() == 4);
  for (size_t i = 0; i < game.rows.size(); ++i) {
    const data::TrainingRow& row = game.rows[i];
    const bool black_to_move = i % 2 == 0;
    // White won: a win for white's rows, a loss for black's.
    CHECK(row.value[0] == (black_to_move ? 0.0f : 1.0f));
    CHECK(row.value[1] == (black_to_move ? 1.0f : 0.0f));
    CHECK(row.value[2] == 0.0f);
    CHECK(row.weight == 1.0f);
    // The final board is unknown: no score or ownership target.
    CHECK(row.score_weight == 0.0f);
    CHECK(row.score == 0.0f);
    for (int8_t o : row.ownership) CHECK(o == 0);
    float policy_sum = 0;
    for (float p : row.policy) policy_sum += p;
    CHECK(policy_sum == doctest::Approx(1.0));
  }
}

TEST_CASE("game runner: how a game ended and the moves after its first pass") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  for (uint64_t seed = 20; seed < 26; ++seed) {
    FinishedGame game;
    REQUIRE(PlayGame(
        SmallGame(5), player, player, seed, [] { return false; }, &game));
    const auto& moves = game.sgf.moves;
    const int n = static_cast<int>(moves.size());
    REQUIRE(n == game.moves);
    int first_pass = -1;
    for (int i = 0; i < n && first_pass < 0; ++i)
      if (moves[i].loc == go::kPassLoc) first_pass = i;
    CHECK(game.moves_after_first_pass == (first_pass < 0 ? -1 : n - 1 - first_pass));
    const bool two_passes =
        n >= 2 && moves[n - 1].loc == go::kPassLoc && moves[n - 2].loc == go::kPassLoc;
    CHECK(game.end == (two_passes ? GameEnd::kPasses : GameEnd::kMoveCap));
    if (two_passes) CHECK(game.moves_after_first_pass >= 1);
    for (const data::TrainingRow& row : game.rows) CHECK(row.score_weight == 1.0f);
  }
  // A cap of 4 moves on 5x5 ends every game at the cap.
  GameParams capped = SmallGame(5);
  capped.max_moves_per_area = 4.0 / 25;
  FinishedGame game;
  REQUIRE(PlayGame(
      capped, player, player, 7, [] { return false; }, &game));
  CHECK(game.moves == 4);
  CHECK(game.end == (game.sgf.moves[3].loc == go::kPassLoc && game.sgf.moves[2].loc == go::kPassLoc
                         ? GameEnd::kPasses
                         : GameEnd::kMoveCap));
}

TEST_CASE("game runner: premature_pass_checks refuses at most that many first passes a game") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  for (int checks : {0, 2}) {
    CAPTURE(checks);
    GameParams params = SmallGame(5);
    params.premature_pass_checks = checks;
    int refused = 0;
    for (uint64_t seed = 40; seed < 52; ++seed) {
      FinishedGame game;
      REQUIRE(PlayGame(
          params, player, player, seed, [] { return false; }, &game));
      CHECK(game.passes_refused >= 0);
      CHECK(game.passes_refused <= checks);
      refused += game.passes_refused;
    }
    // Random play on 5x5 leaves open points in every area: some first passes are refused.
    CHECK((refused > 0) == (checks > 0));
  }
}

TEST_CASE("game runner: end_when_pass_alive ends a game once the whole board is pass-alive") {
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  GameParams params = SmallGame(5);
  params.end_when_pass_alive = true;
  int pass_alive_games = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    FinishedGame game;
    REQUIRE(PlayGame(
        params, player, player, seed, [] { return false; }, &game));
    const go::GameState final_state = go::ReplaySgf(game.sgf);
    const go::Board& board = final_state.board();
    // No position before the end was pass-alive throughout: the game stopped at the first.
    for (int turn = 0; turn < game.moves; ++turn)
      CHECK_FALSE(go::WholeBoardPassAlive(go::ReplaySgf(game.sgf, turn).board()));
    if (game.end != GameEnd::kPassAlive) {
      CHECK_FALSE(go::WholeBoardPassAlive(board));
      CHECK(game.sgf.root_comment.empty());
      continue;
    }
    ++pass_alive_games;
    CHECK(go::WholeBoardPassAlive(board));
    CHECK(game.sgf.moves.back().loc != go::kPassLoc);
    CHECK(game.sgf.root_comment == kPassAliveComment);
    // Scored by the pass-alive area, which the rows' ownership targets are too.
    const auto area = go::PassAliveArea(board);
    CHECK(game.final_score == go::OwnedAreaScore(board, area, final_state.rules().komi));
    CHECK(game.sgf.result == go::ScoreToResult(game.final_score));
    for (const data::TrainingRow& row : game.rows) {
      const go::Color mover = go::ReplaySgf(game.sgf, row.turn).to_move();
      for (int y = 0; y < 5; ++y) {
        for (int x = 0; x < 5; ++x) {
          const go::Color owner = area[board.LocOf(x, y)];
          CHECK(row.ownership[y * params.pos_len + x] == (owner == mover ? 1 : -1));
        }
      }
      CHECK(row.score == doctest::Approx((mover == go::Color::kBlack ? 1 : -1) * game.final_score));
    }
  }
  // Random play on 5x5 fills the board down to eyes: some games end so.
  CHECK(pass_alive_games > 0);
}

// The uniform random net, but sure that the side to move leads by `lead` points.
class LeadEvaluator : public search::LeafEvaluator {
 public:
  explicit LeadEvaluator(float lead) : lead_(lead) {}
  search::LeafEvaluation Evaluate(const go::GameState& state) override {
    search::LeafEvaluation eval = search::UniformEvaluator().Evaluate(state);
    eval.score = lead_;
    return eval;
  }

 private:
  float lead_;
};

TEST_CASE("game runner: an automatic komi evens out the black net's expected lead") {
  GameParams params = SmallGame(5);
  params.komis = {{7.0, 1.0}};
  params.max_moves_per_area = 2.0 / 25;  // the komi is all this test needs
  params.komi_auto = true;
  LeadEvaluator leads(3.0f);  // black (to move on the empty board) leads by 3 at komi 7
  search::UniformEvaluator uniform;
  const Player black{&leads, "leads"};
  const Player white{&uniform, "uniform"};
  FinishedGame game;
  REQUIRE(PlayGame(
      params, black, white, 1, [] { return false; }, &game));
  CHECK(game.sgf.rules.komi == 10.0);
  // Noise of 1 point: every komi a half point, spread around 10.
  params.komi_stdev = 1.0;
  double total = 0;
  bool varied = false;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    REQUIRE(PlayGame(
        params, black, white, seed, [] { return false; }, &game));
    const double komi = game.sgf.rules.komi;
    CHECK(komi * 2 == std::round(komi * 2));
    varied = varied || komi != 10.0;
    total += komi;
  }
  CHECK(varied);
  CHECK(total / 40 == doctest::Approx(10.0).epsilon(0.05));
  // The wider noise in every game (komi_big_stdev_prob 1): a spread of about 8 points.
  params.komi_stdev = 0;
  params.komi_big_stdev_prob = 1;
  params.komi_big_stdev = 8;
  double squares = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    REQUIRE(PlayGame(
        params, black, white, seed, [] { return false; }, &game));
    squares += (game.sgf.rules.komi - 10.0) * (game.sgf.rules.komi - 10.0);
  }
  CHECK(std::sqrt(squares / 40) > 5);
  CHECK(std::sqrt(squares / 40) < 11);
  // In half of the games: the others keep the fair komi exactly (komi_stdev 0).
  params.komi_big_stdev_prob = 0.5;
  int exact = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    REQUIRE(PlayGame(
        params, black, white, seed, [] { return false; }, &game));
    exact += game.sgf.rules.komi == 10.0;
  }
  CHECK(exact >= 12);
  CHECK(exact <= 32);
  params.komi_big_stdev_prob = 0;
  // Never beyond the board's area.
  LeadEvaluator huge(1000.0f);
  const Player greedy{&huge, "huge"};
  REQUIRE(PlayGame(
      params, greedy, white, 2, [] { return false; }, &game));
  CHECK(game.sgf.rules.komi == 25.0);
}

TEST_CASE("game runner: a handicap game starts from the fixed stones, white to move") {
  GameParams params = SmallGame(7);
  params.komis = {{7.0, 1.0}};
  params.komi_auto = true;  // even games only: a handicap game's komi is its own
  params.handicap_game_prob = 1;
  params.handicap_stones = 2;
  params.handicap_fair_komi_prob = 0;
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  std::vector<go::Loc> fixed = go::FixedHandicapPoints(7, 2);
  std::sort(fixed.begin(), fixed.end());
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    FinishedGame game;
    REQUIRE(PlayGame(
        params, player, player, seed, [] { return false; }, &game));
    CHECK(game.handicap_stones == 2);
    std::vector<go::Loc> stones = game.sgf.setup_black;
    std::sort(stones.begin(), stones.end());
    CHECK(stones == fixed);
    CHECK(game.sgf.setup_white.empty());
    CHECK(game.sgf.first_player == go::Color::kWhite);
    CHECK(game.sgf.rules.komi == 0.5);
    // The record replays to the recorded result, and each row is its position, white to move
    // at even turns.
    const go::GameState replayed = go::ReplaySgf(game.sgf);
    CHECK(go::TrompTaylorScore(replayed.board(), 0.5) == game.final_score);
    REQUIRE_FALSE(game.rows.empty());
    for (const data::TrainingRow& row : game.rows) {
      const go::GameState at_row = go::ReplaySgf(game.sgf, row.turn);
      CHECK(at_row.to_move() == (row.turn % 2 == 0 ? go::Color::kWhite : go::Color::kBlack));
      std::vector<float> spatial(static_cast<size_t>(nn::kNumSpatialFeatures) * 49);
      std::vector<float> global(nn::kNumGlobalFeatures);
      nn::FillFeatures(at_row, params.pos_len, 0, spatial.data(), global.data());
      CHECK(row.spatial == spatial);
      CHECK(row.komi == 0.5f);
    }
  }

  // Made fair: white, to move, leads by 3 by the black player's net, so black's lead is -3.
  params.handicap_fair_komi_prob = 1;
  params.max_moves_per_area = 2.0 / 49;  // the komi is all this needs
  LeadEvaluator leads(3.0f);
  const Player black{&leads, "leads"};
  FinishedGame fair;
  REQUIRE(PlayGame(
      params, black, player, 1, [] { return false; }, &fair));
  CHECK(fair.sgf.rules.komi == -2.5);

  // Half of the games: some with stones, some without (komi 7 made fair: 7 by the uniform net).
  params.handicap_game_prob = 0.5;
  params.handicap_fair_komi_prob = 0;
  int handicap = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    FinishedGame game;
    REQUIRE(PlayGame(
        params, player, player, seed, [] { return false; }, &game));
    const bool stones = !game.sgf.setup_black.empty();
    CHECK(stones == (game.handicap_stones == 2));
    CHECK(game.sgf.rules.komi == (stones ? 0.5 : 7.0));
    handicap += stones;
  }
  CHECK(handicap >= 10);
  CHECK(handicap <= 30);
}

TEST_CASE("game runner: a stop request abandons the game in flight") {
  // The stop is polled between moves and between playouts: once it says stop, the game ends
  // within a poll or two instead of finishing its search.
  search::UniformEvaluator evaluator;
  const Player player{&evaluator, "random"};
  for (int stop_at : {1, 5, 40}) {
    int polls = 0;
    FinishedGame game;
    CHECK_FALSE(PlayGame(
        SmallGame(5), player, player, 9, [&] { return ++polls >= stop_at; }, &game));
    CHECK(polls >= stop_at);
    CHECK(polls <= stop_at + 1);
  }
}

TEST_CASE("game runner: move temperature decays from early to late") {
  GameParams params;
  CHECK(MoveTemperature(params, 0, 19) == doctest::Approx(params.temperature_early));
  CHECK(MoveTemperature(params, 19, 19) ==
        doctest::Approx((params.temperature_early + params.temperature_late) / 2));
  CHECK(MoveTemperature(params, 1000, 19) == doctest::Approx(params.temperature_late));
  // On a smaller board the same decay takes fewer turns: the half-life scales with the side
  // (KataGo's 19 / sqrt(area)), so 9 turns on 9x9 and 7 on 7x7.
  CHECK(MoveTemperature(params, 5, 9) < MoveTemperature(params, 5, 19));
  CHECK(MoveTemperature(params, 9, 9) == doctest::Approx(MoveTemperature(params, 19, 19)));
  CHECK(MoveTemperature(params, 18, 9) ==
        doctest::Approx(0.25 * params.temperature_early + 0.75 * params.temperature_late));
  CHECK(MoveTemperature(params, 7, 7) == doctest::Approx(MoveTemperature(params, 19, 19)));
}

}  // namespace
}  // namespace tengen::play
