#include <doctest/doctest.h>

#include <cmath>

#include "pipeline/elo.h"

namespace tengen::pipeline {
namespace {

TEST_CASE("elo: the logistic curve at known points") {
  CHECK(EloFromScore(0.5) == doctest::Approx(0.0));
  CHECK(EloFromScore(0.75) == doctest::Approx(190.848).epsilon(1e-5));
  CHECK(EloFromScore(0.25) == doctest::Approx(-190.848).epsilon(1e-5));
  CHECK(ExpectedScore(190.848) == doctest::Approx(0.75).epsilon(1e-5));
  CHECK(ExpectedScore(0) == doctest::Approx(0.5));
}

TEST_CASE("elo: estimate and 95% interval of 60 wins and 40 losses") {
  const EloEstimate e = EstimateElo({60, 40, 0});
  // p = 0.6; Wilson's interval: centre 0.5963, half width 0.0943, p in [0.5020, 0.6906]
  // (hand-computed).
  CHECK(e.elo == doctest::Approx(70.437).epsilon(1e-4));
  CHECK(e.low == doctest::Approx(1.3915).epsilon(1e-3));
  CHECK(e.high == doctest::Approx(139.481).epsilon(1e-4));
  // 19 wins of 40 (the figure docs/RESULTS.md gives for the 3-hour net against GNU Go):
  // p in [0.3294, 0.6250].
  const EloEstimate close = EstimateElo({19, 21, 0});
  CHECK(close.low == doctest::Approx(-123.532).epsilon(1e-4));
  CHECK(close.high == doctest::Approx(88.759).epsilon(1e-4));
}

TEST_CASE("elo: draws count half and shrink the interval") {
  const EloEstimate with_draws = EstimateElo({40, 40, 20});
  CHECK(with_draws.elo == doctest::Approx(0.0));
  const EloEstimate without = EstimateElo({50, 50, 0});
  CHECK(with_draws.high - with_draws.low < without.high - without.low);
}

TEST_CASE("elo: a perfect or empty score stays finite") {
  const EloEstimate all = EstimateElo({10, 0, 0});
  CHECK(std::isfinite(all.elo));
  CHECK(all.elo == doctest::Approx(EloFromScore(1 - 0.05)));
  // The interval keeps its width: 10 of 10 is at least p = 0.7225 (+166), not a point.
  CHECK(all.low == doctest::Approx(166.202).epsilon(1e-4));
  CHECK(all.high == doctest::Approx(all.elo));
  const EloEstimate sixty = EstimateElo({60, 0, 0});
  CHECK(sixty.low == doctest::Approx(477.462).epsilon(1e-4));  // p >= 60 / (60 + 1.96^2)
  const EloEstimate zero = EstimateElo({0, 10, 0});
  CHECK(zero.high == doctest::Approx(-166.202).epsilon(1e-4));
  CHECK(zero.low == doctest::Approx(zero.elo));
  const EloEstimate none = EstimateElo({0, 0, 0});
  CHECK(none.elo == 0);
  CHECK(none.low == 0);
}

TEST_CASE("elo: SPRT accepts a clear winner, rejects a clear loser, waits otherwise") {
  const SprtParams params;  // elo0 0, elo1 35, alpha = beta = 0.05
  // 30 wins 10 losses: LLR = 2.4085 (hand-computed) < log(19) = 2.944: not yet; the same
  // rate over 60 games is LLR 3.61: accept.
  CHECK(SprtLogLikelihoodRatio({30, 10, 0}, 0, 35) == doctest::Approx(2.4085).epsilon(1e-4));
  CHECK(Sprt({30, 10, 0}, params) == SprtDecision::kContinue);
  CHECK(Sprt({45, 15, 0}, params) == SprtDecision::kAccept);
  CHECK(Sprt({10, 30, 0}, params) == SprtDecision::kReject);
  CHECK(Sprt({5, 5, 0}, params) == SprtDecision::kContinue);
  CHECK(Sprt({0, 0, 0}, params) == SprtDecision::kContinue);
  // All wins: the variance floor keeps the ratio finite, and it grows with the games.
  CHECK(std::isfinite(SprtLogLikelihoodRatio({8, 0, 0}, 0, 35)));
  CHECK(SprtLogLikelihoodRatio({16, 0, 0}, 0, 35) > SprtLogLikelihoodRatio({8, 0, 0}, 0, 35));
}

TEST_CASE("elo: the SPRT decides nothing before min_games") {
  SprtParams params;
  params.elo1 = 50;
  // With the variance floored at 1/(4n), 5 wins of 5 are LLR 3.32 > log(19): accepted at once.
  CHECK(Sprt({5, 0, 0}, params) == SprtDecision::kAccept);
  CHECK(Sprt({0, 5, 0}, params) == SprtDecision::kReject);
  params.min_games = 10;
  CHECK(Sprt({5, 0, 0}, params) == SprtDecision::kContinue);
  CHECK(Sprt({0, 5, 0}, params) == SprtDecision::kContinue);
  CHECK(Sprt({9, 0, 0}, params) == SprtDecision::kContinue);
  CHECK(Sprt({10, 0, 0}, params) == SprtDecision::kAccept);
  CHECK(Sprt({0, 10, 0}, params) == SprtDecision::kReject);
}

}  // namespace
}  // namespace tengen::pipeline
