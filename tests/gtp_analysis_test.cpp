// Live analysis over GTP (gtp/analysis.h): lz-analyze, kata-analyze and their genmove_analyze
// forms, in process with the MCTS player and small fake evaluators. The streamed output is
// read by a parser written here from the public descriptions of the formats (KataGo's
// docs/GTP_Extensions.md, which also describes Leela Zero's lz-analyze), not by the engine's
// formatting code: "info" starts a move, then key-value pairs, then "pv" and the moves of the
// variation up to the next "info" (or "ownership" and size * size numbers).

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "go/game.h"
#include "gtp/gtp_engine.h"
#include "gtp/search_player.h"
#include "search/leaf_evaluator.h"
#include "util/subprocess.h"

namespace tengen::gtp {
namespace {

using Clock = std::chrono::steady_clock;

// Uniform priors but for a strong liking for the centre, black's value 0.2 (so black's winrate
// is 60% everywhere), and ownership +0.5 (side to move) everywhere.
class CentreEvaluator : public search::LeafEvaluator {
 public:
  search::LeafEvaluation Evaluate(const go::GameState& state) override {
    search::LeafEvaluation eval = uniform_.Evaluate(state);
    const int size = state.size();
    eval.policy[(size / 2) * size + size / 2] += 1.0f;
    const float sign = state.to_move() == go::Color::kBlack ? 1.0f : -1.0f;
    eval.value = 0.2f * sign;
    eval.score = 1.5f * sign;
    eval.ownership.assign(static_cast<size_t>(size) * size, 0.5f);
    return eval;
  }

 private:
  search::UniformEvaluator uniform_;
};

// What the engine writes, with the time of each write; read from the test thread while the
// analysis thread writes.
class Sink {
 public:
  void Write(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    writes_.push_back({Clock::now(), text});
  }
  std::vector<std::pair<Clock::time_point, std::string>> Writes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return writes_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<Clock::time_point, std::string>> writes_;
};

struct Rig {
  explicit Rig(int size = 7, int analysis_visits = 3000, int visits = 200,
               double seconds_per_move = 0) {
    SearchPlayerParams params;
    params.visits = visits;
    params.seconds_per_move = seconds_per_move;
    params.analysis_visits = analysis_visits;
    auto generator =
        std::make_unique<SearchPlayer>(params, std::vector<search::LeafEvaluator*>{&evaluator}, 7);
    player = generator.get();
    GtpOptions options;
    options.board_size = size;
    engine = std::make_unique<GtpEngine>(options, std::move(generator));
    engine->set_output([this](const std::string& text) { sink.Write(text); });
  }
  std::string Ask(const std::string& line) {
    bool quit = false;
    return engine->HandleLine(line, &quit);
  }
  CentreEvaluator evaluator;
  Sink sink;
  SearchPlayer* player = nullptr;
  std::unique_ptr<GtpEngine> engine;  // last: stopped before the sink and evaluator go
};

// ---- the parser, from the format descriptions ----

struct InfoMove {
  std::string move;
  std::map<std::string, std::string> fields;  // visits, winrate, prior, lcb, order, ...
  std::vector<std::string> pv;
};

struct InfoLine {
  std::vector<InfoMove> moves;
  bool has_ownership = false;
  std::vector<double> ownership;
};

InfoLine ParseInfoLine(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> tokens;
  std::string token;
  while (in >> token) tokens.push_back(token);
  InfoLine parsed;
  size_t i = 0;
  while (i < tokens.size()) {
    if (tokens[i] == "ownership") {
      parsed.has_ownership = true;
      for (++i; i < tokens.size(); ++i) parsed.ownership.push_back(std::stod(tokens[i]));
      break;
    }
    REQUIRE_MESSAGE(tokens[i] == "info", "expected 'info' at token " << i << " of: " << line);
    InfoMove move;
    ++i;
    while (i < tokens.size() && tokens[i] != "pv") {
      REQUIRE_MESSAGE(i + 1 < tokens.size(), "key without value in: " << line);
      move.fields[tokens[i]] = tokens[i + 1];
      i += 2;
    }
    REQUIRE_MESSAGE(i < tokens.size(), "no pv in: " << line);
    for (++i; i < tokens.size() && tokens[i] != "info" && tokens[i] != "ownership"; ++i) {
      move.pv.push_back(tokens[i]);
    }
    REQUIRE(move.fields.count("move") == 1);
    move.move = move.fields["move"];
    parsed.moves.push_back(move);
  }
  return parsed;
}

bool IsInteger(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool IsVertex(const std::string& text, int size) {
  go::Loc loc;
  return go::ParseGtpVertex(text, size, &loc);
}

// Leela Zero: winrate, prior and lcb integers in 0..10000; order 0, 1, ...; visits positive
// and, as order is the engine's ranking by visits, not increasing.
void CheckLeelaZeroLine(const InfoLine& line, int size) {
  REQUIRE(!line.moves.empty());
  CHECK(!line.has_ownership);
  int previous_visits = 1 << 30;
  for (size_t k = 0; k < line.moves.size(); ++k) {
    const InfoMove& move = line.moves[k];
    INFO("move " << move.move);
    CHECK(IsVertex(move.move, size));
    for (const char* key : {"visits", "winrate", "prior", "lcb", "order"}) {
      REQUIRE_MESSAGE(move.fields.count(key) == 1, key);
      CHECK_MESSAGE(IsInteger(move.fields.at(key)), key << " " << move.fields.at(key));
    }
    for (const char* key : {"winrate", "prior", "lcb"}) {
      const int value = std::stoi(move.fields.at(key));
      CHECK((value >= 0 && value <= 10000));
    }
    CHECK(std::stoi(move.fields.at("lcb")) <= std::stoi(move.fields.at("winrate")));
    CHECK(std::stoi(move.fields.at("order")) == static_cast<int>(k));
    const int visits = std::stoi(move.fields.at("visits"));
    CHECK(visits >= 1);
    CHECK(visits <= previous_visits);
    previous_visits = visits;
    REQUIRE(!move.pv.empty());
    CHECK(move.pv[0] == move.move);
    for (const std::string& vertex : move.pv) CHECK(IsVertex(vertex, size));
  }
}

// KataGo: winrate, prior and lcb floats in [0, 1], scoreLead and scoreMean present; with
// ownership asked, size * size values in [-1, 1].
void CheckKataGoLine(const InfoLine& line, int size, bool ownership) {
  REQUIRE(!line.moves.empty());
  for (size_t k = 0; k < line.moves.size(); ++k) {
    const InfoMove& move = line.moves[k];
    INFO("move " << move.move);
    CHECK(IsVertex(move.move, size));
    for (const char* key :
         {"visits", "winrate", "prior", "lcb", "order", "scoreLead", "scoreMean"}) {
      REQUIRE_MESSAGE(move.fields.count(key) == 1, key);
    }
    for (const char* key : {"winrate", "prior", "lcb"}) {
      const double value = std::stod(move.fields.at(key));
      CHECK((value >= 0 && value <= 1));
    }
    CHECK(std::stod(move.fields.at("lcb")) <= std::stod(move.fields.at("winrate")));
    CHECK(std::stoi(move.fields.at("order")) == static_cast<int>(k));
    REQUIRE(!move.pv.empty());
    CHECK(move.pv[0] == move.move);
  }
  CHECK(line.has_ownership == ownership);
  if (ownership) {
    REQUIRE(line.ownership.size() == static_cast<size_t>(size) * size);
    for (const double v : line.ownership) CHECK((v >= -1 && v <= 1));
  }
}

// The info lines among the writes (each report is one write of one line).
std::vector<std::pair<Clock::time_point, std::string>> InfoWrites(
    const std::vector<std::pair<Clock::time_point, std::string>>& writes) {
  std::vector<std::pair<Clock::time_point, std::string>> lines;
  for (const auto& write : writes) {
    if (write.second.rfind("info ", 0) == 0) lines.push_back(write);
  }
  return lines;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

TEST_CASE("gtp analysis: lz-analyze streams Leela Zero lines at the interval and stops at once") {
  Rig rig;
  CHECK(rig.Ask("5 lz-analyze b 10") == "");
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  const Clock::time_point asked = Clock::now();
  const std::string answer = rig.Ask("6 name");
  const Clock::time_point answered = Clock::now();
  CHECK(answer == "=6 tengen\n\n");
  CHECK(Seconds(answered - asked) < 0.1);

  const auto writes = rig.sink.Writes();
  REQUIRE(writes.size() >= 3);
  CHECK(writes.front().second == "=5\n");
  CHECK(writes.back().second == "\n");  // the empty line that ends the answer
  CHECK(writes.back().first <= answered);
  const auto lines = InfoWrites(writes);
  CHECK(lines.size() == writes.size() - 2);
  // About one line per 100 ms in the 450 ms (the last one may be cut short by the stop).
  CHECK(lines.size() >= 3);
  CHECK(lines.size() <= 6);
  for (size_t i = 0; i < lines.size(); ++i) {
    INFO(lines[i].second);
    CHECK(lines[i].second.back() == '\n');
    CheckLeelaZeroLine(ParseInfoLine(lines[i].second), 7);
    // Never closer than the interval, also once the visit cap is reached and the report
    // repeats, and when a report was late (a loaded machine).
    if (i > 0 && i + 1 < lines.size()) {
      CHECK(Seconds(lines[i].first - lines[i - 1].first) >= 0.0999);
    }
  }
  // The centre is the evaluator's favourite, and black's winrate 60% (a few finished games in
  // the tree are scored exactly instead).
  const InfoLine last = ParseInfoLine(lines.back().second);
  CHECK(last.moves[0].move == "D4");
  CHECK(std::abs(std::stoi(last.moves[0].fields.at("winrate")) - 6000) <= 100);

  // Nothing more after the stop.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  CHECK(rig.sink.Writes().size() == writes.size());
}

TEST_CASE("gtp analysis: kata-analyze with ownership, for the colour asked") {
  Rig rig(5);
  CHECK(rig.Ask("play b C3") == "= \n\n");
  CHECK(rig.Ask("kata-analyze w interval 5 ownership true") == "");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(rig.Ask("") == "");  // an empty line ends the analysis too
  const auto writes = rig.sink.Writes();
  REQUIRE(writes.size() >= 3);
  CHECK(writes.front().second == "=\n");
  CHECK(writes.back().second == "\n");
  const auto lines = InfoWrites(writes);
  REQUIRE(lines.size() == writes.size() - 2);
  for (const auto& line : lines) {
    INFO(line.second);
    const InfoLine parsed = ParseInfoLine(line.second);
    CheckKataGoLine(parsed, 5, /*ownership=*/true);
    for (const InfoMove& move : parsed.moves) CHECK(move.move != "C3");  // occupied
    for (const double v : parsed.ownership) CHECK(v == doctest::Approx(0.5));
    CHECK(std::stod(parsed.moves[0].fields.at("scoreLead")) ==
          doctest::Approx(std::stod(parsed.moves[0].fields.at("scoreMean"))));
  }
  // From white's view: black's 60% and 1.5 points are white's 40% and -1.5.
  const InfoMove best = ParseInfoLine(lines.back().second).moves[0];
  CHECK(std::stod(best.fields.at("winrate")) == doctest::Approx(0.4).epsilon(0.03));
  CHECK(std::stod(best.fields.at("scoreLead")) == doctest::Approx(-1.5).epsilon(0.1));
  // The analysis left the game alone.
  CHECK(rig.engine->game().moves().size() == 1);
}

TEST_CASE("gtp analysis: maxmoves, no ownership unless asked, bad arguments") {
  Rig rig(5);
  CHECK(rig.Ask("kata-analyze 5 maxmoves 2") == "");
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  rig.Ask("name");
  for (const auto& line : InfoWrites(rig.sink.Writes())) {
    const InfoLine parsed = ParseInfoLine(line.second);
    CheckKataGoLine(parsed, 5, /*ownership=*/false);
    CHECK(parsed.moves.size() <= 2);
  }
  CHECK(rig.Ask("lz-analyze b 10 ownership true").rfind("? ", 0) == 0);  // kata-analyze only
  CHECK(rig.Ask("lz-analyze b 10 frobnicate 1").rfind("? ", 0) == 0);
  CHECK(rig.Ask("kata-analyze b interval").rfind("? ", 0) == 0);
  CHECK(rig.Ask("kata-analyze b -5").rfind("? ", 0) == 0);
}

TEST_CASE("gtp analysis: without a streamed output or an analysing generator, an error") {
  GtpOptions options;
  options.board_size = 5;
  GtpEngine engine(options, std::make_unique<RandomMoveGenerator>(1));
  bool quit = false;
  CHECK(engine.HandleLine("lz-analyze b 10", &quit).rfind("? ", 0) == 0);
  std::vector<std::string> writes;
  engine.set_output([&](const std::string& text) { writes.push_back(text); });
  CHECK(engine.HandleLine("lz-analyze b 10", &quit) ==
        "? this engine's move generator cannot "
        "analyse\n\n");
  CHECK(writes.empty());
  // genmove_analyze needs no analysis from the generator: a move and no info lines.
  CHECK(engine.HandleLine("lz-genmove_analyze b 10", &quit).rfind("play ", 0) == 0);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0] == "=\n");
}

TEST_CASE("gtp analysis: the analysed tree is reused by the next genmove (pondering)") {
  Rig rig(7, /*analysis_visits=*/1000, /*visits=*/200);
  CHECK(rig.Ask("play b D4") == "= \n\n");
  CHECK(rig.Ask("lz-analyze w 10") == "");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::string move = rig.Ask("genmove w");
  REQUIRE(move.rfind("= ", 0) == 0);
  // The tree reached the analysis cap; genmove's 200 visits were already there.
  CHECK(rig.player->last_summary().reused_visits >= 200);
  CHECK(rig.player->last_summary().visits == rig.player->last_summary().reused_visits);
}

TEST_CASE("gtp analysis: after the user's move, genmove starts from the analysed subtree") {
  Rig rig(7, /*analysis_visits=*/1000, /*visits=*/50);
  CHECK(rig.Ask("lz-analyze b 10") == "");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  rig.Ask("name");
  const auto lines = InfoWrites(rig.sink.Writes());
  REQUIRE(!lines.empty());
  const InfoMove best = ParseInfoLine(lines.back().second).moves[0];
  // The user plays the analysis's best move; the engine answers from the tree below it.
  CHECK(rig.Ask("play b " + best.move) == "= \n\n");
  REQUIRE(rig.Ask("genmove w").rfind("= ", 0) == 0);
  CHECK(rig.player->last_summary().reused_visits >= std::stoi(best.fields.at("visits")));
}

TEST_CASE("gtp analysis: kata-genmove_analyze streams while it searches, then plays") {
  Rig rig(7, 3000, /*visits=*/0, /*seconds_per_move=*/0.35);
  const std::string answer = rig.Ask("3 kata-genmove_analyze b 5 ownership true");
  const auto writes = rig.sink.Writes();
  REQUIRE(writes.size() >= 3);
  CHECK(writes.front().second == "=3\n");
  const auto lines = InfoWrites(writes);
  CHECK(lines.size() == writes.size() - 1);
  CHECK(lines.size() >= 3);
  for (const auto& line : lines) CheckKataGoLine(ParseInfoLine(line.second), 7, true);
  // "play MOVE" and the empty line, and the move is on the board.
  REQUIRE(answer.rfind("play ", 0) == 0);
  REQUIRE(answer.size() > 7);
  CHECK(answer.substr(answer.size() - 2) == "\n\n");
  const std::string vertex = answer.substr(5, answer.size() - 7);
  CHECK(IsVertex(vertex, 7));
  REQUIRE(rig.engine->game().moves().size() == 1);
  CHECK(go::LocToGtp(rig.engine->game().moves()[0].loc, 7) == vertex);
  // The final report's best move is the move played.
  CHECK(ParseInfoLine(lines.back().second).moves[0].move == vertex);
}

TEST_CASE("gtp analysis: lz-genmove_analyze for the side to move, Leela Zero lines") {
  // genmove_analyze and analyze (Sabaki's names) answer as the lz- commands.
  for (const std::string command : {"lz-genmove_analyze", "genmove_analyze"}) {
    INFO(command);
    Rig rig(5, 3000, 0, 0.2);
    CHECK(rig.Ask("play b C3") == "= \n\n");
    const std::string answer = rig.Ask(command + " 5");
    CHECK(answer.rfind("play ", 0) == 0);
    REQUIRE(rig.engine->game().moves().size() == 2);
    CHECK(rig.engine->game().moves()[1].color == go::Color::kWhite);
    const auto lines = InfoWrites(rig.sink.Writes());
    CHECK(!lines.empty());
    for (const auto& line : lines) CheckLeelaZeroLine(ParseInfoLine(line.second), 5);
  }
  Rig rig(5);
  CHECK(rig.Ask("analyze b 5") == "");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  rig.Ask("name");
  const auto lines = InfoWrites(rig.sink.Writes());
  CHECK(!lines.empty());
  for (const auto& line : lines) CheckLeelaZeroLine(ParseInfoLine(line.second), 5);
}

TEST_CASE("gtp analysis: Run streams to its output and stops on the next line") {
  Rig rig(5);
  std::istringstream in("1 lz-analyze b 1\n2 name\nquit\n");
  std::ostringstream out;
  rig.engine->Run(in, out);
  const std::string text = out.str();
  // "=1", maybe info lines, the empty line, then the next answers.
  REQUIRE(text.rfind("=1\n", 0) == 0);
  const size_t end = text.find("\n\n");
  REQUIRE(end != std::string::npos);
  CHECK(text.substr(end + 2) == "=2 tengen\n\n= \n\n");
  std::istringstream body(text.substr(3, end + 1 - 3));
  std::string line;
  while (std::getline(body, line)) CheckLeelaZeroLine(ParseInfoLine(line), 5);
}

// The program over pipes, as a GUI drives it: the analysis lines arrive at the interval and the
// next command's answer comes within 100 ms of sending it.
TEST_CASE("gtp analysis: tengen-gtp streams over its pipes and answers the next command at once") {
  Subprocess engine({TENGEN_BIN_DIR "/tengen-gtp", "--verbose", "false", "--board-size", "9"});
  const std::chrono::milliseconds timeout(5000);
  std::string line;
  engine.WriteLine("lz-analyze b 10");
  REQUIRE(engine.ReadLine(&line, timeout));
  CHECK(line == "=");
  int lines = 0;
  const Clock::time_point start = Clock::now();
  while (lines < 5) {
    REQUIRE(engine.ReadLine(&line, timeout));
    CheckLeelaZeroLine(ParseInfoLine(line), 9);
    ++lines;
  }
  // Five lines at 10 cs: about half a second (the first comes after one interval).
  CHECK(Seconds(Clock::now() - start) >= 0.35);

  const Clock::time_point asked = Clock::now();
  engine.WriteLine("name");
  // Lines already in the pipe, then the empty line ending the analysis, then the answer.
  bool ended = false;
  while (true) {
    REQUIRE(engine.ReadLine(&line, timeout));
    if (line.empty()) {
      ended = true;
    } else if (!ended) {
      CheckLeelaZeroLine(ParseInfoLine(line), 9);
    } else {
      break;
    }
  }
  const double seconds = Seconds(Clock::now() - asked);
  CHECK(line == "= tengen");
  CHECK(seconds < 0.1);
  MESSAGE("answer to the command after lz-analyze: " << seconds * 1000 << " ms");
  engine.WriteLine("quit");
  REQUIRE(engine.ReadLine(&line, timeout));  // "" after "= tengen"
  REQUIRE(engine.ReadLine(&line, timeout));
  CHECK(line == "= ");
  CHECK(engine.Wait() == 0);
}

}  // namespace
}  // namespace tengen::gtp
