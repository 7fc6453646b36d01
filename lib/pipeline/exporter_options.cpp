#include "pipeline/exporter_options.h"

#include "pipeline/base_dir.h"
#include "play/game_options.h"
#include "util/log.h"
#include "util/option_table.h"

namespace tengen::pipeline {
namespace {

OptionTable<ExporterOptions> ExporterOptionTable() {
  using O = ExporterOptions;
  const auto check =
      OptionTable<SnapshotCheckOptions>()
          .String("device", &SnapshotCheckOptions::device,
                  "device of the check's forward passes: cpu, cuda, cuda:N")
          .Double("fold_tolerance", &SnapshotCheckOptions::fold_tolerance, 1e-7, 1,
                  "folded and unfolded batch norm outputs may differ by this times max(1, "
                  "|output|)");
  return OptionTable<O>()
      .String("output_dir", &O::base_dir, "base directory (required)")
      .Bool("gating", &O::gating,
            "publish into modelstobetested/ for the gatekeeper (false: straight into models/)")
      .Bool("once", &O::once, "export what is queued, then exit (the synchronous loop)")
      .Seconds("poll_seconds", &O::poll_interval, 0.1, 86400, "how often to look for new snapshots")
      .Nested(&O::check, check)
      .Seconds("stale_temporary_seconds", &O::stale_temporary_age, 1, 1e7,
               "delete temporaries in the queues older than this");
}

}  // namespace

void DeclareExporterOptions(ConfigSpec& spec) {
  ExporterOptionTable().Declare(spec);
  DeclareLogLevelOption(spec);
}

ExporterOptions ExporterOptionsFromConfig(const Config& config) {
  ExporterOptions o;
  ExporterOptionTable().Read(config, &o);
  RequireBaseDir(o.base_dir);
  o.check.device = play::ParseSingleDevice("device", o.check.device);
  return o;
}

}  // namespace tengen::pipeline
