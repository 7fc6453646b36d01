// How games end: counts by end, the nearest-rank median and 90th percentile of the moves after
// the first pass, the mean |final score| of scored games, and the same read back from SGFs.
#include <doctest/doctest.h>

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
    stats.Add(afters[i] == 60 ? GameEnd::kMoveCap : GameEnd::kPasses, afters[i], scores[i]);
  stats.Add(GameEnd::kResignation, -1, 99.0);  // not scored, no pass
  CHECK(stats.games() == 11);
  CHECK(stats.games_with_pass() == 10);
  CHECK(stats.ended_by(GameEnd::kPasses) == 9);
  CHECK(stats.ended_by(GameEnd::kMoveCap) == 1);
  CHECK(stats.ended_by(GameEnd::kResignation) == 1);
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
  CHECK(stats.ended_by(GameEnd::kPasses) == 1);
  CHECK(stats.ended_by(GameEnd::kResignation) == 1);
  CHECK(stats.ended_by(GameEnd::kMoveCap) == 1);
  CHECK(stats.games_with_pass() == 2);
  CHECK(stats.MovesAfterFirstPass(1.0) == 4);
  CHECK(stats.MovesAfterFirstPass(0.5) == 1);
  CHECK(stats.MeanAbsFinalScore() == doctest::Approx(1.25));  // (2.5 + 0) / 2
}

}  // namespace
}  // namespace tengen::pipeline
