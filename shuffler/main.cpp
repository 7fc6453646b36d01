// tengen-shuffler: publishes windowed, uniformly shuffled training data from
// <output-dir>/selfplay/*/tdata into <output-dir>/shuffleddata/<stamp>/, once (--once) or
// every --interval-seconds until SIGINT/SIGTERM. Everything but option handling lives in
// pipeline/shuffle.h.

#include <iostream>

#include "pipeline/base_dir.h"
#include "pipeline/shuffle.h"
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

  InstallStopSignalHandlers();
  Logger logger(ParseLogLevel(config.GetString("log_level")));
  logger.OpenFile(pipeline::LogsDir(options.base_dir, "shuffler") + "/" + pipeline::HostPid() +
                  ".log");
  logger.Info(StartupMessage("tengen-shuffler", config));
  const int published = pipeline::RunShuffler(options, logger, StopToken::FromSignals());
  logger.Info("tengen-shuffler done: " + std::to_string(published) + " shuffles published");
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-shuffler", [&] { return tengen::Main(argc, argv); });
}
