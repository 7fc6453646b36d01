#pragma once
// The selfplay program's options: every SelfplayOptions knob declared once as a config key
// (type, default, range, help), and the conversion from a validated Config to SelfplayOptions.
// Lives in pipeline (not in the program's main) so that tests can check parsing without
// starting a process. The keys of one game are play/game_options.h's; configs/selfplay.cfg
// documents the keys with the reasons for defaults.

#include "pipeline/selfplay.h"
#include "util/config.h"
#include "util/option_table.h"

namespace tengen::pipeline {

// Adds output_dir, models_dir, max_games_total, the [rules] keys and every search, game,
// threading and output knob.
void DeclareSelfplayOptions(ConfigSpec& spec);
// Throws ConfigError naming the key for values the spec cannot check (distributions, an
// empty output_dir, cheap_visits > full_visits, a board size above pos_len, a bad devices
// list or more devices than game threads).
SelfplayOptions SelfplayOptionsFromConfig(const Config& config);

// The game selfplay plays by default: GameParams with pos_len 9 (the default board size's) and
// fair komi on.
play::GameParams SelfplayDefaultGame();

}  // namespace tengen::pipeline
