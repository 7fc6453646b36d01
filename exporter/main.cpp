// tengen-exporter: checks the trainer's snapshots in <output-dir>/torchmodels_toexport(_extra)/
// and publishes them as models into <output-dir>/modelstobetested/ (gating on) or
// <output-dir>/models/ (gating off), once (--once) or every --poll-seconds until
// SIGINT/SIGTERM. Everything but option handling lives in pipeline/exporter.h; the libtorch
// check is pipeline/torch/torch_export.h.

#include <iostream>
#include <memory>

#include "nn/torch/model.h"
#include "pipeline/base_dir.h"
#include "pipeline/exporter.h"
#include "pipeline/exporter_options.h"
#include "pipeline/service.h"
#include "pipeline/torch/torch_export.h"
#include "util/config.h"
#include "util/log.h"
#include "util/program.h"
#include "util/signals.h"

namespace tengen {
namespace {

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec("tengen-exporter",
                  "Checks trainer snapshots in <output-dir>/torchmodels_toexport/ and publishes "
                  "them into <output-dir>/modelstobetested/ (or models/ with gating off).");
  pipeline::DeclareExporterOptions(spec);
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  pipeline::ExporterOptions options = pipeline::ExporterOptionsFromConfig(config);
  nn::CheckDevice(options.check.device);
  options.check_snapshot = pipeline::TorchSnapshotChecker();

  const std::unique_ptr<Logger> owned_logger =
      pipeline::StartService("exporter", options.base_dir, config);
  Logger& logger = *owned_logger;
  const pipeline::ExporterStats stats =
      pipeline::RunExporter(options, logger, StopToken::FromSignals());
  logger.Info("tengen-exporter done: " + std::to_string(stats.exported) + " exported, " +
              std::to_string(stats.skipped) + " skipped, " + std::to_string(stats.broken) +
              " broken snapshots moved aside");
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-exporter", [&] { return tengen::Main(argc, argv); });
}
