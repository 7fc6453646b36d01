// The real tengen-gtp binary: a session over pipes, and its usage errors and --help.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gtp_test_client.h"
#include "util/subprocess.h"

namespace tengen::gtp_test {
namespace {

const std::string kBinary = TENGEN_BIN_DIR "/tengen-gtp";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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
  std::string line;
  CHECK_FALSE(engine.process().ReadLine(&line));  // it exits after quit
  CHECK(engine.process().Wait() == 0);
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
  for (const char* key :
       {"rules.komi", "rules.ko", "rules.suicide", "board_size", "seed", "max_moves"}) {
    CHECK_MESSAGE(Contains(result.output, key), key);
  }
}

}  // namespace
}  // namespace tengen::gtp_test
