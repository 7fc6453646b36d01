// The real tengen-gtp binary: a session over pipes, and its usage errors and --help.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gtp_test_client.h"
#include "test_support.h"
#include "util/subprocess.h"
#include "util/text.h"
#include "util/version.h"

namespace tengen::gtp_test {
namespace {

const std::string kBinary = TENGEN_BIN_DIR "/tengen-gtp";

TEST_CASE("tengen-gtp: a session over pipes") {
  GtpClient engine(
      {kBinary, "--set", "board_size=5", "--set", "seed=11", "--set", "rules.komi=0.5"});
  CHECK(engine.Must("protocol_version") == "2");
  CHECK(engine.Must("name") == "tengen");
  CHECK(engine.Must("tengen-rules") == "ko=positional suicide=false komi=0.5 scoring=area");
  CHECK(engine.Must("play b c3").empty());
  const GtpAnswer illegal = engine.Send("play w c3");
  CHECK_FALSE(illegal.ok);
  CHECK(illegal.text == "illegal move");
  const std::string board = engine.Must("showboard");
  CHECK(Contains(board, "   A B C D E"));
  CHECK(Contains(board, " 3 . . X . . 3"));
  const std::string reply = engine.Must("genmove w");
  CHECK(reply != "C3");
  CHECK(WordSet(engine.Must("list_stones white")) == WordSet(reply == "pass" ? "" : reply));
  CHECK(engine.Must("boardsize 9").empty());
  CHECK(engine.Must("final_score") == "W+0.5");
  CHECK(engine.Must("quit").empty());
  CHECK(engine.WaitForExit() == 0);  // it writes nothing more and exits
}

TEST_CASE("tengen-gtp: ids and end of input") {
  const ProcessResult result =
      RunProcess({kBinary, "--set", "seed=3"}, "1 protocol_version\n# c\n\n2 boardsize 30\n");
  CHECK(result.exit_code == 0);
  CHECK(Contains(result.output, "=1 2\n\n"));
  CHECK(Contains(result.output, "?2 unacceptable size\n\n"));
}

TEST_CASE("tengen-gtp: the shipped config file works") {
  const ProcessResult result = RunProcess(
      {kBinary, "--config", TENGEN_SOURCE_DIR "/configs/gtp.cfg", "--set", "rules.ko=simple"},
      "tengen-rules\nquit\n");
  CHECK(result.exit_code == 0);
  CHECK(Contains(result.output, "= ko=simple suicide=false komi=7.5 scoring=area\n\n"));
}

TEST_CASE("tengen-gtp: --gtp-version sets what version answers (Lizzie wants 0.N)") {
  const ProcessResult result = RunProcess({kBinary, "--gtp-version", "0.17"}, "version\nquit\n");
  CHECK(result.exit_code == 0);
  CHECK(Contains(result.output, "= 0.17\n\n"));
}

TEST_CASE("tengen-gtp: usage errors exit 2 and name the key") {
  {
    const ProcessResult result = RunProcess({kBinary, "--set", "rules.ko=bogus"}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "rules.ko"));
    CHECK(Contains(result.output, "bogus"));
  }
  {
    const ProcessResult result = RunProcess({kBinary, "--set", "nosuchkey=1"}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "nosuchkey"));
  }
  {
    const ProcessResult result = RunProcess({kBinary, "--set", "board_size=25"}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "board_size"));
  }
  {
    const ProcessResult result = RunProcess({kBinary, "--config", "/nonexistent/gtp.cfg"}, "");
    CHECK(result.exit_code == 2);  // a missing path is a usage error
    CHECK(Contains(result.output, "/nonexistent/gtp.cfg"));
  }
}

TEST_CASE("tengen-gtp: --help lists the options and exits 0") {
  const ProcessResult result = RunProcess({kBinary, "--help"});
  CHECK(result.exit_code == 0);
  for (const char* key : {"rules.komi", "rules.ko", "rules.suicide", "board_size", "seed",
                          "max_moves", "model", "models_dir", "device", "precision", "visits",
                          "seconds_per_move", "threads", "reuse_tree", "resign", "pos_len"}) {
    CHECK_MESSAGE(Contains(result.output, key), key);
  }
}

TEST_CASE("tengen-gtp: MCTS with the random net, threads and a GUI's session") {
  GtpClient engine(
      {kBinary, "--visits", "40", "--threads", "2", "--seed", "5", "--verbose", "false"});
  CHECK(engine.Must("version") == std::string(CodeVersion()) + " (random)");
  CHECK(engine.Must("boardsize 7").empty());
  CHECK(engine.Must("clear_board").empty());
  CHECK(engine.Must("komi 6.5").empty());
  CHECK(engine.Must("time_settings 60 10 5").empty());
  std::string colour = "b";
  for (int move = 0; move < 12; ++move) {
    CHECK(engine.Must("time_left " + colour + " 60 0").empty());
    const std::string vertex = engine.Must("genmove " + colour);
    if (vertex != "pass") {
      CHECK(WordSet(engine.Must("list_stones " + colour)).count(vertex) == 1);
    }
    colour = colour == "b" ? "w" : "b";
  }
  CHECK(engine.Must("undo").empty());
  CHECK(Contains(engine.Must("showboard"), "A B C D E F G"));
  const std::string score = engine.Must("final_score");
  CHECK((score[0] == 'B' || score[0] == 'W' || score == "0"));
  CHECK(engine.Must("known_command kgs-genmove_cleanup") == "true");
  CHECK(engine.Must("quit").empty());
}

TEST_CASE("tengen-gtp: model options are checked before play") {
  testing::TempDir dir;
  {
    const ProcessResult result = RunProcess({kBinary, "--model", dir / "nonexistent"}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "nonexistent"));
  }
  {
    const ProcessResult result =
        RunProcess({kBinary, "--model", dir.path(), "--models-dir", dir.path()}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "not both"));
  }
  {
    const ProcessResult result = RunProcess({kBinary, "--models-dir", dir.path()}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "no model"));
  }
  {
    const ProcessResult result =
        RunProcess({kBinary, "--visits", "0", "--seconds-per-move", "0"}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "seconds_per_move"));
  }
  {
    // Without a model the planes are 19 wide, so a larger board_size is out of range.
    const ProcessResult result =
        RunProcess({kBinary, "--pos-len", "9", "--board-size", "13"}, "quit\n");
    CHECK(result.exit_code == 2);
    CHECK(Contains(result.output, "board_size"));
  }
  {
    const ProcessResult result =
        RunProcess({kBinary, "--pos-len", "9", "--seed", "1"}, "boardsize 13\nboardsize 9\nquit\n");
    CHECK(result.exit_code == 0);
    CHECK(Contains(result.output, "? unacceptable size\n\n= \n\n"));
  }
}

}  // namespace
}  // namespace tengen::gtp_test
