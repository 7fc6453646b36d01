// How games end: counts by end, the nearest-rank median and 90th percentile of the moves after
// the first pass, the mean |final score| of scored games, the same read back from SGFs, and the
// heartbeat counters and log text made of them.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "go/sgf.h"
#include "pipeline/game_end_stats.h"

namespace tengen::pipeline {
namespace {

TEST_CASE("game end stats: counts, quantiles of the moves after the first pass, mean |score|") {
  GameEndStats stats;
  CHECK(stats.MovesAfterFirstPass(0.5) == -1);
  CHECK(stats.MeanAbsFinalScore() == 0);
  // Moves after the first pass: 1, 1, 2, 3, 3, 4, 7, 9, 20, 60 (and one game without a pass).
  const int afters[] = {3, 1, 60, 2, 9, 1, 4, 20, 3, 7};
  const double scores[] = {2.5, -0.5, 30, -3.5, 1.5, 0, 4.5, -10.5, 6.5, 0.5};
  for (int i = 0; i < 10; ++i)
    stats.Add(afters[i] == 60 ? play::GameEnd::kMoveCap : play::GameEnd::kPasses, afters[i],
              scores[i]);
  stats.Add(play::GameEnd::kResignation, -1, 99.0);  // not scored, no pass
  CHECK(stats.games() == 11);
  CHECK(stats.games_with_pass() == 10);
  CHECK(stats.ended_by(play::GameEnd::kPasses) == 9);
  CHECK(stats.ended_by(play::GameEnd::kMoveCap) == 1);
  CHECK(stats.ended_by(play::GameEnd::kResignation) == 1);
  // Nearest rank of 10 values: the median is the 5th (3), the 90th percentile the 9th (20).
  CHECK(stats.MovesAfterFirstPass(0.5) == 3);
  CHECK(stats.MovesAfterFirstPass(0.9) == 20);
  CHECK(stats.MovesAfterFirstPass(1.0) == 60);
  CHECK(stats.MovesAfterFirstPass(0.1) == 1);
  // |scores| sum to 60, over the 10 scored games.
  CHECK(stats.MeanAbsFinalScore() == doctest::Approx(6.0));
}

TEST_CASE("game end stats: from SGF records as selfplay writes them") {
  GameEndStats stats;
  const auto record = [](const std::string& text) { return go::ReadSgfRecords(text).at(0); };
  // Two passes at the end, one earlier pass: 4 moves after the first pass.
  CHECK(stats.AddRecord(record("(;SZ[5]KM[0.5]RE[B+2.5];B[cc];W[];B[bb];W[dd];B[];W[])")));
  // Resigned.
  CHECK(stats.AddRecord(record("(;SZ[5]KM[0.5]RE[W+R];B[cc];W[dd])")));
  // No two passes at the end: the move cap.
  CHECK(stats.AddRecord(record("(;SZ[5]KM[0.5]RE[0];B[cc];W[dd];B[];W[ee])")));
  CHECK_FALSE(stats.AddRecord(record("(;SZ[5]KM[0.5]RE[Void];B[cc])")));
  CHECK(stats.games() == 3);
  CHECK(stats.ended_by(play::GameEnd::kPasses) == 1);
  CHECK(stats.ended_by(play::GameEnd::kResignation) == 1);
  CHECK(stats.ended_by(play::GameEnd::kMoveCap) == 1);
  CHECK(stats.games_with_pass() == 2);
  CHECK(stats.MovesAfterFirstPass(1.0) == 4);
  CHECK(stats.MovesAfterFirstPass(0.5) == 1);
  CHECK(stats.MeanAbsFinalScore() == doctest::Approx(1.25));  // (2.5 + 0) / 2
}

TEST_CASE("game end stats: a record with the pass-alive comment ended so") {
  // Selfplay's end_when_pass_alive writes kPassAliveComment on the root; without it, a game
  // that does not end with two passes reached the move cap.
  go::SgfRecord settled = go::ReadSgfRecords("(;SZ[5]KM[0.5]RE[B+4.5];B[cc];W[dd])").at(0);
  settled.root_comment = play::kPassAliveComment;
  const go::SgfRecord read_back = go::ReadSgfRecords(go::WriteSgf(settled)).at(0);
  GameEndStats stats;
  CHECK(stats.AddRecord(read_back));
  CHECK(stats.ended_by(play::GameEnd::kPassAlive) == 1);
  CHECK(stats.games_with_pass() == 0);
  CHECK(stats.MeanAbsFinalScore() == doctest::Approx(4.5));
  settled.root_comment = "";
  CHECK(stats.AddRecord(settled));
  CHECK(stats.ended_by(play::GameEnd::kMoveCap) == 1);
}

TEST_CASE("game end stats: a game that ends pass, pass has 1 move after the first pass") {
  GameEndStats stats;
  CHECK(stats.AddRecord(go::ReadSgfRecords("(;SZ[5]KM[0.5]RE[W+0.5];B[cc];W[dd];B[];W[])").at(0)));
  // Black passed first; White's pass is the one move after it.
  CHECK(stats.ended_by(play::GameEnd::kPasses) == 1);
  CHECK(stats.MovesAfterFirstPass(0.5) == 1);
  CHECK(stats.MovesAfterFirstPass(0.9) == 1);
  CHECK(stats.scored_games() == 1);
  CHECK(stats.MeanAbsFinalScore() == doctest::Approx(0.5));
}

TEST_CASE("game end stats: heartbeat counters and the progress text") {
  const auto counters = [](const GameEndStats& stats) {
    std::map<std::string, double> out;
    for (const auto& [key, value] : GameEndCounters(stats)) out[key] = value;
    return out;
  };
  GameEndStats stats;
  CHECK(FormatGameEnds(stats).empty());
  // One resigned game: counted, but it says nothing about passes or the score.
  stats.Add(play::GameEnd::kResignation, -1, 0);
  std::map<std::string, double> c = counters(stats);
  CHECK(c.size() == 8);
  CHECK(c["model_games"] == 1);
  CHECK(c["games_end_resignation"] == 1);
  CHECK(c["games_end_passes"] == 0);
  CHECK(c["games_end_move_cap"] == 0);
  CHECK(c["games_end_pass_alive"] == 0);
  CHECK(std::isnan(c["moves_after_first_pass_median"]));
  CHECK(std::isnan(c["moves_after_first_pass_p90"]));
  CHECK(std::isnan(c["mean_abs_final_score"]));
  CHECK(FormatGameEnds(stats) ==
        "games of this model 1: ended by passes 0, move cap 0, resignation 1, pass-alive 0");

  // Then two passes after 1 and 5 moves (scores +3.5 and -0.5) and a capped game with a pass 40
  // moves before the cap (score -12): moves after the first pass 1, 5, 40; nearest rank of 3
  // values: the median is the 2nd (5), the 90th percentile the 3rd (40); mean |score| 16/3.
  stats.Add(play::GameEnd::kPasses, 1, 3.5);
  stats.Add(play::GameEnd::kPasses, 5, -0.5);
  stats.Add(play::GameEnd::kMoveCap, 40, -12);
  c = counters(stats);
  CHECK(c["model_games"] == 4);
  CHECK(c["games_end_pass_alive"] == 0);
  CHECK(c["games_end_passes"] == 2);
  CHECK(c["games_end_move_cap"] == 1);
  CHECK(c["games_end_resignation"] == 1);
  CHECK(c["moves_after_first_pass_median"] == 5);
  CHECK(c["moves_after_first_pass_p90"] == 40);
  CHECK(c["mean_abs_final_score"] == doctest::Approx(16.0 / 3.0));
  CHECK(FormatGameEnds(stats) ==
        "games of this model 4: ended by passes 2, move cap 1, resignation 1, pass-alive 0; moves "
        "after the "
        "first pass: median 5, 90th percentile 40; mean |final score| 5.3");

  // A finished game in which premature_pass_checks refused two first passes.
  play::FinishedGame game;
  game.end = play::GameEnd::kPasses;
  game.moves_after_first_pass = 1;
  game.final_score = 0.5;
  game.passes_refused = 2;
  stats.Add(game);
  CHECK(stats.passes_refused() == 2);
  CHECK(FormatGameEnds(stats).find("; first passes refused 2") != std::string::npos);
  CHECK(FormatGameEnds(stats).find("lopsided") == std::string::npos);
  game.reduced_searches = 7;
  stats.Add(game);
  CHECK(stats.reduced_searches() == 7);
  CHECK(FormatGameEnds(stats).find("; full searches cut in lopsided games 7") != std::string::npos);
  CHECK(FormatGameEnds(stats).find("handicap") == std::string::npos);
  game.handicap_stones = 2;
  stats.Add(game);
  stats.Add(game);
  CHECK(stats.handicap_games() == 2);
  CHECK(FormatGameEnds(stats).find("; handicap games 2") != std::string::npos);
}

}  // namespace
}  // namespace tengen::pipeline
