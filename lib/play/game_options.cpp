#include "play/game_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "go/types.h"
#include "nn/batching.h"
#include "nn/features.h"
#include "play/rules_config.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::play {
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

// "9:1,13:0.5": a weighted list as a .cfg file writes it.
template <typename T>
std::string FormatWeightedList(const std::vector<std::pair<T, double>>& list) {
  std::ostringstream text;
  for (size_t i = 0; i < list.size(); ++i)
    text << (i ? "," : "") << list[i].first << ":" << list[i].second;
  return text.str();
}

OptionTable<search::SearchParams> SearchOptionTable() {
  using S = search::SearchParams;
  return OptionTable<S>()
      .Double("cpuct", &S::cpuct, 0, 100, "PUCT exploration constant")
      .Double("fpu_reduction", &S::fpu_reduction, 0, 10,
              "first play urgency reduction (at the root too, except in full searches)")
      .Double("win_loss_utility", &S::win_loss_utility, 0, 100,
              "utility of a win (a loss: minus it)")
      .Double("static_score_utility", &S::static_score_utility, 0, 100,
              "utility of the score lead, centered on 0")
      .Double("dynamic_score_utility", &S::dynamic_score_utility, 0, 100,
              "utility of the score lead, centered on the root's expected score")
      .Double("dynamic_score_center_zero_weight", &S::dynamic_score_center_zero_weight, 0, 1,
              "how far the dynamic center is pulled from the root's score toward 0")
      .Double("dynamic_score_center_scale", &S::dynamic_score_center_scale, 0.01, 100,
              "width of the dynamic score term in units of sqrt(board area) points")
      .Double("root_ending_bonus_points", &S::root_ending_bonus_points, 0, 100,
              "points charged at the root for filling settled territory (0: off)")
      .Bool("pass_only_when_settled", &S::pass_only_when_settled,
            "no pass at the root while a point counted for nobody can still be played "
            "(unless the opponent just passed)")
      .Include(PlayerSearchOptionTable());
}

OptionTable<search::ResignParams> ResignOptionTable() {
  using R = search::ResignParams;
  return OptionTable<R>()
      .Bool("resign.enabled", &R::enabled, "allow resignation")
      .Double("resign.threshold", &R::threshold, -1, 1, "resign below this root value")
      .Int("resign.consecutive_turns", &R::consecutive_turns, 1, 1000,
           "own turns in a row below the threshold before resigning");
}

}  // namespace

std::vector<std::string> ParseDeviceList(const std::string& key, const std::string& text,
                                         bool allow_sim) {
  const char* const expected = allow_sim ? "cpu, cuda, cuda:N or sim" : "cpu, cuda or cuda:N";
  std::vector<std::string> devices;
  // getline drops a trailing empty entry ("cpu,"), so count the commas instead.
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const std::string entry =
        Trim(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (entry.empty())
      throw ConfigError("bad value '" + text + "' for " + key +
                        ": empty entry (expected a comma-separated list of " + expected +
                        ", e.g. \"cpu,cpu\" or \"cuda:0,cuda:1\")");
    if (!IsDevice(entry) && !(allow_sim && entry == kSimulatedDevice))
      throw ConfigError("bad value '" + text + "' for " + key + ": unknown device '" + entry +
                        "' (expected " + expected + ")");
    devices.push_back(entry);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return devices;
}

std::string ParseSingleDevice(const std::string& key, const std::string& text) {
  const std::vector<std::string> devices = ParseDeviceList(key, text);
  if (devices.size() != 1)
    throw ConfigError("bad value '" + text + "' for " + key +
                      ": expected one device (cpu, cuda or cuda:N)");
  return devices.front();
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
      throw ConfigError(StrCat(key, ": size ", static_cast<int>(size), " exceeds pos_len ", pos_len,
                               " (raise pos_len)"));
    sizes.emplace_back(static_cast<int>(size), weight);
  }
  return sizes;
}

OptionTable<search::SearchParams> PlayerSearchOptionTable() {
  using S = search::SearchParams;
  return OptionTable<S>()
      .Enum("no_fill", &S::no_fill, search::NoFillName, search::NoFillNames, search::ParseNoFill,
            "moves into one's own Tromp-Taylor area are not searched after the opponent's pass "
            "(after_pass), once either side has passed (once_passed), or always are (off)")
      .Int("root_symmetries", &S::root_symmetries, 1, 8,
           "orientations of the board the root's net evaluation averages (1: one, drawn at "
           "random)")
      .Double("subtree_bias_factor", &S::subtree_bias_factor, 0, 1,
              "share of the mean error of the net on nodes of the same local shape by which a "
              "new node's evaluation is corrected (subtree value bias; 0: off)")
      .Double("subtree_bias_weight_exponent", &S::subtree_bias_weight_exponent, 0, 2,
              "a node's weight in its shape's mean error: (its playouts below)^this")
      .Double("subtree_bias_free_prop", &S::subtree_bias_free_prop, 0, 1,
              "share of a dropped node's error taken out of its shape's mean again");
}

OptionTable<GameParams> GameOptionTable() {
  using G = GameParams;
  return OptionTable<G>()
      .Custom([](ConfigSpec& spec, const G&) { DeclareRulesOptions(spec); },
              [](const Config& config, G& g) { g.rules = RulesFromConfig(config); })
      .Custom(
          [](ConfigSpec& spec, const G& d) {
            spec.String("board_sizes", FormatWeightedList(d.board_sizes),
                        "board sizes with relative weights, e.g. \"9:1,13:0.5\"");
          },
          [](const Config& config, G& g) {
            g.board_sizes = ParseBoardSizes("board_sizes", config.GetString("board_sizes"),
                                            static_cast<int>(config.GetInt("pos_len")));
          })
      // Empty by default: one komi, rules.komi (a key of its own, which GTP's komi sets too).
      .Custom(
          [](ConfigSpec& spec, const G&) {
            spec.String("komis", "",
                        "komi values with relative weights, e.g. \"7:1,7.5:1\" (empty: "
                        "rules.komi)");
          },
          [](const Config& config, G& g) {
            const std::string komis = config.GetString("komis");
            g.komis =
                komis.empty()
                    ? std::vector<std::pair<double, double>>{{config.GetDouble("rules.komi"), 1.0}}
                    : ParseWeightedList("komis", komis, -150, 150);
          })
      .Int("pos_len", &G::pos_len, go::kMinSize, go::kMaxSize,
           "edge of the input planes (the stored rows and the net's input; >= every board size)")
      .Nested(&G::search, SearchOptionTable())
      .Double("temperature_early", &G::temperature_early, 0, 10, "move temperature at turn 0")
      .Double("temperature_late", &G::temperature_late, 0, 10, "move temperature late")
      .Double("temperature_halflife", &G::temperature_halflife, 0.01, 1000,
              "half-life of the early temperature in turns on 19x19 (scaled by board area)")
      .Double("max_moves_per_area", &G::max_moves_per_area, 0.1, 100,
              "move cap as a multiple of the board area")
      .Bool("end_when_pass_alive", &G::end_when_pass_alive,
            "end a game once the whole board is pass-alive, scored by that area (dead stones "
            "in it count as captured)")
      .Int("premature_pass_checks", &G::premature_pass_checks, 0, 1000,
           "passes refused at most in a game because the opponent would answer them in the "
           "mover's own area (0: no check)")
      .Int("premature_pass_check_visits", &G::premature_pass_check_visits, 0, 1000000,
           "visits of the opponent's search that checks a first pass (0: the turn's own)")
      .Nested(&G::resign, ResignOptionTable());
}

void DeclarePlayPrecisionOption(ConfigSpec& spec) {
  spec.Choice(
      "precision", "auto", {"auto", "fp32", "bf16", "fp16"},
      "net precision; auto: fp16 on CUDA, bf16 on a CPU with native bf16, fp32 on other CPUs");
  spec.Choice("channels_last", "auto", {"auto", "true", "false"},
              "NHWC convolutions; auto: on CUDA, in bf16, and in fp32 on AVX-512 CPUs");
}

int CheckBoardSizes(const GameParams& game) {
  int max_size = 0;
  for (const auto& size : game.board_sizes) max_size = std::max(max_size, size.first);
  nn::CheckBoardFits(max_size, game.pos_len);
  return max_size;
}

}  // namespace tengen::play
