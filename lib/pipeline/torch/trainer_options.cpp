#include "pipeline/torch/trainer_options.h"

#include <algorithm>
#include <string>

#include "nn/model_config.h"
#include "pipeline/base_dir.h"
#include "pipeline/lr_schedule.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/rng.h"

namespace tengen::pipeline {
namespace {

// KataGo's per-sample learning rate before lr_scale and warm-up.
constexpr double kBaseLearningRate = 3e-5;

}  // namespace

namespace {

OptionTable<nn::TrainerOptions> NetOptionTable() {
  using N = nn::TrainerOptions;
  return OptionTable<N>()
      .Choice("optimizer", &N::optimizer, {"sgd", "adamw"}, "optimizer")
      .Double("momentum", &N::momentum, 0.0, 0.999, "SGD momentum")
      .Double("weight_decay", &N::weight_decay, 0.0, 1.0,
              "sgd: L2 per sample on weights; adamw: decoupled decay")
      .Double("grad_clip_norm", &N::grad_clip_norm, 0, 1e12, "clip the gradient norm; 0 = off")
      .Double("weight_average_samples", &N::weight_average_samples, 0, 1e15,
              "snapshots export an exponential moving average of the weights whose weight on a "
              "step falls to 1/e after this many samples; 0 = off (the current weights)")
      .Int("lookahead_steps", &N::lookahead_steps, 0, 1 << 20,
           "lookahead: every this many steps the slow weights move lookahead_alpha of the way "
           "to the optimizer's and it restarts from them; snapshots are the slow weights; 0 = "
           "off")
      .Double("lookahead_alpha", &N::lookahead_alpha, 0.01, 1.0,
              "lookahead's step towards the fast weights; the learning rate is divided by it")
      .Double("soft_policy_weight", &N::soft_policy_weight, 0, 1000,
              "loss weight of the auxiliary soft policy head (target^(1/4)); 0 = off")
      .Double("opponent_policy_weight", &N::opponent_policy_weight, 0, 1000,
              "loss weight of the auxiliary head that predicts the opponent's reply; 0 = off")
      .Double("td_value_weight", &N::td_value_weight, 0, 1000,
              "loss weight of the auxiliary short-term value head (three horizons, each scaled "
              "as the value loss); 0 = off")
      .String("device", &N::device,
              "cpu, cuda or cuda:N (with several ranks, cuda = cuda:LOCAL_RANK)")
      .Choice("precision", &N::precision, {"auto", "fp32", "bf16", "fp16"},
              "fp32, bf16 or fp16 (CUDA) autocast; auto = bf16 on CPUs with native bf16 "
              "(avx512_bf16 or AMX), else fp32")
      .Bool("channels_last", &N::channels_last, "NHWC memory format for convolutions");
}

OptionTable<TrainerProgramOptions> TrainerOptionTable() {
  using O = TrainerProgramOptions;
  using N = nn::TrainerOptions;
  return OptionTable<O>()
      .String("output_dir", &O::base_dir,
              "base directory (required): reads shuffleddata/, writes train/")
      .String("training_name", &O::training_name,
              "name of this training run (required): train/<name>/")
      .String("run_name", &O::run_name,
              "prefix of snapshot names <run>-<training>-s<samples>-d<rows>")
      .String("model_kind", &O::model_kind, "net architecture b{blocks}c{channels}")
      .Int("pos_len", &O::pos_len, 2, 19, "board edge of the training data and the net")
      .String("init_from", &O::init_from,
              "when train/<name>/ has no checkpoint: start from the weights of this model "
              "directory or trainer checkpoint directory (fresh optimizer and warm-up)")
      .Int("batch_size", &O::batch_size, 1, 1 << 20, "global batch (all ranks together)")
      .Nested(&O::net, OptionTable<N>().Int(
                           "micro_batch", &N::micro_batch, 0, 1 << 20,
                           "largest batch one forward pass takes per rank (gradients "
                           "accumulate); 0 = the rank's whole share; halved automatically on "
                           "out-of-memory"))
      .Int("samples_per_epoch", &O::samples_per_epoch, 1, int64_t{1} << 40,
           "samples per epoch (an epoch is a fixed sample count, as in KataGo)")
      .Double("max_train_bucket_per_new_data", &O::max_train_bucket_per_new_data, 0, 1e9,
              "bucket credit per new data row; 0 disables the bucket")
      .Double("max_train_bucket_size", &O::max_train_bucket_size, 0, 1e30,
              "cap of the train bucket (samples)")
      .Bool("stop_when_train_bucket_limited", &O::stop_when_train_bucket_limited,
            "exit 0 when the bucket cannot pay for an epoch (instead of waiting)")
      .Bool("quit_if_no_data", &O::quit_if_no_data,
            "exit 0 when there is no shuffle or no unused file")
      .Bool("no_repeat_files", &O::no_repeat_files,
            "never train on the same shuffled file twice (keyed by content, kept across "
            "restarts)")
      .Int("max_epochs_this_instance", &O::max_epochs_this_instance, 0, int64_t{1} << 40,
           "exit after this many epochs; 0 = no limit")
      .Int("max_steps_this_instance", &O::max_steps_this_instance, 0, int64_t{1} << 40,
           "stop after this many steps, checkpointing the epoch in progress; 0 = no limit")
      .Double("lr_scale", &O::lr_scale, 0.0, 1e6, "multiplies the per-sample learning rate 3e-5")
      .Int("warmup_samples", &O::warmup_samples, 0, int64_t{1} << 50,
           "learning-rate warm-up length (KataGo's steps from 1/20 to 1)")
      .Custom(
          [](ConfigSpec& spec, const O& d) {
            spec.String("lr_schedule", FormatLrSchedule(d.lr_schedule),
                        "learning-rate factors from sample counts of the net on, e.g. "
                        "\"1000000:0.3,2000000:0.1\" (empty: none)");
          },
          [](const Config& config, O& o) {
            o.lr_schedule = ParseLrSchedule("lr_schedule", config.GetString("lr_schedule"));
          })
      .Nested(&O::net, NetOptionTable())
      .Int("threads", &O::threads, 0, 1024,
           "torch intra-op threads on a CPU; 0 = the machine's cores over its ranks")
      .Choice("export_mode", &O::export_mode, {"main", "extra", "trainonly"},
              "snapshots into torchmodels_toexport/ (main), torchmodels_toexport_extra/ "
              "(extra) or none (trainonly)")
      .Int("seed", &O::seed, 0, kMaxSeed, "run seed (fresh runs only); 0 draws one")
      .String("rendezvous_file", &O::rendezvous_file,
              "c10d file store for several ranks (fresh path per launch); empty: "
              "MASTER_ADDR/MASTER_PORT")
      .WholeSeconds("poll_seconds", &O::poll_interval, 0, 86400,
                    "seconds between looks for new data when waiting")
      .Seconds("progress_seconds", &O::progress_interval, 0.1, 86400,
               "seconds between progress lines")
      .Seconds("heartbeat_seconds", &O::heartbeat_interval, 0.1, 3600.0,
               "how often status/ is refreshed")
      .Nested(&O::net, OptionTable<N>().Int(
                           "simulate_oom_above", &N::simulate_oom_above, 0, 1 << 20,
                           "testing: a micro-batch above this fails as if out of memory (0 = "
                           "off)"));
}

}  // namespace

nn::TrainerOptions DefaultNetOptions() {
  nn::TrainerOptions net;
  net.precision = "auto";
  return net;
}

void DeclareTrainerOptions(ConfigSpec& spec) {
  TrainerOptionTable().Declare(spec);
  DeclareLogLevelOption(spec);
}

TrainerProgramOptions TrainerOptionsFromConfig(const Config& config) {
  TrainerProgramOptions o;
  TrainerOptionTable().Read(config, &o);
  o.config_values = config.Values();
  RequireBaseDir(o.base_dir);
  if (o.training_name.empty() || o.training_name.find('/') != std::string::npos ||
      o.training_name.find(".tmp") != std::string::npos) {
    throw ConfigError("training_name must be set to a plain name (got '" + o.training_name + "')");
  }
  if (o.run_name.empty() || o.run_name.find('/') != std::string::npos) {
    throw ConfigError("run_name must be a plain name (got '" + o.run_name + "')");
  }
  nn::ModelConfig check;
  nn::ParseArchitecture(o.model_kind, &check);
  o.net.intra_op_threads = o.threads;
  return o;
}

double LearningRate(const TrainerProgramOptions& options, int64_t samples, int64_t samples_before) {
  return kBaseLearningRate * options.lr_scale * WarmupFactor(samples, options.warmup_samples) *
         LrScheduleFactor(options.lr_schedule, samples_before + samples);
}

int CpuTrainThreads(unsigned cores, int local_world_size) {
  return std::max(1, static_cast<int>(cores) / std::max(1, local_world_size));
}

}  // namespace tengen::pipeline
