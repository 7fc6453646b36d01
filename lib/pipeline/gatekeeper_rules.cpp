#include "pipeline/gatekeeper_rules.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "pipeline/base_dir.h"
#include "pipeline/json_text.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

// Ties go to the candidate (KataGo compares candidate points + 1e-10 with the threshold).
constexpr double kTieEpsilon = 1e-10;

}  // namespace

const char* DecisionName(bool accepted) { return accepted ? "accepted" : "rejected"; }

GateDecision FixedRuleDecision(const MatchScore& score, int total_games, double required_prop) {
  const double threshold = required_prop * total_games;
  if (score.points() + kTieEpsilon >= threshold) return GateDecision::kAccept;
  const int remaining = std::max(0, total_games - score.games());
  if (score.points() + remaining + kTieEpsilon < threshold) return GateDecision::kReject;
  return GateDecision::kContinue;
}

GateDecision MatchDecision(const MatchScore& score, const GatekeeperOptions& options) {
  if (options.use_sprt) {
    switch (Sprt(score, options.sprt)) {
      case SprtDecision::kAccept:
        return GateDecision::kAccept;
      case SprtDecision::kReject:
        return GateDecision::kReject;
      case SprtDecision::kContinue:
        break;
    }
    if (score.games() < options.games) return GateDecision::kContinue;
  }
  return FixedRuleDecision(score, options.games, options.required_candidate_win_prop);
}

std::string MatchRecordJson(const MatchRecord& record, double required_prop) {
  using Json = nlohmann::ordered_json;
  const MatchScore& s = record.score;
  const EloEstimate elo = EstimateElo(s);
  Json sprt = nullptr;
  if (record.sprt) {
    const SprtParams& p = record.sprt_params;
    sprt = {{"elo0", p.elo0},
            {"elo1", p.elo1},
            {"alpha", p.alpha},
            {"beta", p.beta},
            {"min_games", p.min_games},
            {"llr", s.games() > 0 ? SprtLogLikelihoodRatio(s, p.elo0, p.elo1) : 0.0},
            {"llr_lower", std::log(p.beta / (1 - p.alpha))},
            {"llr_upper", std::log((1 - p.beta) / p.alpha)}};
  }
  const Json json = {
      {"format", "tengen-gating"},
      {"format_version", 1},
      {"candidate", record.candidate},
      {"baseline", record.baseline},
      {"games_planned", record.games_planned},
      {"games", s.games()},
      {"candidate_wins", s.wins},
      {"candidate_losses", s.losses},
      {"draws", s.draws},
      {"score", s.points()},
      {"score_fraction", s.games() > 0 ? Json(s.points() / s.games()) : Json(nullptr)},
      {"candidate_black_wins", record.candidate_black_wins},
      {"candidate_white_wins", s.wins - record.candidate_black_wins},
      {"elo", elo.elo},
      {"elo_low", elo.low},
      {"elo_high", elo.high},
      {"mode", record.sprt ? "sprt" : "fixed"},
      {"required_candidate_win_prop", required_prop},
      {"sprt", sprt},
      {"decision", DecisionName(record.accepted)},
      {"reason", record.reason},
      {"sgf_file", record.sgf_file},
      {"started_utc", record.started_utc},
      {"finished_utc", record.finished_utc},
      {"gatekeeper", HostPid()}};
  return JsonFileText(json);
}

}  // namespace tengen::pipeline
