// The real tengen-analysis binary over pipes: hand-written queries and bad input with the random
// net, a model's ownership and policy, the end of input, and usage errors.

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/subprocess.h"
#include "util/text.h"

namespace tengen::analysis {
namespace {

using Json = nlohmann::json;

const std::string kBinary = TENGEN_BIN_DIR "/tengen-analysis";
const std::string kNet = TENGEN_SOURCE_DIR "/nets/run-b4c64-s1857024-d234352";

Json ReadResponse(Subprocess& engine) {
  std::string line;
  REQUIRE(engine.ReadLine(&line, std::chrono::seconds(120)));
  return Json::parse(line);
}

TEST_CASE("tengen-analysis: hand-written queries and bad input over pipes") {
  Subprocess engine({kBinary, "--pos_len", "9", "--max_visits", "40", "--seed", "5"});
  // Each bad line gets one error response naming what is wrong, and the engine goes on.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"this is not json", ""},
      {R"({"id":"big","rules":"tromp-taylor","boardXSize":19,"boardYSize":19,"moves":[]})",
       "boardXSize"},
      {R"({"id":"ill","rules":"tromp-taylor","boardXSize":9,"boardYSize":9,)"
       R"("moves":[["B","E5"],["W","E5"]]})",
       "moves"},
      {R"({"id":"jp","rules":"japanese","boardXSize":9,"boardYSize":9,"moves":[]})", "rules"},
      {R"({"id":"v","rules":"tromp-taylor","boardXSize":9,"boardYSize":9,"moves":[],)"
       R"("maxVisits":-3})",
       "maxVisits"},
  };
  for (const auto& [line, field] : bad) {
    CAPTURE(line);
    engine.WriteLine(line);
    const Json response = ReadResponse(engine);
    CHECK(response.contains("error"));
    CHECK(response.value("field", "") == field);
  }
  engine.WriteLine(R"({"id":"ver","action":"query_version"})");
  const Json version = ReadResponse(engine);
  CHECK(version.at("id") == "ver");
  CHECK_FALSE(version.at("version").get<std::string>().empty());

  // A game of three moves, every turn, from white's view; the moves on the board as sent.
  engine.WriteLine(R"({"id":"g","rules":"tromp-taylor","komi":7.5,"boardXSize":9,)"
                   R"("boardYSize":9,"moves":[["B","E5"],["W","C3"],["B","G7"]],)"
                   R"("analyzeTurns":[0,1,2,3],"includePolicy":true,)"
                   R"("overrideSettings":{"reportAnalysisWinratesAs":"WHITE"}})");
  std::map<int, Json> turns;
  while (turns.size() < 4) {
    const Json response = ReadResponse(engine);
    REQUIRE(response.at("id") == "g");
    REQUIRE_FALSE(response.contains("error"));
    turns[response.at("turnNumber")] = response;
  }
  for (const auto& [turn, response] : turns) {
    CAPTURE(turn);
    CHECK(response.at("rootInfo").at("visits").get<int>() >= 40);
    CHECK(response.at("rootInfo").at("currentPlayer") == (turn % 2 == 0 ? "B" : "W"));
    const Json& policy = response.at("policy");
    REQUIRE(policy.size() == 82);
    // E5 is row 5 from the bottom, so row 4 from the top: index 4 * 9 + 4.
    CHECK((policy[40].get<double>() == -1.0) == (turn >= 1));
    for (const Json& move : response.at("moveInfos")) {
      if (turn >= 1) CHECK(move.at("move") != "E5");
    }
  }
  engine.CloseStdin();  // the end of input: queued work is finished, then the process exits
  CHECK(engine.Wait() == 0);
}

TEST_CASE("tengen-analysis: the end of input waits for every queued position") {
  std::string queries;
  for (int i = 0; i < 3; ++i) {
    queries += R"({"id":"q)" + std::to_string(i) +
               R"(","rules":"tromp-taylor","boardXSize":7,"boardYSize":7,"moves":[],)"
               R"("maxVisits":30,"analyzeTurns":[0]})"
               "\n";
  }
  const ProcessResult result =
      RunProcess({kBinary, "--pos_len", "7", "--analysis_threads", "2"}, queries);
  CHECK(result.exit_code == 0);
  for (int i = 0; i < 3; ++i) {
    CHECK(
        Contains(result.output, R"("id":"q)" + std::to_string(i) + R"(","isDuringSearch":false)"));
  }
}

TEST_CASE("tengen-analysis: a model's ownership and lead, from black's view by default") {
  Subprocess engine({kBinary, "--model", kNet, "--analysis_threads", "4", "--seed", "3"});
  // Black walls on columns B and D, white walls on F and H: A-D are black's (36 points), F-J
  // white's (36), the E column is open. White leads by about komi, whoever is to move.
  std::string stones;
  for (int row = 1; row <= 9; ++row) {
    for (const char* stone : {"B,B", "B,D", "W,F", "W,H"}) {
      stones += std::string(stones.empty() ? "" : ",") + "[\"" + stone[0] + "\",\"" + stone[2] +
                std::to_string(row) + "\"]";
    }
  }
  for (const char* player : {"B", "W"}) {
    engine.WriteLine(std::string(R"({"id":")") + player +
                     R"(","rules":"tromp-taylor","komi":7.5,"boardXSize":9,"boardYSize":9,)"
                     R"("moves":[],"initialPlayer":")" +
                     player + R"(","initialStones":[)" + stones +
                     R"(],"maxVisits":60,"includeOwnership":true})");
  }
  for (int i = 0; i < 2; ++i) {
    const Json response = ReadResponse(engine);
    CAPTURE(response.dump());
    const Json& ownership = response.at("ownership");
    REQUIRE(ownership.size() == 81);
    // A1 (bottom-left, index 72) is black's, J9 (top-right, index 8) white's.
    CHECK(ownership[72].get<double>() > 0.5);
    CHECK(ownership[8].get<double>() < -0.5);
    CHECK(response.at("rootInfo").at("scoreLead").get<double>() < 0);
    CHECK(response.at("rootInfo").at("winrate").get<double>() < 0.5);
  }
  engine.CloseStdin();
  CHECK(engine.Wait() == 0);
}

// Black's lead on the empty 9x9 board at komi 7 by the shipped net's raw evaluation (one visit,
// all 8 orientations averaged) under `rules` (a name or a JSON dictionary), with `options`.
double EmptyBoardLead(const std::string& rules, const std::vector<std::string>& options) {
  std::vector<std::string> command = {kBinary, "--model", kNet, "--root_symmetries", "8"};
  command.insert(command.end(), options.begin(), options.end());
  Subprocess engine(command);
  engine.WriteLine(R"({"id":"e","rules":)" + rules +
                   R"(,"komi":7,"boardXSize":9,"boardYSize":9,"moves":[],"maxVisits":1})");
  const Json response = ReadResponse(engine);
  CAPTURE(response.dump());
  engine.CloseStdin();
  CHECK(engine.Wait() == 0);
  return response.at("rootInfo").at("scoreLead").get<double>();
}

TEST_CASE(
    "tengen-analysis: the net is told the rules its selfplay played, unless asked otherwise") {
  // Tromp-Taylor allows multi-stone suicide, which the shipped net's selfplay never did: by
  // default the net is told it is not allowed, as in the same game without it.
  const std::string tromp_taylor = R"("tromp-taylor")";
  const std::string no_suicide = R"({"suicide":false})";
  const double told = EmptyBoardLead(tromp_taylor, {});
  CHECK(told == doctest::Approx(EmptyBoardLead(no_suicide, {})).epsilon(1e-3));
  // Told the game's rule, the net reads an input it never saw, and its lead moves by points.
  const double game = EmptyBoardLead(tromp_taylor, {"--net_suicide_input", "game"});
  CHECK(std::abs(game - told) > 1.0);
  // Told the ko rule the game does not have (simple ko, never seen either), it moves too.
  CHECK(std::abs(EmptyBoardLead(no_suicide, {"--net_ko_input", "simple"}) - told) > 1.0);
}

TEST_CASE("tengen-analysis: started with KataGo's command line, as KaTrain starts KataGo") {
  const std::string config = TENGEN_SOURCE_DIR "/tests/data/katago_analysis.cfg";
  Subprocess engine({kBinary, "analysis", "-model", kNet, "-config", config, "-override-config",
                     "homeDataDir=/tmp/nowhere,maxVisits=25"});
  engine.WriteLine(R"({"id":"k","rules":"tromp-taylor","komi":7.5,"boardXSize":9,)"
                   R"("boardYSize":9,"moves":[["B","E5"]]})");
  const Json response = ReadResponse(engine);
  CHECK(response.at("rootInfo").at("visits") == 25);  // the override over the file's 500
  CHECK(response.at("rootInfo").at("currentPlayer") == "W");
  engine.CloseStdin();
  CHECK(engine.Wait() == 0);
  const ProcessResult bad = RunProcess({kBinary, "analysis", "-model", kNet, "-gtp-mode", "1"});
  CHECK(bad.exit_code == 2);
  CHECK(Contains(bad.output, "-gtp-mode"));
  // A bad value is named as written, with where it was written.
  const ProcessResult visits =
      RunProcess({kBinary, "analysis", "-model", kNet, "-override-config", "maxVisits=1e9"});
  CHECK(visits.exit_code == 2);
  CHECK(Contains(visits.output, "maxVisits = 1e9 (in -override-config): "));
}

TEST_CASE("tengen-analysis: usage errors exit 2 and name the key") {
  const ProcessResult missing = RunProcess({kBinary, "--model", "/no/such/net"});
  CHECK(missing.exit_code == 2);
  CHECK(Contains(missing.output, "model: '/no/such/net' is not a directory"));
  const ProcessResult view = RunProcess({kBinary, "--report_analysis_winrates_as", "ME"});
  CHECK(view.exit_code == 2);
  CHECK(Contains(view.output, "report_analysis_winrates_as"));
  const ProcessResult told = RunProcess({kBinary, "--net_suicide_input", "maybe"});
  CHECK(told.exit_code == 2);
  CHECK(Contains(told.output, "net_suicide_input"));
}

}  // namespace
}  // namespace tengen::analysis
