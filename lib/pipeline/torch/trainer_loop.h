#pragma once
// The trainer program's loop (tengen-trainer; docs/TRAINING.md): reads the newest shuffle,
// credits the train bucket, trains whole epochs of samples_per_epoch samples from it, and after
// each epoch writes a checkpoint (train/<trainingname>/checkpoints/), appends metrics
// (train/<trainingname>/metrics.jsonl) and publishes a snapshot for the exporter
// (torchmodels_toexport/<run>-<trainingname>-s<samples>-d<rows>/).
//
// Checkpoints: ckpt-<samples, 15 digits>-<unique>/ holding trainer.pt (weights + optimizer,
// nn/torch/trainer.h) and state.json (pipeline/train_data.h TrainState), published as one
// directory; the newest two are kept. A stop request (SIGINT) mid-epoch checkpoints the epoch
// in progress (its file plan and steps done); the next start finishes that epoch first, so an
// interrupted run trains exactly what an uninterrupted one does.
//
// Ranks: with WORLD_SIZE > 1 every rank runs this loop; rank 0 decides each epoch (shuffle,
// bucket, files) and broadcasts the plan, every rank trains its slice of each global batch,
// and only rank 0 writes checkpoints, metrics, snapshots and the heartbeat.

#include <chrono>
#include <cstdint>
#include <string>

#include "nn/torch/trainer.h"
#include "pipeline/torch/trainer_options.h"
#include "util/config.h"
#include "util/log.h"
#include "util/signals.h"

namespace tengen::pipeline {

struct TrainerResult {
  int64_t epochs = 0;    // epochs completed by this instance
  int64_t samples = 0;   // total samples trained (checkpointed)
  bool stopped = false;  // a stop request ended the run
};

// Runs until a stop request, or until a stop condition of the options is met. Throws on
// unusable input (ConfigError, FormatError for a corrupt checkpoint).
TrainerResult RunTrainer(const TrainerProgramOptions& options, Logger& logger,
                         const StopToken& stop);

}  // namespace tengen::pipeline
