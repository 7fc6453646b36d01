#include "pipeline/selfplay_config.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "go/types.h"
#include "pipeline/base_dir.h"
#include "pipeline/rules_config.h"
#include "util/error.h"
#include "util/log.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

double ParseNumber(const std::string& key, const std::string& text, const std::string& item) {
  const char* begin = item.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (item.empty() || end != begin + item.size() || !std::isfinite(value))
    throw ConfigError("bad value '" + text + "' for " + key + ": '" + item +
                      "' is not a number (expected e.g. \"9:1,13:0.5\")");
  return value;
}

bool IsDevice(const std::string& device) {
  if (device == "cpu" || device == "cuda") return true;
  if (device.compare(0, 5, "cuda:") != 0 || device.size() == 5 || device.size() > 9) return false;
  return device.find_first_not_of("0123456789", 5) == std::string::npos;
}

}  // namespace

std::vector<std::string> ParseDeviceList(const std::string& key, const std::string& text) {
  std::vector<std::string> devices;
  // getline drops a trailing empty entry ("cpu,"), so count the commas instead.
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const std::string entry =
        Trim(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (entry.empty())
      throw ConfigError("bad value '" + text + "' for " + key +
                        ": empty entry (expected a comma-separated list of cpu, cuda or cuda:N, "
                        "e.g. \"cpu,cpu\" or \"cuda:0,cuda:1\")");
    if (!IsDevice(entry))
      throw ConfigError("bad value '" + text + "' for " + key + ": unknown device '" + entry +
                        "' (expected cpu, cuda or cuda:N)");
    devices.push_back(entry);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return devices;
}

std::vector<std::pair<double, double>> ParseWeightedList(const std::string& key,
                                                         const std::string& text, double min,
                                                         double max) {
  std::vector<std::pair<double, double>> list;
  std::stringstream stream(text);
  std::string entry;
  double total = 0;
  while (std::getline(stream, entry, ',')) {
    entry = Trim(entry);
    const size_t colon = entry.find(':');
    const double value = ParseNumber(key, text, Trim(entry.substr(0, colon)));
    const double weight =
        colon == std::string::npos ? 1.0 : ParseNumber(key, text, Trim(entry.substr(colon + 1)));
    if (value < min || value > max) {
      std::ostringstream message;
      message << "bad value '" << text << "' for " << key << ": " << value << " is outside [" << min
              << ", " << max << "]";
      throw ConfigError(message.str());
    }
    if (weight < 0) throw ConfigError("bad value '" + text + "' for " + key + ": negative weight");
    list.emplace_back(value, weight);
    total += weight;
  }
  if (list.empty() || total <= 0)
    throw ConfigError("bad value '" + text + "' for " + key +
                      ": expected value:weight pairs with a positive total weight, e.g. "
                      "\"9:1,13:0.5\"");
  return list;
}

std::vector<std::pair<int, double>> ParseBoardSizes(const std::string& key, const std::string& text,
                                                    int pos_len) {
  std::vector<std::pair<int, double>> sizes;
  for (const auto& [size, weight] : ParseWeightedList(key, text, go::kMinSize, go::kMaxSize)) {
    if (size != std::floor(size))
      throw ConfigError("bad value '" + text + "' for " + key + ": sizes must be integers");
    if (size > pos_len)
      throw ConfigError(key + ": size " + std::to_string(static_cast<int>(size)) +
                        " exceeds pos_len " + std::to_string(pos_len) + " (raise pos_len)");
    sizes.emplace_back(static_cast<int>(size), weight);
  }
  return sizes;
}

void DeclareGameOptions(ConfigSpec& spec, const GameParams& defaults) {
  const search::SearchParams& s = defaults.search;
  DeclareRulesOptions(spec);
  spec.String("board_sizes", "9:1", "board sizes with relative weights, e.g. \"9:1,13:0.5\"");
  spec.String("komis", "",
              "komi values with relative weights, e.g. \"7:1,7.5:1\" (empty: rules.komi)");
  spec.Int("pos_len", defaults.pos_len, go::kMinSize, go::kMaxSize,
           "edge of the input planes (the stored rows and the net's input; >= every board size)");
  spec.Double("cpuct", s.cpuct, 0, 100, "PUCT exploration constant");
  spec.Double("fpu_reduction", s.fpu_reduction, 0, 10,
              "first play urgency reduction (at the root too, except in full searches)");
  spec.Double("win_loss_utility", s.win_loss_utility, 0, 100,
              "utility of a win (a loss: minus it)");
  spec.Double("static_score_utility", s.static_score_utility, 0, 100,
              "utility of the score lead, centered on 0");
  spec.Double("dynamic_score_utility", s.dynamic_score_utility, 0, 100,
              "utility of the score lead, centered on the root's expected score");
  spec.Double("dynamic_score_center_zero_weight", s.dynamic_score_center_zero_weight, 0, 1,
              "how far the dynamic center is pulled from the root's score toward 0");
  spec.Double("dynamic_score_center_scale", s.dynamic_score_center_scale, 0.01, 100,
              "width of the dynamic score term in units of sqrt(board area) points");
  spec.Double("root_ending_bonus_points", s.root_ending_bonus_points, 0, 100,
              "points charged at the root for filling settled territory (0: off)");
  spec.Bool("pass_only_when_settled", s.pass_only_when_settled,
            "no pass at the root while a point counted for nobody can still be played "
            "(unless the opponent just passed)");
  spec.Double("temperature_early", defaults.temperature_early, 0, 10, "move temperature at turn 0");
  spec.Double("temperature_late", defaults.temperature_late, 0, 10, "move temperature late");
  spec.Double("temperature_halflife", defaults.temperature_halflife, 0.01, 1000,
              "half-life of the early temperature in turns on 19x19 (scaled by board area)");
  spec.Double("max_moves_per_area", defaults.max_moves_per_area, 0.1, 100,
              "move cap as a multiple of the board area");
  spec.Bool("resign.enabled", defaults.resign.enabled, "allow resignation");
  spec.Double("resign.threshold", defaults.resign.threshold, -1, 1, "resign below this root value");
  spec.Int("resign.consecutive_turns", defaults.resign.consecutive_turns, 1, 1000,
           "own turns in a row below the threshold before resigning");
}

void ReadGameOptions(const Config& config, GameParams* game) {
  GameParams& g = *game;
  g.rules = RulesFromConfig(config);
  g.pos_len = static_cast<int>(config.GetInt("pos_len"));
  g.board_sizes = ParseBoardSizes("board_sizes", config.GetString("board_sizes"), g.pos_len);
  const std::string komis = config.GetString("komis");
  g.komis = komis.empty() ? std::vector<std::pair<double, double>>{{g.rules.komi, 1.0}}
                          : ParseWeightedList("komis", komis, -150, 150);
  g.search.cpuct = config.GetDouble("cpuct");
  g.search.fpu_reduction = config.GetDouble("fpu_reduction");
  g.search.win_loss_utility = config.GetDouble("win_loss_utility");
  g.search.static_score_utility = config.GetDouble("static_score_utility");
  g.search.dynamic_score_utility = config.GetDouble("dynamic_score_utility");
  g.search.dynamic_score_center_zero_weight = config.GetDouble("dynamic_score_center_zero_weight");
  g.search.dynamic_score_center_scale = config.GetDouble("dynamic_score_center_scale");
  g.search.root_ending_bonus_points = config.GetDouble("root_ending_bonus_points");
  g.search.pass_only_when_settled = config.GetBool("pass_only_when_settled");
  g.temperature_early = config.GetDouble("temperature_early");
  g.temperature_late = config.GetDouble("temperature_late");
  g.temperature_halflife = config.GetDouble("temperature_halflife");
  g.max_moves_per_area = config.GetDouble("max_moves_per_area");
  g.resign.enabled = config.GetBool("resign.enabled");
  g.resign.threshold = config.GetDouble("resign.threshold");
  g.resign.consecutive_turns = static_cast<int>(config.GetInt("resign.consecutive_turns"));
}

void DeclareSelfplayOptions(ConfigSpec& spec) {
  const search::SearchParams s;
  const search::PlayoutCap cap;
  const search::ResignParams resign;
  // On the heap: GCC 12 warns (maybe-uninitialized, a false positive) about the
  // initializer lists of GameParams' defaults when they are constructed on the stack here.
  const auto options = std::make_unique<SelfplayOptions>();
  const SelfplayOptions& o = *options;
  const GameParams& game = o.game;
  spec.String("output_dir", "", "base directory (required); data goes under <output_dir>/selfplay");
  spec.String("models_dir", "", "where accepted nets appear (default <output_dir>/models)");
  spec.Int("max_games_total", 0, 0, int64_t{1} << 50,
           "stop after starting this many games, once they finish (0: run until stopped)");
  DeclareGameOptions(spec, game);
  spec.Int("full_visits", cap.full_visits, 1, 1000000, "visits of a full (recorded) search");
  spec.Int("cheap_visits", cap.cheap_visits, 1, 1000000,
           "visits of a cheap search (no row; <= full_visits)");
  spec.Double("full_probability", cap.full_probability, 0, 1,
              "probability that a turn gets a full search");
  // Positive: a gamma distribution with shape 0 is undefined.
  spec.Double("dirichlet_alpha_total", s.dirichlet_alpha_total, 1e-3, 1000,
              "total Dirichlet concentration of root noise in full searches");
  spec.Double("dirichlet_weight", s.dirichlet_weight, 0, 1, "weight of root noise (0: none)");
  spec.Double("root_policy_temperature", s.root_policy_temperature, 0.01, 100,
              "softmax temperature on root priors in full searches (1: off)");
  spec.Double("root_fpu_reduction", s.root_fpu_reduction, 0, 10,
              "first play urgency reduction at the root of full searches (root noise on)");
  spec.Bool("komi_auto", true,
            "move each game's komi by the net's score lead on the empty board (fair komi)");
  spec.Double("komi_stdev", 1.0, 0, 100, "normal noise in points added to an automatic komi");
  spec.Double("forced_playout_k", s.forced_playout_k, 0, 100,
              "forced playouts coefficient in full searches (0: off, no target pruning)");
  spec.Double("resign.no_resign_fraction", resign.no_resign_fraction, 0, 1,
              "fraction of games that never resign");
  spec.Int("num_game_threads", o.num_game_threads, 1, 4096,
           "concurrent games (they mostly wait for NN batches, so many per core)");
  spec.Int("nn_max_batch_size", o.nn_max_batch_size, 1, 4096, "largest NN batch");
  spec.String("devices", "cpu",
              "one NN batching server per entry, e.g. \"cpu\", \"cpu,cpu\", \"cuda:0,cuda:1\"; "
              "game threads are shared out round-robin");
  DeclarePlayPrecisionOption(spec);
  // The npz writer refuses members of 4 GiB or more; at pos_len 19 the float policy array
  // alone takes 1448 bytes a row, so a million rows keep every member well below that.
  spec.Int("max_rows_per_file", o.max_rows_per_file, 1, 1000000,
           "rows per .npz shard (the first of a process is randomly shorter)");
  spec.Double("max_shard_age_seconds", o.max_shard_age_seconds, 1, 86400,
              "publish a partial shard once its oldest row is this old, so a crash loses little");
  spec.Int("seed", 0, 0, kMaxSeed, "master seed of the per-game seeds (0: from entropy)");
  spec.Double("model_check_seconds", 10, 0.1, 86400, "how often to look for a newer model");
  spec.Double("log_seconds", 30, 0.1, 86400, "how often to log progress");
  DeclareLogLevelOption(spec);
}

void DeclarePlayPrecisionOption(ConfigSpec& spec) {
  spec.Choice("precision", "auto", {"auto", "fp32", "bf16", "fp16"},
              "net precision; auto: bf16 on a CPU with native bf16, fp32 elsewhere");
  spec.Choice("channels_last", "auto", {"auto", "true", "false"},
              "NHWC convolutions; auto: on CUDA, in bf16, and in fp32 on AVX-512 CPUs");
}

SelfplayOptions SelfplayOptionsFromConfig(const Config& config) {
  SelfplayOptions o;
  o.base_dir = BaseDirFromConfig(config);
  o.models_dir = config.GetString("models_dir");
  if (o.models_dir.empty()) o.models_dir = ModelsDir(o.base_dir);
  o.max_games_total = config.GetInt("max_games_total");

  GameParams& g = o.game;
  ReadGameOptions(config, &g);
  g.playout_cap.full_visits = static_cast<int>(config.GetInt("full_visits"));
  g.playout_cap.cheap_visits = static_cast<int>(config.GetInt("cheap_visits"));
  if (g.playout_cap.cheap_visits > g.playout_cap.full_visits)
    throw ConfigError("cheap_visits (" + std::to_string(g.playout_cap.cheap_visits) +
                      ") must not exceed full_visits (" +
                      std::to_string(g.playout_cap.full_visits) + ")");
  g.playout_cap.full_probability = config.GetDouble("full_probability");
  g.search.dirichlet_alpha_total = config.GetDouble("dirichlet_alpha_total");
  g.search.dirichlet_weight = config.GetDouble("dirichlet_weight");
  g.search.root_policy_temperature = config.GetDouble("root_policy_temperature");
  g.search.forced_playout_k = config.GetDouble("forced_playout_k");
  g.search.root_fpu_reduction = config.GetDouble("root_fpu_reduction");
  g.komi_auto = config.GetBool("komi_auto");
  g.komi_stdev = config.GetDouble("komi_stdev");
  g.resign.no_resign_fraction = config.GetDouble("resign.no_resign_fraction");

  o.num_game_threads = static_cast<int>(config.GetInt("num_game_threads"));
  o.nn_max_batch_size = static_cast<int>(config.GetInt("nn_max_batch_size"));
  o.devices = ParseDeviceList("devices", config.GetString("devices"));
  if (static_cast<int>(o.devices.size()) > o.num_game_threads)
    throw ConfigError("devices: " + std::to_string(o.devices.size()) +
                      " servers need at least as many game threads (num_game_threads is " +
                      std::to_string(o.num_game_threads) + ")");
  o.max_rows_per_file = static_cast<int>(config.GetInt("max_rows_per_file"));
  o.max_shard_age_seconds = config.GetDouble("max_shard_age_seconds");
  o.seed = static_cast<uint64_t>(config.GetInt("seed"));
  o.model_check_interval = std::chrono::milliseconds(
      static_cast<int64_t>(config.GetDouble("model_check_seconds") * 1000));
  o.log_interval =
      std::chrono::milliseconds(static_cast<int64_t>(config.GetDouble("log_seconds") * 1000));
  return o;
}

}  // namespace tengen::pipeline
