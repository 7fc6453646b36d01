#pragma once
// The exporter's options (pipeline/exporter.h): its config keys and their reading.

#include "pipeline/exporter.h"
#include "util/config.h"

namespace tengen::pipeline {

// output_dir, gating, once, poll_seconds, device, fold_tolerance, stale_temporary_seconds,
// log_level.
void DeclareExporterOptions(ConfigSpec& spec);
// Everything but check_snapshot, which the program wires.
ExporterOptions ExporterOptionsFromConfig(const Config& config);

}  // namespace tengen::pipeline
