#pragma once
// The gatekeeper's options: its settings with their defaults and config keys, and the game it
// plays (pipeline/gatekeeper.h describes the whole).

#include <chrono>
#include <cstdint>
#include <string>

#include "pipeline/elo.h"
#include "play/game_runner.h"
#include "play/model_registry.h"
#include "util/config.h"

namespace tengen::pipeline {

// The game the gatekeeper plays by default (KataGo's gatekeeper settings, 9x9 nets).
play::GameParams GatekeeperDefaultGame();

struct GatekeeperOptions {
  std::string base_dir;
  // Board sizes, komi, rules, search, temperature, resignation, pos_len. The gatekeeper plays
  // every search at playout_cap.full_visits with no root noise and records no rows, whatever
  // these say (GatekeeperGameParams).
  play::GameParams game = GatekeeperDefaultGame();
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
  play::LoadModel load_model;  // empty: only the random net can be played
};

// `game` as the gatekeeper plays it: every search full_visits visits without noise (cheap
// searches only, which apply no noise, root temperature or forced playouts), no rows.
play::GameParams GatekeeperGameParams(play::GameParams game);

// Every key (output_dir, games, required_candidate_win_prop, quit_if_no_nets_to_test, the
// [sprt] keys, the [rules] keys, games and search knobs, threads, device, precision, ...).
void DeclareGatekeeperOptions(ConfigSpec& spec);
// Everything but load_model, which the program wires.
GatekeeperOptions GatekeeperOptionsFromConfig(const Config& config);

}  // namespace tengen::pipeline
