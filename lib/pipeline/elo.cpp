#include "pipeline/elo.h"

#include <algorithm>
#include <cmath>

namespace tengen::pipeline {
namespace {

constexpr double kZ95 = 1.959963984540054;

double ClampFraction(double p, int games) {
  const double margin = 0.5 / games;
  return std::clamp(p, margin, 1.0 - margin);
}

// Per-game variance of the score (1, 1/2, 0) around its mean.
double ScoreVariance(const MatchScore& s, double mean) {
  const int n = s.games();
  const double sq = s.wins * (1 - mean) * (1 - mean) + s.draws * (0.5 - mean) * (0.5 - mean) +
                    s.losses * mean * mean;
  return sq / n;
}

}  // namespace

double ExpectedScore(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

double EloFromScore(double fraction) { return 400.0 * std::log10(fraction / (1.0 - fraction)); }

EloEstimate EstimateElo(const MatchScore& score) {
  const int n = score.games();
  if (n == 0) return {};
  const double p = score.points() / n;
  // Wilson's score interval, with the observed per-game variance in place of p (1 - p) so that
  // draws narrow it; without draws it is Wilson's interval exactly.
  const double z2 = kZ95 * kZ95;
  const double shrink = 1 + z2 / n;
  const double center = (p + z2 / (2.0 * n)) / shrink;
  const double half = kZ95 / shrink * std::sqrt(ScoreVariance(score, p) / n + z2 / (4.0 * n * n));
  EloEstimate e;
  e.elo = EloFromScore(ClampFraction(p, n));
  e.low = std::min(EloFromScore(ClampFraction(center - half, n)), e.elo);
  e.high = std::max(EloFromScore(ClampFraction(center + half, n)), e.elo);
  return e;
}

double SprtLogLikelihoodRatio(const MatchScore& score, double elo0, double elo1) {
  const int n = score.games();
  if (n == 0) return 0;
  const double x = score.points() / n;
  const double v = std::max(ScoreVariance(score, x), 0.25 / n);
  const double s0 = ExpectedScore(elo0);
  const double s1 = ExpectedScore(elo1);
  return n * (s1 - s0) * (2 * x - s0 - s1) / (2 * v);
}

SprtDecision Sprt(const MatchScore& score, const SprtParams& params) {
  if (score.games() < params.min_games) return SprtDecision::kContinue;
  const double llr = SprtLogLikelihoodRatio(score, params.elo0, params.elo1);
  if (llr >= std::log((1 - params.beta) / params.alpha)) return SprtDecision::kAccept;
  if (llr <= std::log(params.beta / (1 - params.alpha))) return SprtDecision::kReject;
  return SprtDecision::kContinue;
}

}  // namespace tengen::pipeline
