// tengen-match: referees games between two GTP engines given as command lines, writes the SGFs
// and a JSON report, prints wins/losses/draws, win rate and the Elo difference with its 95%
// interval, and optionally adds the result to an Elo ladder file. The referee is
// match/match.h, the ladder match/ladder.h; this file reads options.
//
//   tengen-match --engine1 "tengen-gtp --model M --visits 50"
//                --engine2 "gnugo --mode gtp --level 1 --chinese-rules --positional-superko"
//                --games 20 --board-size 9 --output-dir OUT [--ladder L --name1 M --name2 gnugo-l1]
//   tengen-match --ladder L --ladder-show

#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gtp/gtp_client.h"
#include "match/ladder.h"
#include "match/match.h"
#include "play/rules_config.h"
#include "util/config.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/program.h"
#include "util/signals.h"
#include "util/text.h"

namespace tengen {
namespace {

// Exit status of a match stopped before its last game: 128 + SIGINT, as a shell reports a program
// ended by Ctrl-C.
constexpr int kStoppedExitCode = 130;

constexpr int64_t kMaxGames = 1000000;
constexpr int64_t kMaxMoveCap = 100000;

// The two engines' keys, engine1 engine2 name1 name2, into MatchOptions::engines.
void DeclareEngineOptions(ConfigSpec& spec) {
  spec.String("engine1", "", "command line of engine 1 (whose wins are counted)");
  spec.String("engine2", "", "command line of engine 2");
  for (const std::string n : {"1", "2"})
    spec.String("name" + n, "",
                "engine " + n + "'s name in SGFs and the ladder (\"\": its GTP name and version)");
}

void ReadEngineOptions(const Config& config, match::MatchOptions& options) {
  for (int i = 0; i < 2; ++i) {
    const std::string n = std::to_string(i + 1);
    const std::string command = config.GetString("engine" + n);
    if (command.empty()) throw ConfigError("engine" + n + ": an engine command line is needed");
    options.engines[i].argv = gtp::SplitCommandLine(command);
    options.engines[i].name = config.GetString("name" + n);
  }
}

OptionTable<match::MatchOptions> MatchOptionTable() {
  using O = match::MatchOptions;
  return OptionTable<O>()
      .Custom([](ConfigSpec& spec, const O&) { play::DeclareRulesOptions(spec); },
              [](const Config& config, O& o) { o.rules = play::RulesFromConfig(config); })
      .Custom([](ConfigSpec& spec, const O&) { DeclareEngineOptions(spec); }, ReadEngineOptions)
      .Int("games", &O::games, 1, kMaxGames, "games to play; engine 1 is black in games 1, 3, ...")
      .Int("board_size", &O::board_size, go::kMinSize, go::kMaxSize, "board size")
      .Int("max_moves", &O::max_moves, 0, kMaxMoveCap,
           "move cap before two passes (0: 4 x board area); capped games are scored as they are")
      .Int("max_cleanup_moves", &O::max_cleanup_moves, 0, kMaxMoveCap,
           "moves of the cleanup phase after two passes (0: board area)")
      .Seconds("gtp_timeout", &O::gtp_timeout, 0, 1e6,
               "seconds an engine may take to answer one command, genmove included (0: no "
               "limit); one that takes longer forfeits the game and is restarted")
      .String("output_dir", &O::output_dir, "directory for <sgf-prefix>-NNN.sgf and match.json")
      .String("sgf_prefix", &O::sgf_prefix, "SGF file names: <sgf-prefix>-NNN.sgf")
      .Int("handicap", &O::handicap, 0, go::kMaxSize * go::kMaxSize,
           "black's fixed handicap stones in every game (0: even games, colours alternating; "
           "white moves first; komi as given, no point per stone)")
      .Int("handicap_engine", &O::handicap_engine, 1, 2,
           "the engine that takes black and the handicap stones");
}

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-match",
                  "Plays two GTP engines against each other (alternating colours), writes SGFs "
                  "and match.json to <output-dir>, reports win rate and Elo, and updates an Elo "
                  "ladder file.");
  MatchOptionTable().Declare(spec);
  spec.String("ladder", "", "Elo ladder file to add this match to (e.g. BASE/ladder/ladder.json)");
  spec.String("ladder_anchors", "",
              "fixed ratings to put in the ladder, name=elo,... (e.g. gnugo-l1=0)");
  spec.Bool("ladder_show", false, "print the ladder's ratings (after adding anchors) and exit");
  DeclareLogLevelOption(spec);
  return spec;
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  Logger logger(ParseLogLevel(config.GetString("log_level")));
  const std::string ladder = config.GetString("ladder");
  const std::map<std::string, double> anchors =
      match::ParseAnchors(config.GetString("ladder_anchors"));

  if (config.GetBool("ladder_show")) {
    if (ladder.empty()) throw ConfigError("ladder_show needs ladder (the ladder file)");
    const std::vector<match::LadderRating> ratings =
        anchors.empty() ? match::ComputeRatings(match::ReadLadder(ladder))
                        : match::UpdateLadder(ladder, anchors, std::nullopt);
    std::cout << match::FormatRatings(ratings);
    return 0;
  }

  match::MatchOptions options;
  MatchOptionTable().Read(config, &options);
  match::CheckHandicap(options);
  if (options.output_dir.empty())
    throw ConfigError("output_dir: needed for the SGFs and match.json");
  if (!ladder.empty() && options.handicap > 0) {
    throw ConfigError("ladder: it rates even games; a handicap match cannot go on it");
  }
  if (!ladder.empty() && (options.engines[0].name.empty() || options.engines[1].name.empty())) {
    throw ConfigError("ladder: name1 and name2 are needed to rate the players");
  }
  if (!ladder.empty() && options.engines[0].name == options.engines[1].name) {
    throw ConfigError("name1 and name2: the ladder needs two different names");
  }

  // A ladder file that cannot be read is an error now, not after the games.
  if (!ladder.empty()) match::ReadLadder(ladder);

  InstallStopSignalHandlers();
  const StopToken stop = StopToken::FromSignals();
  logger.Info(StartupMessage("tengen-match", config));
  const match::MatchReport report =
      match::RunMatch(options, logger, [&stop] { return stop.stop_requested(); });
  const bool complete_before = report.resumed_games == options.games;
  if (complete_before)
    logger.Info(
        StrCat("the match in ", options.output_dir, " was complete already: nothing played"));
  std::cout << match::MatchSummary(report) << "\n";
  const std::optional<match::LadderMatch> result = match::LadderResult(report, options);
  if (!ladder.empty() && result) {
    if (complete_before && match::HoldsMatch(match::ReadLadder(ladder), *result)) {
      logger.Info("the ladder has this match already: not added again");
    } else {
      if (complete_before) logger.Warning("the ladder did not have this match: added now");
      std::cout << match::FormatRatings(match::UpdateLadder(ladder, anchors, result));
    }
  }
  if (!report.complete) {
    // A script that runs matches in turn (strength_run.sh) must stop too, not go on.
    logger.Warning(StrCat("stopped after ", report.games.size(), " of ", options.games,
                          " games; the ladder is not updated; the same command again goes on "
                          "after the last finished game"));
    return kStoppedExitCode;
  }
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-match", [&] { return tengen::Main(argc, argv); });
}
