// The referee of tengen-match (match/match.h) against scripted fake engines: a small bash GTP
// engine that answers genmove with the moves given on its command line. Illegal moves, answers
// that are not moves, resignation, a refused legal move, an engine that dies and one that stops
// answering all end the game against the engine at fault; scoring after cleanup or
// final_status_list; the SGFs and match.json written.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "go/handicap.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "gtp/gtp_client.h"
#include "gtp/gtp_command.h"
#include "match/match.h"
#include "test_support.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::match {
namespace {

using tengen::testing::TempDir;

// Answers genmove / kgs-genmove_cleanup with its arguments in order ("pass" once they run out;
// the list restarts at clear_board). Special moves: "die" exits at once, "hang" stops answering.
// Options before the moves: --cleanup lists kgs-genmove_cleanup, --dead VERTICES answers
// final_status_list dead (and lists it), --refuse-play refuses every play command, --log FILE
// appends every command it reads to FILE.
const char* const kFakeEngine = R"(#!/bin/bash
cleanup=0; dead=""; refuse=0; log=/dev/null
while [ $# -gt 0 ]; do
  case "$1" in
    --cleanup) cleanup=1; shift;;
    --log) log="$2"; shift 2;;
    --dead) dead="$2"; shift 2;;
    --refuse-play) refuse=1; shift;;
    *) break;;
  esac
done
moves=("$@"); i=0
while read -r cmd rest; do
  echo "$cmd $rest" >> "$log"
  case "$cmd" in
    quit) printf '= \n\n'; exit 0;;
    name) printf '= fake\n\n';;
    version) printf '= 1.0\n\n';;
    list_commands)
      printf '= name\nversion\nquit\nboardsize\nclear_board\nkomi\nplay\ngenmove'
      [ $cleanup = 1 ] && printf '\nkgs-genmove_cleanup'
      [ -n "$dead" ] && printf '\nfinal_status_list'
      printf '\n\n';;
    clear_board) i=0; printf '= \n\n';;
    genmove|kgs-genmove_cleanup)
      if [ $i -lt ${#moves[@]} ]; then m=${moves[$i]}; i=$((i+1)); else m=pass; fi
      [ "$m" = die ] && exit 3
      [ "$m" = hang ] && exec sleep 60
      printf '= %s\n\n' "$m";;
    play) if [ $refuse = 1 ]; then printf '? illegal move\n\n'; else printf '= \n\n'; fi;;
    final_status_list) printf '= %s\n\n' "$dead";;
    *) printf '= \n\n';;
  esac
done
)";

struct Fakes {
  Fakes() : script(dir.Write("fake-gtp.sh", kFakeEngine)) { chmod(script.c_str(), 0755); }
  std::vector<std::string> Argv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"/bin/bash", script};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  TempDir dir;
  std::string script;
};

// A match of two fake engines, "one" and "two", on 5x5.
MatchOptions FakeMatch(const Fakes& fakes, const std::vector<std::string>& engine1,
                       const std::vector<std::string>& engine2, int games, const std::string& out) {
  MatchOptions options;
  options.engines[0].argv = fakes.Argv(engine1);
  options.engines[0].name = "one";
  options.engines[1].argv = fakes.Argv(engine2);
  options.engines[1].name = "two";
  options.games = games;
  options.board_size = 5;
  options.output_dir = out;
  return options;
}

MatchReport Run(const Fakes& fakes, const std::vector<std::string>& engine1,
                const std::vector<std::string>& engine2, int games, const std::string& out,
                std::chrono::milliseconds gtp_timeout = std::chrono::milliseconds::zero()) {
  MatchOptions options = FakeMatch(fakes, engine1, engine2, games, out);
  options.gtp_timeout = gtp_timeout;
  Logger logger(LogLevel::kError);
  return RunMatch(options, logger);
}

bool PathExists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

TEST_CASE("match: an illegal move loses the game, whatever the colour") {
  Fakes fakes;
  TempDir out;
  // Engine 1 plays C3 twice: the second time the point is taken.
  const MatchReport report = Run(fakes, {"c3", "c3"}, {"d4"}, 2, out.path());
  REQUIRE(report.games.size() == 2);
  CHECK(report.score.wins == 0);
  CHECK(report.score.losses == 2);
  CHECK(report.games[0].result == "W+F");  // engine 1 black
  CHECK(report.games[1].result == "B+F");  // engine 1 white
  for (const GameOutcome& game : report.games) {
    CHECK(game.end == GameEnd::kForfeit);
    CHECK(Contains(game.detail, "illegal move C3 (occupied)"));
    CHECK(Contains(game.detail, "(one)"));
  }
  CHECK(report.elo.elo < 0);
  // The SGF holds the legal moves and the result.
  const std::vector<go::SgfRecord> records = go::ReadSgfFile(out / "game-001.sgf");
  REQUIRE(records.size() == 1);
  CHECK(records[0].black_player == "one");
  CHECK(records[0].white_player == "two");
  CHECK(records[0].result == "W+F");
  CHECK(records[0].moves.size() == 2);
  // match.json agrees.
  const nlohmann::json j = nlohmann::json::parse(ReadFile(out / "match.json"));
  CHECK(j["format"] == "tengen-match");
  CHECK(j["games"] == 2);
  CHECK(j["losses"] == 2);
  CHECK(j["complete"] == true);
  CHECK(j["game_list"][1]["black"] == "two");
  CHECK(j["game_list"][1]["sgf"] == "game-002.sgf");
  CHECK(j["game_list"][1]["end"] == "forfeit");
}

TEST_CASE("match: an answer that is not a move, and resignation") {
  Fakes fakes;
  TempDir out;
  MatchReport report = Run(fakes, {"z99"}, {}, 1, out.path());
  REQUIRE(report.games.size() == 1);
  CHECK(report.games[0].result == "W+F");
  CHECK(Contains(report.games[0].detail, "not a move"));

  report = Run(fakes, {"c3"}, {"resign"}, 1, out / "resign");
  CHECK(report.games[0].result == "B+R");
  CHECK(report.games[0].end == GameEnd::kResignation);
  CHECK(report.score.wins == 1);
}

TEST_CASE("match: an engine that refuses a legal move forfeits") {
  Fakes fakes;
  TempDir out;
  const MatchReport report = Run(fakes, {"c3"}, {"--refuse-play"}, 1, out.path());
  CHECK(report.games[0].result == "B+F");
  CHECK(Contains(report.games[0].detail, "refused black C3"));
  CHECK(report.score.wins == 1);
}

TEST_CASE("match: an engine that dies forfeits and is restarted for the next game") {
  Fakes fakes;
  TempDir out;
  // Game 1: engine 1 (black) plays C3, engine 2 B2, then engine 1 dies. Game 2 with a
  // restarted engine 1 as white: B2, C3, pass, and engine 1 dies again.
  const MatchReport report = Run(fakes, {"c3", "die"}, {"b2"}, 2, out.path());
  REQUIRE(report.games.size() == 2);
  CHECK(report.games[0].result == "W+F");
  CHECK(Contains(report.games[0].detail, "closed its output"));
  CHECK(report.games[1].result == "B+F");
  CHECK(report.games[1].moves == 3);  // the restarted engine answered before dying
  CHECK(report.score.losses == 2);
}

TEST_CASE("match: an engine that does not answer within gtp_timeout forfeits and is restarted") {
  Fakes fakes;
  TempDir out;
  // Engine 2 stops answering at its first genmove, in each game: it is killed, forfeits, and a
  // fresh one plays the next game.
  const MatchReport report =
      Run(fakes, {"c3", "b2"}, {"hang"}, 2, out.path(), std::chrono::milliseconds(300));
  REQUIRE(report.games.size() == 2);
  CHECK(report.score.wins == 2);
  CHECK(report.games[0].result == "B+F");
  CHECK(report.games[1].result == "W+F");
  CHECK(report.games[0].faulty_engine == 1);  // white in game 1
  CHECK(report.games[1].faulty_engine == 0);  // black in game 2
  CHECK(Contains(report.games[0].detail, "did not answer 'genmove white' within 0.3 s"));
  CHECK(Contains(report.games[1].detail, "did not answer 'genmove black' within 0.3 s"));
  // An engine that answers in time is not affected by the limit.
  const MatchReport fine =
      Run(fakes, {"c3", "pass"}, {"b2", "pass"}, 1, out / "fine", std::chrono::milliseconds(5000));
  REQUIRE(fine.games.size() == 1);
  CHECK(fine.games[0].end == GameEnd::kScored);
}

TEST_CASE("match: a stop while an engine thinks ends the match at once, that game uncounted") {
  Fakes fakes;
  TempDir out;
  MatchOptions options;
  options.engines[0].argv = fakes.Argv({"c3", "b2"});
  options.engines[0].name = "one";
  options.engines[1].argv = fakes.Argv({"hang"});  // thinks for 60 s
  options.engines[1].name = "two";
  options.games = 2;
  options.board_size = 5;
  options.output_dir = out.path();
  Logger logger(LogLevel::kError);
  // The stop comes while engine 2 is thinking about its first move; no time limit is set.
  const auto start = std::chrono::steady_clock::now();
  const MatchReport report = RunMatch(options, logger, [start] {
    return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(500);
  });
  CHECK(report.games.empty());
  CHECK_FALSE(report.complete);
  CHECK(report.score.games() == 0);
}

TEST_CASE("match: a handicap match gives one engine black and the stones in every game") {
  Fakes fakes;
  TempDir out;
  const std::string log1 = out / "one.log";
  const std::string log2 = out / "two.log";
  MatchOptions options =
      FakeMatch(fakes, {"--log", log1, "b2"}, {"--log", log2, "f6"}, 2, out / "match");
  options.board_size = 7;
  options.rules.komi = 0.5;
  options.handicap = 2;  // engine 2 (the default handicap_engine) takes black
  CheckHandicap(options);
  Logger logger(LogLevel::kError);
  const MatchReport report = RunMatch(options, logger);
  REQUIRE(report.complete);
  REQUIRE(report.games.size() == 2);
  const std::string stones = gtp::VertexList(go::FixedHandicapPoints(7, 2), 7);
  CHECK(stones == "C3 E5");
  for (const GameOutcome& game : report.games) {
    CAPTURE(game.index);
    CHECK(game.black_engine == 1);
    // White's B2 first, black's F6, then passes: black's two stones and F6 against one.
    CHECK(game.end == GameEnd::kScored);
    const std::vector<go::SgfRecord> records = go::ReadSgfFile(out / ("match/" + game.sgf_file));
    REQUIRE(records.size() == 1);
    const go::SgfRecord& sgf = records[0];
    CHECK(sgf.setup_black.size() == 2);
    REQUIRE(!sgf.moves.empty());
    CHECK(sgf.moves.front().color == go::Color::kWhite);
    CHECK(sgf.black_player == "two");
  }
  // Both engines were told where the stones are, once per game.
  for (const std::string& log : {log1, log2}) {
    const std::string commands = ReadFile(log);
    CHECK(Contains(commands, "set_free_handicap " + stones));
    CHECK(commands.find("set_free_handicap") != commands.rfind("set_free_handicap"));
  }
  const std::string record = ReadFile(out / "match/game-001.sgf");
  CHECK(Contains(record, "HA[2]"));
  const auto json = nlohmann::json::parse(ReadFile(out / "match/match.json"));
  CHECK(json.at("handicap") == 2);
  CHECK(json.at("handicap_engine") == 2);
  CHECK_FALSE(LadderResult(report, options));  // the ladder rates even games only
  // Stopped after its first game, the handicap match goes on with engine 2 black again.
  MatchOptions longer = options;
  longer.games = 3;
  longer.output_dir = out / "longer";
  const std::string first = out / "longer/game-001.sgf";
  const MatchReport part = RunMatch(longer, logger, [&] { return PathExists(first); });
  REQUIRE(part.games.size() == 1);
  const MatchReport rest = RunMatch(longer, logger);
  CHECK(rest.resumed_games == 1);
  REQUIRE(rest.games.size() == 3);
  for (const GameOutcome& game : rest.games) CHECK(game.black_engine == 1);
  // The same directory for an even match is another match.
  MatchOptions even = options;
  even.handicap = 0;
  CHECK_THROWS_WITH_AS(RunMatch(even, logger), doctest::Contains("handicap"), ConfigError);
}

TEST_CASE("match: a handicap that the board has no fixed points for is an error naming it") {
  MatchOptions options;
  options.board_size = 7;
  for (const int stones : {1, 5, -2}) {
    CAPTURE(stones);
    options.handicap = stones;
    CHECK_THROWS_WITH_AS(CheckHandicap(options), doctest::Contains("handicap: "), ConfigError);
  }
  options.board_size = 9;
  options.handicap = 9;
  CheckHandicap(options);
  options.handicap_engine = 3;
  CHECK_THROWS_WITH_AS(CheckHandicap(options), doctest::Contains("handicap_engine: 3"),
                       ConfigError);
}

TEST_CASE("match: only a complete match goes on the ladder") {
  Fakes fakes;
  MatchOptions options;
  options.engines[0].argv = fakes.Argv({"c3", "b2"});
  options.engines[0].name = "one";
  options.engines[1].argv = fakes.Argv({"c3", "b2"});
  options.engines[1].name = "two";
  options.games = 2;
  options.board_size = 5;
  options.rules.komi = 0.5;
  Logger logger(LogLevel::kError);
  const MatchReport whole = RunMatch(options, logger);
  REQUIRE(whole.complete);
  const std::optional<LadderMatch> result = LadderResult(whole, options);
  REQUIRE(result);
  CHECK(result->a == "one");
  CHECK(result->b == "two");
  CHECK(result->wins + result->losses + result->draws == 2);
  CHECK(result->wins == whole.score.wins);
  CHECK(result->board_size == 5);
  CHECK(result->komi == 0.5);
  // The same games from a match that was stopped before its planned end: nothing.
  MatchReport part = whole;
  part.complete = false;
  CHECK_FALSE(LadderResult(part, options));
}

TEST_CASE("match: a stopped match goes on from its last finished game when run again") {
  Fakes fakes;
  TempDir out;
  // Black plays c3, white answers c3 (occupied) and forfeits: engine 1 wins games 1 and 3.
  const MatchOptions options = FakeMatch(fakes, {"c3", "b2"}, {"c3", "b2"}, 4, out.path());
  Logger logger(LogLevel::kError);
  const std::string second = out.path() + "/game-002.sgf";
  const MatchReport part = RunMatch(options, logger, [&] { return PathExists(second); });
  REQUIRE(part.games.size() == 2);
  CHECK_FALSE(part.complete);
  CHECK_FALSE(LadderResult(part, options));
  CHECK_FALSE(PathExists(out.path() + "/game-003.sgf"));

  const MatchReport rest = RunMatch(options, logger);
  CHECK(rest.resumed_games == 2);
  REQUIRE(rest.games.size() == 4);
  CHECK(rest.complete);
  for (int g = 0; g < 4; ++g) {
    CHECK(rest.games[g].index == g + 1);
    CHECK(rest.games[g].black_engine == g % 2);
    CHECK(rest.games[g].result == "B+F");  // black wins every game
  }
  CHECK(rest.score.wins == 2);
  CHECK(rest.score.losses == 2);
  CHECK(rest.games[3].sgf_file == "game-004.sgf");
  CHECK(PathExists(out.path() + "/game-004.sgf"));
  // The whole match, its first two games included, goes on the ladder once it is complete.
  const std::optional<LadderMatch> result = LadderResult(rest, options);
  REQUIRE(result);
  CHECK(result->wins + result->losses + result->draws == 4);
  const nlohmann::json record = nlohmann::json::parse(ReadFile(out.path() + "/match.json"));
  CHECK(record["games"] == 4);
  CHECK(record["complete"] == true);

  CHECK(result->match_dir == out.path());

  // Run once more: nothing to play, and the same result, for a ladder that may not have it yet
  // (tengen-match adds it only then: HoldsMatch).
  const MatchReport again = RunMatch(options, logger);
  CHECK(again.resumed_games == 4);
  CHECK(again.complete);
  CHECK(again.score.wins == 2);
  const std::optional<LadderMatch> again_result = LadderResult(again, options);
  REQUIRE(again_result);
  CHECK(again_result->wins == result->wins);
  CHECK(again_result->losses == result->losses);
  CHECK(again_result->match_dir == result->match_dir);
}

TEST_CASE("match: an output_dir holding another match is an error naming what differs") {
  Fakes fakes;
  TempDir out;
  Logger logger(LogLevel::kError);
  const MatchOptions options = FakeMatch(fakes, {"c3"}, {"c3"}, 2, out.path());
  RunMatch(options, logger);
  auto error_of = [&](const MatchOptions& other) {
    try {
      RunMatch(other, logger);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  MatchOptions more = options;
  more.games = 4;
  CHECK(Contains(error_of(more), "games_planned 2, not 4"));
  MatchOptions bigger = options;
  bigger.board_size = 7;
  CHECK(Contains(error_of(bigger), "board_size 5, not 7"));
  MatchOptions renamed = options;
  renamed.engines[1].name = "three";
  const std::string names = error_of(renamed);
  CHECK(Contains(names, out.path() + "/match.json: holds a match with engine names"));
  CHECK(Contains(names, "three"));
  MatchOptions komi = options;
  komi.rules.komi = 0.5;
  CHECK(Contains(error_of(komi), "komi"));
  // A record with more games than it planned is named, and so is a file that is no record.
  nlohmann::json record = nlohmann::json::parse(ReadFile(out / "match.json"));
  record["game_list"].push_back(record["game_list"][0]);
  record["game_list"].push_back(record["game_list"][1]);
  record["game_list"][2]["index"] = 3;
  record["game_list"][3]["index"] = 4;
  PublishFile(out / "match.json", record.dump());
  const std::string too_many = (out / "match.json") + ": game_list: 4 games, more than the 2";
  CHECK_THROWS_WITH_AS(RunMatch(options, logger), doctest::Contains(too_many.c_str()), FormatError);
  PublishFile(out.path() + "/match.json", "{\"format\": \"tengen-ladder\"}\n");
  const std::string not_a_record = (out / "match.json") + ": format";
  CHECK_THROWS_WITH_AS(RunMatch(options, logger), doctest::Contains(not_a_record.c_str()),
                       FormatError);
}

TEST_CASE("match: scoring after two passes, with cleanup or final_status_list") {
  Fakes fakes;
  TempDir out;
  {
    // Nobody can clean up or name dead stones: the board is scored as it stands.
    const MatchReport report = Run(fakes, {"a1"}, {}, 1, out.path());
    CHECK(report.games[0].result == "B+17.5");  // 25 points minus komi 7.5
    CHECK(report.games[0].end == GameEnd::kScored);
    CHECK(report.games[0].cleanup_moves == 0);
  }
  {
    // Engine 2 calls A1 dead: removed before the count.
    const MatchReport report = Run(fakes, {"a1"}, {"--dead", "A1"}, 1, out / "dead");
    CHECK(report.games[0].result == "W+7.5");
    CHECK(Contains(report.games[0].detail, "1 dead stones removed as two said"));
  }
  {
    // Engine 1 lists kgs-genmove_cleanup: after B A1, W pass, B pass the cleanup phase asks it
    // again (B2), then both pass. Engine 2 gets plain genmove.
    const MatchReport report =
        Run(fakes, {"--cleanup", "a1", "pass", "b2"}, {}, 1, out / "cleanup");
    const GameOutcome& game = report.games[0];
    CHECK(game.result == "B+17.5");
    CHECK(game.cleanup_moves == 4);  // W pass, B B2, W pass, B pass
    CHECK(game.moves == 7);
    const go::SgfRecord record = go::ReadSgfFile(out / "cleanup/game-001.sgf").at(0);
    const go::GameState replay = go::ReplaySgf(record);
    CHECK(replay.board().StoneCount(go::Color::kBlack) == 2);
    CHECK(Contains(record.root_comment, "4 cleanup moves"));
  }
}

TEST_CASE("match: the move cap ends a game, scored as the board stands") {
  Fakes fakes;
  TempDir out;
  MatchOptions options;
  options.engines[0].argv = fakes.Argv({"a1", "b1"});
  options.engines[1].argv = fakes.Argv({"--dead", "A1", "e5", "d5"});
  options.games = 1;
  options.board_size = 5;
  options.max_moves = 2;
  Logger logger(LogLevel::kError);
  const MatchReport report = RunMatch(options, logger);
  REQUIRE(report.games.size() == 1);
  const GameOutcome& game = report.games[0];
  CHECK(game.end == GameEnd::kMoveCap);
  CHECK(game.moves == 2);
  // A1 and E5 each own their point, the rest is dame; nobody is asked for dead stones.
  CHECK(game.result == "W+7.5");
  CHECK(report.names[0] == "fake 1.0");  // from the engine's name and version
  CHECK(options.output_dir.empty());
}

TEST_CASE("match: engine command lines are split like a shell's words") {
  CHECK(gtp::SplitCommandLine("gnugo --mode gtp  --level 1") ==
        std::vector<std::string>{"gnugo", "--mode", "gtp", "--level", "1"});
  CHECK(gtp::SplitCommandLine("a 'b c' \"d \\\"e\\\"\" f\\ g") ==
        std::vector<std::string>{"a", "b c", "d \"e\"", "f g"});
  CHECK(gtp::SplitCommandLine("x ''") == std::vector<std::string>{"x", ""});
  CHECK_THROWS_AS(gtp::SplitCommandLine("a 'b"), ConfigError);
  CHECK_THROWS_AS(gtp::SplitCommandLine("   "), ConfigError);
}

TEST_CASE("match: an engine that cannot start is an error before any game") {
  MatchOptions options;
  options.engines[0].argv = {"/nonexistent/engine"};
  options.engines[1].argv = {"/nonexistent/engine"};
  Logger logger(LogLevel::kError);
  CHECK_THROWS_AS(RunMatch(options, logger), IoError);
}

}  // namespace
}  // namespace tengen::match
