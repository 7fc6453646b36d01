// tengen-selfplay: plays the newest net in <models-dir> against itself (the random net while
// there is none) and publishes training shards and SGFs under <output-dir>/selfplay, until
// SIGINT/SIGTERM (the games in flight finish; a second SIGINT drops them) or
// --max-games-total. Everything but option handling lives in pipeline/selfplay.h; the option
// keys are declared in pipeline/selfplay_options.h.

#include <iostream>
#include <memory>

#include "pipeline/base_dir.h"
#include "pipeline/selfplay.h"
#include "pipeline/selfplay_options.h"
#include "pipeline/service.h"
#include "play/game_options.h"
#ifdef TENGEN_WITH_TORCH
#include "nn/torch/model.h"
#include "play/torch/torch_loader.h"
#endif
#include "util/config.h"
#include "util/log.h"
#include "util/program.h"
#include "util/signals.h"

namespace tengen {
namespace {

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec("tengen-selfplay",
                  "Self-play with the newest model (or the random net), writing training "
                  "shards to <output-dir>/selfplay/<model>/.");
  pipeline::DeclareSelfplayOptions(spec);
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  pipeline::SelfplayOptions options = pipeline::SelfplayOptionsFromConfig(config);
#ifdef TENGEN_WITH_TORCH
  // The loader sets the device (one call per entry of `devices`) and resolves "auto"
  // precision for it.
  nn::TorchEvaluatorOptions net_options;
  net_options.precision = config.GetString("precision");
  net_options.max_batch_size = options.nn_max_batch_size;
  options.load_model = play::TorchModelLoader(net_options, config.GetString("channels_last"));
  for (const std::string& device : options.devices)
    if (device != play::kSimulatedDevice) nn::CheckDevice(device);
#endif
  // Without libtorch in this binary, a model in models_dir is a clear error (model registry).

  const std::unique_ptr<Logger> owned_logger =
      pipeline::StartService("selfplay", options.base_dir, config, /*two_stage_stop=*/true);
  Logger& logger = *owned_logger;

  const pipeline::SelfplayStats stats =
      pipeline::RunSelfplay(options, logger, StopToken::FromSignals());
  logger.Info("tengen-selfplay done: " + std::to_string(stats.games) + " games, " +
              std::to_string(stats.rows) + " rows in " + std::to_string(stats.shards) +
              " shards, " + std::to_string(stats.dropped_games) + " games dropped");
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-selfplay", [&] { return tengen::Main(argc, argv); });
}
