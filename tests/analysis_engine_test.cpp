// The analysis engine (lib/analysis/analysis_engine.h) over fake evaluators: responses and
// their views, priorities, terminate, reports during the search, and positions searched side
// by side.

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analysis_engine.h"
#include "analysis/analysis_response.h"
#include "util/text.h"

namespace tengen::analysis {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;

// A uniform policy over the points (none on the pass, so that no playout ends the game), and a
// fixed value and score for black in every position; with `delay`, each evaluation takes that
// long; with a closed gate, evaluations wait until it opens.
class FakeEvaluator : public search::LeafEvaluator {
 public:
  FakeEvaluator(float black_value, float black_score, milliseconds delay = milliseconds(0))
      : black_value_(black_value), black_score_(black_score), delay_(delay) {}
  search::LeafEvaluation Evaluate(const go::GameState& state) override {
    WaitForGate();
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    const int area = state.size() * state.size();
    const float sign = state.to_move() == go::Color::kBlack ? 1.0f : -1.0f;
    search::LeafEvaluation out;
    out.policy.assign(area + 1, 1.0f / area);
    out.policy[area] = 0;
    out.value = sign * black_value_;
    out.score = sign * black_score_;
    out.ownership.assign(area, 0.0f);
    out.ownership[0] = sign * 0.5f;  // the top-left point leans to black
    return out;
  }
  void CloseGate() {
    std::lock_guard<std::mutex> lock(mutex_);
    gate_closed_ = true;
  }
  void OpenGate() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      gate_closed_ = false;
    }
    opened_.notify_all();
  }
  // Waits until an evaluation is held at the closed gate.
  void WaitUntilHeld() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [&] { return held_ > 0; });
  }

 private:
  void WaitForGate() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!gate_closed_) return;
    ++held_;
    opened_.notify_all();
    opened_.wait(lock, [&] { return !gate_closed_; });
    --held_;
  }
  float black_value_, black_score_;
  milliseconds delay_;
  std::mutex mutex_;
  std::condition_variable opened_;
  bool gate_closed_ = false;
  int held_ = 0;
};

// The engine's response lines, parsed, as they come.
class Responses {
 public:
  AnalysisEngine::Writer Writer() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(Json::parse(line));
    };
  }
  std::vector<Json> All() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }
  // The final responses (isDuringSearch false) of query `id`, in the order they came.
  std::vector<Json> Finals(const std::string& id) {
    std::vector<Json> out;
    for (const Json& j : All()) {
      if (j.value("id", "") == id && j.contains("turnNumber") && !j.value("isDuringSearch", true))
        out.push_back(j);
    }
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<Json> lines_;
};

std::string Query(const std::string& id, const std::string& fields) {
  return R"({"id":")" + id +
         R"(","rules":"tromp-taylor","komi":7.5,"boardXSize":5,"boardYSize":5,)" + fields + "}";
}

AnalysisEngineOptions Options() {
  AnalysisEngineOptions options;
  options.defaults.max_visits = 20;
  options.defaults.max_board_size = 9;
  options.version = "test-version";
  return options;
}

TEST_CASE("analysis engine: a searched position's response, from black's view by default") {
  FakeEvaluator evaluator(0.5f, 3.0f);  // black leads: 75%, 3 points
  Responses out;
  {
    AnalysisEngine engine(Options(), {&evaluator}, out.Writer());
    engine.Submit(Query("a",
                        R"("moves":[["B","C3"]],"analyzeTurns":[0,1],"maxVisits":30,)"
                        R"("includeOwnership":true,"includePolicy":true,"includePVVisits":true)"));
    engine.Finish();
  }
  const std::vector<Json> finals = out.Finals("a");
  REQUIRE(finals.size() == 2);
  for (const Json& r : finals) {
    CAPTURE(r.dump());
    const int turn = r.at("turnNumber");
    const bool black_to_move = turn == 0;
    const Json& root = r.at("rootInfo");
    CHECK(root.at("visits").get<int>() >= 30);
    CHECK(root.at("currentPlayer") == (black_to_move ? "B" : "W"));
    // Black's 75% and +3 points, whoever is to move.
    CHECK(root.at("winrate").get<double>() == doctest::Approx(0.75));
    CHECK(root.at("scoreLead").get<double>() == doctest::Approx(3.0));
    CHECK(root.at("thisHash").get<std::string>().size() == 16);
    const Json& moves = r.at("moveInfos");
    REQUIRE(!moves.empty());
    int visits = 0;
    for (size_t i = 0; i < moves.size(); ++i) {
      const Json& m = moves[i];
      CHECK(m.at("order") == static_cast<int>(i));
      if (i > 0) CHECK(m.at("visits").get<int>() <= moves[i - 1].at("visits").get<int>());
      CHECK(m.at("pv").at(0) == m.at("move"));
      CHECK(m.at("pvVisits").size() == m.at("pv").size());
      CHECK(m.at("pvVisits").at(0) == m.at("visits"));
      for (const char* key : {"winrate", "scoreLead", "scoreMean", "prior", "utility", "lcb"}) {
        CHECK(m.contains(key));
      }
      visits += m.at("visits").get<int>();
    }
    CHECK(visits == root.at("visits").get<int>() - 1);  // the root's own first visit
    for (const Json& m : moves) CHECK(m.at("winrate").get<double>() == doctest::Approx(0.75));
    // Ownership: 25 points, the top-left one leaning to black.
    const Json& ownership = r.at("ownership");
    REQUIRE(ownership.size() == 25);
    CHECK(ownership[0].get<double>() == doctest::Approx(0.5));
    CHECK(ownership[1].get<double>() == doctest::Approx(0.0));
    // Policy: 26 entries, row-major from the top-left, pass last: -1 on the occupied C3 at
    // turn 1, the rest spread over the empty points.
    const Json& policy = r.at("policy");
    REQUIRE(policy.size() == 26);
    const int c3 = 2 * 5 + 2;  // row 3 from the bottom of 5 is row 2 from the top
    const double each = black_to_move ? 1.0 / 25 : 1.0 / 24;
    CHECK(policy[c3].get<double>() == doctest::Approx(black_to_move ? each : -1.0));
    CHECK(policy[0].get<double>() == doctest::Approx(each));
    CHECK(policy[25].get<double>() == doctest::Approx(0.0));
  }
}

TEST_CASE("analysis engine: reportAnalysisWinratesAs in overrideSettings changes the view") {
  FakeEvaluator evaluator(0.5f, 3.0f);
  Responses out;
  AnalysisEngine engine(Options(), {&evaluator}, out.Writer());
  for (const char* view : {"WHITE", "SIDETOMOVE"}) {
    engine.Submit(Query(view, R"("moves":[["B","C3"]],"overrideSettings":)"
                              R"({"reportAnalysisWinratesAs":")" +
                                  std::string(view) + "\"}"));
  }
  engine.Finish();
  const Json white = out.Finals("WHITE").at(0);
  CHECK(white.at("rootInfo").at("winrate").get<double>() == doctest::Approx(0.25));
  CHECK(white.at("rootInfo").at("scoreLead").get<double>() == doctest::Approx(-3.0));
  CHECK(white.at("moveInfos").at(0).at("scoreLead").get<double>() == doctest::Approx(-3.0));
  // White to move, seen by the side to move: white's 25%.
  const Json mover = out.Finals("SIDETOMOVE").at(0).at("rootInfo");
  CHECK(mover.at("currentPlayer") == "W");
  CHECK(mover.at("winrate").get<double>() == doctest::Approx(0.25));
}

TEST_CASE("analysis engine: errors, warnings and actions answer at once and the engine goes on") {
  FakeEvaluator evaluator(0.0f, 0.0f);
  Responses out;
  int clears = 0;
  AnalysisEngineOptions options = Options();
  options.clear_cache = [&clears] { ++clears; };
  AnalysisEngine engine(options, {&evaluator}, out.Writer());
  engine.Submit("{oops");
  engine.Submit(Query("bad", R"("moves":[["B","C3"],["W","C3"]])"));
  engine.Submit(R"({"id":"v","action":"query_version"})");
  engine.Submit(R"({"id":"c","action":"clear_cache"})");
  engine.Submit(Query("ok", R"("moves":[],"flavour":1)"));
  engine.Finish();
  const std::vector<Json> all = out.All();
  REQUIRE(all.size() == 6);
  CHECK(Contains(all[0].at("error").get<std::string>(), "could not parse"));
  CHECK_FALSE(all[0].contains("id"));
  CHECK(all[1].at("id") == "bad");
  CHECK(all[1].at("field") == "moves");
  CHECK(Contains(all[1].at("error").get<std::string>(), "Illegal move 1"));
  CHECK(all[2] == Json::parse(R"({"id":"v","action":"query_version","version":"test-version",)"
                              R"("git_hash":"test-version"})"));
  CHECK(all[3] == Json::parse(R"({"id":"c","action":"clear_cache"})"));
  CHECK(clears == 1);
  CHECK(all[4] == Json::parse(R"({"id":"ok","field":"flavour","warning":)"
                              R"("unexpected or unused field"})"));
  CHECK(all[5].at("id") == "ok");
  CHECK(all[5].at("isDuringSearch") == false);
}

TEST_CASE("analysis engine: a line that is not UTF-8 gets an error and the engine goes on") {
  FakeEvaluator evaluator(0.0f, 0.0f);
  Responses out;
  AnalysisEngine engine(Options(), {&evaluator}, out.Writer());
  engine.Submit("{\"id\":\"u\",\"x\":\"\xff\"}");
  engine.Submit(Query("ok", R"("moves":[])"));
  engine.Finish();
  const std::vector<Json> all = out.All();
  REQUIRE(all.size() == 2);
  CHECK(Contains(all[0].at("error").get<std::string>(), "could not parse"));
  CHECK(all[1].at("id") == "ok");
  CHECK(all[1].at("isDuringSearch") == false);
}

TEST_CASE("analysis engine: the higher priority first, then the order of arrival") {
  FakeEvaluator evaluator(0.0f, 0.0f);
  Responses out;
  AnalysisEngine engine(Options(), {&evaluator}, out.Writer());
  evaluator.CloseGate();
  engine.Submit(Query("first", R"("moves":[])"));  // taken by the one worker at once
  evaluator.WaitUntilHeld();
  engine.Submit(Query("low", R"("moves":[],"priority":-1)"));
  engine.Submit(Query("early", R"("moves":[])"));
  engine.Submit(Query("high", R"("moves":[],"priority":5)"));
  engine.Submit(Query("late", R"("moves":[])"));
  evaluator.OpenGate();
  engine.Finish();
  std::vector<std::string> order;
  for (const Json& j : out.All()) order.push_back(j.at("id"));
  CHECK(order == std::vector<std::string>{"first", "high", "early", "late", "low"});
}

TEST_CASE("analysis engine: terminate ends queued positions with noResults, running ones early") {
  FakeEvaluator evaluator(0.0f, 0.0f);
  Responses out;
  AnalysisEngine engine(Options(), {&evaluator}, out.Writer());
  evaluator.CloseGate();
  // A long search of turn 0 holds the one worker; turns 1 and 2 wait in the queue.
  engine.Submit(Query("long", R"("moves":[["B","C3"],["W","D4"]],"analyzeTurns":[0,1,2],)"
                              R"("maxVisits":100000)"));
  evaluator.WaitUntilHeld();
  engine.Submit(R"({"id":"t1","action":"terminate","terminateId":"long","turnNumbers":[1]})");
  engine.Submit(R"({"id":"t2","action":"terminate","terminateId":"long"})");
  evaluator.OpenGate();
  engine.Finish();
  const std::vector<Json> all = out.All();
  // t1 drops turn 1 (noResults); t2 stops turn 0's search and drops turn 2.
  std::vector<std::string> lines;
  for (const Json& j : all) {
    lines.push_back(
        j.value("action", "") + j.value("id", "") +
        (j.contains("turnNumber") ? std::to_string(j.at("turnNumber").get<int>()) : "") +
        (j.value("noResults", false) ? " none" : ""));
  }
  CHECK(lines == std::vector<std::string>{"long1 none", "terminatet1", "long2 none", "terminatet2",
                                          "long0"});
  const Json& stopped = all.back();
  CHECK(stopped.at("isDuringSearch") == false);
  CHECK(stopped.at("rootInfo").at("visits").get<int>() < 100000);
  CHECK(all[1].at("terminateId") == "long");
}

TEST_CASE("analysis engine: terminate_all, and reports during the search") {
  FakeEvaluator evaluator(0.0f, 0.0f, milliseconds(1));
  Responses out;
  AnalysisEngine engine(Options(), {&evaluator}, out.Writer());
  engine.Submit(Query("r", R"("moves":[],"maxVisits":1000000,"reportDuringSearchEvery":0.02)"));
  // Wait for two reports during the search, then end everything.
  for (int i = 0; i < 2000; ++i) {
    int reports = 0;
    for (const Json& j : out.All()) reports += j.value("isDuringSearch", false) ? 1 : 0;
    if (reports >= 2) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
  engine.Submit(R"({"id":"all","action":"terminate_all"})");
  engine.Finish();
  const std::vector<Json> all = out.All();
  int reports = 0;
  int last_visits = 0;
  for (const Json& j : all) {
    if (!j.value("isDuringSearch", false)) continue;
    ++reports;
    const int visits = j.at("rootInfo").at("visits");
    CHECK(visits >= last_visits);
    last_visits = visits;
  }
  CHECK(reports >= 2);
  const std::vector<Json> finals = out.Finals("r");
  REQUIRE(finals.size() == 1);  // exactly one final response
  CHECK(finals[0].at("rootInfo").at("visits").get<int>() >= last_visits);
}

TEST_CASE("analysis engine: the workers search their positions at the same time") {
  // Each evaluator holds its first evaluation until all four are held at once: the test ends
  // only if four positions are searched side by side.
  constexpr int kWorkers = 4;
  std::vector<std::unique_ptr<FakeEvaluator>> fakes;
  std::vector<search::LeafEvaluator*> evaluators;
  for (int i = 0; i < kWorkers; ++i) {
    fakes.push_back(std::make_unique<FakeEvaluator>(0.0f, 0.0f));
    fakes.back()->CloseGate();
    evaluators.push_back(fakes.back().get());
  }
  Responses out;
  std::atomic<int> searching{0};
  int most = 0;
  WorkerHooks hooks;
  hooks.begin = [&] { ++searching; };
  hooks.end = [&] { --searching; };
  AnalysisEngine engine(Options(), evaluators, out.Writer(), hooks);
  engine.Submit(Query("game", R"("moves":[["B","C3"],["W","D4"],["B","B2"],["W","D2"]],)"
                              R"("analyzeTurns":[0,1,2,3,4])"));
  for (auto& fake : fakes) fake->WaitUntilHeld();
  most = searching.load();
  for (auto& fake : fakes) fake->OpenGate();
  engine.Finish();
  CHECK(most == kWorkers);
  CHECK(searching.load() == 0);
  CHECK(out.Finals("game").size() == 5);
}

TEST_CASE("analysis engine: position hashes tell positions apart and agree under symmetry") {
  go::GameState a(5), b(5);
  go::Loc c2 = go::kNullLoc, b3 = go::kNullLoc, d3 = go::kNullLoc;
  REQUIRE(go::ParseGtpVertex("C2", 5, &c2));
  REQUIRE(go::ParseGtpVertex("B3", 5, &b3));
  REQUIRE(go::ParseGtpVertex("D3", 5, &d3));
  a.Play({c2, go::Color::kBlack});
  b.Play({b3, go::Color::kBlack});
  CHECK(PositionHash(a, false) != PositionHash(b, false));
  CHECK(PositionHash(a, true) == PositionHash(b, true));  // a quarter turn apart
  go::GameState c(5);
  c.Play({d3, go::Color::kBlack});
  CHECK(PositionHash(c, true) == PositionHash(b, true));
  go::GameState white_to_move = a;
  white_to_move.set_to_move(go::Color::kBlack);
  CHECK(PositionHash(white_to_move, false) != PositionHash(a, false));
}

}  // namespace
}  // namespace tengen::analysis
