#include "pipeline/selfplay_options.h"

#include <memory>
#include <string>

#include "go/handicap.h"
#include "pipeline/base_dir.h"
#include "play/game_options.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

// The search keys of full (recorded) searches, which only selfplay plays.
OptionTable<search::SearchParams> FullSearchOptionTable() {
  using S = search::SearchParams;
  // Positive: a gamma distribution with shape 0 is undefined.
  return OptionTable<S>()
      .Double("dirichlet_alpha_total", &S::dirichlet_alpha_total, 1e-3, 1000,
              "total Dirichlet concentration of root noise in full searches")
      .Double("dirichlet_weight", &S::dirichlet_weight, 0, 1, "weight of root noise (0: none)")
      .Double("root_policy_temperature", &S::root_policy_temperature, 0.01, 100,
              "softmax temperature on root priors in full searches (1: off)")
      .Double("root_fpu_reduction", &S::root_fpu_reduction, 0, 10,
              "first play urgency reduction at the root of full searches (root noise on)")
      .Enum("gumbel", &S::gumbel, search::GumbelName, search::GumbelNames, search::ParseGumbel,
            "which searches choose the root's moves by Gumbel sequential halving instead of "
            "PUCT (cheap, all or off): no noise, temperature or forced playouts there, the move "
            "drawn by the search, the policy target softmax(log prior + sigma(Q))")
      .Bool("gumbel_after_pass", &S::gumbel_after_pass,
            "keep Gumbel's root selection once the game has had a pass (false: PUCT from the "
            "first pass on)")
      .Int("gumbel_moves", &S::gumbel_moves, 1, 1000,
           "moves that Gumbel sequential halving considers at the root")
      .Double("gumbel_c_visit", &S::gumbel_c_visit, 0, 1e6,
              "sigma(Q) = (gumbel_c_visit + most visits of a root move) * gumbel_c_scale * Q")
      .Double("gumbel_c_scale", &S::gumbel_c_scale, 0, 1e3,
              "scale of the rescaled utilities in Gumbel's sigma(Q) (see gumbel_c_visit)");
}

// Selfplay's keys of the game beyond GameOptionTable, in the order --help lists them.
OptionTable<play::GameParams> SelfplayGameOptionTable() {
  using G = play::GameParams;
  using C = search::PlayoutCap;
  using S = search::SearchParams;
  const auto cap =
      OptionTable<C>()
          .Int("full_visits", &C::full_visits, 1, 1000000, "visits of a full (recorded) search")
          .Int("cheap_visits", &C::cheap_visits, 1, 1000000,
               "visits of a cheap search (no row; <= full_visits)")
          .Double("full_probability", &C::full_probability, 0, 1,
                  "probability that a turn gets a full search")
          .Bool("reduce_visits", &C::reduce_visits,
                "cut full searches, and their rows' weight, once the game's last searches all "
                "say one side wins (KataGo's reduceVisits)")
          .Double("reduce_visits_threshold", &C::reduce_visits_threshold, 0, 0.999,
                  "root value (in [-1, 1]) beyond which a game counts as lopsided")
          .Int("reduce_visits_lookback", &C::reduce_visits_lookback, 1, 100,
               "how many of the game's last searches must all lie beyond that threshold")
          .Int("reduced_visits_min", &C::reduced_visits_min, 1, 1000000,
               "visits of a full search in a game won outright (<= full_visits)")
          .Double("reduced_visits_weight", &C::reduced_visits_weight, 0, 1,
                  "weight of its row (1: a full row)");
  return OptionTable<G>()
      .Nested(&G::playout_cap, cap)
      .Nested(&G::search, FullSearchOptionTable())
      .Bool("komi_auto", &G::komi_auto,
            "move each game's komi by the net's score lead on the empty board (fair komi)")
      .Double("komi_stdev", &G::komi_stdev, 0, 100,
              "normal noise in points added to an automatic komi")
      .Double("komi_big_stdev_prob", &G::komi_big_stdev_prob, 0, 1,
              "probability that an automatic komi's noise has komi_big_stdev points instead")
      .Double("komi_big_stdev", &G::komi_big_stdev, 0, 100,
              "the wider noise in points (games far from fair, to teach what komi is worth)")
      .Double("policy_init_area", &G::policy_init_area, 0, 1,
              "opening moves drawn from the net's raw policy, without search or rows, before "
              "each game: exponentially many with this mean times the board area (0: none)")
      .Double("handicap_game_prob", &G::handicap_game_prob, 0, 1,
              "probability that a game starts with handicap_stones black stones and white to "
              "move (0: every game even)")
      .Int("handicap_stones", &G::handicap_stones, 2, 9,
           "black's stones in a handicap game, on GTP's fixed_handicap points")
      .Double("handicap_fair_komi_prob", &G::handicap_fair_komi_prob, 0, 1,
              "probability that a handicap game's komi is made fair by the net's score lead "
              "(else handicap_komi)")
      .Double("handicap_komi", &G::handicap_komi, -150, 150,
              "komi of a handicap game whose komi is not made fair")
      .Double("side_position_prob", &G::side_position_prob, 0, 1,
              "probability that a turn also notes the position after another move, searched "
              "and recorded (value target: its search's) once the game is over (0: none)")
      .Nested(&G::search, OptionTable<S>().Double(
                              "forced_playout_k", &S::forced_playout_k, 0, 100,
                              "forced playouts coefficient in full searches (0: off, no target "
                              "pruning)"))
      .Double("policy_surprise_weight", &G::policy_surprise_weight, 0, 1,
              "share of a game's row weight moved to the rows whose search differed most from "
              "the net's prior (0: each row written once)")
      .Nested(&G::resign,
              OptionTable<search::ResignParams>().Double(
                  "resign.no_resign_fraction", &search::ResignParams::no_resign_fraction, 0, 1,
                  "fraction of games that never resign"));
}

OptionTable<SelfplayOptions> SelfplayOptionTable() {
  using O = SelfplayOptions;
  return OptionTable<O>()
      .String("output_dir", &O::base_dir,
              "base directory (required); data goes under <output_dir>/selfplay")
      .String("models_dir", &O::models_dir,
              "where accepted nets appear (default <output_dir>/models)")
      .Int("max_games_total", &O::max_games_total, 0, int64_t{1} << 50,
           "stop after starting this many games, once they finish (0: run until stopped)")
      .Nested(&O::game, play::GameOptionTable())
      .Nested(&O::game, SelfplayGameOptionTable())
      .Int("num_game_threads", &O::num_game_threads, 1, 65536,
           "games in flight (they mostly wait for NN batches, so many per core)")
      .Int("num_search_threads", &O::num_search_threads, 0, 4096,
           "threads that run the games in flight, on fibers (0: one per core)")
      .Int("nn_max_batch_size", &O::nn_max_batch_size, 1, 65536, "largest NN batch")
      .Int("nn_max_wait_micros", &O::nn_max_wait_micros, 0, 10000000,
           "how long a partial NN batch waits for more positions (microseconds)")
      .Int("nn_cache_entries", &O::nn_cache_entries, 0, int64_t{1} << 30,
           "positions kept in the cache of net evaluations shared by the games of a model "
           "(0: no cache)")
      .Custom(
          [](ConfigSpec& spec, const O& d) {
            std::string devices;
            for (const std::string& device : d.devices)
              devices += (devices.empty() ? "" : ",") + device;
            spec.String("devices", devices,
                        "one NN batching server per entry, e.g. \"cpu\", \"cpu,cpu\", "
                        "\"cuda:0,cuda:1\"; games are shared out round-robin; \"sim\": a "
                        "stand-in GPU (the random net, answered after sim_batch_micros + rows * "
                        "sim_row_micros)");
          },
          [](const Config& config, O& o) {
            o.devices = play::ParseDeviceList("devices", config.GetString("devices"), true);
          })
      .Nested(&O::sim_timing,
              OptionTable<nn::SimulatedDeviceTiming>()
                  .Double("sim_batch_micros", &nn::SimulatedDeviceTiming::batch_micros, 0, 1e7,
                          "devices = sim: microseconds per batch")
                  .Double("sim_row_micros", &nn::SimulatedDeviceTiming::row_micros, 0, 1e6,
                          "devices = sim: microseconds per row of a batch"))
      .Custom([](ConfigSpec& spec, const O&) { play::DeclarePlayPrecisionOption(spec); }, {})
      // The npz writer refuses members of 4 GiB or more; at pos_len 19 the float policy array
      // alone takes 1448 bytes a row, so a million rows keep every member well below that.
      .Int("max_rows_per_file", &O::max_rows_per_file, 1, 1000000,
           "rows per .npz shard (the first of a process is randomly shorter)")
      .Double("max_shard_age_seconds", &O::max_shard_age_seconds, 1, 86400,
              "publish a partial shard once its oldest row is this old, so a crash loses little")
      .Int("seed", &O::seed, 0, kMaxSeed, "master seed of the per-game seeds (0: from entropy)")
      .Seconds("model_check_seconds", &O::model_check_interval, 0.1, 86400,
               "how often to look for a newer model")
      .Double("finish_games_seconds", &O::finish_games_seconds, 0, 86400,
              "after a stop request (SIGINT), how long the games in flight may take to finish "
              "before they are dropped (a second SIGINT drops them at once)")
      .Seconds("log_seconds", &O::log_interval, 0.1, 86400, "how often to log progress");
}

// Handicap games need handicap_stones fixed points on every board size they may be played on.
void CheckHandicapFits(const play::GameParams& game) {
  if (game.handicap_game_prob <= 0) return;
  for (const auto& [size, weight] : game.board_sizes) {
    if (game.handicap_stones > go::MaxFixedHandicap(size))
      throw ConfigError(StrCat("handicap_stones (", game.handicap_stones,
                               ") has no fixed points on ", size, "x", size,
                               " (board_sizes): at most ", go::MaxFixedHandicap(size), " there"));
  }
}

}  // namespace

// Not inlined: GCC 12 warns (maybe-uninitialized, a false positive) about GameParams' default
// initializer lists once this is inlined into DeclareSelfplayOptions.
[[gnu::noinline]] play::GameParams SelfplayDefaultGame() {
  play::GameParams game;
  game.pos_len = 9;  // the default board_sizes' edge: 19 would store 4.5x the planes per row
  game.komi_auto = true;
  game.komi_stdev = 1.0;
  return game;
}

void DeclareSelfplayOptions(ConfigSpec& spec) {
  // On the heap: GCC 12 warns (maybe-uninitialized, a false positive) about the initializer
  // lists of GameParams' defaults when they are constructed on the stack here.
  const auto defaults = std::make_unique<SelfplayOptions>();
  defaults->game = SelfplayDefaultGame();
  SelfplayOptionTable().Declare(spec, *defaults);
  DeclareLogLevelOption(spec);
}

SelfplayOptions SelfplayOptionsFromConfig(const Config& config) {
  SelfplayOptions o;
  o.game = SelfplayDefaultGame();  // for the members no key sets
  SelfplayOptionTable().Read(config, &o);
  RequireBaseDir(o.base_dir);
  if (o.models_dir.empty()) o.models_dir = ModelsDir(o.base_dir);
  const search::PlayoutCap& cap = o.game.playout_cap;
  if (cap.cheap_visits > cap.full_visits)
    throw ConfigError(StrCat("cheap_visits (", cap.cheap_visits, ") must not exceed full_visits (",
                             cap.full_visits, ")"));
  if (cap.reduce_visits && cap.reduced_visits_min > cap.full_visits)
    throw ConfigError(StrCat("reduced_visits_min (", cap.reduced_visits_min,
                             ") must not exceed full_visits (", cap.full_visits, ")"));
  CheckHandicapFits(o.game);
  if (static_cast<int>(o.devices.size()) > o.num_game_threads)
    throw ConfigError(StrCat("devices: ", o.devices.size(),
                             " servers need at least as many game threads (num_game_threads is ",
                             o.num_game_threads, ")"));
  return o;
}

}  // namespace tengen::pipeline
