// The nets shipped in nets/ (trained by the strength run docs/RESULTS.md describes) load and
// play through `tengen-gtp --model nets/<name>` as on a fresh checkout, and nets/README.md
// gives the record of each.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/filesystem.hpp>

#include "gtp_test_client.h"
#include "util/version.h"

namespace tengen::gtp_test {
namespace {

namespace fs = boost::filesystem;

const std::string kBinary = TENGEN_BIN_DIR "/tengen-gtp";
const std::string kNets = TENGEN_SOURCE_DIR "/nets";

std::vector<std::string> ShippedNets() {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(kNets)) {
    if (fs::is_directory(entry.path())) names.push_back(entry.path().filename().string());
  }
  return names;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("shipped nets: each plays legal moves through tengen-gtp --model nets/NAME") {
  const std::vector<std::string> names = ShippedNets();
  REQUIRE_FALSE(names.empty());
  const std::string record = ReadFile(kNets + "/README.md");
  for (const std::string& name : names) {
    INFO(name);
    CHECK_MESSAGE(record.find(name) != std::string::npos, "nets/README.md does not name it");
    GtpClient engine({kBinary, "--model", kNets + "/" + name, "--visits", "16", "--seed", "1",
                      "--verbose", "false"});
    CHECK(engine.Must("version") == std::string(CodeVersion()) + " (" + name + ")");
    CHECK(engine.Must("boardsize 9").empty());
    for (const std::string colour : {"b", "w", "b", "w"}) {
      const std::string vertex = engine.Must("genmove " + colour);
      REQUIRE(vertex != "resign");
      if (vertex != "pass") CHECK(WordSet(engine.Must("list_stones " + colour)).count(vertex) == 1);
    }
    CHECK(engine.Must("quit").empty());
  }
}

}  // namespace
}  // namespace tengen::gtp_test
