#pragma once
// Learning from training rows: the net's losses, the optimizer step, micro-batches, mixed
// precision, gradient all-reduce across ranks, and the trainer's weights + optimizer state on
// disk. No torch types here (pimpl); pipeline/torch/trainer_loop.h drives it.
//
// Losses (per row, multiplied by the row weight and SUMMED over the batch, as KataGo does, so
// that the learning rate is per sample and micro-batches and ranks add up exactly; score by the
// row's score_weight and ownership by its ownership_weight, 0 where the target is unknown: a
// resigned game, the owners of a game record):
//   policy     cross-entropy of the policy target (normalised) against softmax(policy logits)
//   value      1.5 x cross-entropy of (win, loss, draw) against softmax(value logits)
//   score      0.02 x Huber(predicted - final score, delta 12) / 12
//   ownership  1.5 x mean over on-board points of the binary cross-entropy of the
//              target (1 + o) / 2 against (1 + tanh(z)) / 2 = sigmoid(2z)
// A step sums the gradients of every micro-batch of every rank (the micro-batches run one
// after the other, ranks all-reduce the sums), then takes one optimizer step with
// lr = per-sample learning rate. Batch norm statistics are per micro-batch (as with
// torch's DDP without SyncBatchNorm): a single process whose micro-batch is batch / ranks
// computes exactly what the ranks compute together.

#include <cstdint>
#include <memory>
#include <string>

#include "nn/torch/model.h"
#include "nn/train_batch.h"

namespace tengen::nn {

class ProcessGroup;  // nn/torch/distributed.h

struct TrainerOptions {
  std::string device = "cpu";      // "cpu", "cuda", "cuda:N"
  std::string precision = "fp32";  // fp32; bf16 (CPU or CUDA autocast); fp16 (CUDA autocast
                                   // with dynamic loss scaling)
  std::string optimizer = "sgd";   // sgd (momentum) | adamw
  double momentum = 0.9;           // sgd
  // sgd: L2 coefficient per sample on convolution and linear weights (scaled by the global
  // batch, since gradients are sums); adamw: decoupled decay per step.
  double weight_decay = 3e-5;
  int micro_batch = 0;        // largest micro-batch per rank; 0 = the rank's whole share
  double grad_clip_norm = 0;  // clip the summed gradient's norm; 0 = off
  // An exponential moving average of the weights, kept beside them and given out by Snapshot
  // (KataGo exports an average of its weights too): after each step, average += (1 -
  // exp(-rows / weight_average_samples)) x (weights - average), so a weight counts with
  // e^-1 after this many samples. 0 = off: snapshots are the current weights. Batch-norm
  // statistics are the current ones either way.
  double weight_average_samples = 0;
  // Lookahead (KataGo trains with k = 6, alpha = 0.5): beside the weights the optimizer moves
  // (the fast ones) the trainer keeps slow weights; every lookahead_steps steps the slow
  // weights move lookahead_alpha of the way to the fast ones and the fast ones restart from
  // there. The learning rate is divided by lookahead_alpha, as KataGo does, so that the slow
  // weights travel about as far as plain SGD's. Snapshot gives the slow weights (the fast
  // steps since the last sync are not exported), and the moving average above, when on, is
  // taken of the slow weights at each sync. 0 = off.
  int lookahead_steps = 0;
  double lookahead_alpha = 0.5;
  // The soft policy head's loss weight (net.h; KataGo's soft policy weight is 8): the
  // cross-entropy of that head against the policy target to the power 1/4, renormalised. 0 =
  // off (the head is not trained).
  double soft_policy_weight = 0;
  // The opponent's reply head's loss weight (KataGo's is 0.15): the cross-entropy of that head
  // against the policy of the next turn's search, on the rows that know it. 0 = off.
  double opponent_policy_weight = 0;
  // The short-term values' loss weight (KataGo weighs each of its three like the game's
  // value): the cross-entropy of each horizon's win, loss, draw against the row's td_value,
  // on the rows that know them, scaled as the value loss and summed over the horizons. 0 = off.
  double td_value_weight = 0;
  bool channels_last = true;
  int intra_op_threads = 0;  // torch's intra-op threads (process-wide); 0 = leave as it is
  // Test hook: a micro-batch larger than this fails as if out of memory (0 = off), to exercise
  // the halving path without exhausting memory.
  int simulate_oom_above = 0;
};

// Sums over the rows of a step (each term already weighted by the row weights): divide by
// `weight` for a mean per unit of row weight.
struct LossSums {
  double policy = 0;
  double soft_policy = 0;      // already times TrainerOptions::soft_policy_weight
  double opponent_policy = 0;  // already times TrainerOptions::opponent_policy_weight
  double value = 0;
  double td_value = 0;  // already times TrainerOptions::td_value_weight
  double score = 0;
  double ownership = 0;
  double total = 0;
  double weight = 0;
  int64_t rows = 0;
  void Add(const LossSums& other);
};

// AdamW's learning rate for a step over `global_rows` rows at per-sample rate `lr_per_sample`
// (see SetStepHyperparameters in trainer.cpp): independent of the loss being a sum.
double AdamStepSize(double lr_per_sample, int64_t global_rows);

class NetTrainer {
 public:
  // Trains a copy of `start`'s weights on options.device. `group` (may be null: one process)
  // must outlive the trainer; every rank then starts from rank 0's weights. Throws ConfigError
  // for a bad device, precision or optimizer.
  NetTrainer(const TorchModel& start, const TrainerOptions& options, ProcessGroup* group);
  ~NetTrainer();
  NetTrainer(const NetTrainer&) = delete;
  NetTrainer& operator=(const NetTrainer&) = delete;

  // One optimizer step. `batch` is this rank's share of the global batch of `global_rows` rows
  // (every rank calls Step together). An out-of-memory error halves the micro-batch and redoes
  // the step (logged by the caller through micro_batch()); below 1 row it rethrows. Returns
  // the loss sums over the global batch (all ranks).
  LossSums Step(const TrainBatch& batch, int64_t global_rows, double lr_per_sample);
  // Loss sums of a batch without learning (eval mode), on this rank only.
  LossSums Evaluate(const TrainBatch& batch);

  int micro_batch() const;
  int64_t steps() const;
  // fp16 loss scale (1 for other precisions) and steps skipped for non-finite gradients.
  double loss_scale() const;
  int64_t skipped_steps() const;

  // Averages batch-norm running statistics over ranks (they drift apart otherwise); call before
  // a snapshot or checkpoint.
  void SyncRunningStats();
  // Weights, optimizer state and step counters as bytes (torch archive): exact on reload.
  std::string SaveState() const;
  // Throws FormatError (naming `what`) when the bytes are not a state of this architecture.
  void LoadState(const std::string& bytes, const std::string& what);
  // The weights as a CPU fp32 model named `name`: their average when weight_average_samples
  // is on, else the slow weights when lookahead_steps is, else the current ones.
  std::unique_ptr<TorchModel> Snapshot(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tengen::nn
