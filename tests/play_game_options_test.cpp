// The keys of a game: the parsers of devices and weighted lists, the board sizes against pos_len.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "play/game_options.h"
#include "util/error.h"

namespace tengen::play {
namespace {

TEST_CASE("game options: device lists") {
  CHECK(ParseDeviceList("devices", "cpu") == std::vector<std::string>{"cpu"});
  CHECK(ParseDeviceList("devices", " cpu , cuda:1,cuda") ==
        std::vector<std::string>{"cpu", "cuda:1", "cuda"});
  for (const char* bad : {"", "cpu,,cpu", ",cpu", "cpu,", " ", "cuda:", "cuda:x", "tpu"})
    CHECK_THROWS_AS(ParseDeviceList("devices", bad), ConfigError);
}

TEST_CASE("game options: weighted lists") {
  const auto list = ParseWeightedList("board_sizes", "9:1, 13:0.5,19", 5, 19);
  REQUIRE(list.size() == 3);
  CHECK(list[1] == std::make_pair(13.0, 0.5));
  CHECK(list[2] == std::make_pair(19.0, 1.0));
  CHECK_THROWS_AS(ParseWeightedList("board_sizes", "9:x", 5, 19), ConfigError);
  CHECK_THROWS_AS(ParseWeightedList("board_sizes", "21", 5, 19), ConfigError);
  CHECK_THROWS_AS(ParseWeightedList("board_sizes", "9:0", 5, 19), ConfigError);
  CHECK_THROWS_AS(ParseWeightedList("board_sizes", "", 5, 19), ConfigError);
  CHECK_THROWS_AS(ParseWeightedList("komis", "7:-1,8", -150, 150), ConfigError);
  try {
    ParseWeightedList("komis", "7.5:y", -150, 150);
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("komis") != std::string::npos);
  }
}

TEST_CASE("game options: every board size must fit pos_len") {
  GameParams game;
  game.pos_len = 9;
  game.board_sizes = {{7, 1.0}, {9, 0.5}};
  CHECK(CheckBoardSizes(game) == 9);
  game.board_sizes.emplace_back(11, 0.1);
  CHECK_THROWS_AS(CheckBoardSizes(game), ConfigError);
}

}  // namespace
}  // namespace tengen::play
