// Handicap over GTP: fixed_handicap against GNU Go's placement on every size and count,
// place_free_handicap and set_free_handicap, AB/HA through printsgf and loadsgf, and handicap
// games between tengen-gtp and GNU Go that both score alike.
//
// Scoring: tengen counts area as Tromp-Taylor does, handicap stones like any other stones and
// no compensation for white beyond komi; GNU Go's Chinese rules give white one point per
// handicap stone. So tengen plays with komi + N where GNU Go has komi, and the two counts must
// then agree (go/handicap.h).

#include <doctest/doctest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gtp/gtp_engine.h"
#include "gtp_test_client.h"
#include "test_support.h"

namespace tengen::gtp_test {
namespace {

using tengen::testing::TempDir;

const std::string kTengen = TENGEN_BIN_DIR "/tengen-gtp";
const std::string kGnuGo = "/usr/games/gnugo";

void RequireGnuGo() {
  REQUIRE_MESSAGE(
      access(kGnuGo.c_str(), X_OK) == 0,
      "GNU Go is not installed at " << kGnuGo << ": install it with `apt-get install -y gnugo`");
}

std::unique_ptr<gtp::GtpEngine> MakeEngine(int size) {
  gtp::GtpOptions options;
  options.board_size = size;
  return std::make_unique<gtp::GtpEngine>(options, std::make_unique<gtp::RandomMoveGenerator>(1));
}

std::string Ask(gtp::GtpEngine& engine, const std::string& line) {
  bool quit = false;
  return engine.HandleLine(line, &quit);
}

// "= A1 B2\n\n" -> "A1 B2"; "" for an error answer.
std::string Text(const std::string& answer) {
  if (answer.rfind("= ", 0) != 0) return "";
  return answer.substr(2, answer.size() - 4);
}

TEST_CASE("handicap: fixed_handicap places what GNU Go places, and refuses what it refuses") {
  RequireGnuGo();
  GtpClient gnugo({kGnuGo, "--mode", "gtp", "--chinese-rules"});
  for (int size = 5; size <= 19; ++size) {
    gnugo.Must("boardsize " + std::to_string(size));
    const auto engine = MakeEngine(size);
    for (int stones = 0; stones <= 10; ++stones) {
      INFO("size " << size << ", " << stones << " stones");
      gnugo.Must("clear_board");
      Ask(*engine, "clear_board");
      const GtpAnswer expected = gnugo.Send("fixed_handicap " + std::to_string(stones));
      const std::string answer = Ask(*engine, "fixed_handicap " + std::to_string(stones));
      CHECK(answer.rfind(expected.ok ? "= " : "? ", 0) == 0);
      if (!expected.ok) continue;
      CHECK(WordSet(Text(answer)) == WordSet(expected.text));
      CHECK(WordSet(Text(Ask(*engine, "list_stones black"))) == WordSet(expected.text));
      CHECK(engine->game().to_move() == go::Color::kWhite);
      CHECK(engine->game().moves().empty());
    }
  }
  gnugo.Must("quit");
}

TEST_CASE("handicap: free placement, errors, and AB/HA kept through SGF") {
  TempDir dir;
  const auto engine = MakeEngine(9);
  CHECK(Ask(*engine, "place_free_handicap 1") == "? invalid number of stones\n\n");
  CHECK(Ask(*engine, "place_free_handicap 81") == "? invalid number of stones\n\n");
  for (const int stones : {2, 5, 9, 12, 30, 80}) {
    INFO(stones << " stones");
    Ask(*engine, "clear_board");
    const std::string answer = Text(Ask(*engine, "place_free_handicap " + std::to_string(stones)));
    CHECK(WordSet(answer).size() == static_cast<size_t>(stones));
    CHECK(WordSet(Text(Ask(*engine, "list_stones black"))) == WordSet(answer));
    CHECK(engine->game().to_move() == go::Color::kWhite);
  }
  Ask(*engine, "clear_board");
  // The fixed points, as far as they go.
  CHECK(WordSet(Text(Ask(*engine, "place_free_handicap 4"))) == WordSet("C3 G7 C7 G3"));

  Ask(*engine, "clear_board");
  CHECK(Ask(*engine, "set_free_handicap C3") == "? bad vertex list\n\n");
  CHECK(Ask(*engine, "set_free_handicap C3 C3") == "? bad vertex list\n\n");
  CHECK(Ask(*engine, "set_free_handicap C3 pass") == "? bad vertex list\n\n");
  CHECK(Ask(*engine, "set_free_handicap C3 Z9") == "? bad vertex list\n\n");
  CHECK(Ask(*engine, "set_free_handicap C3 G7 E5") == "= \n\n");
  CHECK(Ask(*engine, "set_free_handicap D4 F6") == "? board not empty\n\n");
  CHECK(Ask(*engine, "fixed_handicap 2") == "? board not empty\n\n");
  CHECK(Ask(*engine, "play w E3") == "= \n\n");
  CHECK(Ask(*engine, "play b D3") == "= \n\n");

  const std::string sgf = Text(Ask(*engine, "printsgf"));
  CHECK(sgf.find("HA[3]") != std::string::npos);
  CHECK(sgf.find("AB[") != std::string::npos);
  const std::string file = dir.Write("handicap.sgf", sgf);
  const auto loaded = MakeEngine(9);
  CHECK(Ask(*loaded, "loadsgf " + file) == "= white\n\n");
  CHECK(Text(Ask(*loaded, "printsgf")) == sgf);
  CHECK(WordSet(Text(Ask(*loaded, "list_stones black"))) == WordSet("C3 G7 E5 D3"));
  // Before the first move: the handicap stones alone, white to move.
  CHECK(Ask(*loaded, "loadsgf " + file + " 1") == "= white\n\n");
  CHECK(WordSet(Text(Ask(*loaded, "list_stones black"))) == WordSet("C3 G7 E5"));
  // clear_board forgets the handicap.
  Ask(*loaded, "clear_board");
  CHECK(Text(Ask(*loaded, "printsgf")).find("HA[") == std::string::npos);
}

// A handicap game on 9x9: GNU Go (black) places the stones, tengen-gtp plays white's first
// moves (a few: with the random net it plays no better than random, and white should keep
// stones on the board to make the count worth comparing), then GNU Go plays both colours to
// the end capturing every dead stone (--capture-all-dead), so that the area count does not
// depend on judging dead stones.
void HandicapGame(int stones, bool free_placement, int seed) {
  RequireGnuGo();
  const double komi = 0.5;
  GtpClient gnugo({kGnuGo, "--mode", "gtp", "--chinese-rules", "--capture-all-dead",
                   "--never-resign", "--level", "1", "--seed", std::to_string(seed)});
  GtpClient tengen({kTengen, "--set", "visits=30", "--set", "seed=" + std::to_string(seed)});
  for (GtpClient* engine : {&gnugo, &tengen}) engine->Must("boardsize 9");
  gnugo.Must("komi " + std::to_string(komi));
  tengen.Must("komi " + std::to_string(komi + stones));
  std::string placed;
  if (free_placement) {
    placed = gnugo.Must("place_free_handicap " + std::to_string(stones));
    tengen.Must("set_free_handicap " + placed);
  } else {
    placed = gnugo.Must("fixed_handicap " + std::to_string(stones));
    CHECK(WordSet(tengen.Must("fixed_handicap " + std::to_string(stones))) == WordSet(placed));
  }
  CHECK(WordSet(tengen.Must("list_stones black")) == WordSet(placed));

  const int tengen_plies = 8;
  int passes = 0;
  int ply = 0;
  std::string history;
  for (; passes < 2 && ply < 400; ++ply) {
    const std::string color = ply % 2 == 0 ? "w" : "b";  // white first after the handicap
    const bool tengen_moves = color == "w" && ply < tengen_plies;
    GtpClient& mover = tengen_moves ? tengen : gnugo;
    std::string move = mover.Must("genmove " + color);
    for (char& c : move) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    REQUIRE(move != "RESIGN");
    history += color + " " + move + "; ";
    GtpClient& other = tengen_moves ? gnugo : tengen;
    const GtpAnswer answer = other.Send("play " + color + " " + move);
    REQUIRE_MESSAGE(answer.ok, "refused " << color << " " << move << "; moves: " << history);
    passes = move == "PASS" ? passes + 1 : 0;
  }
  REQUIRE(passes == 2);
  CHECK(WordSet(tengen.Must("list_stones black")) == WordSet(gnugo.Must("list_stones black")));
  CHECK(WordSet(tengen.Must("list_stones white")) == WordSet(gnugo.Must("list_stones white")));
  // Every dead stone was captured, so both engines count the same area.
  REQUIRE(gnugo.Must("final_status_list dead").empty());
  const std::string score = tengen.Must("final_score");
  const std::string placement = free_placement ? "free" : "fixed";
  MESSAGE(stones << " stones (" << placement << "), " << ply << " plies, "
                 << WordSet(tengen.Must("list_stones white")).size()
                 << " white stones at the end: tengen " << score << ", GNU Go "
                 << gnugo.Must("final_score"));
  CHECK(score == gnugo.Must("final_score"));
  tengen.Must("quit");
  gnugo.Must("quit");
}

TEST_CASE("handicap: games against GNU Go are scored alike by both engines") {
  HandicapGame(/*stones=*/2, /*free_placement=*/false, 1);
  HandicapGame(/*stones=*/4, /*free_placement=*/false, 2);
  HandicapGame(/*stones=*/3, /*free_placement=*/true, 3);
}

}  // namespace
}  // namespace tengen::gtp_test
