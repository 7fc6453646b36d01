// In-process GTP conformance: protocol details (ids, comments, control characters, error
// answers), every command's answers, rules through play, and SGF load/print round trips.

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gtp/gtp_engine.h"
#include "test_support.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::gtp {
namespace {

using tengen::testing::TempDir;

GtpEngine MakeEngine(int size = 5, go::Rules rules = go::Rules(), uint64_t seed = 1) {
  GtpOptions options;
  options.rules = rules;
  options.board_size = size;
  return GtpEngine(options, std::make_unique<RandomMoveGenerator>(seed));
}

std::string Ask(GtpEngine& engine, const std::string& line) {
  bool quit = false;
  return engine.HandleLine(line, &quit);
}

// Plays each "color vertex" in order and requires every one to be accepted.
void PlayAll(GtpEngine& engine, const std::vector<std::string>& moves) {
  for (const std::string& move : moves) {
    INFO("play " << move);
    REQUIRE(Ask(engine, "play " + move) == "= \n\n");
  }
}

std::vector<std::string> ListedCommands(GtpEngine& engine) {
  const std::string answer = Ask(engine, "list_commands");
  REQUIRE(StartsWith(answer, "= "));
  std::istringstream in(answer.substr(2));
  std::vector<std::string> names;
  std::string name;
  while (in >> name) names.push_back(name);
  return names;
}

TEST_CASE("gtp: every listed command is known and answers") {
  GtpEngine engine = MakeEngine();
  const std::vector<std::string> names = ListedCommands(engine);
  for (const char* required :
       {"protocol_version", "name", "version", "known_command", "list_commands", "quit",
        "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score",
        "loadsgf", "printsgf", "list_stones"}) {
    CHECK_MESSAGE(std::find(names.begin(), names.end(), required) != names.end(), required);
  }
  for (const std::string& name : names) {
    INFO(name);
    CHECK(Ask(engine, "known_command " + name) == "= true\n\n");
    // Without arguments every command answers, successfully or with an error.
    bool quit = false;
    const std::string answer = engine.HandleLine(name, &quit);
    CHECK((StartsWith(answer, "=") || StartsWith(answer, "?")));
    CHECK(answer.size() >= 4);
    CHECK(answer.substr(answer.size() - 2) == "\n\n");
    CHECK(quit == (name == "quit"));
  }
  CHECK(Ask(engine, "known_command frobnicate") == "= false\n\n");
  CHECK(Ask(engine, "known_command PLAY") == "= false\n\n");
  CHECK(Ask(engine, "protocol_version") == "= 2\n\n");
  CHECK(Ask(engine, "name") == "= tengen\n\n");
  CHECK(Ask(engine, "version") == "= 0.1\n\n");
}

TEST_CASE("gtp: ids, comments, blank lines and control characters") {
  GtpEngine engine = MakeEngine();
  CHECK(Ask(engine, "12 name") == "=12 tengen\n\n");
  CHECK(Ask(engine, "7 frobnicate") == "?7 unknown command\n\n");
  CHECK(Ask(engine, "") == "");
  CHECK(Ask(engine, "   ") == "");
  CHECK(Ask(engine, "# just a comment") == "");
  CHECK(Ask(engine, "  \t # indented comment") == "");
  CHECK(Ask(engine, "name # trailing comment") == "= tengen\n\n");
  CHECK(Ask(engine, "\tname\r") == "= tengen\n\n");
  CHECK(Ask(engine, "3\tprotocol_version") == "=3 2\n\n");
  CHECK(Ask(engine, std::string("na\x01me\x7f")) == "= tengen\n\n");
  CHECK(Ask(engine, "Name") == "? unknown command\n\n");
  CHECK(StartsWith(Ask(engine, "42"), "?42 "));
  CHECK(Ask(engine, "5 play b c3") == "=5 \n\n");
  CHECK(Ask(engine, "6 play b c3") == "?6 illegal move\n\n");
  CHECK(Ask(engine, "8 quit") == "=8 \n\n");
}

TEST_CASE("gtp: malformed arguments get error answers") {
  GtpEngine engine = MakeEngine();
  CHECK(Ask(engine, "play") == "? syntax error\n\n");
  CHECK(Ask(engine, "play b") == "? syntax error\n\n");
  CHECK(Ask(engine, "play b c3 c4") == "? syntax error\n\n");
  CHECK(Ask(engine, "play x c3") == "? invalid color\n\n");
  CHECK(Ask(engine, "play bl c3") == "? invalid color\n\n");
  CHECK(Ask(engine, "play b z3") == "? invalid coordinate\n\n");
  CHECK(Ask(engine, "play b i3") == "? invalid coordinate\n\n");
  CHECK(Ask(engine, "play b f3") == "? invalid coordinate\n\n");  // off a 5x5 board
  CHECK(Ask(engine, "play b c6") == "? invalid coordinate\n\n");
  CHECK(Ask(engine, "play b c0") == "? invalid coordinate\n\n");
  CHECK(Ask(engine, "play b 33") == "? invalid coordinate\n\n");
  CHECK(Ask(engine, "genmove") == "? syntax error\n\n");
  CHECK(Ask(engine, "genmove purple") == "? invalid color\n\n");
  CHECK(Ask(engine, "list_stones") == "? syntax error\n\n");
  CHECK(Ask(engine, "list_stones x") == "? invalid color\n\n");
  CHECK(Ask(engine, "known_command") == "? syntax error\n\n");
  CHECK(Ask(engine, "boardsize") == "? syntax error\n\n");
  CHECK(Ask(engine, "boardsize 0") == "? unacceptable size\n\n");
  CHECK(Ask(engine, "boardsize 1") == "? unacceptable size\n\n");
  CHECK(Ask(engine, "boardsize 20") == "? unacceptable size\n\n");
  CHECK(Ask(engine, "boardsize -5") == "? unacceptable size\n\n");
  CHECK(Ask(engine, "boardsize abc") == "? syntax error\n\n");
  CHECK(Ask(engine, "boardsize 9x") == "? syntax error\n\n");
  CHECK(Ask(engine, "boardsize 99999999999999999999") == "? syntax error\n\n");
  CHECK(Ask(engine, "komi abc") == "? syntax error\n\n");
  CHECK(Ask(engine, "komi") == "? syntax error\n\n");
  CHECK(Ask(engine, "komi nan") == "? syntax error\n\n");
  CHECK(Ask(engine, "komi 6.5.") == "? syntax error\n\n");
  CHECK(Ask(engine, "clear_board now") == "? syntax error\n\n");
  CHECK(Ask(engine, "loadsgf") == "? syntax error\n\n");
  CHECK(Ask(engine, "loadsgf a.sgf zero") == "? syntax error\n\n");
  CHECK(Ask(engine, "printsgf a b") == "? syntax error\n\n");
  // None of that changed the board or the size.
  CHECK(Ask(engine, "list_stones black") == "= \n\n");
  CHECK(Ask(engine, "play b e5") == "= \n\n");
  // Colours in any case and spelling, vertices in any case.
  CHECK(Ask(engine, "play WHITE a1") == "= \n\n");
  CHECK(Ask(engine, "play Black B2") == "= \n\n");
  CHECK(Ask(engine, "play w pass") == "= \n\n");
  CHECK(Ask(engine, "play B PASS") == "= \n\n");
  CHECK(Ask(engine, "list_stones b") == "= E5 B2\n\n");
  CHECK(Ask(engine, "list_stones white") == "= A1\n\n");
}

TEST_CASE("gtp: boardsize, clear_board and komi") {
  GtpEngine engine = MakeEngine(19);
  CHECK(Ask(engine, "play b t19") == "= \n\n");
  CHECK(Ask(engine, "boardsize 7") == "= \n\n");
  CHECK(engine.game().size() == 7);
  CHECK(Ask(engine, "list_stones black") == "= \n\n");
  CHECK(Ask(engine, "play b g7") == "= \n\n");
  CHECK(Ask(engine, "play b h7") == "? invalid coordinate\n\n");
  CHECK(Ask(engine, "komi 0.5") == "= \n\n");
  CHECK(Ask(engine, "clear_board") == "= \n\n");
  CHECK(engine.game().size() == 7);
  CHECK(engine.game().board().StoneCount(go::Color::kBlack) == 0);
  CHECK(engine.game().rules().komi == 0.5);  // komi survives clear_board
  CHECK(Ask(engine, "komi -3") == "= \n\n");
  CHECK(Ask(engine, "tengen-rules") == "= ko=positional suicide=false komi=-3 scoring=area\n\n");
  CHECK(Ask(engine, "boardsize 2") == "= \n\n");
  CHECK(Ask(engine, "boardsize 19") == "= \n\n");
}

TEST_CASE("gtp: illegal moves: occupied, suicide, simple ko") {
  go::Rules simple;
  simple.ko = go::KoRule::kSimple;
  simple.suicide = false;
  GtpEngine engine = MakeEngine(5, simple);
  CHECK(Ask(engine, "play b c3") == "= \n\n");
  CHECK(Ask(engine, "play w c3") == "? illegal move\n\n");
  CHECK(Ask(engine, "play b c3") == "? illegal move\n\n");

  // Single-stone suicide in the corner.
  PlayAll(engine, {"b a2", "b b1"});
  CHECK(Ask(engine, "play w a1") == "? illegal move\n\n");
  // Multi-stone suicide: white b5 then a5+a4 would die; with suicide off it is refused.
  CHECK(Ask(engine, "clear_board") == "= \n\n");
  PlayAll(engine, {"b a3", "b b4", "b c5", "w a5"});
  CHECK(Ask(engine, "play w b5") == "= \n\n");
  CHECK(Ask(engine, "play w a4") == "? illegal move\n\n");

  // A ko: black captures at d3, white may not retake c3 at once, but may after a threat.
  CHECK(Ask(engine, "clear_board") == "= \n\n");
  PlayAll(engine, {"b b3", "w d4", "b c4", "w d2", "b c2", "w e3", "b a5", "w c3", "b d3"});
  CHECK(Ask(engine, "list_stones white") == "= D4 E3 D2\n\n");
  CHECK(Ask(engine, "play w c3") == "? illegal move\n\n");
  PlayAll(engine, {"w e5", "b a1", "w c3"});
  CHECK(Ask(engine, "list_stones black") == "= A5 C4 B3 C2 A1\n\n");
  // The ban ends after any other move, including a pass.
  CHECK(Ask(engine, "play b d3") == "? illegal move\n\n");
  PlayAll(engine, {"b pass", "w pass", "b d3"});
}

TEST_CASE("gtp: positional superko refuses a ko retake even after passes") {
  // The same ko as above: black captures at d3, both pass; retaking at c3 would repeat the
  // position before black's capture. GNU Go --positional-superko refuses it too.
  const std::vector<std::string> ko = {"b b3", "w d4", "b c4", "w d2",   "b c2",  "w e3",
                                       "b a5", "w c3", "b d3", "w pass", "b pass"};
  GtpEngine positional = MakeEngine(5);
  PlayAll(positional, ko);
  CHECK(Ask(positional, "play w c3") == "? illegal move\n\n");
  go::Rules simple;
  simple.ko = go::KoRule::kSimple;
  GtpEngine engine = MakeEngine(5, simple);
  PlayAll(engine, ko);
  CHECK(Ask(engine, "play w c3") == "= \n\n");
}

TEST_CASE("gtp: multi-stone suicide is legal when the rules allow it") {
  go::Rules rules;
  rules.suicide = true;
  GtpEngine engine = MakeEngine(5, rules);
  PlayAll(engine, {"b a3", "b b4", "b c5", "w a5", "w b5"});
  // Here it would bring back the position after b c5: positional superko forbids that.
  CHECK(Ask(engine, "play w a4") == "? illegal move\n\n");
  PlayAll(engine, {"b e4"});
  CHECK(Ask(engine, "play w a4") == "= \n\n");
  CHECK(Ask(engine, "list_stones white") == "= \n\n");
  // Single-stone suicide never is.
  PlayAll(engine, {"b e2", "b d1"});
  CHECK(Ask(engine, "play w e1") == "? illegal move\n\n");
}

TEST_CASE("gtp: showboard layout") {
  GtpEngine engine = MakeEngine(5);
  PlayAll(engine, {"b c3", "w d4", "b a2", "w a1", "b b1"});
  CHECK(Ask(engine, "showboard") ==
        "= \n"
        "   A B C D E\n"
        " 5 . . . . . 5\n"
        " 4 . . . O . 4\n"
        " 3 . . X . . 3\n"
        " 2 X . . . . 2\n"
        " 1 . X . . . 1\n"
        "   A B C D E\n"
        "Black (X) has captured 1 stones\n"
        "White (O) has captured 0 stones\n"
        "To move: white\n\n");
  // Two-digit rows are right-aligned and the columns skip I.
  GtpEngine big = MakeEngine(10);
  PlayAll(big, {"b k10", "w a1"});
  CHECK(Ask(big, "showboard") ==
        "= \n"
        "   A B C D E F G H J K\n"
        "10 . . . . . . . . . X 10\n"
        " 9 . . . . . . . . . . 9\n"
        " 8 . . . . . . . . . . 8\n"
        " 7 . . . . . . . . . . 7\n"
        " 6 . . . . . . . . . . 6\n"
        " 5 . . . . . . . . . . 5\n"
        " 4 . . . . . . . . . . 4\n"
        " 3 . . . . . . . . . . 3\n"
        " 2 . . . . . . . . . . 2\n"
        " 1 O . . . . . . . . . 1\n"
        "   A B C D E F G H J K\n"
        "Black (X) has captured 0 stones\n"
        "White (O) has captured 0 stones\n"
        "To move: black\n\n");
}

TEST_CASE("gtp: final_score is Tromp-Taylor area with komi") {
  GtpEngine engine = MakeEngine(5);
  // Black wall on column C, white wall on column D: black owns A-C (15), white D-E (10).
  for (int row = 1; row <= 5; ++row) {
    PlayAll(engine, {"b c" + std::to_string(row), "w d" + std::to_string(row)});
  }
  CHECK(Ask(engine, "komi 3.5") == "= \n\n");
  CHECK(Ask(engine, "final_score") == "= B+1.5\n\n");
  CHECK(Ask(engine, "komi 7.5") == "= \n\n");
  CHECK(Ask(engine, "final_score") == "= W+2.5\n\n");
  CHECK(Ask(engine, "komi 5") == "= \n\n");
  CHECK(Ask(engine, "final_score") == "= 0\n\n");
  // A white stone inside black's area makes A-B dame for both.
  CHECK(Ask(engine, "play w a1") == "= \n\n");
  CHECK(Ask(engine, "komi 0") == "= \n\n");
  // Black: column C (5); white: D-E (10) + a1 (1).
  CHECK(Ask(engine, "final_score") == "= W+6\n\n");
}

TEST_CASE("gtp: undo") {
  GtpEngine engine = MakeEngine(5);
  CHECK(Ask(engine, "undo") == "? cannot undo\n\n");
  const std::string empty_board = Ask(engine, "showboard");
  PlayAll(engine, {"b c3", "w d3"});
  CHECK(Ask(engine, "undo") == "= \n\n");
  CHECK(Ask(engine, "list_stones white") == "= \n\n");
  CHECK(Ask(engine, "list_stones black") == "= C3\n\n");
  CHECK(engine.game().to_move() == go::Color::kWhite);
  CHECK(Ask(engine, "undo") == "= \n\n");
  CHECK(Ask(engine, "showboard") == empty_board);
  CHECK(Ask(engine, "undo") == "? cannot undo\n\n");
  // Undo restores captured stones too.
  PlayAll(engine, {"b a2", "w a1", "b b1"});
  CHECK(Ask(engine, "list_stones white") == "= \n\n");
  CHECK(Ask(engine, "undo") == "= \n\n");
  CHECK(Ask(engine, "list_stones white") == "= A1\n\n");
}

TEST_CASE("gtp: genmove plays legal moves and never fills its own eyes") {
  GtpEngine engine = MakeEngine(5, go::Rules(), 7);
  // Black everywhere but four single-point eyes: neither colour has a move but pass.
  for (int row = 1; row <= 5; ++row) {
    for (const char column : std::string("ABCDE")) {
      const std::string vertex = std::string(1, column) + std::to_string(row);
      if (vertex == "A1" || vertex == "A5" || vertex == "E5" || vertex == "C3") continue;
      REQUIRE(Ask(engine, "play b " + vertex) == "= \n\n");
    }
  }
  CHECK(Ask(engine, "genmove b") == "= pass\n\n");
  CHECK(Ask(engine, "genmove w") == "= pass\n\n");
  CHECK(engine.game().consecutive_passes() == 2);

  // One eye (A1) and a two-point gap (E5, E4): black must pick the gap.
  CHECK(Ask(engine, "clear_board") == "= \n\n");
  for (int row = 1; row <= 5; ++row) {
    for (const char column : std::string("ABCDE")) {
      const std::string vertex = std::string(1, column) + std::to_string(row);
      if (vertex == "A1" || vertex == "E5" || vertex == "E4") continue;
      REQUIRE(Ask(engine, "play b " + vertex) == "= \n\n");
    }
  }
  for (int i = 0; i < 20; ++i) {
    const std::string answer = Ask(engine, "genmove black");
    CHECK((answer == "= E5\n\n" || answer == "= E4\n\n"));
    REQUIRE(Ask(engine, "undo") == "= \n\n");
  }

  // Random self-play: every answer is a legal move the engine then has on its board.
  CHECK(Ask(engine, "boardsize 7") == "= \n\n");
  int moves = 0;
  for (; moves < 2000 && !engine.game().IsOver(); ++moves) {
    const char* color = moves % 2 == 0 ? "b" : "w";
    const std::string answer = Ask(engine, std::string("genmove ") + color);
    REQUIRE(StartsWith(answer, "= "));
    const std::string vertex = answer.substr(2, answer.size() - 4);
    if (vertex != "pass") {
      const std::string stones = Ask(engine, std::string("list_stones ") + color);
      CHECK(stones.find(vertex) != std::string::npos);
    }
  }
  CHECK(engine.game().IsOver());
  CHECK(StartsWith(Ask(engine, "final_score"), "= "));
}

TEST_CASE("gtp: genmove passes at the move cap") {
  GtpOptions options;
  options.board_size = 5;
  options.max_moves = 3;
  GtpEngine engine(options, std::make_unique<RandomMoveGenerator>(3));
  CHECK(Ask(engine, "genmove b") != "= pass\n\n");
  CHECK(Ask(engine, "genmove w") != "= pass\n\n");
  CHECK(Ask(engine, "genmove b") != "= pass\n\n");
  CHECK(Ask(engine, "genmove w") == "= pass\n\n");
}

TEST_CASE("gtp: loadsgf replays up to a move number and printsgf round-trips") {
  TempDir dir;
  const std::string path =
      dir.Write("game.sgf",
                "(;FF[4]GM[1]SZ[7]KM[5.5]RU[Chinese];B[dd];W[cc];B[ee];W[ff]\n(;B[aa])(;B[bb]))\n");
  GtpEngine engine = MakeEngine(19);
  CHECK(Ask(engine, "loadsgf " + path + " 3") == "= black\n\n");
  CHECK(engine.game().size() == 7);
  CHECK(engine.game().rules().komi == 5.5);
  CHECK(Ask(engine, "list_stones black") == "= D4\n\n");
  CHECK(Ask(engine, "list_stones white") == "= C5\n\n");
  CHECK(Ask(engine, "loadsgf " + path + " 1") == "= black\n\n");
  CHECK(Ask(engine, "list_stones black") == "= \n\n");
  CHECK(Ask(engine, "loadsgf " + path + " 4") == "= white\n\n");
  CHECK(Ask(engine, "list_stones black") == "= D4 E3\n\n");
  CHECK(Ask(engine, "loadsgf " + path) == "= white\n\n");  // main line: five moves
  CHECK(Ask(engine, "list_stones black") == "= A7 D4 E3\n\n");
  CHECK(Ask(engine, "loadsgf " + path + " 100") == "= white\n\n");
  // Loaded games go on and clear_board keeps the file's size.
  CHECK(Ask(engine, "play w g1") == "= \n\n");
  CHECK(Ask(engine, "undo") == "= \n\n");

  const std::string printed = Ask(engine, "printsgf");
  REQUIRE(StartsWith(printed, "= (;"));
  CHECK(printed.find("SZ[7]") != std::string::npos);
  CHECK(printed.find("KM[5.5]") != std::string::npos);
  CHECK(printed.find(";B[dd]") != std::string::npos);
  CHECK(printed.find('\n') == printed.size() - 2);  // one line

  const std::string copy = dir / "copy.sgf";
  CHECK(Ask(engine, "printsgf " + copy) == "= \n\n");
  const std::string black = Ask(engine, "list_stones black");
  const std::string white = Ask(engine, "list_stones white");
  GtpEngine other = MakeEngine(9);
  CHECK(Ask(other, "loadsgf " + copy) == "= white\n\n");
  CHECK(Ask(other, "list_stones black") == black);
  CHECK(Ask(other, "list_stones white") == white);
  CHECK(Ask(other, "printsgf") == printed);
  CHECK(Ask(other, "clear_board") == "= \n\n");
  CHECK(other.game().size() == 7);
}

TEST_CASE("gtp: loadsgf keeps the engine's rules when the file has none") {
  TempDir dir;
  const std::string path = dir.Write("bare.sgf", "(;SZ[5];B[cc])");
  go::Rules rules;
  rules.ko = go::KoRule::kSimple;
  rules.komi = 0.5;
  GtpEngine engine = MakeEngine(9, rules);
  CHECK(Ask(engine, "loadsgf " + path) == "= white\n\n");
  CHECK(Ask(engine, "tengen-rules") == "= ko=simple suicide=false komi=0.5 scoring=area\n\n");
  const std::string ours =
      dir.Write("ours.sgf", "(;SZ[5]KM[2]RU[tengen:ko=positional,suicide=1,scoring=area])");
  CHECK(Ask(engine, "loadsgf " + ours) == "= black\n\n");
  CHECK(Ask(engine, "tengen-rules") == "= ko=positional suicide=true komi=2 scoring=area\n\n");
}

TEST_CASE("gtp: loadsgf of a missing, garbage or illegal file fails cleanly") {
  TempDir dir;
  GtpEngine engine = MakeEngine(5);
  PlayAll(engine, {"b c3"});
  const std::vector<std::string> bad = {
      dir / "missing.sgf",
      dir.Write("garbage.sgf", "this is not ((( an sgf ]]"),
      dir.Write("truncated.sgf", "(;FF[4]SZ[9];B[aa];W[b"),
      dir.Write("empty_collection.sgf", "   \n"),
      dir.Write("bad_size.sgf", "(;SZ[40];B[aa])"),
      dir.Write("occupied.sgf", "(;SZ[5];B[aa];W[aa])"),
      dir.Write("off_board.sgf", "(;SZ[5];B[zz])"),
      dir.path(),
  };
  for (const std::string& path : bad) {
    INFO(path);
    const std::string answer = Ask(engine, "loadsgf " + path);
    CHECK(StartsWith(answer, "? cannot load file"));
    CHECK(answer.find('\n') == answer.size() - 2);
  }
  // A failed load leaves the game as it was.
  CHECK(engine.game().size() == 5);
  CHECK(Ask(engine, "list_stones black") == "= C3\n\n");
  CHECK(StartsWith(Ask(engine, "printsgf /nonexistent-dir/x.sgf"), "? cannot write file"));
}

TEST_CASE("gtp: arbitrary input never escapes as an exception") {
  GtpEngine engine = MakeEngine(5);
  Rng rng(2024);
  const std::vector<std::string> words = {
      // Not printsgf: with an argument it would write files into the working directory.
      "play",
      "genmove",
      "boardsize",
      "komi",
      "undo",
      "loadsgf",
      "list_stones",
      "showboard",
      "final_score",
      "clear_board",
      "known_command",
      "b",
      "w",
      "white",
      "pass",
      "a1",
      "e5",
      "t19",
      "z0",
      "-1",
      "3",
      "7",
      "1e400",
      "#",
      "12",
      "\t",
      "\x01",
      "\xff"};
  for (int i = 0; i < 3000; ++i) {
    std::string line;
    const int n = static_cast<int>(rng.Uniform(5));
    for (int w = 0; w < n; ++w) {
      if (rng.Uniform(8) == 0) {
        line += static_cast<char>(rng.Uniform(256));
      } else {
        line += words[rng.Uniform(static_cast<uint32_t>(words.size()))];
      }
      line += ' ';
    }
    bool quit = false;
    std::string answer;
    REQUIRE_NOTHROW(answer = engine.HandleLine(line, &quit));
    if (answer.empty()) continue;
    INFO(line);
    CHECK((answer[0] == '=' || answer[0] == '?'));
    CHECK(answer.substr(answer.size() - 2) == "\n\n");
    CHECK(answer.substr(0, answer.size() - 2).find("\n\n") == std::string::npos);
  }
}

TEST_CASE("gtp: Run answers each line, flushes, and stops at quit") {
  GtpEngine engine = MakeEngine(5);
  std::istringstream in("1 boardsize 5\n\n# comment\nplay b c3\n2 list_stones black\nquit\nname\n");
  std::ostringstream out;
  engine.Run(in, out);
  CHECK(out.str() == "=1 \n\n= \n\n=2 C3\n\n= \n\n");
  // End of input without quit ends the loop too.
  std::istringstream no_quit("name");
  std::ostringstream out2;
  engine.Run(no_quit, out2);
  CHECK(out2.str() == "= tengen\n\n");
}

// Records what genmove asked for and answers with a fixed reply.
class RecordingGenerator : public MoveGenerator {
 public:
  explicit RecordingGenerator(GenMoveRequest* last, GenMoveReply reply = GenMoveReply())
      : last_(last), reply_(reply) {}
  GenMoveReply GenerateMove(const go::GameState&, const GenMoveRequest& request) override {
    *last_ = request;
    return reply_;
  }

 private:
  GenMoveRequest* last_;
  GenMoveReply reply_;
};

TEST_CASE("gtp: GUI and KGS commands: cleanup genmove, clock, final_status_list") {
  GtpEngine engine = MakeEngine();
  const std::vector<std::string> names = ListedCommands(engine);
  for (const char* required :
       {"kgs-genmove_cleanup", "final_status_list", "time_settings", "time_left"}) {
    CHECK_MESSAGE(std::find(names.begin(), names.end(), required) != names.end(), required);
  }
  CHECK(Ask(engine, "kgs-genmove_cleanup") == "? syntax error\n\n");
  CHECK(Ask(engine, "kgs-genmove_cleanup red") == "? invalid color\n\n");
  CHECK(Ask(engine, "time_settings 300 30") == "? syntax error\n\n");
  CHECK(Ask(engine, "time_settings 300 30 x") == "? syntax error\n\n");
  CHECK(Ask(engine, "time_settings -1 30 5") == "? syntax error\n\n");
  CHECK(Ask(engine, "time_left b 30") == "? syntax error\n\n");
  CHECK(Ask(engine, "time_left x 30 0") == "? invalid color\n\n");
  CHECK(Ask(engine, "time_left b -3 0") == "? syntax error\n\n");
  CHECK(Ask(engine, "final_status_list") == "? syntax error\n\n");
  CHECK(StartsWith(Ask(engine, "final_status_list dying"), "? syntax error"));
  CHECK(Ask(engine, "final_status_list dead") == "= \n\n");
  CHECK(Ask(engine, "final_status_list seki") == "= \n\n");
  CHECK(Ask(engine, "play b c3") == "= \n\n");
  CHECK(Ask(engine, "final_status_list alive") == "= C3\n\n");
  // The random generator never passes in cleanup while it has a move.
  const std::string answer = Ask(engine, "kgs-genmove_cleanup w");
  CHECK(StartsWith(answer, "= "));
  CHECK(answer != "= pass\n\n");
}

TEST_CASE("gtp: the clock becomes the move's time budget") {
  GenMoveRequest last;
  GtpOptions options;
  options.board_size = 5;
  GtpEngine engine(options, std::make_unique<RecordingGenerator>(&last));
  CHECK(Ask(engine, "genmove b") == "= pass\n\n");
  CHECK(last.color == go::Color::kBlack);
  CHECK_FALSE(last.cleanup);
  CHECK(last.max_seconds == 0);  // no clock
  CHECK(Ask(engine, "kgs-genmove_cleanup white") == "= pass\n\n");
  CHECK(last.color == go::Color::kWhite);
  CHECK(last.cleanup);
  // 300 s main time on an empty 5x5 board: 90% of a tenth (25 / 3 < 10).
  CHECK(Ask(engine, "time_settings 300 30 5") == "= \n\n");
  CHECK(Ask(engine, "genmove b") == "= pass\n\n");
  CHECK(last.max_seconds == doctest::Approx(27.0));
  // Byo-yomi: 30 s for 5 stones.
  CHECK(Ask(engine, "time_left b 30 5") == "= \n\n");
  CHECK(Ask(engine, "genmove b") == "= pass\n\n");
  CHECK(last.max_seconds == doctest::Approx(5.4));
  // White's clock is its own.
  CHECK(Ask(engine, "genmove w") == "= pass\n\n");
  CHECK(last.max_seconds == doctest::Approx(27.0));
  // No time limit at all.
  CHECK(Ask(engine, "time_settings 0 0 0") == "= \n\n");
  CHECK(Ask(engine, "genmove b") == "= pass\n\n");
  CHECK(last.max_seconds == 0);

  ClockState clock;
  CHECK(MoveTimeBudget(clock, go::Board(19)) == 0);
  clock.known = true;
  clock.seconds = 600;
  CHECK(MoveTimeBudget(clock, go::Board(19)) == doctest::Approx(0.9 * 600 / 120));
  // A clock that has run out gets a moment, never "no limit".
  clock.seconds = 0;
  CHECK(MoveTimeBudget(clock, go::Board(19)) == doctest::Approx(0.01));
}

TEST_CASE("gtp: resign answers resign and plays nothing") {
  GenMoveRequest last;
  GenMoveReply resign;
  resign.resign = true;
  GtpOptions options;
  options.board_size = 5;
  GtpEngine engine(options, std::make_unique<RecordingGenerator>(&last, resign));
  CHECK(Ask(engine, "genmove b") == "= resign\n\n");
  CHECK(engine.game().moves().empty());
}

TEST_CASE("gtp: boardsize and loadsgf stop at the largest board the net plays") {
  TempDir dir;
  GtpOptions options;
  options.board_size = 9;
  options.max_board_size = 9;
  GtpEngine engine(options, std::make_unique<RandomMoveGenerator>(1));
  CHECK(Ask(engine, "boardsize 10") == "? unacceptable size\n\n");
  CHECK(Ask(engine, "boardsize 9") == "= \n\n");
  const std::string file = dir.Write("big.sgf", "(;FF[4]SZ[13];B[aa])");
  CHECK(StartsWith(Ask(engine, "loadsgf " + file), "? cannot load file"));
  CHECK(engine.game().size() == 9);
}

}  // namespace
}  // namespace tengen::gtp
