#include "pipeline/gatekeeper_options.h"

#include <memory>

#include "pipeline/base_dir.h"
#include "play/game_options.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/text.h"

namespace tengen::pipeline {

play::GameParams GatekeeperGameParams(play::GameParams game) {
  game.playout_cap.cheap_visits = game.playout_cap.full_visits;
  game.playout_cap.full_probability = 0;
  game.search.dirichlet_weight = 0;
  game.record_rows = false;
  return game;
}

namespace {

OptionTable<GatekeeperOptions> GatekeeperOptionTable() {
  using O = GatekeeperOptions;
  const auto sprt =
      OptionTable<SprtParams>()
          .Double("sprt.elo0", &SprtParams::elo0, -1000, 1000,
                  "SPRT null hypothesis: candidate +elo0")
          .Double("sprt.elo1", &SprtParams::elo1, -1000, 1000,
                  "SPRT alternative: candidate +elo1 (> elo0)")
          .Double("sprt.alpha", &SprtParams::alpha, 1e-6, 0.5, "SPRT false accept rate")
          .Double("sprt.beta", &SprtParams::beta, 1e-6, 0.5, "SPRT false reject rate")
          .Int("sprt.min_games", &SprtParams::min_games, 0, 100000,
               "games before the SPRT may decide");
  const auto visits = OptionTable<play::GameParams>().Nested(
      &play::GameParams::playout_cap,
      OptionTable<search::PlayoutCap>().Int("visits", &search::PlayoutCap::full_visits, 1, 1000000,
                                            "visits per move (KataGo's gatekeeper: 150)"));
  return OptionTable<O>()
      .String("output_dir", &O::base_dir, "base directory (required)")
      .Int("games", &O::games, 1, 100000, "games per candidate (fewer when decided early)")
      .Double("required_candidate_win_prop", &O::required_candidate_win_prop, 0, 1,
              "accept when the candidate's score (wins + draws/2) reaches this share of games")
      .Bool("quit_if_no_nets_to_test", &O::quit_if_no_nets_to_test,
            "exit 0 once modelstobetested/ has nothing to test")
      .Bool("sprt.enabled", &O::use_sprt, "decide by an SPRT (Leela Zero's gating) instead")
      .Nested(&O::sprt, sprt)
      .Nested(&O::game, play::GameOptionTable())
      .Nested(&O::game, visits)
      .Int("num_game_threads", &O::num_game_threads, 1, 4096, "concurrent games")
      .Int("nn_max_batch_size", &O::nn_max_batch_size, 1, 4096, "largest NN batch per model")
      .String("device", &O::device, "device of both nets: cpu, cuda or cuda:N")
      .Custom([](ConfigSpec& spec, const O&) { play::DeclarePlayPrecisionOption(spec); }, {})
      .Int("seed", &O::seed, 0, kMaxSeed, "master seed of the games (0: from entropy)")
      .Seconds("poll_seconds", &O::poll_interval, 0.1, 86400, "how often to look for candidates")
      .Seconds("log_seconds", &O::log_interval, 0.1, 86400, "how often to log match progress");
}

}  // namespace

play::GameParams GatekeeperDefaultGame() {
  play::GameParams game;
  // KataGo's gatekeeper1.cfg: temperature 0.5 early, 0.2 late, 150 visits; pos_len for 9x9.
  game.pos_len = 9;
  game.temperature_early = 0.5;
  game.temperature_late = 0.2;
  game.resign.enabled = false;
  game.playout_cap.full_visits = 150;
  return game;
}

void DeclareGatekeeperOptions(ConfigSpec& spec) {
  const auto defaults = std::make_unique<GatekeeperOptions>();  // on the heap: see selfplay_options
  GatekeeperOptionTable().Declare(spec, *defaults);
  DeclareLogLevelOption(spec);
}

GatekeeperOptions GatekeeperOptionsFromConfig(const Config& config) {
  GatekeeperOptions o;
  GatekeeperOptionTable().Read(config, &o);
  RequireBaseDir(o.base_dir);
  if (o.use_sprt && !(o.sprt.elo1 > o.sprt.elo0))
    throw ConfigError("sprt.elo1 (" + FormatFixed(o.sprt.elo1, 1) + ") must exceed sprt.elo0 (" +
                      FormatFixed(o.sprt.elo0, 1) + ")");
  o.game.resign.no_resign_fraction = 0;  // no need to measure wrong resignations here
  o.game = GatekeeperGameParams(o.game);
  o.device = play::ParseSingleDevice("device", o.device);
  return o;
}

}  // namespace tengen::pipeline
