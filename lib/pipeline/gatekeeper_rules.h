#pragma once
// The gatekeeper's settings and verdicts (pipeline/gatekeeper.h describes the whole and plays
// the matches): its options with their defaults and config keys, the rule that decides a
// match (fixed or SPRT), and the match record it publishes beside each match's games.

#include <chrono>
#include <cstdint>
#include <string>

#include "pipeline/elo.h"
#include "pipeline/game_runner.h"
#include "pipeline/model_registry.h"
#include "util/config.h"

namespace tengen::pipeline {

// The game the gatekeeper plays by default (KataGo's gatekeeper settings, 9x9 nets).
GameParams GatekeeperDefaultGame();

struct GatekeeperOptions {
  std::string base_dir;
  // Board sizes, komi, rules, search, temperature, resignation, pos_len. The gatekeeper plays
  // every search at playout_cap.full_visits with no root noise and records no rows, whatever
  // these say (GatekeeperGameParams).
  GameParams game = GatekeeperDefaultGame();
  int games = 200;                           // KataGo's numGamesPerGating
  double required_candidate_win_prop = 0.5;  // KataGo's -required-candidate-win-prop
  bool use_sprt = false;
  SprtParams sprt;
  int num_game_threads = 8;
  int nn_max_batch_size = 8;  // capped at num_game_threads
  std::string device = "cpu";
  bool quit_if_no_nets_to_test = false;
  uint64_t seed = 0;  // master seed of the games; 0 = from entropy
  std::chrono::milliseconds poll_interval{10000};
  std::chrono::milliseconds log_interval{30000};
  std::chrono::milliseconds heartbeat_interval{5000};
  LoadModel load_model;  // empty: only the random net can be played
};

// `game` as the gatekeeper plays it: every search full_visits visits without noise (cheap
// searches only, which apply no noise, root temperature or forced playouts), no rows.
GameParams GatekeeperGameParams(GameParams game);

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

// Every key (output_dir, games, required_candidate_win_prop, quit_if_no_nets_to_test, the
// [sprt] keys, the [rules] keys, games and search knobs, threads, device, precision, ...).
void DeclareGatekeeperOptions(ConfigSpec& spec);
// Everything but load_model, which the program wires.
GatekeeperOptions GatekeeperOptionsFromConfig(const Config& config);

}  // namespace tengen::pipeline
