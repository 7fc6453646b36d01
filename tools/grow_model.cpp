// tengen-grow-model: writes a deeper or wider copy of a model, <models-dir>/<name>/,
// atomically. Added residual blocks start as the identity and added channels as copies of
// existing ones, so the new model plays exactly as the old one until training changes it
// (docs/TRAINING.md, "Growing a net").

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
  ConfigSpec spec("tengen-grow-model",
                  "Writes <models-dir>/<name>/: the model --from with more residual blocks "
                  "(which start as the identity), more channels (copies of existing ones) or "
                  "another pos_len: the same outputs at first.");
  spec.String("from", "", "model directory to grow");
  spec.String(
      "arch", "",
      "the new architecture b{blocks}c{channels}: at least the model's blocks and channels");
  spec.String("models_dir", "", "directory to write the new model in (created if missing)");
  spec.String("name", "", "the new model's name, also its directory name");
  spec.Int("pos_len", 0, 0, nn::kMaxPosLen,
           "the new model's board edge (0: the model's); the weights are the same in planes of "
           "any size, so a 9x9 net can start a run of larger or mixed sizes");
  spec.Int("seed", 0, 0, kMaxSeed,
           "seed of the added blocks' other weights and of the copied channels (0: a fresh random "
           "seed)");
  return spec;
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  const std::string from = config.GetString("from");
  const std::string models_dir = config.GetString("models_dir");
  const std::string name = config.GetString("name");
  for (const char* key : {"from", "arch", "models_dir"}) {
    if (config.GetString(key).empty()) throw ConfigError(std::string(key) + ": required");
  }
  if (!IsPlainName(name)) {
    throw ConfigError("name: '" + name + "' is not a plain name without '/' or '.tmp'");
  }
  const std::unique_ptr<nn::TorchModel> source = nn::TorchModel::Load(from);
  nn::ModelConfig model_config = source->config();
  nn::ParseArchitecture(config.GetString("arch"), &model_config);
  if (config.GetInt("pos_len") > 0)
    model_config.pos_len = static_cast<int>(config.GetInt("pos_len"));
  model_config.name = name;
  const uint64_t seed = SeedOrFresh(config.GetInt("seed"));
  const std::string dir = models_dir + "/" + name;
  if (boost::filesystem::exists(dir)) throw IoError("model '" + dir + "' already exists");
  const std::unique_ptr<nn::TorchModel> grown = nn::TorchModel::Grow(*source, model_config, seed);
  EnsureDirectory(models_dir);
  grown->Save(dir);
  std::cerr << "tengen-grow-model: wrote " << dir << " (" << source->config().Architecture()
            << " pos_len " << source->config().pos_len << " grown to "
            << model_config.Architecture() << " pos_len " << model_config.pos_len << ")\n";
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-grow-model", [&] { return tengen::Main(argc, argv); });
}
