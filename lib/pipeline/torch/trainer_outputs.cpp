#include "pipeline/torch/trainer_outputs.h"

#include <boost/filesystem.hpp>

#include "pipeline/base_dir.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"
#include "util/version.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using json = nlohmann::json;

std::string ExportDir(const TrainerProgramOptions& o) {
  if (o.export_mode == "main") return TorchModelsToExportDir(o.base_dir);
  if (o.export_mode == "extra") return TorchModelsToExportDir(o.base_dir) + "_extra";
  return "";
}

std::string SnapshotName(const TrainerProgramOptions& o, int64_t samples, int64_t rows) {
  return StrCat(o.run_name, "-", o.training_name, "-s", samples, "-d", rows);
}

}  // namespace

void WriteSnapshot(const TrainerProgramOptions& o, const nn::NetTrainer& trainer,
                   const TrainState& state, const std::string& checkpoint, Logger& logger) {
  const std::string export_dir = ExportDir(o);
  if (export_dir.empty()) return;
  const int64_t samples = state.samples_before + state.samples;
  const std::string name = SnapshotName(o, samples, state.total_rows);
  const std::string path = export_dir + "/" + name;
  boost::system::error_code error;
  if (fs::exists(path, error)) {
    logger.Info("snapshot " + path + " exists already; not written again");
    return;
  }
  EnsureDirectory(export_dir);
  json meta;
  meta["format"] = "tengen-snapshot";
  meta["run"] = o.run_name;
  meta["training_name"] = o.training_name;
  meta["samples"] = samples;
  meta["samples_before"] = state.samples_before;
  meta["rows"] = state.total_rows;
  meta["checkpoint"] = checkpoint;
  meta["created_utc"] = UtcTimestampSeconds();
  meta["code_version"] = CodeVersion();
  json config = json::object();
  for (const auto& [key, value] : o.config_values) config[key] = value;
  meta["trainer_config"] = config;
  trainer.Snapshot(name)->Save(path, {{"training.json", meta.dump(2) + "\n"}});
  logger.Info("snapshot " + path);
}

void AppendMetrics(const std::string& train_dir, const json& line) {
  EnsureDirectory(train_dir);
  AppendLine(train_dir + "/metrics.jsonl", line.dump());
}

}  // namespace tengen::pipeline
