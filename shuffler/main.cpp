// tengen-shuffler: publishes windowed, uniformly shuffled training data from
// <output-dir>/selfplay/*/tdata into <output-dir>/shuffleddata/<stamp>/, once (--once) or
// every --interval-seconds until SIGINT/SIGTERM. Everything but option handling lives in
// pipeline/shuffle.h.

#include <iostream>
#include <memory>

#include "pipeline/base_dir.h"
#include "pipeline/service.h"
#include "pipeline/shuffle.h"
#include "pipeline/shuffler_options.h"
#include "util/config.h"
#include "util/log.h"
#include "util/program.h"
#include "util/signals.h"

namespace tengen {
namespace {

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec("tengen-shuffler",
                  "Shuffles a window of the newest selfplay shards under <output-dir>/selfplay "
                  "into <output-dir>/shuffleddata/<stamp>/.");
  pipeline::DeclareShuffleOptions(spec);
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  const pipeline::ShuffleOptions options = pipeline::ShuffleOptionsFromConfig(config);

  const std::unique_ptr<Logger> owned_logger =
      pipeline::StartService("shuffler", options.base_dir, config);
  Logger& logger = *owned_logger;
  const int published = pipeline::RunShuffler(options, logger, StopToken::FromSignals());
  logger.Info("tengen-shuffler done: " + std::to_string(published) + " shuffles published");
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-shuffler", [&] { return tengen::Main(argc, argv); });
}
