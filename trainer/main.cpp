// tengen-trainer: trains the net on the newest shuffle in <output-dir>/shuffleddata, with the
// train bucket, checkpoints in <output-dir>/train/<training-name>/ and snapshots for the
// exporter, until SIGINT/SIGTERM or a stop condition. Several ranks (RANK / WORLD_SIZE /
// MASTER_ADDR / MASTER_PORT, as torchrun sets them, or --rendezvous-file) train one net with
// data parallelism. Everything but option handling lives in pipeline/torch/trainer_loop.h.

#include <iostream>
#include <memory>

#include "pipeline/base_dir.h"
#include "pipeline/service.h"
#include "pipeline/torch/trainer_loop.h"
#include "util/config.h"
#include "util/log.h"
#include "util/program.h"
#include "util/signals.h"

namespace tengen {
namespace {

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec("tengen-trainer",
                  "Trains the net on <output-dir>/shuffleddata, checkpointing into "
                  "<output-dir>/train/<training-name>/ and publishing snapshots for the exporter.");
  pipeline::DeclareTrainerOptions(spec);
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  const pipeline::TrainerProgramOptions options = pipeline::TrainerOptionsFromConfig(config);

  const std::unique_ptr<Logger> owned_logger =
      pipeline::StartService("trainer", options.base_dir, config);
  Logger& logger = *owned_logger;
  const pipeline::TrainerResult result =
      pipeline::RunTrainer(options, logger, StopToken::FromSignals());
  logger.Info("tengen-trainer done: " + std::to_string(result.epochs) + " epochs this run, " +
              std::to_string(result.samples) + " samples in total" +
              (result.stopped ? " (stopped by a signal)" : ""));
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-trainer", [&] { return tengen::Main(argc, argv); });
}
