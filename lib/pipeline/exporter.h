#pragma once
// The exporter (tengen-exporter is a thin main around RunExporter): turns the trainer's
// snapshots into models that the gatekeeper and selfplay use.
//
// Input. A snapshot is a directory torchmodels_toexport/<name>/ or
// torchmodels_toexport_extra/<name>/, published atomically by the trainer with
// nn::TorchModel::Save(dir, {{"training.json", ...}}): model.json and weights.pt (the model
// format of nn/torch/model.h, batch norms unfolded) plus training.json, a JSON object:
//   format         "tengen-snapshot"
//   run, training_name   strings
//   samples, rows  training samples (those of the weights the training started from,
//                  samples_before, included) and data rows seen (ints >= 0); they must equal
//                  the s<N> and d<N> of the name <run>-<trainingname>-s<samples>-d<rows>
//   checkpoint     the trainer checkpoint the snapshot came from (string)
//   created_utc    when the trainer wrote it (string)
//
// What a pass does. Every published entry of both queues is taken oldest first (samples
// s<N> in the name, then modification time, then name, as play/model_registry.h orders
// models). A name that already exists in models/, modelstobetested/ or rejectedmodels/ is not
// exported twice: the snapshot is removed with a log line (KataGo's exporter skips the same
// way). Otherwise the snapshot is checked (the CheckSnapshot hook: load with size, CRC, shape
// and finiteness checks, a forward pass on fixed positions with finite outputs, folded and
// unfolded batch norms agreeing within a tolerance) and published as one directory rename
// into modelstobetested/<name>/ (gating on) or models/<name>/ (gating off): model.json,
// weights.pt, the trainer's training.json and export.json (ExportJson below). The snapshot is
// then removed: renamed to a temporary name first, so a crash half-way through the removal
// leaves only a temporary that readers skip and the next pass deletes once it is stale.
//
// Broken snapshots. A snapshot that fails its check (truncated weights, missing
// training.json, garbage in model.json, a plain file where a directory belongs, a name that
// is not <run>-<trainingname>-s<N>-d<N> or disagrees with training.json) is moved aside into
// torchmodels_toexport_broken/<name> (a unique suffix when that exists) with the reason
// logged and written beside it as <name>.reason.txt. It is never retried and never fatal.
// Errors that are not the snapshot's fault are not treated as breakage: a failed publication
// (disk full) leaves the snapshot for the next pass (with --once the exporter then fails), and
// a ConfigError from the hook (a bad device) stops the exporter.
//
// Several exporters may share a base directory: a snapshot taken by another one (gone, or its
// name appearing downstream while this one was checking it) is skipped.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "util/config.h"
#include "util/log.h"
#include "util/signals.h"

namespace tengen::pipeline {

// <base>/torchmodels_toexport_extra: a second queue (KataGo's), exported like the first.
std::string TorchModelsToExportExtraDir(const std::string& base);
// <base>/torchmodels_toexport_broken: where broken snapshots of both queues are moved.
std::string TorchModelsBrokenDir(const std::string& base);

// training.json's fields.
struct SnapshotTraining {
  std::string run;
  std::string training_name;
  int64_t samples = 0;
  int64_t rows = 0;
  std::string checkpoint;
  std::string created_utc;
};

// What the check of one snapshot found; `save` publishes the checked net.
struct CheckedSnapshot {
  std::string model_name;  // the name in model.json (the directory name wins when they differ)
  std::string architecture;
  int feature_version = 0;
  int pos_len = 0;
  std::string weights_crc32;  // of the snapshot's weights.pt, verified by the load
  int64_t weights_bytes = 0;
  SnapshotTraining training;
  std::string training_json;  // training.json as the trainer wrote it (copied into the export)
  // Largest absolute difference between the outputs of the net with batch norms folded and
  // unfolded on the test positions.
  double fold_max_difference = 0;
  // Publishes the checked net, named as the snapshot's directory, as the new model directory
  // `dest` (atomically; IoError if it exists) with `extra_files` beside model.json and
  // weights.pt.
  std::function<void(const std::string& dest, const std::map<std::string, std::string>& extra)>
      save;
};

struct SnapshotCheckOptions {
  std::string device = "cpu";  // where the test forward passes run
  // Folded and unfolded outputs may differ by tolerance * max(1, |unfolded output|).
  double fold_tolerance = 1e-3;
};

// Checks the snapshot directory `dir` whose name is `name`. Throws for a broken snapshot
// (FormatError, IoError or any other std::exception) and ConfigError for a bad option.
// HOOK: pipeline links no libtorch; pipeline/torch/torch_export.h supplies the real one.
using CheckSnapshot = std::function<CheckedSnapshot(const std::string& dir, const std::string& name,
                                                    const SnapshotCheckOptions& options)>;

struct ExporterOptions {
  std::string base_dir;
  bool gating = true;  // publish into modelstobetested/ (true) or straight into models/
  bool once = false;   // one pass over the queues, then return
  std::chrono::milliseconds poll_interval{10000};
  SnapshotCheckOptions check;
  // Temporaries in the queues older than this are deleted (a trainer's abandoned snapshot, an
  // interrupted removal): longer than any trainer takes to write one snapshot.
  std::chrono::seconds stale_temporary_age{3600};
  std::chrono::milliseconds heartbeat_interval{5000};
  CheckSnapshot check_snapshot;  // required
};

struct ExporterStats {
  int exported = 0;
  int skipped = 0;  // already downstream, or taken by another exporter
  int broken = 0;   // moved aside
};

// One pass over both queues (see the header comment). Throws Error when a publication fails
// (the snapshot stays queued) and ConfigError from the hook.
ExporterStats ExportPending(const ExporterOptions& options, Logger& logger, const StopToken& stop);

// Passes every poll_interval until stopped (or one with options.once). Publication errors are
// logged and retried on the next pass, except with once, where they are thrown.
ExporterStats RunExporter(const ExporterOptions& options, Logger& logger, StopToken stop);

// export.json of an exported model, a JSON object:
//   format "tengen-export", format_version 1, name, architecture, feature_version, pos_len,
//   samples, rows, run, training_name, parent_checkpoint, snapshot_created_utc,
//   weights_crc32 and weights_bytes (of weights.pt, as in model.json), batchnorm "unfolded"
//   (TorchEvaluator folds at load), fold_check_max_difference, fold_check_tolerance,
//   exported_utc, exporter ("<host>-<pid>"), destination ("modelstobetested" or "models").
std::string ExportJson(const std::string& name, const CheckedSnapshot& snapshot,
                       const SnapshotCheckOptions& check, const std::string& destination,
                       const std::string& exported_utc);

}  // namespace tengen::pipeline
