// tengen-match end to end: tengen-gtp (MCTS over the uniform evaluator, a few visits) against
// GNU Go level 1 on 7x7, refereed by the real binary: games end cleaned up and scored, SGFs
// replay legally to the result they carry, match.json and the ladder file are written.

#include <doctest/doctest.h>
#include <unistd.h>

#include <boost/filesystem.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "go/score.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "match/ladder.h"
#include "test_support.h"
#include "util/publish.h"
#include "util/subprocess.h"

namespace tengen::match {
namespace {

using tengen::testing::TempDir;

const std::string kMatch = TENGEN_BIN_DIR "/tengen-match";
const std::string kTengen = TENGEN_BIN_DIR "/tengen-gtp";
const std::string kGnuGo = "/usr/games/gnugo";

TEST_CASE("tengen-match: tengen-gtp against GNU Go level 1, with the ladder") {
  REQUIRE_MESSAGE(access(kGnuGo.c_str(), X_OK) == 0,
                  "GNU Go is not installed at " << kGnuGo << " (scripts/test.sh installs it)");
  TempDir base;
  const std::string out = base / "match";
  const std::string ladder = base / "ladder/ladder.json";
  const std::vector<std::string> command = {
      kMatch,
      "--engine1",
      kTengen + " --visits 16 --seed 3 --verbose false --board-size 7",
      "--engine2",
      kGnuGo + " --mode gtp --level 1 --chinese-rules --positional-superko --seed 3",
      "--games",
      "2",
      "--board-size",
      "7",
      "--set",
      "rules.komi=7.5",
      "--output-dir",
      out,
      "--name1",
      "tengen-random",
      "--name2",
      "gnugo-l1",
      "--ladder",
      ladder,
      "--ladder-anchors",
      "gnugo-l1=0"};
  const ProcessResult run = RunProcess(command);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("tengen-random vs gnugo-l1: ") != std::string::npos);

  const nlohmann::json j = nlohmann::json::parse(ReadFile(out + "/match.json"));
  CHECK(j["games"] == 2);
  CHECK(j["complete"] == true);
  CHECK(j["wins"].get<int>() + j["losses"].get<int>() + j["draws"].get<int>() == 2);
  CHECK(j["elo"]["low"].get<double>() <= j["elo"]["elo"].get<double>());
  for (int g = 0; g < 2; ++g) {
    const nlohmann::json& game = j["game_list"][g];
    INFO("game " << g + 1 << ": " << game.dump());
    // Neither engine breaks the rules: every game is played out and scored.
    CHECK((game["end"] == "scored" || game["end"] == "move cap"));
    const std::vector<go::SgfRecord> records =
        go::ReadSgfFile(out + "/" + game["sgf"].get<std::string>());
    REQUIRE(records.size() == 1);
    const go::SgfRecord& record = records[0];
    CHECK(record.black_player == (g == 0 ? "tengen-random" : "gnugo-l1"));
    CHECK(record.size == 7);
    CHECK(record.result == game["result"]);
    // The moves replay legally under the match rules to the score in RE.
    const go::GameState replay = go::ReplaySgf(record);
    CHECK(go::ScoreToResult(go::TrompTaylorScore(replay.board(), 7.5)) == record.result);
    if (game["end"] == "scored") CHECK(replay.consecutive_passes() >= 2);
  }

  const Ladder saved = ReadLadder(ladder);
  REQUIRE(saved.matches.size() == 1);
  CHECK(saved.matches[0].a == "tengen-random");
  CHECK(saved.matches[0].b == "gnugo-l1");
  CHECK(saved.matches[0].board_size == 7);
  CHECK(saved.anchors.at("gnugo-l1") == 0);

  // --ladder-show prints the table without playing.
  const ProcessResult show = RunProcess({kMatch, "--ladder", ladder, "--ladder-show"});
  CHECK(show.exit_code == 0);
  CHECK(show.output.find("tengen-random") != std::string::npos);
  CHECK(show.output.find("anchor") != std::string::npos);

  // The complete match run again plays nothing and leaves the ladder as it is; with a ladder
  // that lacks it (one that could not be written when it ended), it puts it there, once.
  const ProcessResult again = RunProcess(command);
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK(ReadLadder(ladder).matches.size() == 1);
  boost::filesystem::remove(ladder);
  const ProcessResult restored = RunProcess(command);
  INFO(restored.output);
  CHECK(restored.exit_code == 0);
  CHECK(restored.output.find("added now") != std::string::npos);
  const Ladder rebuilt = ReadLadder(ladder);
  REQUIRE(rebuilt.matches.size() == 1);
  CHECK(rebuilt.matches[0].wins == saved.matches[0].wins);
  CHECK(rebuilt.matches[0].match_dir == saved.matches[0].match_dir);
  CHECK(RunProcess(command).exit_code == 0);
  CHECK(ReadLadder(ladder).matches.size() == 1);
}

TEST_CASE("tengen-match: a ladder file that cannot be read is an error before any game") {
  TempDir dir;
  const std::string ladder = dir / "ladder.json";
  PublishFile(ladder, "not json\n");
  const ProcessResult run =
      RunProcess({kMatch, "--engine1", "x", "--engine2", "y", "--name1", "a", "--name2", "b",
                  "--output-dir", dir / "match", "--ladder", ladder});
  INFO(run.output);
  CHECK(run.exit_code != 0);
  CHECK(run.output.find("ladder file " + ladder) != std::string::npos);
  CHECK_FALSE(boost::filesystem::exists(dir / "match/match.json"));
}

TEST_CASE("tengen-match: usage errors exit 2") {
  CHECK(RunProcess({kMatch, "--engine1", "x"}).exit_code == 2);                    // no engine2
  CHECK(RunProcess({kMatch, "--engine1", "x", "--engine2", "y"}).exit_code == 2);  // no output
  TempDir dir;
  // The ladder needs two different names.
  const ProcessResult same = RunProcess({kMatch, "--engine1", "x", "--engine2", "y", "--output-dir",
                                         dir.path(), "--ladder", dir / "l.json"});
  CHECK(same.exit_code == 2);
  CHECK(same.output.find("name1") != std::string::npos);
  CHECK(RunProcess({kMatch, "--ladder-show"}).exit_code == 2);
  CHECK(RunProcess({kMatch, "--ladder", dir / "l.json", "--ladder-anchors", "x", "--ladder-show"})
            .exit_code == 2);
}

}  // namespace
}  // namespace tengen::match
