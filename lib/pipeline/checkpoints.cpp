#include "pipeline/checkpoints.h"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "pipeline/base_dir.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using json = nlohmann::json;

// Only rank 0 writes checkpoints, and a write takes seconds, so a temporary this old is a killed
// trainer's.
constexpr std::chrono::seconds kStaleCheckpointAge{3600};
constexpr char kCheckpointPrefix[] = "ckpt-";
constexpr char kStateFile[] = "state.json";

void RemoveOldCheckpoints(const std::string& train_dir, Logger& logger) {
  const std::string dir = CheckpointsDir(train_dir);
  const std::vector<std::string> all = ListCheckpoints(train_dir);
  for (size_t i = 0; i + kCheckpointsKept < all.size(); ++i) {
    try {
      RemovePublished(dir + "/" + all[i]);
    } catch (const IoError& e) {
      logger.Warning(std::string("cannot remove old checkpoint: ") + e.what());
    }
  }
  // What a killed trainer left: a checkpoint half written, or an old one half removed.
  RemoveStaleTemporaries(dir, kStaleCheckpointAge);
}

const char* KindName(StartChoice::Kind kind) {
  switch (kind) {
    case StartChoice::Kind::kResume:
      return "resume";
    case StartChoice::Kind::kFresh:
      return "fresh";
    case StartChoice::Kind::kError:
      return "error";
  }
  return "error";
}

}  // namespace

std::string CheckpointsDir(const std::string& train_dir) { return train_dir + "/checkpoints"; }

std::vector<std::string> ListCheckpoints(const std::string& train_dir) {
  std::vector<std::string> names;
  for (const std::string& name : ListPublished(CheckpointsDir(train_dir))) {
    if (name.rfind(kCheckpointPrefix, 0) == 0) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string WriteCheckpoint(const std::string& train_dir, const std::string& trainer_bytes,
                            const TrainState& state, Logger& logger) {
  const std::string dir = CheckpointsDir(train_dir);
  EnsureDirectory(dir);
  char samples[32];
  std::snprintf(samples, sizeof(samples), "%015lld", static_cast<long long>(state.samples));
  const std::string path = dir + "/" + kCheckpointPrefix + samples + "-" + UniqueFileStem();
  AtomicDirectory out(path);
  PublishFile(out.path() + "/" + kTrainerStateFile, trainer_bytes);
  TrainState recorded = state;
  recorded.trainer_file_bytes = static_cast<int64_t>(trainer_bytes.size());
  recorded.trainer_file_crc32 = Crc32Hex(trainer_bytes);
  PublishFile(out.path() + "/" + kStateFile, recorded.ToJson());
  out.Commit();
  RemoveOldCheckpoints(train_dir, logger);
  logger.Info(StrCat("checkpoint ", path, " (", state.samples, " samples",
                     (state.in_epoch ? StrCat(", epoch in progress at step ",
                                              state.epoch_steps_done, "/", state.epoch_steps)
                                     : ""),
                     ")"));
  return path;
}

CheckpointFiles ReadCheckpoint(const std::string& dir) {
  CheckpointFiles files;
  files.dir = dir;
  files.state = TrainState::FromJson(ReadFile(dir + "/" + kStateFile), dir + "/" + kStateFile);
  files.trainer_bytes = ReadFile(dir + "/" + kTrainerStateFile);
  files.state.CheckTrainerFile(files.trainer_bytes, dir + "/" + kTrainerStateFile);
  return files;
}

std::optional<CheckpointFiles> NewestUsableCheckpoint(const std::string& train_dir,
                                                      Logger& logger) {
  const std::vector<std::string> names = ListCheckpoints(train_dir);
  const std::string dir = CheckpointsDir(train_dir);
  std::vector<std::string> broken;
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    try {
      CheckpointFiles files = ReadCheckpoint(dir + "/" + *it);
      for (const std::string& name : broken) {
        boost::system::error_code error;
        fs::rename(dir + "/" + name, dir + "/broken-" + name, error);
        logger.Warning("checkpoint " + dir + "/" + name + " moved aside as broken-" + name +
                       (error ? " failed: " + error.message() : ""));
      }
      return files;
    } catch (const Error& e) {
      logger.Warning("checkpoint " + dir + "/" + *it + " cannot be resumed from: " + e.what());
      broken.push_back(*it);
    }
  }
  if (!broken.empty()) {
    throw Error(
        StrCat("no usable checkpoint in ", dir, " (", broken.size(),
               " broken; see the warnings): restore one, or move them away to start afresh"));
  }
  return std::nullopt;
}

std::string StartChoice::ToText() const {
  return json{{"kind", KindName(kind)},
              {"checkpoint", checkpoint},
              {"seed", std::to_string(seed)},
              {"error", error}}
      .dump();
}

StartChoice StartChoice::FromText(const std::string& text) {
  try {
    const json j = json::parse(text);
    StartChoice choice;
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "resume") {
      choice.kind = Kind::kResume;
    } else if (kind == "fresh") {
      choice.kind = Kind::kFresh;
    } else if (kind == "error") {
      choice.kind = Kind::kError;
    } else {
      throw FormatError("unknown kind '" + kind + "'");
    }
    choice.checkpoint = j.at("checkpoint").get<std::string>();
    choice.seed = std::stoull(j.at("seed").get<std::string>());
    choice.error = j.at("error").get<std::string>();
    return choice;
  } catch (const std::exception& e) {
    throw FormatError(std::string("trainer start choice from rank 0: ") + e.what() + " in " + text);
  }
}

StartChoice ChooseStart(const std::string& train_dir, int64_t seed,
                        std::optional<CheckpointFiles>* resume, Logger& logger) {
  StartChoice choice;
  try {
    *resume = NewestUsableCheckpoint(train_dir, logger);
    if (*resume) {
      choice.kind = StartChoice::Kind::kResume;
      choice.checkpoint = fs::path((*resume)->dir).filename().string();
    } else {
      choice.kind = StartChoice::Kind::kFresh;
      choice.seed = SeedOrFresh(seed);
    }
  } catch (const Error& e) {
    choice.kind = StartChoice::Kind::kError;
    choice.error = e.what();
  }
  return choice;
}

}  // namespace tengen::pipeline
