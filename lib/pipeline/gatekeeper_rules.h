#pragma once
// The gatekeeper's verdicts (pipeline/gatekeeper.h describes the whole and plays the matches,
// pipeline/gatekeeper_options.h holds its settings): the rule that decides a match (fixed or
// SPRT), and the match record it publishes beside each match's games.

#include <string>

#include "pipeline/elo.h"
#include "pipeline/gatekeeper_options.h"

namespace tengen::pipeline {

enum class GateDecision { kContinue, kAccept, kReject };

// The fixed rule after `score.games()` of `total_games` games: accept when the candidate's
// points reach required_prop * total_games, reject when they cannot any more, else continue.
GateDecision FixedRuleDecision(const MatchScore& score, int total_games, double required_prop);
// The rule in force (fixed or SPRT, see pipeline/gatekeeper.h) after the games in `score`.
GateDecision MatchDecision(const MatchScore& score, const GatekeeperOptions& options);

struct MatchRecord {
  std::string candidate;
  std::string baseline;
  int games_planned = 0;
  MatchScore score;              // the candidate's wins, losses and draws
  int candidate_black_wins = 0;  // wins with black (the rest with white)
  bool accepted = false;
  std::string reason;  // why it was decided ("score 12/20 >= 10", "older than ...")
  bool sprt = false;
  SprtParams sprt_params;
  std::string sgf_file;  // the .sgfs beside the record (empty: no games)
  std::string started_utc;
  std::string finished_utc;
};

// The match record, a JSON object:
//   format "tengen-gating", format_version 1, candidate, baseline, games_planned, games,
//   candidate_wins, candidate_losses, draws, score (wins + draws / 2), score_fraction,
//   candidate_black_wins, candidate_white_wins, elo, elo_low, elo_high (95% interval, from the
//   candidate's view; pipeline/elo.h), mode ("fixed" or "sprt"), required_candidate_win_prop,
//   sprt (null, or {elo0, elo1, alpha, beta, min_games, llr, llr_lower, llr_upper}), decision
//   ("accepted" or "rejected"), reason, sgf_file, started_utc, finished_utc, gatekeeper
//   ("<host>-<pid>").
std::string MatchRecordJson(const MatchRecord& record, double required_prop);

// "accepted" or "rejected".
const char* DecisionName(bool accepted);

}  // namespace tengen::pipeline
