#pragma once
// The keys of a game as the programs that play one read them (selfplay, the gatekeeper,
// tengen-gtp take what they need): the game option table, the no_fill and precision keys, and
// the parsers of their list values (devices, board sizes, weighted lists).

#include <string>
#include <utility>
#include <vector>

#include "play/game_runner.h"
#include "search/mcts.h"
#include "util/config.h"
#include "util/option_table.h"

namespace tengen::play {

// The keys of one game, shared by selfplay and the gatekeeper: the [rules] keys, board_sizes,
// komis, pos_len, cpuct, fpu_reduction, the utility keys (win_loss_utility,
// static_score_utility, dynamic_score_utility, dynamic_score_center_zero_weight,
// dynamic_score_center_scale, root_ending_bonus_points), temperature_early,
// temperature_late, temperature_halflife, max_moves_per_area, resign.enabled,
// resign.threshold and resign.consecutive_turns. Reading throws ConfigError naming the key for
// a bad distribution or a board size above pos_len.
OptionTable<GameParams> GameOptionTable();
// The search keys shared by selfplay, the gatekeeper and tengen-gtp, each with its own
// defaults: no_fill (search/mcts.h: off, after_pass or once_passed), root_symmetries and the
// subtree value bias keys (subtree_bias_factor, subtree_bias_weight_exponent,
// subtree_bias_free_prop).
OptionTable<search::SearchParams> PlayerSearchOptionTable();
// The precision key of the programs that play a net (selfplay, gatekeeper, gtp): auto (the
// default: play/torch/torch_loader.h ResolvePrecision), fp32, bf16 or fp16; and their
// channels_last key: auto (InferenceChannelsLast there), true or false.
void DeclarePlayPrecisionOption(ConfigSpec& spec);

// The device name of the stand-in GPU (nn::SimulatedDeviceEvaluator).
inline constexpr char kSimulatedDevice[] = "sim";

// Parses the devices list "cpu,cuda:0,cuda:1": comma-separated, spaces around entries
// ignored, each entry cpu, cuda or cuda:N (or sim, the stand-in GPU, where allow_sim). Throws
// ConfigError naming `key` and the text for an empty list, an empty entry or an unknown device.
std::vector<std::string> ParseDeviceList(const std::string& key, const std::string& text,
                                         bool allow_sim = false);
// The same for a key that takes exactly one device; ConfigError for a list.
std::string ParseSingleDevice(const std::string& key, const std::string& text);

// Parses a board_sizes value ("9:1,13:0.5") into (size, weight) pairs: integer sizes in
// [go::kMinSize, go::kMaxSize], none above pos_len. Throws ConfigError naming `key` and the text.
// Shared by selfplay and the gatekeeper.
std::vector<std::pair<int, double>> ParseBoardSizes(const std::string& key, const std::string& text,
                                                    int pos_len);

// Parses "9:1,13:0.5" (value:weight, the weight optional and 1 when left out) into pairs.
// Values must lie in [min, max], weights be >= 0 with a positive total. Throws ConfigError
// naming `key` and the text.
std::vector<std::pair<double, double>> ParseWeightedList(const std::string& key,
                                                         const std::string& text, double min,
                                                         double max);

// The largest of game.board_sizes, after checking that it fits game.pos_len
// (nn::CheckBoardFits).
int CheckBoardSizes(const GameParams& game);

}  // namespace tengen::play
