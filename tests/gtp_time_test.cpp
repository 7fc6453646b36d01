// Clocks over GTP: time_settings, kgs-time_settings (none, absolute, byoyomi, canadian) and
// time_left become genmove's time budget, the engine runs its own clock down between
// time_left commands, and tengen-gtp finishes short-clock games against GNU Go without losing
// on time, by a referee's clock kept here.

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>

#include "go/board.h"
#include "gtp/gtp_engine.h"
#include "gtp_test_client.h"

namespace tengen::gtp_test {
namespace {

using gtp::ClockState;
using gtp::TimeControl;
using gtp::TimeSystem;

const std::string kTengen = TENGEN_BIN_DIR "/tengen-gtp";
const std::string kGnuGo = "/usr/games/gnugo";

// Passes, and keeps the request it was given.
class BudgetRecorder : public gtp::MoveGenerator {
 public:
  explicit BudgetRecorder(gtp::GenMoveRequest* last) : last_(last) {}
  gtp::GenMoveReply GenerateMove(const go::GameState&,
                                 const gtp::GenMoveRequest& request) override {
    *last_ = request;
    return gtp::GenMoveReply();
  }

 private:
  gtp::GenMoveRequest* last_;
};

struct Recorded {
  Recorded() {
    gtp::GtpOptions options;
    options.board_size = 9;
    engine = std::make_unique<gtp::GtpEngine>(options, std::make_unique<BudgetRecorder>(&last));
  }
  std::string Ask(const std::string& line) {
    bool quit = false;
    return engine->HandleLine(line, &quit);
  }
  // genmove's budget.
  double Budget(const std::string& color = "b") {
    REQUIRE(Ask("genmove " + color) == "= pass\n\n");
    return last.max_seconds;
  }
  gtp::GenMoveRequest last;
  std::unique_ptr<gtp::GtpEngine> engine;
};

TEST_CASE("time: kgs-time_settings systems and their budgets") {
  Recorded r;
  for (const char* bad :
       {"kgs-time_settings", "kgs-time_settings fischer 10", "kgs-time_settings none 5",
        "kgs-time_settings absolute", "kgs-time_settings absolute -1",
        "kgs-time_settings byoyomi 10 5", "kgs-time_settings byoyomi 10 5 0",
        "kgs-time_settings canadian 10 x 5"}) {
    INFO(bad);
    CHECK(r.Ask(bad).rfind("? syntax error", 0) == 0);
  }
  // 81 empty points: a 1/27 share of main time, 90% of it.
  CHECK(r.Ask("kgs-time_settings absolute 270") == "= \n\n");
  CHECK(r.Budget() == doctest::Approx(9.0).epsilon(0.001));
  CHECK(r.Ask("kgs-time_settings none") == "= \n\n");
  CHECK(r.Budget() == 0);
  // Japanese byo-yomi: in main time a share of it; in overtime (time_left gives the periods
  // left) the period less the reserve.
  CHECK(r.Ask("kgs-time_settings byoyomi 0 5 3") == "= \n\n");
  CHECK(r.Budget() == doctest::Approx(4.5));
  CHECK(r.Ask("time_left b 1 2") == "= \n\n");
  CHECK(r.Budget() == doctest::Approx(0.75));
  CHECK(r.Ask("time_left b 54 0") == "= \n\n");
  CHECK(r.Budget() == doctest::Approx(1.8));
  // Canadian: a share of the period per stone.
  CHECK(r.Ask("kgs-time_settings canadian 0 30 10") == "= \n\n");
  CHECK(r.Budget("w") == doctest::Approx(2.7));
  CHECK(r.Ask("time_left w 2 4") == "= \n\n");
  CHECK(r.Budget("w") == doctest::Approx(0.45));
  // ... but each stone of the period keeps its reserve: 1 s for 3 stones leaves 0.25 s.
  CHECK(r.Ask("time_left w 1 3") == "= \n\n");
  CHECK(r.Budget("w") == doctest::Approx(0.25));
  // Fractions of a second are taken.
  CHECK(r.Ask("kgs-time_settings canadian 0.5 1.5 1") == "= \n\n");
  CHECK(r.Budget() == doctest::Approx(0.9 * 0.5 / 27));
  // A clock that has run out gets the least a move may have.
  CHECK(r.Ask("time_left b 0.1 1") == "= \n\n");
  CHECK(r.Budget() == doctest::Approx(0.01));
}

TEST_CASE("time: the engine runs its own clock down between time_left commands") {
  TimeControl canadian{TimeSystem::kCanadian, 10, 20, 5};
  ClockState clock{true, 10, 0, false};
  gtp::RunDownClock(canadian, 4, &clock);
  CHECK(clock.seconds == doctest::Approx(6));
  CHECK(clock.stones == 0);
  gtp::RunDownClock(canadian, 7, &clock);  // into overtime, 1 s of it used
  CHECK(clock.seconds == doctest::Approx(19));
  CHECK(clock.stones == 5);
  for (int i = 0; i < 4; ++i) gtp::RunDownClock(canadian, 1, &clock);
  CHECK(clock.seconds == doctest::Approx(15));
  CHECK(clock.stones == 1);
  gtp::RunDownClock(canadian, 1, &clock);  // the period played out: a new one
  CHECK(clock.seconds == doctest::Approx(20));
  CHECK(clock.stones == 5);

  TimeControl byoyomi{TimeSystem::kByoyomi, 5, 10, 3};
  clock = ClockState{true, 5, 0, true};
  gtp::RunDownClock(byoyomi, 6, &clock);
  CHECK(clock.seconds == doctest::Approx(10));
  CHECK(clock.stones == 3);
  gtp::RunDownClock(byoyomi, 9, &clock);  // within the period: kept whole
  CHECK(clock.seconds == doctest::Approx(10));
  CHECK(clock.stones == 3);
  gtp::RunDownClock(byoyomi, 15, &clock);  // one period used up
  CHECK(clock.seconds == doctest::Approx(10));
  CHECK(clock.stones == 2);

  TimeControl absolute{TimeSystem::kAbsolute, 60, 0, 0};
  clock = ClockState{true, 60, 0, false};
  gtp::RunDownClock(absolute, 20, &clock);
  CHECK(clock.seconds == doctest::Approx(40));
  CHECK(clock.stones == 0);

  // Through the engine: with no time_left, the next budget comes from the clock run down.
  Recorded r;
  CHECK(r.Ask("kgs-time_settings absolute 270") == "= \n\n");
  const double first = r.Budget();
  CHECK(r.Budget() <= first);
}

// The referee's clock for one player, kept by the test from the time each genmove takes.
struct RefereeClock {
  std::string system;  // "canadian" or "byoyomi"
  double main = 0;
  double period = 0;
  int count = 0;  // stones per period (canadian) or periods (byoyomi)
  double left = 0;
  int count_left = 0;
  bool in_overtime = false;
  bool lost = false;

  void Start() {
    left = main;
    in_overtime = main <= 0;
    if (in_overtime) EnterOvertime();
  }
  void EnterOvertime() {
    in_overtime = true;
    left = period;
    count_left = count;
  }
  void Spend(double seconds) {
    if (!in_overtime) {
      if (seconds <= left) {
        left -= seconds;
        return;
      }
      seconds -= left;
      EnterOvertime();
    }
    if (system == "byoyomi") {
      while (seconds > period) {
        seconds -= period;
        if (--count_left == 0) {
          lost = true;
          return;
        }
      }
      left = period;
      return;
    }
    left -= seconds;
    if (left < 0) {
      lost = true;
      return;
    }
    if (--count_left == 0) EnterOvertime();
  }
  std::string TimeLeft(const std::string& color) const {
    std::ostringstream out;
    out << "time_left " << color << " " << left << " " << (in_overtime ? count_left : 0);
    return out.str();
  }
};

// tengen-gtp (white, with a visit limit out of reach so that only the clock stops its search)
// against GNU Go on 9x9 under kgs-time_settings `system main period count`; the referee sends
// time_left before each genmove.
void ShortClockGame(const std::string& system, double main, double period, int count, int seed) {
  RefereeClock clock;
  clock.system = system;
  clock.main = main;
  clock.period = period;
  clock.count = count;
  std::ostringstream settings_text;
  settings_text << system << " " << main << " " << period << " " << count;
  const std::string settings = settings_text.str();
  REQUIRE_MESSAGE(access(kGnuGo.c_str(), X_OK) == 0, "GNU Go is not installed at " << kGnuGo);
  GtpClient gnugo(
      {kGnuGo, "--mode", "gtp", "--chinese-rules", "--level", "1", "--seed", std::to_string(seed)});
  GtpClient tengen({kTengen, "--set", "visits=100000000", "--set", "seed=" + std::to_string(seed),
                    "--set", "verbose=false"});
  for (GtpClient* engine : {&gnugo, &tengen}) engine->Must("boardsize 9");
  tengen.Must("kgs-time_settings " + settings);
  clock.Start();
  int passes = 0, ply = 0, tengen_moves = 0;
  double longest = 0, total = 0;
  for (; passes < 2 && ply < 120; ++ply) {
    const std::string color = ply % 2 == 0 ? "b" : "w";
    const bool tengen_turn = color == "w";
    std::string move;
    if (tengen_turn) {
      tengen.Must(clock.TimeLeft("w"));
      const auto start = std::chrono::steady_clock::now();
      move = tengen.Must("genmove w");
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      clock.Spend(seconds);
      REQUIRE_MESSAGE(!clock.lost, "tengen lost on time at ply " << ply << " (" << seconds
                                                                 << " s for the move)");
      longest = std::max(longest, seconds);
      total += seconds;
      ++tengen_moves;
      gnugo.Must("play w " + move);
    } else {
      move = gnugo.Must("genmove b");
      tengen.Must("play b " + move);
    }
    for (char& c : move) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (move == "resign") break;
    passes = move == "pass" ? passes + 1 : 0;
  }
  MESSAGE(settings << ": " << ply << " plies, tengen " << tengen_moves << " moves in " << total
                   << " s, longest " << longest << " s");
  CHECK(tengen_moves >= 10);
  CHECK_FALSE(clock.lost);
  tengen.Must("quit");
  gnugo.Must("quit");
}

TEST_CASE("time: short-clock games against GNU Go end without a time loss") {
  ShortClockGame("canadian", 3, 2, 5, 1);
  // One byo-yomi period of half a second: any move over it loses.
  ShortClockGame("byoyomi", 1, 0.5, 1, 2);
}

}  // namespace
}  // namespace tengen::gtp_test
