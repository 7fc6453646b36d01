// The exporter's real snapshot check and the tengen-exporter and tengen-gatekeeper programs on
// real (tiny, freshly initialised) nets: a snapshot goes through the exporter into
// modelstobetested/ and through the gatekeeper into models/ or rejectedmodels/; broken
// snapshots are moved aside.

// Debian's libtorch pulls in glog, whose CHECK macros would replace doctest's: torch comes
// first so that doctest's definitions win.
#include "nn/torch/net.h"

#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <boost/filesystem.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "go/sgf.h"
#include "nn/torch/model.h"
#include "pipeline/base_dir.h"
#include "pipeline/exporter.h"
#include "pipeline/torch/torch_export.h"
#include "selfplay_check.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/rng.h"
#include "util/subprocess.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using nlohmann::json;

const std::string kExporter = TENGEN_BIN_DIR "/tengen-exporter";
const std::string kGatekeeper = TENGEN_BIN_DIR "/tengen-gatekeeper";

std::string TrainingJson(const std::string& name, int64_t samples, int64_t rows) {
  json training = {{"format", "tengen-snapshot"},
                   {"run", "run1"},
                   {"training_name", "t1"},
                   {"samples", samples},
                   {"rows", rows},
                   {"checkpoint", "train/t1/checkpoint-" + name},
                   {"created_utc", "2026-01-01T00:00:00Z"}};
  return training.dump(2);
}

// A b1c16 snapshot as the trainer writes it, its batch norms given non-trivial statistics so
// that folding has something to fold. Returns its directory.
std::string MakeSnapshot(const std::string& queue, int64_t samples, int64_t rows, int pos_len,
                         uint64_t seed, bool with_training = true) {
  const std::string name = "run1-t1-s" + std::to_string(samples) + "-d" + std::to_string(rows);
  nn::ModelConfig config;
  nn::ParseArchitecture("b1c16", &config);
  config.pos_len = pos_len;
  config.name = name;
  std::unique_ptr<nn::TorchModel> model = nn::TorchModel::Create(config, seed);
  Rng rng(seed);
  {
    torch::NoGradGuard no_grad;
    for (auto& [tensor_name, tensor] : model->net()->NamedState()) {
      if (tensor_name.find("bn") == std::string::npos || tensor.dim() != 1) continue;
      auto* data = tensor.data_ptr<float>();
      for (int64_t i = 0; i < tensor.numel(); ++i)
        data[i] = tensor_name.find("running_var") != std::string::npos
                      ? 0.5f + static_cast<float>(rng.UniformDouble())
                      : 0.8f * static_cast<float>(rng.UniformDouble() - 0.3);
    }
  }
  EnsureDirectory(queue);
  const std::string dir = queue + "/" + name;
  std::map<std::string, std::string> extra;
  if (with_training) extra["training.json"] = TrainingJson(name, samples, rows);
  model->Save(dir, extra);
  return dir;
}

TEST_CASE("export check: a good snapshot passes and saves as a loadable model") {
  testing::TempDir base;
  const std::string dir = MakeSnapshot(base / "queue", 1000, 500, 9, 3);
  const CheckSnapshot check = TorchSnapshotChecker();
  const CheckedSnapshot checked = check(dir, "run1-t1-s1000-d500", SnapshotCheckOptions());
  CHECK(checked.architecture == "b1c16");
  CHECK(checked.pos_len == 9);
  CHECK(checked.feature_version == 1);
  CHECK(checked.training.samples == 1000);
  CHECK(checked.training.rows == 500);
  CHECK(checked.training.checkpoint == "train/t1/checkpoint-run1-t1-s1000-d500");
  CHECK(checked.weights_crc32.size() == 8);
  CHECK(checked.fold_max_difference > 0);  // folding changed the arithmetic a little
  CHECK(checked.fold_max_difference < 1e-3);
  checked.save(base / "out", {{"export.json", "{}\n"}});
  const std::unique_ptr<nn::TorchModel> loaded = nn::TorchModel::Load(base / "out");
  CHECK(loaded->config().name == "run1-t1-s1000-d500");
  CHECK(ReadFile(base / "out/export.json") == "{}\n");
  // Saving the loaded net gives the same bytes, so export.json's checksum is model.json's.
  CHECK(json::parse(ReadFile(base / "out/model.json"))["weights_crc32"] == checked.weights_crc32);
}

TEST_CASE("export check: broken snapshots throw errors that name the problem") {
  testing::TempDir base;
  const CheckSnapshot check = TorchSnapshotChecker();
  const auto error_of = [&check](const std::string& dir) -> std::string {
    try {
      check(dir, fs::path(dir).filename().string(), SnapshotCheckOptions());
    } catch (const ConfigError& e) {
      return std::string("config: ") + e.what();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const std::string truncated = MakeSnapshot(base / "queue", 100, 10, 9, 1);
  fs::resize_file(truncated + "/weights.pt", fs::file_size(truncated + "/weights.pt") / 2);
  CHECK(error_of(truncated).find("truncated") != std::string::npos);
  const std::string no_training = MakeSnapshot(base / "queue", 200, 20, 9, 1, false);
  CHECK(error_of(no_training).find("training.json") != std::string::npos);
  const std::string bad_training = MakeSnapshot(base / "queue", 300, 30, 9, 1);
  PublishFile(bad_training + "/training.json", "{\"format\": \"tengen-snapshot\", \"run\": 3}");
  CHECK(error_of(bad_training).find("training.json") != std::string::npos);
  EnsureDirectory(base / "queue/garbage");
  PublishFile(base / "queue/garbage/model.json", "not json");
  PublishFile(base / "queue/garbage/training.json", TrainingJson("garbage", 0, 0));
  CHECK(error_of(base / "queue/garbage").find("model.json") != std::string::npos);
  // A bad device is the user's, not the snapshot's.
  const std::string good = MakeSnapshot(base / "queue", 400, 40, 9, 1);
  SnapshotCheckOptions bad_device;
  bad_device.device = "tpu";
  CHECK_THROWS_AS(check(good, "run1-t1-s400-d40", bad_device), ConfigError);
}

TEST_CASE("tengen-exporter --once: exports the good snapshot, moves the broken ones aside") {
  testing::TempDir base;
  const std::string queue = TorchModelsToExportDir(base.path());
  MakeSnapshot(queue, 1000, 500, 9, 3);
  const std::string truncated = MakeSnapshot(queue, 900, 450, 9, 4);
  fs::resize_file(truncated + "/weights.pt", 100);
  MakeSnapshot(queue, 800, 400, 9, 5, false);  // no training.json
  EnsureDirectory(queue + "/run1-t1-s700-d300");
  PublishFile(queue + "/run1-t1-s700-d300/junk", "garbage");
  PublishFile(queue + "/stray-file", "garbage");

  const ProcessResult run = RunProcess({kExporter, "--output-dir", base.path(), "--once"});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(ListPublished(queue).empty());
  const std::string model = ModelsToBeTestedDir(base.path()) + "/run1-t1-s1000-d500";
  REQUIRE(fs::is_directory(model));
  const json exported = json::parse(ReadFile(model + "/export.json"));
  CHECK(exported["name"] == "run1-t1-s1000-d500");
  CHECK(exported["architecture"] == "b1c16");
  CHECK(exported["samples"] == 1000);
  CHECK(exported["rows"] == 500);
  CHECK(exported["parent_checkpoint"] == "train/t1/checkpoint-run1-t1-s1000-d500");
  CHECK(exported["weights_crc32"] == json::parse(ReadFile(model + "/model.json"))["weights_crc32"]);
  CHECK(json::parse(ReadFile(model + "/training.json"))["samples"] == 1000);
  CHECK(nn::TorchModel::Load(model)->config().name == "run1-t1-s1000-d500");

  const std::vector<std::string> broken = ListPublished(TorchModelsBrokenDir(base.path()));
  for (const char* name : {"run1-t1-s900-d450", "run1-t1-s800-d400", "run1-t1-s700-d300",
                           "stray-file", "run1-t1-s900-d450.reason.txt"}) {
    CAPTURE(name);
    CHECK(std::find(broken.begin(), broken.end(), name) != broken.end());
  }
  CHECK(run.output.find("is broken") != std::string::npos);
  CHECK_FALSE(testing::FilesWith(LogsDir(base.path(), "exporter"), ".log").empty());
  CHECK_FALSE(testing::FilesWith(StatusDir(base.path()), ".json").empty());
  CHECK_FALSE(testing::AnyTemporary(base.path()));

  // Run again with nothing queued: nothing to do, exit 0.
  const ProcessResult again = RunProcess({kExporter, "--output-dir", base.path(), "--once"});
  CHECK(again.exit_code == 0);
}

TEST_CASE("tengen-exporter and tengen-gatekeeper: a snapshot becomes the best model") {
  testing::TempDir base;
  MakeSnapshot(TorchModelsToExportDir(base.path()), 100, 50, 5, 8);
  const ProcessResult exported = RunProcess({kExporter, "--output-dir", base.path(), "--once"});
  REQUIRE_MESSAGE(exported.exit_code == 0, exported.output);
  const std::string name = "run1-t1-s100-d50";
  REQUIRE(fs::is_directory(ModelsToBeTestedDir(base.path()) + "/" + name));

  const ProcessResult gated =
      RunProcess({kGatekeeper, "--output-dir", base.path(), "--quit-if-no-nets-to-test", "--games",
                  "4", "--set", "visits=4", "--set", "board_sizes=5", "--set", "pos_len=5", "--set",
                  "num_game_threads=2", "--set", "precision=fp32", "--set", "seed=11"});
  INFO(gated.output);
  REQUIRE(gated.exit_code == 0);
  CHECK(ListPublished(ModelsToBeTestedDir(base.path())).empty());
  const bool accepted = fs::is_directory(ModelsDir(base.path()) + "/" + name);
  CHECK(accepted != fs::is_directory(RejectedModelsDir(base.path()) + "/" + name));
  CHECK(fs::is_directory(SelfplayDir(base.path())));
  const std::string games_dir = GatekeeperSgfDir(base.path()) + "/" + name;
  const std::vector<std::string> records = testing::FilesWith(games_dir, ".json");
  REQUIRE(records.size() == 1);
  const json record = json::parse(ReadFile(records.front()));
  CHECK(record["baseline"] == "random");
  CHECK(record["decision"] == (accepted ? "accepted" : "rejected"));
  const int games = record["games"];
  CHECK(games >= 2);
  CHECK(games <= 4);
  CHECK(go::ReadSgfFile(games_dir + "/" + record["sgf_file"].get<std::string>()).size() ==
        static_cast<size_t>(games));

  // Nothing left to test: exits 0 at once.
  const ProcessResult idle =
      RunProcess({kGatekeeper, "--output-dir", base.path(), "--quit-if-no-nets-to-test"});
  CHECK_MESSAGE(idle.exit_code == 0, idle.output);
  // A bad option is a usage error naming the key.
  const ProcessResult bad = RunProcess({kGatekeeper, "--output-dir", base.path(), "--games", "0"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("games") != std::string::npos);
}

TEST_CASE("tengen-gatekeeper: SIGINT mid-match moves nothing and exits 0") {
  testing::TempDir base;
  const std::string name = "run1-t1-s100-d50";
  MakeSnapshot(ModelsToBeTestedDir(base.path()), 100, 50, 5, 8);
  Subprocess child({kGatekeeper, "--output-dir", base.path(), "--games", "1000", "--set",
                    "visits=8", "--set", "board_sizes=5", "--set", "pos_len=5", "--set",
                    "num_game_threads=2", "--set", "precision=fp32"},
                   /*capture_stderr=*/true);
  std::string output, line;
  while (child.ReadLine(&line)) {
    output += line + "\n";
    if (line.find("testing " + name) != std::string::npos) break;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // games under way
  const auto signalled = std::chrono::steady_clock::now();
  child.Kill(SIGINT);
  // A watchdog so that a hung child fails the test instead of hanging it.
  std::atomic<bool> exited{false};
  const pid_t pid = child.pid();
  std::thread watchdog([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!exited && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!exited) kill(pid, SIGKILL);
  });
  output += child.ReadAll();
  const int code = child.Wait();
  exited = true;
  watchdog.join();
  INFO(output);
  CHECK(code == 0);
  CHECK(std::chrono::steady_clock::now() - signalled < std::chrono::seconds(10));
  CHECK(output.find("nothing moved") != std::string::npos);
  CHECK(fs::is_directory(ModelsToBeTestedDir(base.path()) + "/" + name));
  CHECK(ListPublished(ModelsDir(base.path())).empty());
  CHECK(ListPublished(RejectedModelsDir(base.path())).empty());
  CHECK(testing::FilesWith(GatekeeperSgfDir(base.path()) + "/" + name, ".json").empty());
  CHECK_FALSE(testing::AnyTemporary(base.path()));
}

}  // namespace
}  // namespace tengen::pipeline
