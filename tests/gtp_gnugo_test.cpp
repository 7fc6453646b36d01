// tengen-gtp against GNU Go, an independent implementation of the rules: random move
// sequences (occupied points, kos and suicides included) must be accepted or refused alike and
// leave the same stones on both boards, and whole games relayed between the two engines must
// go through without a refused move.
//
// GNU Go's defaults are simple ko and no suicide; --positional-superko and --allow-suicide
// (multi-stone suicide only, as our rules.suicide=true) switch them. Its play command enforces
// the chosen ko rule, which tests/gtp_engine_test.cpp's fixtures were checked against.

#include <doctest/doctest.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "go/game.h"
#include "gtp_test_client.h"
#include "util/rng.h"

namespace tengen::gtp_test {
namespace {

const std::string kTengen = TENGEN_BIN_DIR "/tengen-gtp";
const std::string kGnuGo = "/usr/games/gnugo";

void RequireGnuGo() {
  REQUIRE_MESSAGE(access(kGnuGo.c_str(), X_OK) == 0,
                  "GNU Go is not installed at " << kGnuGo
                                                << ": install it with `apt-get install -y gnugo` "
                                                   "(scripts/test.sh does this)");
}

// Stones of one colour as upper-case vertices.
using Stones = std::set<std::string>;

// Reads the X and O stones out of a showboard answer: rows are "<n> cells... <n>" under a
// header of column letters.
void ParseShowboard(const std::string& board, int size, Stones* black, Stones* white) {
  black->clear();
  white->clear();
  std::istringstream lines(board);
  std::string line;
  int rows_seen = 0;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> cells;
    std::string word;
    while (words >> word) cells.push_back(word);
    if (static_cast<int>(cells.size()) != size + 2 || cells.front() != cells.back()) continue;
    const int row = std::atoi(cells.front().c_str());
    if (row < 1 || row > size || std::to_string(row) != cells.front()) continue;
    ++rows_seen;
    for (int x = 0; x < size; ++x) {
      const std::string vertex = std::string(1, "ABCDEFGHJKLMNOPQRST"[x]) + cells.front();
      if (cells[x + 1] == "X") black->insert(vertex);
      if (cells[x + 1] == "O") white->insert(vertex);
    }
  }
  CHECK_MESSAGE(rows_seen == size, "showboard rows: " << board);
}

struct Variant {
  std::string name;
  go::Rules rules;
  std::vector<std::string> gnugo_flags;
};

// GNU Go skips its superko check for suicide moves (a multi-stone suicide that brings back an
// earlier position is accepted with --positional-superko --allow-suicide; we refuse it, as
// Tromp-Taylor does), so superko and suicide are checked in separate variants.
std::vector<Variant> Variants() {
  go::Rules simple;
  simple.ko = go::KoRule::kSimple;
  simple.suicide = false;
  go::Rules superko = simple;
  superko.ko = go::KoRule::kPositional;
  go::Rules suicide = simple;
  suicide.suicide = true;
  return {{"simple ko, no suicide", simple, {"--simple-ko", "--forbid-suicide"}},
          {"positional superko, no suicide", superko, {"--positional-superko", "--forbid-suicide"}},
          {"simple ko, multi-stone suicide", suicide, {"--simple-ko", "--allow-suicide"}}};
}

std::vector<std::string> TengenArgv(const go::Rules& rules, int seed) {
  return {kTengen,
          "--set",
          std::string("rules.ko=") + go::KoRuleName(rules.ko),
          "--set",
          std::string("rules.suicide=") + (rules.suicide ? "true" : "false"),
          "--set",
          "seed=" + std::to_string(seed)};
}

std::vector<std::string> GnuGoArgv(const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {kGnuGo, "--mode", "gtp", "--chinese-rules"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return argv;
}

// What happened over all random walks, by the reason our own rules code gives.
struct WalkStats {
  int accepted = 0;
  std::map<go::Illegal, int> refused;  // by reason
  int suicides_played = 0;             // accepted moves that removed the mover's own stones
};

// Plays `steps` random moves (any point, occupied or not, sometimes a pass) into both engines,
// checking after each that they agree. A go::GameState mirrors the game so that refusals can
// be classified (ko, suicide, superko, occupied).
void RandomWalk(GtpClient& tengen, GtpClient& gnugo, const go::Rules& rules, int size,
                uint64_t seed, int steps, WalkStats* stats) {
  for (GtpClient* engine : {&tengen, &gnugo}) {
    engine->Must("boardsize " + std::to_string(size));
    engine->Must("clear_board");
  }
  go::GameState mirror(size, rules);
  Rng rng(seed);
  go::Color color = go::Color::kBlack;
  std::string history;
  std::vector<go::Loc> recent_kos;
  for (int step = 0; step < steps; ++step) {
    // Mostly any point at all, but often a point where a ko was just taken: uniform choice
    // would almost never try a ko retake at once, or (for superko) after a pass from each side.
    go::Move move{go::kPassLoc, color};
    const go::Board& board = mirror.board();
    if (board.ko_loc() != go::kNullLoc) {
      recent_kos.push_back(board.ko_loc());
      if (recent_kos.size() > 3) recent_kos.erase(recent_kos.begin());
    }
    std::vector<go::Loc> empty;
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        if (board.At(board.LocOf(x, y)) == go::Color::kEmpty) empty.push_back(board.LocOf(x, y));
      }
    }
    const uint32_t roll = rng.Uniform(100);
    const bool after_pass = !mirror.moves().empty() && mirror.moves().back().loc == go::kPassLoc;
    if (roll < 3 || (roll < 20 && board.ko_loc() != go::kNullLoc) ||
        (roll < 30 && after_pass && !recent_kos.empty())) {
      move.loc = go::kPassLoc;
    } else if (roll < 45 && !recent_kos.empty()) {
      move.loc = recent_kos[rng.Uniform(static_cast<uint32_t>(recent_kos.size()))];
    } else if (roll < 70 && !empty.empty()) {
      move.loc = empty[rng.Uniform(static_cast<uint32_t>(empty.size()))];
    } else {
      move.loc = board.LocOf(static_cast<int>(rng.Uniform(static_cast<uint32_t>(size))),
                             static_cast<int>(rng.Uniform(static_cast<uint32_t>(size))));
    }
    const std::string command = std::string("play ") + (color == go::Color::kBlack ? "b " : "w ") +
                                go::LocToGtp(move.loc, size);
    history += command + "; ";
    const GtpAnswer ours = tengen.Send(command);
    const GtpAnswer theirs = gnugo.Send(command);
    INFO("size " << size << " seed " << seed << " step " << step << ": " << command);
    const go::Illegal reason = mirror.Check(move);
    INFO("tengen: " << ours.text << " / gnugo: " << theirs.text
                    << " / our rules say: " << std::string(go::IllegalName(reason)));
    REQUIRE_MESSAGE(ours.ok == theirs.ok, "the engines disagree; moves so far: " << history);
    if (!ours.ok) {
      CHECK(ours.text == "illegal move");
      REQUIRE(reason != go::Illegal::kNone);
      ++stats->refused[reason];
      continue;
    }
    REQUIRE(reason == go::Illegal::kNone);
    const int own_before = mirror.board().StoneCount(color);
    mirror.Play(move);
    if (move.loc != go::kPassLoc && mirror.board().StoneCount(color) <= own_before) {
      ++stats->suicides_played;
    }
    ++stats->accepted;
    color = go::Opponent(color);

    const Stones black = WordSet(tengen.Must("list_stones black"));
    const Stones white = WordSet(tengen.Must("list_stones white"));
    REQUIRE_MESSAGE(black == WordSet(gnugo.Must("list_stones black")), "moves: " << history);
    REQUIRE_MESSAGE(white == WordSet(gnugo.Must("list_stones white")), "moves: " << history);
    Stones shown_black, shown_white;
    ParseShowboard(tengen.Must("showboard"), size, &shown_black, &shown_white);
    REQUIRE(shown_black == black);
    REQUIRE(shown_white == white);
    REQUIRE(static_cast<int>(black.size()) == mirror.board().StoneCount(go::Color::kBlack));
    REQUIRE(static_cast<int>(white.size()) == mirror.board().StoneCount(go::Color::kWhite));
  }
}

TEST_CASE("gnugo: random move sequences are judged alike") {
  RequireGnuGo();
  // (size, walks, steps per walk): small boards fill up and produce kos and suicides; 19x19
  // covers two-digit rows and the T column.
  const std::vector<std::array<int, 3>> plan = {
      {5, 12, 400}, {7, 6, 500}, {9, 3, 500}, {19, 1, 400}};
  for (const Variant& variant : Variants()) {
    INFO("rules: " << variant.name);
    GtpClient tengen(TengenArgv(variant.rules, 1));
    GtpClient gnugo(GnuGoArgv(variant.gnugo_flags));
    WalkStats stats;
    uint64_t seed = 100;
    for (const auto& [size, walks, steps] : plan) {
      for (int walk = 0; walk < walks; ++walk) {
        RandomWalk(tengen, gnugo, variant.rules, size, ++seed, steps, &stats);
      }
    }
    MESSAGE(variant.name << ": " << stats.accepted
                         << " moves accepted; refused: " << stats.refused[go::Illegal::kOccupied]
                         << " occupied, " << stats.refused[go::Illegal::kKo] << " ko, "
                         << stats.refused[go::Illegal::kSuperko] << " superko, "
                         << stats.refused[go::Illegal::kSuicide] << " suicide; "
                         << stats.suicides_played << " suicides played");
    // Refusals on empty points are what the rules are about: both kinds must have happened.
    CHECK(stats.refused[go::Illegal::kKo] > 0);
    if (variant.rules.ko == go::KoRule::kPositional) {
      CHECK(stats.refused[go::Illegal::kSuperko] > 0);
    }
    CHECK(stats.refused[go::Illegal::kSuicide] > 0);
    CHECK(stats.refused[go::Illegal::kOccupied] > 0);
    if (variant.rules.suicide) {
      CHECK(stats.suicides_played > 0);
    } else {
      CHECK(stats.suicides_played == 0);
    }
  }
}

bool IsResult(const std::string& text) {
  return std::regex_match(text, std::regex(R"(0|[BW]\+[0-9]+(\.[0-9]+)?)"));
}

std::string Lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// One 9x9 game relayed between tengen-gtp (random play) and GNU Go: every move one engine
// generates must be accepted by the other, and the boards must end up the same.
void RelayGame(bool tengen_black, int seed) {
  go::Rules rules;
  rules.ko = go::KoRule::kSimple;
  rules.suicide = false;
  GtpClient tengen(TengenArgv(rules, seed));
  // --seed (not in gnugo --help, but supported) makes GNU Go's choices repeatable too.
  GtpClient gnugo(GnuGoArgv({"--level", "1", "--seed", std::to_string(seed)}));
  for (GtpClient* engine : {&tengen, &gnugo}) {
    engine->Must("boardsize 9");
    engine->Must("clear_board");
    engine->Must("komi 7.5");
  }
  const char* colors[2] = {"b", "w"};
  int passes = 0;
  int moves = 0;
  std::string history;
  std::string ending = "move cap";
  for (; passes < 2 && moves < 200; ++moves) {
    const std::string color = colors[moves % 2];
    const bool tengen_moves = (color == "b") == tengen_black;
    GtpClient& mover = tengen_moves ? tengen : gnugo;
    GtpClient& other = tengen_moves ? gnugo : tengen;
    const std::string move = Lower(mover.Must("genmove " + color));
    if (move == "resign") {
      ending = (tengen_moves ? "tengen" : "GNU Go") + std::string(" resigned");
      break;
    }
    history += color + " " + move + "; ";
    const GtpAnswer answer = other.Send("play " + color + " " + move);
    REQUIRE_MESSAGE(answer.ok, (tengen_moves ? "GNU Go" : "tengen")
                                   << " refused " << color << " " << move << ": " << answer.text
                                   << "; moves: " << history);
    passes = move == "pass" ? passes + 1 : 0;
    if (passes == 2) ending = "two passes";
  }
  MESSAGE("relay game (tengen " << (tengen_black ? "black" : "white") << "): " << moves
                                << " moves, ended by " << ending << ", tengen scores "
                                << tengen.Must("final_score"));
  CHECK(moves > 10);
  CHECK(WordSet(tengen.Must("list_stones black")) == WordSet(gnugo.Must("list_stones black")));
  CHECK(WordSet(tengen.Must("list_stones white")) == WordSet(gnugo.Must("list_stones white")));
  CHECK(IsResult(tengen.Must("final_score")));
  tengen.Must("quit");
  gnugo.Must("quit");
}

TEST_CASE("gnugo: games relayed between tengen-gtp and GNU Go") {
  RequireGnuGo();
  RelayGame(/*tengen_black=*/true, 5);
  RelayGame(/*tengen_black=*/false, 6);
}

}  // namespace
}  // namespace tengen::gtp_test
