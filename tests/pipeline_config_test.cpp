// The selfplay options as the program reads them: command-line values reach SelfplayOptions,
// and values outside their ranges are ConfigErrors that name the key.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pipeline/gatekeeper.h"
#include "pipeline/gatekeeper_options.h"
#include "pipeline/selfplay.h"
#include "pipeline/selfplay_options.h"
#include "play/game_options.h"
#include "search/mcts.h"
#include "util/config.h"
#include "util/error.h"

using namespace tengen;
using namespace tengen::pipeline;

namespace {

// ParseCommandLine over the selfplay spec with --output-dir set, then the options it gives.
SelfplayOptions Parse(std::vector<std::string> args) {
  ConfigSpec spec("tengen-selfplay");
  DeclareSelfplayOptions(spec);
  Config config(spec);
  args.insert(args.begin(), {"tengen-selfplay", "--output-dir", "/tmp/unused"});
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  ParseCommandLine(spec, static_cast<int>(argv.size()), argv.data(), config);
  return SelfplayOptionsFromConfig(config);
}

// The message of the ConfigError that parsing `args` throws; fails the test if it throws none.
std::string ErrorOf(const std::vector<std::string>& args) {
  try {
    Parse(args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError");
  return "";
}

}  // namespace

TEST_CASE("selfplay config: defaults read back as SelfplayDefaultGame, pos_len 9 for 9x9") {
  const SelfplayOptions o = Parse({});
  const play::GameParams expected = SelfplayDefaultGame();
  CHECK(o.game.pos_len == 9);
  CHECK(o.game.pos_len == expected.pos_len);
  CHECK(o.game.board_sizes == expected.board_sizes);
  CHECK(o.game.komi_auto == expected.komi_auto);
  CHECK(o.game.komi_stdev == expected.komi_stdev);
  CHECK(o.game.playout_cap.full_visits == expected.playout_cap.full_visits);
  CHECK(o.game.search.cpuct == expected.search.cpuct);
  CHECK(o.models_dir == "/tmp/unused/models");
}

TEST_CASE("selfplay config: a board size above pos_len names both keys' values") {
  CHECK(ErrorOf({"--pos-len", "9", "--board-sizes", "9:1,13:1"}).find("exceeds pos_len 9") !=
        std::string::npos);
  CHECK(Parse({"--pos-len", "13", "--board-sizes", "9:1,13:1"}).game.board_sizes.size() == 2);
}

TEST_CASE("selfplay config: handicap games need their stones' fixed points on every board size") {
  const SelfplayOptions plain = Parse({});
  CHECK(plain.game.handicap_game_prob == 0);
  CHECK(plain.game.handicap_stones == 2);
  const SelfplayOptions five = Parse({"--set", "handicap_game_prob=0.1", "--set",
                                      "handicap_stones=5", "--set", "handicap_komi=7"});
  CHECK(five.game.handicap_game_prob == doctest::Approx(0.1));
  CHECK(five.game.handicap_stones == 5);
  CHECK(five.game.handicap_komi == doctest::Approx(7));
  // 7x7 has 4 fixed points; with the games off, the size does not matter.
  const std::string error = ErrorOf(
      {"--set", "handicap_game_prob=0.1", "--set", "handicap_stones=5", "--board-sizes", "7:1"});
  CHECK(error.find("handicap_stones (5)") != std::string::npos);
  CHECK(error.find("7x7") != std::string::npos);
  CHECK(Parse({"--set", "handicap_stones=5", "--board-sizes", "7:1"}).game.handicap_stones == 5);
  CHECK(ErrorOf({"--set", "handicap_stones=1"}).find("handicap_stones") != std::string::npos);
  CHECK(ErrorOf({"--set", "handicap_game_prob=1.5"}).find("handicap_game_prob") !=
        std::string::npos);
}

TEST_CASE("gatekeeper config: the declared defaults are GatekeeperOptions' own") {
  ConfigSpec spec("tengen-gatekeeper");
  DeclareGatekeeperOptions(spec);
  Config config(spec);
  config.Set("output_dir", "/tmp/unused", "test");
  const GatekeeperOptions o = GatekeeperOptionsFromConfig(config);
  const GatekeeperOptions expected;
  CHECK(o.game.pos_len == 9);
  CHECK(o.game.pos_len == expected.game.pos_len);
  CHECK(o.game.playout_cap.full_visits == 150);
  CHECK(o.game.playout_cap.full_visits == expected.game.playout_cap.full_visits);
  CHECK(o.game.temperature_early == expected.game.temperature_early);
  CHECK(o.games == expected.games);
  CHECK(o.poll_interval == expected.poll_interval);
  CHECK(o.device == "cpu");
  config.Set("device", "cpu,cpu", "test");
  CHECK_THROWS_WITH_AS(GatekeeperOptionsFromConfig(config),
                       doctest::Contains("expected one device"), ConfigError);
}

TEST_CASE("selfplay config: dirichlet_alpha_total must be positive") {
  CHECK(ErrorOf({"--set", "dirichlet_alpha_total=0"}).find("dirichlet_alpha_total") !=
        std::string::npos);
  CHECK(Parse({"--set", "dirichlet_alpha_total=0.5"}).game.search.dirichlet_alpha_total ==
        doctest::Approx(0.5));
}

TEST_CASE("selfplay config: gumbel takes off, cheap or all, and gumbel_moves at least 1") {
  CHECK(Parse({}).game.search.gumbel == search::Gumbel::kOff);
  CHECK(Parse({"--set", "gumbel=cheap"}).game.search.gumbel == search::Gumbel::kCheap);
  CHECK(Parse({"--set", "gumbel=all", "--set", "gumbel_moves=4"}).game.search.gumbel_moves == 4);
  CHECK(ErrorOf({"--set", "gumbel=sometimes"}).find("gumbel") != std::string::npos);
  CHECK(Parse({}).game.search.gumbel_after_pass);
  CHECK_FALSE(Parse({"--set", "gumbel_after_pass=false"}).game.search.gumbel_after_pass);
  CHECK(ErrorOf({"--set", "gumbel_after_pass=maybe"}).find("gumbel_after_pass") !=
        std::string::npos);
  CHECK(ErrorOf({"--set", "gumbel_moves=0"}).find("gumbel_moves") != std::string::npos);
}

TEST_CASE("selfplay config: max_rows_per_file stays below what the npz writer can store") {
  CHECK(ErrorOf({"--set", "max_rows_per_file=1000001"}).find("max_rows_per_file") !=
        std::string::npos);
  CHECK(Parse({"--set", "max_rows_per_file=1000000"}).max_rows_per_file == 1000000);
}

TEST_CASE("selfplay config: max_shard_age_seconds sets the options, within 1..86400") {
  CHECK(Parse({}).max_shard_age_seconds == doctest::Approx(600));
  CHECK(Parse({"--set", "max_shard_age_seconds=5"}).max_shard_age_seconds == doctest::Approx(5));
  for (const char* bad : {"max_shard_age_seconds=0.5", "max_shard_age_seconds=86401"}) {
    CAPTURE(bad);
    CHECK(ErrorOf({"--set", bad}).find("max_shard_age_seconds") != std::string::npos);
  }
}
