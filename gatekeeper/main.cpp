// tengen-gatekeeper: plays each candidate in <output-dir>/modelstobetested/ against the best
// model in <output-dir>/models/ (the random net while there is none) and moves it into
// models/ (accepted) or rejectedmodels/ (rejected), until SIGINT/SIGTERM or, with
// --quit-if-no-nets-to-test, until nothing is left to test. Everything but option handling
// lives in pipeline/gatekeeper.h.

#include <iostream>
#include <memory>

#include "nn/torch/model.h"
#include "pipeline/base_dir.h"
#include "pipeline/gatekeeper.h"
#include "pipeline/gatekeeper_options.h"
#include "pipeline/service.h"
#include "play/torch/torch_loader.h"
#include "util/config.h"
#include "util/log.h"
#include "util/program.h"
#include "util/signals.h"

namespace tengen {
namespace {

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec("tengen-gatekeeper",
                  "Tests the candidates in <output-dir>/modelstobetested/ against the best "
                  "model in <output-dir>/models/ and accepts or rejects them.");
  pipeline::DeclareGatekeeperOptions(spec);
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  pipeline::GatekeeperOptions options = pipeline::GatekeeperOptionsFromConfig(config);
  nn::CheckDevice(options.device);
  nn::TorchEvaluatorOptions net_options;
  net_options.precision = config.GetString("precision");
  net_options.max_batch_size = options.nn_max_batch_size;
  options.load_model = play::TorchModelLoader(net_options, config.GetString("channels_last"));

  const std::unique_ptr<Logger> owned_logger =
      pipeline::StartService("gatekeeper", options.base_dir, config);
  Logger& logger = *owned_logger;
  const pipeline::GatekeeperStats stats =
      pipeline::RunGatekeeper(options, logger, StopToken::FromSignals());
  logger.Info("tengen-gatekeeper done: " + std::to_string(stats.accepted) + " accepted, " +
              std::to_string(stats.rejected) + " rejected after " + std::to_string(stats.games) +
              " games, " + std::to_string(stats.rejected_without_games) +
              " rejected without games");
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-gatekeeper", [&] { return tengen::Main(argc, argv); });
}
