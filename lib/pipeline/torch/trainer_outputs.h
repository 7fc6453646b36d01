#pragma once
// What the trainer writes after each epoch besides its checkpoint (pipeline/torch/trainer_loop.h):
// the snapshot for the exporter, torchmodels_toexport[_extra]/<run>-<training>-s<samples>-
// d<rows>/ with its training.json, and the epoch's line of train/<training>/metrics.jsonl.

#include <nlohmann/json.hpp>
#include <string>

#include "nn/torch/trainer.h"
#include "pipeline/torch/trainer_options.h"
#include "pipeline/train_data.h"
#include "util/log.h"

namespace tengen::pipeline {

// Publishes the net as a snapshot (none with export_mode trainonly, nor when one of that name
// exists already); `checkpoint` is recorded in its training.json.
void WriteSnapshot(const TrainerProgramOptions& o, const nn::NetTrainer& trainer,
                   const TrainState& state, const std::string& checkpoint, Logger& logger);
// Appends `line` to train_dir/metrics.jsonl; IoError when it cannot.
void AppendMetrics(const std::string& train_dir, const nlohmann::json& line);

}  // namespace tengen::pipeline
