#pragma once
// Elo arithmetic for matches (gatekeeper, tengen-match, the ladder): the Elo difference a
// match score implies, its 95% interval, and a sequential probability ratio test (SPRT) in the
// way Leela Zero and fishtest gate nets.
//
// Model: the logistic Elo curve, expected score s(elo) = 1 / (1 + 10^(-elo/400)). A match's
// score fraction p = (wins + draws/2) / games; its Elo is 400 log10(p / (1 - p)). The interval
// is Wilson's 95% score interval of p (the per-game variance of wins, draws and losses as 1,
// 1/2, 0 in place of p (1 - p)), mapped through the same curve: unlike p +- 1.96 standard
// errors it does not shrink to a point at a perfect score (60 wins of 60: at least +477). A
// score of 0 or 1 has no finite Elo: p and the bounds are clamped to [1/(2 games),
// 1 - 1/(2 games)] (half a game's credit), so every result is finite; the clamped side of a
// perfect score is the point estimate itself.
//
// SPRT: the normal approximation of the generalised SPRT (fishtest's "GSPRT"): with s0 =
// s(elo0), s1 = s(elo1), mean score x and per-game variance v over n games,
//   LLR = n (s1 - s0) (2x - s0 - s1) / (2 v).
// Accept (H1: the candidate is elo1 better) when LLR >= log((1 - beta) / alpha), reject (H0:
// elo0) when LLR <= log(beta / (1 - alpha)), continue otherwise. v is floored at 1/(4n) so
// that a run of identical results still gives a finite LLR.

namespace tengen::pipeline {

struct MatchScore {
  int wins = 0;
  int losses = 0;
  int draws = 0;
  int games() const { return wins + losses + draws; }
  double points() const { return wins + 0.5 * draws; }
};

struct EloEstimate {
  double elo = 0;  // point estimate
  double low = 0;  // 95% interval
  double high = 0;
};

// Expected score of a player `elo` points stronger.
double ExpectedScore(double elo);
// Elo difference for a score fraction in (0, 1).
double EloFromScore(double fraction);
// The match's Elo difference (positive: the side whose wins are counted is stronger) and its
// 95% interval; all three 0 for a match of no games.
EloEstimate EstimateElo(const MatchScore& score);

struct SprtParams {
  double elo0 = 0;
  double elo1 = 35;
  double alpha = 0.05;
  double beta = 0.05;
  // No decision before this many games. The log-likelihood ratio floors the score variance at
  // 1/(4n), so without it a candidate that wins its first 5 games is accepted at once (elo0 0,
  // elo1 50): simulated with a candidate 50 Elo weaker, 200 games at most, 3.3% accepted
  // with no floor and 1.9% with 10 (experiments/sprt_sim.py).
  int min_games = 0;
};
enum class SprtDecision { kContinue, kAccept, kReject };

double SprtLogLikelihoodRatio(const MatchScore& score, double elo0, double elo1);
SprtDecision Sprt(const MatchScore& score, const SprtParams& params);

}  // namespace tengen::pipeline
