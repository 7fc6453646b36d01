#pragma once
// The gatekeeper (tengen-gatekeeper is a thin main around RunGatekeeper): decides whether a
// freshly exported net is good enough to become the net selfplay uses.
//
// Choosing. Every pass lists modelstobetested/ and models/ in the model registry's order
// (samples s<N> in the name, then modification time, then name; pipeline/model_registry.h).
// A candidate whose samples are not above those of the newest model in models/ is older than
// the best and is rejected without games. Of the rest, the oldest is tested first, so queued
// candidates are tested in training order. (KataGo tests the newest candidate by mtime and
// auto-rejects the older ones once it is accepted; testing the oldest first gives every
// candidate its match, and the next ones are then compared with the newly accepted one.)
// The baseline is the newest model in models/ that loads (an older one when the newest does
// not, as selfplay does), or the random net ("random", nn::UniformEvaluator) when models/ is
// empty. A candidate that does not load is rejected without games; a ConfigError (a bad
// device) is fatal.
//
// The match. Up to `games` games, the candidate black in even-numbered games and white in the
// others, played by num_game_threads threads through pipeline::PlayGame, each player with its
// own search tree. Each model runs in its own nn::BatchingServer on `device`; a game thread
// is registered as a client of the server whose player is searching, so a batch runs as soon
// as every thread searching with that model has submitted. Games are decided by Tromp-Taylor
// area (or resignation when enabled); no root noise, no training rows.
//
// Deciding (KataGo gatekeeper.cpp:179-192, 580-632). Fixed mode: the candidate is accepted
// when its score (wins + draws / 2) reaches required_candidate_win_prop * games (ties go to
// the candidate). Play stops as soon as the result can no longer change: accept once the score
// reaches it, reject once the score plus the games not yet finished (those in flight
// included) falls short. SPRT mode (Leela Zero's gating; pipeline/elo.h): after every game the
// SPRT with elo0, elo1, alpha and beta accepts, rejects or continues; when all `games` games
// are played without a decision, the fixed rule decides. Games in flight when the decision
// falls are dropped and not counted.
//
// Output. When a match is decided, gatekeepersgf/<candidate>/<stem>.sgfs (one SGF per line,
// PB/PW the model names) and <stem>.json (the match record, MatchRecordJson) are published,
// then the candidate's directory is renamed into models/ (accepted) or rejectedmodels/
// (rejected). A candidate rejected without games gets a record too (games 0, with the
// reason). A name already taken in the destination gets a unique suffix. selfplay/ is created
// at start-up (race-safe) so that selfplay processes on many machines never race for it.
//
// Stopping. When `stop` is requested, games in flight are dropped and nothing is moved or
// written: the next run tests the candidate again from scratch. A game thread that throws
// stops the match; RunGatekeeper then throws Error (nothing moved).

#include <chrono>
#include <cstdint>
#include <string>

#include "pipeline/elo.h"
#include "pipeline/game_runner.h"
#include "pipeline/model_registry.h"
#include "util/config.h"
#include "util/log.h"
#include "util/signals.h"

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
// The rule in force (fixed or SPRT, see above) after the games in `score`.
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
//   sprt (null, or {elo0, elo1, alpha, beta, llr, llr_lower, llr_upper}), decision
//   ("accepted" or "rejected"), reason, sgf_file, started_utc, finished_utc, gatekeeper
//   ("<host>-<pid>").
std::string MatchRecordJson(const MatchRecord& record, double required_prop);

struct GatekeeperStats {
  int accepted = 0;
  int rejected = 0;  // after a match
  int rejected_without_games = 0;
  int64_t games = 0;  // finished games, all matches
};

GatekeeperStats RunGatekeeper(const GatekeeperOptions& options, Logger& logger, StopToken stop);

// Every key (output_dir, games, required_candidate_win_prop, quit_if_no_nets_to_test, the
// [sprt] keys, the [rules] keys, games and search knobs, threads, device, precision, ...).
void DeclareGatekeeperOptions(ConfigSpec& spec);
// Everything but load_model, which the program wires.
GatekeeperOptions GatekeeperOptionsFromConfig(const Config& config);

}  // namespace tengen::pipeline
