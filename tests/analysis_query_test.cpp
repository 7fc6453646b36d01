// The analysis engine's query parser (lib/analysis/analysis_query.h): KataGo's fields read
// into positions and settings; every refused field named in its error.

#include <doctest/doctest.h>

#include <string>

#include "analysis/analysis_query.h"
#include "util/text.h"

namespace tengen::analysis {
namespace {

const char* const kBase = R"("rules":"tromp-taylor","komi":6.5,"boardXSize":9,"boardYSize":9)";

std::string Query(const std::string& fields) {
  return std::string(R"({"id":"q",)") + kBase + (fields.empty() ? "" : "," + fields) + "}";
}

// The error a line gets: its field and message.
QueryError ErrorOf(const std::string& line, const QueryDefaults& defaults = {}) {
  try {
    ParseQuery(line, defaults);
  } catch (const QueryError& error) {
    return error;
  }
  FAIL("no error for " << line);
  return QueryError("", "", "");
}

TEST_CASE("analysis query: moves, setup stones and the turns to analyse") {
  const ParsedQuery parsed = ParseQuery(
      Query(
          R"("initialStones":[["B","C3"],["B","G7"]],"moves":[["W","E5"],["B","E4"],["W","pass"]],)"
          R"("analyzeTurns":[0,3,1],"maxVisits":77,"priority":4,"includeOwnership":true)"),
      {});
  REQUIRE(parsed.analysis);
  CHECK(parsed.warnings.empty());
  const AnalysisQuery& q = *parsed.analysis;
  CHECK(q.id == "q");
  CHECK(q.max_visits == 77);
  CHECK(q.include_ownership);
  CHECK_FALSE(q.include_policy);
  REQUIRE(q.turns.size() == 3);
  CHECK(q.turns[0].turn == 0);
  CHECK(q.turns[1].turn == 3);
  CHECK(q.turns[2].turn == 1);
  for (const Turn& turn : q.turns) CHECK(turn.priority == 4);
  // Turn 0: the two setup stones, white to move (the first move's colour), komi 6.5.
  const go::GameState start = PositionAt(q, q.turns[0].turn);
  CHECK(start.size() == 9);
  CHECK(start.rules().komi == 6.5);
  CHECK(start.to_move() == go::Color::kWhite);
  CHECK(start.moves().empty());
  go::Loc c3 = go::kNullLoc;
  REQUIRE(go::ParseGtpVertex("C3", 9, &c3));
  CHECK(start.board().At(c3) == go::Color::kBlack);
  // Turn 3: after the pass, black to move, the moves replayed.
  const go::GameState end = PositionAt(q, q.turns[1].turn);
  CHECK(end.moves().size() == 3);
  CHECK(end.to_move() == go::Color::kBlack);
  CHECK(end.consecutive_passes() == 1);
  CHECK(PositionAt(q, q.turns[2].turn).moves().size() == 1);
}

TEST_CASE("analysis query: defaults, initialPlayer, priorities and overrideSettings") {
  QueryDefaults defaults;
  defaults.max_visits = 12;
  defaults.perspective = Perspective::kBlack;
  ParsedQuery parsed = ParseQuery(Query(R"("moves":[],"initialPlayer":"W")"), defaults);
  REQUIRE(parsed.analysis);
  CHECK(parsed.analysis->max_visits == 12);
  REQUIRE(parsed.analysis->turns.size() == 1);  // the last turn by default
  CHECK(PositionAt(*parsed.analysis, parsed.analysis->turns[0].turn).to_move() ==
        go::Color::kWhite);

  parsed = ParseQuery(
      Query(
          R"("moves":[["B","A1"]],"analyzeTurns":[0,1],"priorities":[3,-2],)"
          R"("overrideSettings":{"maxVisits":5,"maxTime":1.5,"reportAnalysisWinratesAs":"SIDETOMOVE",)"
          R"("cpuctExploration":2.5,"wideRootNoise":0.04})"),
      defaults);
  REQUIRE(parsed.analysis);
  const AnalysisQuery& q = *parsed.analysis;
  CHECK(q.turns[0].priority == 3);
  CHECK(q.turns[1].priority == -2);
  CHECK(q.max_visits == 5);
  CHECK(q.max_time == 1.5);
  CHECK(q.perspective == Perspective::kSideToMove);
  CHECK(q.search.cpuct == 2.5);
  // A setting tengen's search has no counterpart for is a warning naming it; the query runs.
  REQUIRE(parsed.warnings.size() == 1);
  CHECK(parsed.warnings[0].field == "overrideSettings.wideRootNoise");
}

TEST_CASE("analysis query: unknown fields and unsupported requests are warnings") {
  const ParsedQuery parsed = ParseQuery(
      Query(R"("moves":[],"includeMovesOwnership":true,"avoidMoves":[{"player":"B","moves":["A1"],)"
            R"("untilDepth":1}],"flavour":"mint")"),
      {});
  REQUIRE(parsed.analysis);
  std::string fields;
  for (const QueryWarning& warning : parsed.warnings) fields += warning.field + " ";
  CHECK(fields == "includeMovesOwnership avoidMoves flavour ");
}

TEST_CASE("analysis query: actions") {
  ParsedQuery parsed = ParseQuery(R"({"id":"t","action":"terminate","terminateId":"q"})", {});
  REQUIRE(parsed.action);
  CHECK(parsed.action->action == "terminate");
  CHECK(parsed.action->terminate_id == "q");
  CHECK_FALSE(parsed.action->turn_numbers);
  CHECK(parsed.action->echo["terminateId"] == "q");
  parsed = ParseQuery(R"({"id":"t","action":"terminate_all","turnNumbers":[2,4]})", {});
  REQUIRE(parsed.action);
  REQUIRE(parsed.action->turn_numbers);
  CHECK(*parsed.action->turn_numbers == std::vector<int>{2, 4});
  CHECK(ErrorOf(R"({"id":"t","action":"terminate"})").field == "terminateId");
  CHECK(ErrorOf(R"({"id":"t","action":"dance"})").field == "action");
}

TEST_CASE("analysis query: each bad field is an error that names it") {
  QueryDefaults small;
  small.max_board_size = 9;
  struct Case {
    std::string line;
    std::string field;
    std::string says;
  };
  const Case cases[] = {
      {"not json", "", "could not parse"},
      {"[1,2]", "", "dictionary"},
      {R"({"moves":[]})", "id", "missing"},
      {R"({"id":7})", "id", "string"},
      {R"({"id":"q","moves":[],"boardXSize":9,"boardYSize":9})", "rules", "missing"},
      {Query(R"("moves":[["B","E5"],["W","E5"]])"), "moves", "Illegal move 1: W E5"},
      {Query(R"("moves":[["B","Z9"]])"), "moves", "not a point"},
      {Query(R"("moves":[["X","E5"]])"), "moves", "not B or W"},
      {Query(R"("moves":[["B"]])"), "moves", "pair"},
      {Query(R"("moves":"E5")"), "moves", "list"},
      {Query(R"("moves":[],"initialStones":[["B","pass"]])"), "initialStones", "not a point"},
      {Query(R"("moves":[],"analyzeTurns":[1])"), "analyzeTurns", "not in [0, 0]"},
      {Query(R"("moves":[],"analyzeTurns":[])"), "analyzeTurns", "no turn"},
      {Query(R"("moves":[],"maxVisits":0)"), "maxVisits", "not in"},
      {Query(R"("moves":[],"maxVisits":"many")"), "maxVisits", "integer"},
      {Query(R"("moves":[],"includePolicy":1)"), "includePolicy", "true or false"},
      {Query(R"("moves":[],"priorities":[1,2])"), "priorities", "2 entries for 1 turns"},
      {Query(R"("moves":[],"overrideSettings":{"reportAnalysisWinratesAs":"ME"})"),
       "overrideSettings.reportAnalysisWinratesAs", "BLACK, WHITE or SIDETOMOVE"},
      {Query(R"("moves":[],"whiteHandicapBonus":"N")"), "whiteHandicapBonus", "add it to komi"},
      {R"({"id":"q","rules":"japanese","boardXSize":9,"boardYSize":9,"moves":[]})", "rules",
       "TERRITORY"},
      {R"({"id":"q","rules":"tromp-taylor","komi":7.3,"boardXSize":9,"boardYSize":9})", "komi",
       "half-integer"},
      {R"({"id":"q","rules":"tromp-taylor","boardXSize":9,"boardYSize":7})", "boardYSize",
       "square"},
      {R"({"id":"q","rules":"tromp-taylor","boardXSize":13,"boardYSize":13})", "boardXSize",
       "pos_len 9"},
      {R"({"id":"q","rules":"tromp-taylor","boardXSize":9})", "boardYSize", "missing"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    const QueryError error = ErrorOf(c.line, small);
    CHECK(error.field == c.field);
    CHECK(Contains(error.what(), c.says));
    if (c.line.find(R"("id":"q")") != std::string::npos) CHECK(error.id == "q");
  }
}

}  // namespace
}  // namespace tengen::analysis
