// tengen-gtp with a real (freshly initialised, tiny) net: a b1c16 model saved with
// TorchModel::Create + Save is played through --model and --models-dir; moves are legal, the
// version names the model, the model's pos_len bounds boardsize, and cleanup works with a net.
// nn/torch/net.h is not included here, so doctest's CHECK is the one in force.

#include <doctest/doctest.h>

#include <string>

#include "gtp_test_client.h"
#include "nn/model_config.h"
#include "nn/torch/model.h"
#include "test_support.h"
#include "util/publish.h"
#include "util/version.h"

namespace tengen::gtp_test {
namespace {

const std::string kBinary = TENGEN_BIN_DIR "/tengen-gtp";

void SaveTinyModel(const std::string& dir, const std::string& name, uint64_t seed) {
  nn::ModelConfig config;
  nn::ParseArchitecture("b1c16", &config);
  config.pos_len = 7;
  config.name = name;
  nn::TorchModel::Create(config, seed)->Save(dir + "/" + name);
}

// Plays `moves` genmoves alternating colours; each must be a legal move the engine then shows.
void PlaySome(GtpClient& engine, int moves, const std::string& command = "genmove") {
  for (int i = 0; i < moves; ++i) {
    const std::string colour = i % 2 == 0 ? "b" : "w";
    const std::string vertex = engine.Must(command + " " + colour);
    REQUIRE(vertex != "resign");
    if (vertex != "pass") CHECK(WordSet(engine.Must("list_stones " + colour)).count(vertex) == 1);
  }
}

TEST_CASE("tengen-gtp plays with a b1c16 net from --model and --models-dir") {
  testing::TempDir base;
  const std::string models = base / "models";
  EnsureDirectory(models);
  SaveTinyModel(models, "run-t-s5-d1", 1);
  SaveTinyModel(models, "run-t-s100-d20", 2);
  {
    GtpClient engine({kBinary, "--model", models + "/run-t-s5-d1", "--visits", "24", "--seed", "1",
                      "--precision", "fp32", "--verbose", "false"});
    CHECK(engine.Must("version") == std::string(CodeVersion()) + " (run-t-s5-d1)");
    // The net was made for 7x7 planes: that is the largest board and the starting size.
    CHECK_FALSE(engine.Send("boardsize 9").ok);
    CHECK(engine.Must("showboard").find(" 7 . . . . . . . 7") != std::string::npos);
    CHECK(engine.Must("boardsize 5").empty());
    PlaySome(engine, 10);
    CHECK(engine.Must("boardsize 7").empty());
    PlaySome(engine, 6);
    PlaySome(engine, 4, "kgs-genmove_cleanup");
    CHECK(engine.Must("quit").empty());
  }
  {
    // The newest by samples, with two search threads sharing the batching server.
    GtpClient engine({kBinary, "--models-dir", models, "--visits", "32", "--threads", "2", "--seed",
                      "2", "--precision", "fp32", "--verbose", "false"});
    CHECK(engine.Must("version") == std::string(CodeVersion()) + " (run-t-s100-d20)");
    PlaySome(engine, 8);
    CHECK(engine.Must("quit").empty());
  }
}

}  // namespace
}  // namespace tengen::gtp_test
