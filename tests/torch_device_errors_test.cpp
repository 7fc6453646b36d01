// The programs that run nets, asked for a CUDA device this machine does not have, stop at
// startup with a usage error naming the device (before they wait for work), and publish
// nothing. On a machine with N GPUs the device asked for is cuda:N, one past the last.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gpu_support.h"
#include "nn/model_config.h"
#include "nn/torch/model.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"

namespace tengen {
namespace {

const std::string kBin = TENGEN_BIN_DIR;

std::string MissingDevice() { return "cuda:" + std::to_string(testing::CudaGpus()); }

// Runs `args`, which must fail at once with a usage error (exit 2) naming `device`.
void ExpectDeviceError(const std::vector<std::string>& args, const std::string& device,
                       const std::string& input = "") {
  const ProcessResult run = RunProcess(args, input);
  INFO(args.front());
  CHECK(run.exit_code == 2);
  CHECK_MESSAGE(run.output.find("device '" + device + "'") != std::string::npos, run.output);
}

TEST_CASE("device errors: CheckDevice accepts cpu and names a bad or missing device") {
  CHECK_NOTHROW(nn::CheckDevice("cpu"));
  for (const std::string& bad : std::vector<std::string>{"tpu", "cuda:x", MissingDevice()}) {
    try {
      nn::CheckDevice(bad);
      FAIL("no error for device " << bad);
    } catch (const ConfigError& e) {
      CHECK_MESSAGE(std::string(e.what()).find("'" + bad + "'") != std::string::npos, e.what());
    }
  }
}

TEST_CASE("device errors: selfplay, gatekeeper and exporter stop at startup, naming the device") {
  testing::TempDir dir;
  const std::string device = MissingDevice();
  // Selfplay with no model yet (the random net needs no device) still checks every entry.
  ExpectDeviceError({kBin + "/tengen-selfplay", "--output-dir", dir.path(), "--set",
                     "devices=cpu," + device, "--num-game-threads", "2"},
                    device);
  // The gatekeeper and exporter with nothing to do: without the check they would wait for
  // work and fail only at the first candidate or snapshot.
  ExpectDeviceError({kBin + "/tengen-gatekeeper", "--output-dir", dir.path(), "--device", device,
                     "--quit-if-no-nets-to-test"},
                    device);
  ExpectDeviceError(
      {kBin + "/tengen-exporter", "--output-dir", dir.path(), "--device", device, "--once"},
      device);
  CHECK(ListPublished(dir / "selfplay").empty());
}

TEST_CASE("device errors: tengen-gtp with a model stops before play, naming the device") {
  testing::TempDir dir;
  // The name is copied from a std::string: assigning the literal trips a false GCC 12
  // -Wstringop-overflow in the libtorch 2.x build.
  const std::string name = "m";
  nn::ModelConfig config;
  nn::ParseArchitecture("b1c16", &config);
  config.pos_len = 9;
  config.name = name;
  nn::TorchModel::Create(config, 1)->Save(dir / name);
  const std::string device = MissingDevice();
  ExpectDeviceError({kBin + "/tengen-gtp", "--model", dir / "m", "--set", "device=" + device},
                    device, "genmove b\nquit\n");
}

}  // namespace
}  // namespace tengen
