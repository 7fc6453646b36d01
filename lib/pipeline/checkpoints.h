#pragma once
// The trainer's checkpoints (train/<trainingname>/checkpoints/): writing, reading back, and the
// choice between resuming and a fresh start. Torch-free: the trainer's state (weights and
// optimizer, nn/torch/trainer.h) arrives here as the bytes of trainer.pt.
//
// A checkpoint is one published directory ckpt-<samples, 15 digits>-<unique>/ holding trainer.pt
// and state.json (TrainState, pipeline/train_data.h, which records trainer.pt's size and CRC-32).
// Names sort by samples, then creation time; the newest kCheckpointsKept are kept.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/train_data.h"
#include "util/log.h"

namespace tengen::pipeline {

inline constexpr int kCheckpointsKept = 2;
inline constexpr char kTrainerStateFile[] = "trainer.pt";

std::string CheckpointsDir(const std::string& train_dir);

// Checkpoint directory names, oldest first.
std::vector<std::string> ListCheckpoints(const std::string& train_dir);

// Publishes a checkpoint of `state` with `trainer_bytes` as trainer.pt, removes all but the
// newest kCheckpointsKept and what a killed trainer left half-written, and returns its path.
// Throws IoError when it cannot be written.
std::string WriteCheckpoint(const std::string& train_dir, const std::string& trainer_bytes,
                            const TrainState& state, Logger& logger);

// A checkpoint as read back: its state and the bytes of its trainer.pt.
struct CheckpointFiles {
  std::string dir;
  TrainState state;
  std::string trainer_bytes;
};

// Reads the checkpoint in `dir`; throws Error naming the file when state.json does not parse
// or trainer.pt does not match the size and CRC-32 that state.json recorded.
CheckpointFiles ReadCheckpoint(const std::string& dir);

// The newest checkpoint that can be resumed from, read (nullopt when there is none at all).
// Broken newer ones are moved aside as broken-<name> once a usable one is found; when every
// checkpoint is broken nothing is moved and this throws, rather than silently starting afresh.
std::optional<CheckpointFiles> NewestUsableCheckpoint(const std::string& train_dir, Logger& logger);

// How a trainer starts, as rank 0 chooses and every rank follows: from a checkpoint (its
// directory name), afresh (with the run seed), or not at all (every rank fails with the error).
struct StartChoice {
  enum class Kind { kResume, kFresh, kError };
  Kind kind = Kind::kFresh;
  std::string checkpoint;  // kResume: the directory name under checkpoints/
  uint64_t seed = 0;       // kFresh
  std::string error;       // kError

  // The text ranks exchange (JSON); FromText throws FormatError on anything else.
  std::string ToText() const;
  static StartChoice FromText(const std::string& text);
};

// Rank 0's choice: the newest usable checkpoint (read into *resume), else a fresh start with
// `seed` (0 draws one); an error when checkpoints exist but none is usable.
StartChoice ChooseStart(const std::string& train_dir, int64_t seed,
                        std::optional<CheckpointFiles>* resume, Logger& logger);

}  // namespace tengen::pipeline
