#pragma once
// The gatekeeper (tengen-gatekeeper is a thin main around RunGatekeeper): decides whether a
// freshly exported net is good enough to become the net selfplay uses.
//
// Choosing. Every pass lists modelstobetested/ and models/ in the model registry's order
// (samples s<N> in the name, then modification time, then name; play/model_registry.h).
// A candidate whose samples are not above those of the newest model in models/ is older than
// the best and is rejected without games. Of the rest, the oldest is tested first, so queued
// candidates are tested in training order. (KataGo tests the newest candidate by mtime and
// auto-rejects the older ones once it is accepted; testing the oldest first gives every
// candidate its match, and the next ones are then compared with the newly accepted one.)
// The baseline is the newest model in models/ that loads (an older one when the newest does
// not, as selfplay does), or the random net ("random", nn::RandomNetEvaluator) when models/ is
// empty. A candidate that does not load is rejected without games; a ConfigError (a bad
// device) is fatal.
//
// The match. Up to `games` games, the candidate black in even-numbered games and white in the
// others, played by num_game_threads threads through play::PlayGame, each player with its
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
#include "pipeline/gatekeeper_rules.h"
#include "play/game_runner.h"
#include "play/model_registry.h"
#include "util/config.h"
#include "util/log.h"
#include "util/signals.h"

namespace tengen::pipeline {

struct GatekeeperStats {
  int accepted = 0;
  int rejected = 0;  // after a match
  int rejected_without_games = 0;
  int64_t games = 0;  // finished games, all matches
};

GatekeeperStats RunGatekeeper(const GatekeeperOptions& options, Logger& logger, StopToken stop);

}  // namespace tengen::pipeline
