// SGF reading and writing: golden strings, round trips, foreign-file features (escapes, FF[3]
// identifiers, variations, compressed point lists), error messages, and replay into games.

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "go/board.h"
#include "go/game.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "test_support.h"
#include "util/error.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::go {
namespace {

Loc P(int x, int y, int size) { return MakeLoc(x, y, size); }

Move M(Color color, int x, int y, int size) { return Move{P(x, y, size), color}; }
Move Pass(Color color) { return Move{kPassLoc, color}; }

// The message of the FormatError that `f` throws, or "" when it throws none.
template <typename F>
std::string FormatErrorOf(F f) {
  try {
    f();
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

void CheckSameRecord(const SgfRecord& a, const SgfRecord& b) {
  CHECK(a.size == b.size);
  CHECK(a.rules == b.rules);
  CHECK(a.black_player == b.black_player);
  CHECK(a.white_player == b.white_player);
  CHECK(a.result == b.result);
  CHECK(a.date == b.date);
  CHECK(a.setup_black == b.setup_black);
  CHECK(a.setup_white == b.setup_white);
  CHECK(a.first_player == b.first_player);
  CHECK(a.root_comment == b.root_comment);
  CHECK(a.extra_properties == b.extra_properties);
  CHECK(a.moves == b.moves);
  CHECK(a.move_comments == b.move_comments);
}

SgfRecord ReadOne(const std::string& text) {
  const std::vector<SgfRecord> records = ReadSgfRecords(text);
  REQUIRE(records.size() == 1);
  return records.front();
}

TEST_CASE("sgf writer golden output") {
  SgfRecord record;
  record.size = 9;
  record.moves = {M(Color::kBlack, 2, 2, 9), Pass(Color::kWhite)};
  CHECK(WriteSgf(record) ==
        "(;FF[4]GM[1]SZ[9]KM[7.5]RU[tengen:ko=positional,suicide=0,scoring=area];B[cc];W[])");

  record.rules.komi = 6;
  record.black_player = "net-a";
  record.result = "B+R";
  record.setup_black = {P(3, 3, 9)};
  record.root_comment = "a]b";
  record.extra_properties = {{"GN", "x"}, {"GN", "y"}, {"SO", "seed=42"}};
  record.move_comments = {"", "c\\d"};
  CHECK(WriteSgf(record) ==
        "(;FF[4]GM[1]SZ[9]KM[6]RU[tengen:ko=positional,suicide=0,scoring=area]PB[net-a]"
        "RE[B+R]AB[dd]C[a\\]b]GN[x][y]SO[seed=42];B[cc];W[]C[c\\\\d])");

  record.rules.komi = -0.5;
  CHECK(Contains(WriteSgf(record), "KM[-0.5]"));
  record.rules.komi = 0.1;
  CHECK(Contains(WriteSgf(record), "KM[0.1]"));
}

TEST_CASE("sgf round trip keeps every field") {
  SgfRecord record;
  record.size = 13;
  record.rules.ko = KoRule::kSimple;
  record.rules.suicide = true;
  record.rules.komi = 6.5;
  record.black_player = "black net [v2]";
  record.white_player = "white\\net";
  record.result = "W+R";
  record.date = "2024-05-06";
  record.setup_black = {P(3, 3, 13), P(9, 9, 13), P(0, 12, 13)};
  record.setup_white = {P(9, 3, 13), P(12, 0, 13)};
  record.first_player = Color::kWhite;
  record.root_comment = "root ] and \\ and\nnewline";
  record.extra_properties = {{"GN", "game 7"}, {"SO", "seed=42"}};
  record.moves = {M(Color::kWhite, 2, 10, 13),  M(Color::kBlack, 6, 6, 13), Pass(Color::kWhite),
                  M(Color::kBlack, 12, 12, 13), Pass(Color::kWhite),        Pass(Color::kBlack)};
  record.move_comments = {"first", "", "a]b\\c\r\nd", "", "", "end"};

  const std::string text = WriteSgf(record);
  CHECK(text.find('\n') == std::string::npos);
  CHECK(text.find('\r') == std::string::npos);
  const SgfRecord read = ReadOne(text);
  // Line breaks in text become spaces so that a game stays on one line; all else survives.
  SgfRecord expected = record;
  expected.root_comment = "root ] and \\ and newline";
  expected.move_comments[2] = "a]b\\c d";
  CheckSameRecord(read, expected);
  // Writing what was read gives the same text again.
  CHECK(WriteSgf(read) == text);

  SgfRecord second;
  second.size = 9;
  second.rules.komi = -3;
  second.moves = {M(Color::kBlack, 0, 0, 9), M(Color::kWhite, 8, 8, 9)};
  const std::string second_text = WriteSgf(second);
  CHECK(Contains(second_text, "KM[-3]"));
  CHECK(!Contains(second_text, "PL["));
  CheckSameRecord(ReadOne(second_text), second);

  SgfRecord white_first_no_moves;
  white_first_no_moves.first_player = Color::kWhite;
  CheckSameRecord(ReadOne(WriteSgf(white_first_no_moves)), white_first_no_moves);
}

TEST_CASE("sgf reader handles foreign files") {
  // FF[3] mixed-case and lowercase identifiers, escapes, a soft line break (also CRLF), a
  // compressed point list, whitespace everywhere, "tt" and [] passes, and variations of which
  // only the first at every fork is kept.
  const std::string text =
      "\xEF\xBB\xBF  (;GM[1]FF[3]SZ[9]KoMi[5.5]RU[Chinese]\n"
      "  PlayerBlack[Alice \\] Smith]PW[Bob\\\\]GN[x]\n"
      "  C[line one\\\ncontinued, \\\r\nand kept\nline]\n"
      "  AddBlack[aa:bc] [ee]\n AW [ii]\n"
      "  ;b[cc]\n"
      "  (\n ;W[gg]C[main\\]line]\n"
      "    ;B[tt]\n"
      "    (;W[])\n"
      "    (;W[ha];B[hb]))\n"
      "  (;W[hh];B[ab])\n"
      ")\n";
  const std::vector<std::vector<SgfNode>> lines = ParseSgfCollection(text);
  REQUIRE(lines.size() == 1);
  REQUIRE(lines[0].size() == 5);
  CHECK(lines[0][0].Get("KM") == "5.5");
  CHECK(lines[0][0].Get("PB") == "Alice ] Smith");
  CHECK(lines[0][0].Find("AB") != nullptr);
  CHECK(*lines[0][0].Find("AB") == std::vector<std::string>{"aa:bc", "ee"});
  CHECK(lines[0][0].Find("NOPE") == nullptr);
  CHECK(lines[0][0].Get("NOPE", "fallback") == "fallback");
  CHECK(lines[0][1].Get("B") == "cc");

  const SgfRecord record = ReadOne(text);
  CHECK(record.size == 9);
  CHECK(record.rules.komi == 5.5);
  CHECK(record.rules.ko == KoRule::kPositional);
  CHECK(!record.rules.suicide);
  CHECK(record.black_player == "Alice ] Smith");
  CHECK(record.white_player == "Bob\\");
  CHECK(record.root_comment == "line onecontinued, and kept\nline");
  CHECK(record.extra_properties == std::vector<std::pair<std::string, std::string>>{{"GN", "x"}});
  CHECK(record.setup_black == std::vector<Loc>{P(0, 0, 9), P(1, 0, 9), P(0, 1, 9), P(1, 1, 9),
                                               P(0, 2, 9), P(1, 2, 9), P(4, 4, 9)});
  CHECK(record.setup_white == std::vector<Loc>{P(8, 8, 9)});
  CHECK(record.first_player == Color::kBlack);
  CHECK(record.moves == std::vector<Move>{M(Color::kBlack, 2, 2, 9), M(Color::kWhite, 6, 6, 9),
                                          Pass(Color::kBlack), Pass(Color::kWhite)});
  CHECK(record.move_comments == std::vector<std::string>{"", "main]line", "", ""});
}

TEST_CASE("sgf setup before the first move, PL, and defaults") {
  // Game info in the root, handicap in the next node (as some servers write), AE removing one.
  const SgfRecord record =
      ReadOne("(;SZ[19]C[info];AB[dd][pp][dp];AE[dp]PL[W]C[handicap];W[qd]C[w1];C[note])");
  CHECK(record.size == 19);
  CHECK(record.rules == Rules());
  CHECK(record.setup_black == std::vector<Loc>{P(3, 3, 19), P(15, 15, 19)});
  CHECK(record.first_player == Color::kWhite);
  CHECK(record.root_comment == "info\nhandicap");
  CHECK(record.moves == std::vector<Move>{M(Color::kWhite, 16, 3, 19)});
  // A comment on a node without a move belongs to the move before it.
  CHECK(record.move_comments == std::vector<std::string>{"w1\nnote"});

  // No SZ: 19x19; the square form SZ[9:9]; a move in the root; unknown RU keeps defaults.
  CHECK(ReadOne("(;B[ss])").moves == std::vector<Move>{M(Color::kBlack, 18, 18, 19)});
  const SgfRecord square = ReadOne("(;SZ[9:9]RU[Martian]KM[0]W[ab])");
  CHECK(square.size == 9);
  CHECK(square.rules.ko == KoRule::kPositional);
  CHECK(square.rules.komi == 0);
  CHECK(square.first_player == Color::kWhite);
  CHECK(square.moves == std::vector<Move>{M(Color::kWhite, 0, 1, 9)});
  CHECK(ReadOne("(;RU[tengen:ko=simple,suicide=1,scoring=area])").rules.suicide);
}

TEST_CASE("sgf collections and sgfs files hold several games") {
  const std::vector<SgfRecord> records =
      ReadSgfRecords("(;SZ[9];B[aa])(;SZ[7];B[bb];W[cc])\n\n  (;SZ[5]KM[0.5])");
  REQUIRE(records.size() == 3);
  CHECK(records[0].size == 9);
  CHECK(records[1].moves.size() == 2);
  CHECK(records[2].size == 5);
  CHECK(records[2].rules.komi == 0.5);
  CHECK(ReadSgfRecords("").empty());
  CHECK(ReadSgfRecords(" \n ").empty());

  const tengen::testing::TempDir dir;
  const std::string path = dir / "games.sgfs";
  std::vector<SgfRecord> written;
  {
    std::ofstream out(path);
    for (int i = 0; i < 4; ++i) {
      SgfRecord record;
      record.size = 5 + i;
      record.result = "B+" + std::to_string(i);
      record.moves = {M(Color::kBlack, i, 0, 5 + i), Pass(Color::kWhite)};
      written.push_back(record);
      out << WriteSgf(record) << "\n";
    }
  }
  const std::vector<SgfRecord> read = ReadSgfFile(path);
  REQUIRE(read.size() == written.size());
  for (size_t i = 0; i < read.size(); ++i) CheckSameRecord(read[i], written[i]);

  // A broken third line: the error names the file, the game and its line.
  {
    std::ofstream out(path, std::ios::app);
    out << "(;SZ[9];B[aa])\n(;SZ[9];B[zz])\n";
  }
  const std::string error = FormatErrorOf([&] { ReadSgfFile(path); });
  CHECK(Contains(error, path));
  CHECK(Contains(error, "game 6 (line 6)"));
  CHECK(Contains(error, "B[zz]"));

  const std::string missing = dir / "missing.sgf";
  bool io_error = false;
  try {
    ReadSgfFile(missing);
  } catch (const IoError& e) {
    io_error = Contains(e.what(), missing);
  }
  CHECK(io_error);
  CHECK_THROWS_AS(ReadSgfFile(dir.path()), IoError);
}

TEST_CASE("sgf games read one by one: a truncated collection keeps the games before the break") {
  const tengen::testing::TempDir dir;
  const std::string path =
      dir.Write("cut.sgfs", "(;SZ[9];B[aa])\n(;SZ[9];B[zz])\n(;SZ[7];B[bb])\n(;SZ[9];B[cc];W[");
  const std::vector<SgfGame> games = ReadSgfFileGames(path);
  REQUIRE(games.size() == 4);
  CHECK(games[0].error.empty());
  CHECK(games[0].record.size == 9);
  CHECK(Contains(games[1].error, "SGF game 2 (line 2)"));  // B[zz] is off the board
  CHECK(games[2].error.empty());
  CHECK(games[2].record.size == 7);
  CHECK(Contains(games[3].error, "SGF game 4 and the rest of the file: SGF line 4"));
  CHECK(Contains(games[3].error, "missing ']'"));
  // Damage before the first game: nothing to keep, an error naming the file.
  const std::string bad = dir.Write("bad.sgf", "((( no");
  const std::string error = FormatErrorOf([&] { ReadSgfFileGames(bad); });
  CHECK(Contains(error, bad));
}

TEST_CASE("sgf malformed input gives FormatError with its place") {
  std::string e = FormatErrorOf([] { ParseSgfCollection("(;SZ[9]\n;B[aa]C[oops\n)"); });
  CHECK(Contains(e, "line 2, column 8"));
  CHECK(Contains(e, "unterminated"));

  e = FormatErrorOf([] { ParseSgfCollection("\n  ;B[aa]"); });
  CHECK(Contains(e, "line 2, column 3"));
  CHECK(Contains(e, "expected '('"));

  e = FormatErrorOf([] { ParseSgfCollection("(;B[aa]\n(;W[bb])"); });
  CHECK(Contains(e, "line 1, column 1"));
  CHECK(Contains(e, "not closed"));

  CHECK(Contains(FormatErrorOf([] { ParseSgfCollection("(;SZ[9]B;W[aa])"); }), "no value"));
  CHECK(Contains(FormatErrorOf([] { ParseSgfCollection("()"); }), "empty game tree"));
  CHECK(Contains(FormatErrorOf([] { ParseSgfCollection("(;B[aa](;W[bb]);B[cc])"); }), "column 16"));
  CHECK(Contains(FormatErrorOf([] { ParseSgfCollection("(;B[aa]1)"); }), "unexpected '1'"));
  CHECK(Contains(FormatErrorOf([] { ParseSgfCollection("(;C[abc\\"); }), "unterminated"));

  e = FormatErrorOf([] { ReadSgfRecords("(;SZ[9]\n;B[cc]\n;W[zz])"); });
  CHECK(Contains(e, "line 1"));
  CHECK(Contains(e, "move 2"));
  CHECK(Contains(e, "W[zz]"));
  CHECK(Contains(e, "9x9"));
  // "tt" is the traditional (FF[3]) pass, whatever the board size up to 19.
  CHECK(ReadOne("(;SZ[9];B[tt])").moves == std::vector<Move>{Pass(Color::kBlack)});
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[9];B[j])"); }), "move 1"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[9];B[ja])"); }), "B[ja]"));

  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[25])"); }), "SZ[25]"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[1])"); }), "SZ[1]"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[9:13])"); }), "non-square"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[nine])"); }), "SZ[nine]"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;KM[lots])"); }), "KM[lots]"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;GM[2])"); }), "GM[2]"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[9]AB[aa:zz])"); }), "AB[aa:zz]"));
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[9];B[aa]W[bb])"); }), "both"));
  // Setup after a move cannot be a record's initial position.
  CHECK(Contains(FormatErrorOf([] { ReadSgfRecords("(;SZ[9];B[aa];AW[bb])"); }), "node 2"));
}

TEST_CASE("sgf replay plays captures and stops early") {
  // White's corner stone at A9 is captured by B9 ... A8.
  const SgfRecord record = ReadOne("(;SZ[9]KM[6.5];B[ba];W[aa];B[ab];W[ee])");
  const GameState game = ReplaySgf(record);
  CHECK(game.board().ToAscii() ==
        ". X . . . . . . .\n"
        "X . . . . . . . .\n"
        ". . . . . . . . .\n"
        ". . . . . . . . .\n"
        ". . . . O . . . .\n"
        ". . . . . . . . .\n"
        ". . . . . . . . .\n"
        ". . . . . . . . .\n"
        ". . . . . . . . .\n");
  CHECK(game.board().CapturedCount(Color::kWhite) == 1);
  CHECK(game.moves().size() == 4);
  CHECK(game.to_move() == Color::kBlack);
  CHECK(game.rules().komi == 6.5);

  const GameState early = ReplaySgf(record, 2);
  CHECK(early.moves().size() == 2);
  CHECK(early.board().At(P(0, 0, 9)) == Color::kWhite);
  CHECK(early.board().At(P(0, 1, 9)) == Color::kEmpty);
  CHECK(early.to_move() == Color::kBlack);
  CHECK(ReplaySgf(record, 0).moves().empty());
  CHECK(ReplaySgf(record, 100).moves().size() == 4);

  // Setup stones and white to move.
  const GameState setup = ReplaySgf(ReadOne("(;SZ[5]AB[aa][bb]AW[cc]PL[W])"), -1, 50);
  CHECK(setup.board().At(P(1, 1, 5)) == Color::kBlack);
  CHECK(setup.board().At(P(2, 2, 5)) == Color::kWhite);
  CHECK(setup.to_move() == Color::kWhite);
  CHECK(setup.max_moves() == 50);
}

TEST_CASE("sgf replay rejects illegal records") {
  std::string e = FormatErrorOf([] { ReplaySgf(ReadOne("(;SZ[9];B[cc];W[dd];B[dd])")); });
  CHECK(Contains(e, "move 3"));
  CHECK(Contains(e, "D6"));
  CHECK(Contains(e, "occupied"));

  // Multi-stone suicide (W B5 joining A5) is illegal by default and legal with suicide=1.
  const std::string suicide =
      "(;SZ[5]RU[tengen:ko=positional,suicide=%]AB[ca][ab][bb]AW[aa]"
      ";W[ba])";
  std::string no = suicide;
  no.replace(no.find('%'), 1, "0");
  e = FormatErrorOf([&] { ReplaySgf(ReadOne(no)); });
  CHECK(Contains(e, "move 1"));
  CHECK(Contains(e, "B5"));
  CHECK(Contains(e, "suicide"));
  std::string yes = suicide;
  yes.replace(yes.find('%'), 1, "1");
  const GameState allowed = ReplaySgf(ReadOne(yes));
  CHECK(allowed.board().At(P(0, 0, 5)) == Color::kEmpty);
  CHECK(allowed.board().At(P(1, 0, 5)) == Color::kEmpty);
  CHECK(allowed.board().CapturedCount(Color::kWhite) == 2);

  // Setup that leaves a chain without liberties.
  CHECK(Contains(FormatErrorOf([] { ReplaySgf(ReadOne("(;SZ[5]AB[aa]AW[ba][ab])")); }), "setup"));
}

TEST_CASE("sgf RecordFromGame round trip reproduces a played game") {
  Board initial(9);
  initial.SetStone(P(2, 2, 9), Color::kBlack);
  initial.SetStone(P(6, 6, 9), Color::kBlack);
  initial.SetStone(P(6, 2, 9), Color::kWhite);
  Rules rules;
  rules.ko = KoRule::kSimple;
  rules.komi = 0.5;
  GameState game(initial, rules, Color::kWhite);
  Rng rng(20240506);
  while (!game.IsOver() && game.moves().size() < 250) {
    std::vector<Loc> legal;
    for (int y = 0; y < 9; ++y) {
      for (int x = 0; x < 9; ++x) {
        const Move move{P(x, y, 9), game.to_move()};
        if (game.IsLegal(move) && !game.board().IsSimpleEye(move.loc, move.color)) {
          legal.push_back(move.loc);
        }
      }
    }
    const bool pass = legal.empty() || rng.Uniform(40) == 0;
    game.Play(Move{pass ? kPassLoc : legal[rng.Uniform(static_cast<uint32_t>(legal.size()))],
                   game.to_move()});
  }
  REQUIRE(game.moves().size() > 40);
  REQUIRE(game.board().CapturedCount(Color::kBlack) + game.board().CapturedCount(Color::kWhite) >
          0);

  SgfRecord record = RecordFromGame(game);
  CHECK(record.size == 9);
  CHECK(record.rules == rules);
  CHECK(record.first_player == Color::kWhite);
  CHECK(record.setup_black == std::vector<Loc>{P(2, 2, 9), P(6, 6, 9)});
  CHECK(record.setup_white == std::vector<Loc>{P(6, 2, 9)});
  record.result = "W+R";

  const SgfRecord read = ReadOne(WriteSgf(record));
  CheckSameRecord(read, record);
  const GameState replayed = ReplaySgf(read);
  CHECK(replayed.board().hash() == game.board().hash());
  CHECK(replayed.board().ToAscii() == game.board().ToAscii());
  CHECK(replayed.initial_board().hash() == game.initial_board().hash());
  CHECK(replayed.moves() == game.moves());
  CHECK(replayed.to_move() == game.to_move());
  CHECK(replayed.rules() == game.rules());
}

}  // namespace
}  // namespace tengen::go
