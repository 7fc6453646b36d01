#include "pipeline/exporter.h"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <ctime>
#include <exception>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "pipeline/json_text.h"
#include "pipeline/service.h"
#include "play/model_registry.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"
#include "util/version.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
std::string Join(const std::string& dir, const std::string& name) { return dir + "/" + name; }

// One published entry of a queue.
struct QueuedSnapshot {
  std::string path;
  std::string name;
  bool named = false;  // the name is <run>-<trainingname>-s<N>-d<N>
  int64_t samples = 0;
  int64_t rows = 0;
  std::time_t mtime = 0;
};

// Every published entry of both queues, oldest first; names that do not parse come first (they
// are only moved aside).
std::vector<QueuedSnapshot> ListQueues(const std::string& base) {
  std::vector<QueuedSnapshot> queued;
  for (const std::string& dir : {TorchModelsToExportDir(base), TorchModelsToExportExtraDir(base)}) {
    for (const std::string& name : ListPublished(dir)) {
      QueuedSnapshot entry;
      entry.path = Join(dir, name);
      entry.name = name;
      entry.named = play::ParseModelName(name, &entry.samples, &entry.rows);
      boost::system::error_code error;
      entry.mtime = fs::last_write_time(entry.path, error);
      if (error) continue;  // gone since the listing
      queued.push_back(entry);
    }
  }
  std::sort(queued.begin(), queued.end(), [](const QueuedSnapshot& a, const QueuedSnapshot& b) {
    return std::make_tuple(a.named, a.samples, a.mtime, a.name) <
           std::make_tuple(b.named, b.samples, b.mtime, b.name);
  });
  return queued;
}

// Where a model of this name already is (empty when nowhere): models/, modelstobetested/ or
// rejectedmodels/.
std::string FindDownstream(const std::string& base, const std::string& name) {
  for (const std::string& dir :
       {ModelsDir(base), ModelsToBeTestedDir(base), RejectedModelsDir(base)}) {
    boost::system::error_code error;
    if (fs::exists(Join(dir, name), error)) return Join(dir, name);
  }
  return "";
}

bool Exists(const std::string& path) {
  boost::system::error_code error;
  return fs::exists(path, error);
}

// Removes a consumed snapshot (RemovePublished: never left half-deleted, where the next pass
// would take it for a broken one).
void RemoveSnapshot(const std::string& path, Logger& logger) {
  try {
    RemovePublished(path);
  } catch (const IoError& e) {
    logger.Warning(std::string("cannot remove snapshot: ") + e.what() +
                   "; the next pass skips it as already exported");
  }
}

// Moves a broken snapshot aside with its reason (see exporter.h). Returns false when it could
// not (the snapshot vanished: another exporter took it).
bool MoveAside(const std::string& base, const QueuedSnapshot& entry, const std::string& reason,
               Logger& logger) {
  const std::string broken_dir = TorchModelsBrokenDir(base);
  std::string target = Join(broken_dir, entry.name);
  boost::system::error_code error;
  try {
    EnsureDirectory(broken_dir);
    if (fs::exists(target, error)) target += "-" + UniqueFileStem();
    fs::rename(entry.path, target, error);
    if (error)
      throw IoError("cannot rename " + entry.path + " to " + target + ": " + error.message());
  } catch (const Error& e) {
    if (!Exists(entry.path)) return false;
    logger.Error("snapshot " + entry.path + " is broken (" + reason +
                 ") and cannot be moved aside: " + e.what());
    return true;
  }
  logger.Error("snapshot " + entry.path + " is broken, moved to " + target + ": " + reason);
  try {
    PublishFile(target + ".reason.txt",
                UtcTimestamp() + " " + HostPid() + ": " + entry.path + ": " + reason + "\n");
  } catch (const Error& e) {
    logger.Warning(std::string("cannot write the reason file: ") + e.what());
  }
  return true;
}

}  // namespace

std::string TorchModelsToExportExtraDir(const std::string& base) {
  return TorchModelsToExportDir(base) + "_extra";
}

std::string TorchModelsBrokenDir(const std::string& base) {
  return TorchModelsToExportDir(base) + "_broken";
}

std::string ExportJson(const std::string& name, const CheckedSnapshot& snapshot,
                       const SnapshotCheckOptions& check, const std::string& destination,
                       const std::string& exported_utc) {
  const SnapshotTraining& t = snapshot.training;
  const nlohmann::ordered_json json = {{"format", "tengen-export"},
                                       {"format_version", 1},
                                       {"name", name},
                                       {"architecture", snapshot.architecture},
                                       {"feature_version", snapshot.feature_version},
                                       {"pos_len", snapshot.pos_len},
                                       {"samples", t.samples},
                                       {"rows", t.rows},
                                       {"run", t.run},
                                       {"training_name", t.training_name},
                                       {"parent_checkpoint", t.checkpoint},
                                       {"snapshot_created_utc", t.created_utc},
                                       {"weights_crc32", snapshot.weights_crc32},
                                       {"weights_bytes", snapshot.weights_bytes},
                                       {"batchnorm", "unfolded"},
                                       {"fold_check_max_difference", snapshot.fold_max_difference},
                                       {"fold_check_tolerance", check.fold_tolerance},
                                       {"exported_utc", exported_utc},
                                       {"exporter", HostPid()},
                                       {"exporter_code_version", CodeVersion()},
                                       {"destination", destination}};
  return JsonFileText(json);
}

namespace {

// Removes the stale temporaries of both queues (a failure is only a warning).
void CleanQueues(const ExporterOptions& options, Logger& logger) {
  const std::string& base = options.base_dir;
  for (const std::string& dir : {TorchModelsToExportDir(base), TorchModelsToExportExtraDir(base)}) {
    try {
      const int removed = RemoveStaleTemporaries(dir, options.stale_temporary_age);
      if (removed > 0) logger.Info(StrCat("removed ", removed, " stale temporaries in ", dir));
    } catch (const Error& e) {
      logger.Warning(std::string("cannot clean temporaries: ") + e.what());
    }
  }
}

// Publishes a checked snapshot into models/ or modelstobetested/ and removes it from its
// queue; skipped when another exporter published it meanwhile.
void PublishChecked(const ExporterOptions& options, const QueuedSnapshot& entry,
                    CheckedSnapshot& checked, Logger& logger, ExporterStats* stats) {
  const std::string& base = options.base_dir;
  const std::string dest_dir = options.gating ? ModelsToBeTestedDir(base) : ModelsDir(base);
  const std::string destination = options.gating ? "modelstobetested" : "models";
  const std::string dest = Join(dest_dir, entry.name);
  const std::string exported_utc = UtcTimestamp();
  try {
    EnsureDirectory(dest_dir);
    checked.save(dest, {{"export.json",
                         ExportJson(entry.name, checked, options.check, destination, exported_utc)},
                        {"training.json", checked.training_json}});
  } catch (const Error& e) {
    if (!FindDownstream(base, entry.name).empty()) {
      logger.Info("snapshot " + entry.path + ": another exporter published it meanwhile");
      RemoveSnapshot(entry.path, logger);
      ++stats->skipped;
      return;
    }
    throw Error("cannot publish " + dest + " (snapshot " + entry.path +
                " stays queued): " + e.what());
  }
  logger.Info(StrCat("exported ", entry.name, " (", checked.architecture, ", ",
                     checked.training.samples, " samples, ", checked.training.rows,
                     " rows, fold check max difference ", checked.fold_max_difference, ") to ",
                     dest));
  RemoveSnapshot(entry.path, logger);
  ++stats->exported;
}

// Exports one queued snapshot: moved aside when broken, dropped when it is downstream already,
// else checked and published.
void ExportOne(const ExporterOptions& options, const QueuedSnapshot& entry, Logger& logger,
               ExporterStats* stats) {
  const std::string& base = options.base_dir;
  const auto broken = [&](const std::string& reason) {
    if (MoveAside(base, entry, reason, logger)) {
      ++stats->broken;
    } else {
      logger.Info("snapshot " + entry.path + " vanished (taken by another exporter)");
      ++stats->skipped;
    }
  };
  boost::system::error_code error;
  if (!fs::is_directory(entry.path, error)) {
    if (Exists(entry.path)) {
      broken("not a directory");
    } else {
      ++stats->skipped;
    }
    return;
  }
  if (!entry.named) {
    broken("the name is not <run>-<trainingname>-s<samples>-d<rows>");
    return;
  }
  const std::string existing = FindDownstream(base, entry.name);
  if (!existing.empty()) {
    logger.Info("snapshot " + entry.path + ": " + existing + " exists, not exported twice");
    RemoveSnapshot(entry.path, logger);
    ++stats->skipped;
    return;
  }

  logger.Info("checking snapshot " + entry.path);
  CheckedSnapshot checked;
  try {
    checked = options.check_snapshot(entry.path, entry.name, options.check);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    if (!Exists(entry.path)) {
      logger.Info("snapshot " + entry.path + " vanished (taken by another exporter)");
      ++stats->skipped;
    } else {
      broken(e.what());
    }
    return;
  }
  if (checked.training.samples != entry.samples || checked.training.rows != entry.rows) {
    broken(StrCat("training.json says samples ", checked.training.samples, " and rows ",
                  checked.training.rows, ", the name says s", entry.samples, " and d", entry.rows));
    return;
  }
  if (checked.model_name != entry.name)
    logger.Warning("snapshot " + entry.path + ": model.json names the model '" +
                   checked.model_name + "'; it is exported as " + entry.name);

  PublishChecked(options, entry, checked, logger, stats);
}

}  // namespace

ExporterStats ExportPending(const ExporterOptions& options, Logger& logger, const StopToken& stop) {
  TENGEN_CHECK(static_cast<bool>(options.check_snapshot), "the exporter needs a CheckSnapshot");
  CleanQueues(options, logger);
  ExporterStats stats;
  for (const QueuedSnapshot& entry : ListQueues(options.base_dir)) {
    if (stop.stop_requested()) break;
    ExportOne(options, entry, logger, &stats);
  }
  return stats;
}

ExporterStats RunExporter(const ExporterOptions& options, Logger& logger, StopToken stop) {
  ServiceHeartbeat heartbeat(options.base_dir, "exporter", options.heartbeat_interval, logger);
  ExporterStats total;
  const auto beat = [&](const std::string& state, bool force) {
    HeartbeatInfo info;
    info.state = state;
    info.texts = {{"destination", options.gating ? "modelstobetested" : "models"}};
    info.counters = {{"exported", static_cast<double>(total.exported)},
                     {"skipped", static_cast<double>(total.skipped)},
                     {"broken", static_cast<double>(total.broken)}};
    heartbeat.Beat(info, force);
  };
  const auto pass = [&] {
    const ExporterStats stats = ExportPending(options, logger, stop);
    total.exported += stats.exported;
    total.skipped += stats.skipped;
    total.broken += stats.broken;
  };
  const PassLoop loop{"exporting", "export pass failed, trying again later", options.once,
                      options.poll_interval};
  RunPasses(loop, stop, logger, pass, beat);
  return total;
}

}  // namespace tengen::pipeline
