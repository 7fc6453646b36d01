#pragma once
// tengen-trainer's options (pipeline/torch/trainer_loop.h runs the loop): the program's keys with
// their defaults, ranges and help, read into TrainerProgramOptions, and what follows from them
// alone: the learning rate schedule and the CPU threads.

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/torch/trainer.h"
#include "pipeline/lr_schedule.h"
#include "util/config.h"

namespace tengen::pipeline {

// The program's net defaults: nn::TrainerOptions with precision "auto" (bf16 on CPUs with
// native bf16, else fp32), resolved by ResolvePrecision when the trainer starts.
nn::TrainerOptions DefaultNetOptions();

struct TrainerProgramOptions {
  std::string base_dir;
  std::string training_name;
  std::string run_name = "run";  // snapshot names: <run>-<training>-s<samples>-d<rows>
  std::string model_kind = "b6c96";
  int pos_len = 9;
  // A model directory or a trainer checkpoint directory whose weights a fresh start takes
  // ("" = fresh weights); the optimizer and the learning-rate warm-up start afresh.
  std::string init_from;
  int64_t batch_size = 128;  // global batch, all ranks
  int64_t samples_per_epoch = 100000;
  double max_train_bucket_per_new_data = 0;  // 0: no bucket
  double max_train_bucket_size = 1e30;
  bool stop_when_train_bucket_limited = false;
  bool quit_if_no_data = false;
  bool no_repeat_files = false;
  int64_t max_epochs_this_instance = 0;  // 0: no limit
  // Stop (checkpointing the epoch in progress, as a signal does) after this many optimizer
  // steps of this instance; 0: no limit. For benchmarks and tests of resuming.
  int64_t max_steps_this_instance = 0;
  double lr_scale = 1.0;
  int64_t warmup_samples = 2000000;
  // Factors of the learning rate from given sample counts of the net on (the counts in
  // snapshot names, which include the samples of an init_from model); empty: none.
  LrSchedule lr_schedule;
  std::string export_mode = "main";  // main | extra | trainonly
  uint64_t seed = 0;                 // 0: fresh (kept in the checkpoint)
  std::string rendezvous_file;       // c10d file store ("" = MASTER_ADDR/MASTER_PORT)
  int threads = 0;                   // torch intra-op threads; 0 = CpuTrainThreads
  std::chrono::seconds poll_interval{30};
  std::chrono::milliseconds heartbeat_interval{5000};
  std::chrono::seconds progress_interval{30};
  nn::TrainerOptions net =
      DefaultNetOptions();  // device, precision ("auto" resolved), optimizer, ...
  // The effective configuration (every key and its value), recorded in each snapshot's
  // training.json.
  std::vector<std::pair<std::string, std::string>> config_values;
};

void DeclareTrainerOptions(ConfigSpec& spec);
// ConfigError for a missing output_dir or training_name, a batch size that ranks cannot split,
// a bad model kind.
TrainerProgramOptions TrainerOptionsFromConfig(const Config& config);

// The per-sample learning rate after `samples` of this run, the net having been trained on
// `samples_before` before it (init_from): 3e-5 x lr_scale x the warm-up factor of `samples` x
// the lr_schedule factor of samples_before + samples (KataGo's).
double LearningRate(const TrainerProgramOptions& options, int64_t samples, int64_t samples_before);

// The trainer's torch threads for `threads` = 0 on a CPU: this machine's cores shared by the
// ranks on it (at least 1). Debian's libtorch 1.13 starts with one intra-op thread, so leaving
// torch's choice trained on one core of two (b4c64: 294 samples/s in a loop, ~600 with two).
int CpuTrainThreads(unsigned cores, int local_world_size);

}  // namespace tengen::pipeline
