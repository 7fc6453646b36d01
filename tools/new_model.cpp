// tengen-new-model: writes a freshly initialised model, <models-dir>/<name>/, atomically.
// Used to start a run from a net instead of the random evaluator, and by tests.

#include <boost/filesystem.hpp>
#include <cstdint>
#include <iostream>
#include <string>

#include "nn/model_config.h"
#include "nn/torch/model.h"
#include "util/config.h"
#include "util/error.h"
#include "util/program.h"
#include "util/publish.h"
#include "util/rng.h"

namespace tengen {
namespace {

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-new-model",
                  "Writes a freshly initialised model directory <models-dir>/<name>/.");
  spec.String("models_dir", "", "directory to create the model in (created if missing)");
  spec.String("arch", "b6c96", "architecture b{blocks}c{channels}");
  spec.String("name", "", "model name, also the directory name");
  spec.Int("pos_len", 19, 5, nn::kMaxPosLen, "board edge the net is made for");
  spec.Int("seed", 0, 0, kMaxSeed, "initialisation seed (0: a fresh random seed)");
  return spec;
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  const std::string models_dir = config.GetString("models_dir");
  const std::string name = config.GetString("name");
  if (models_dir.empty()) throw ConfigError("--models-dir is required");
  if (!IsPlainName(name)) {
    throw ConfigError("bad --name '" + name + "': need a plain name without '/' or '.tmp'");
  }
  nn::ModelConfig model_config;
  nn::ParseArchitecture(config.GetString("arch"), &model_config);
  model_config.name = name;
  model_config.pos_len = static_cast<int>(config.GetInt("pos_len"));
  const uint64_t seed = SeedOrFresh(config.GetInt("seed"));

  const std::string dir = models_dir + "/" + name;
  // AtomicDirectory refuses to replace it too; this check gives the clearer message.
  if (boost::filesystem::exists(dir)) throw IoError("model '" + dir + "' already exists");
  EnsureDirectory(models_dir);
  nn::TorchModel::Create(model_config, seed)->Save(dir);
  std::cerr << "tengen-new-model: wrote " << dir << " (" << model_config.Architecture()
            << ", pos_len " << model_config.pos_len << ", seed " << seed << ")\n";
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-new-model", [&] { return tengen::Main(argc, argv); });
}
