#pragma once
// The trainer's bookkeeping, without libtorch: which shuffle to read, the train bucket
// (docs/TRAINING.md "Epochs and the train bucket"), which files an epoch reads, the persistent
// state that makes a restart continue exactly, and turning shuffled rows into batches with a random
// symmetry. pipeline/torch/trainer_loop.h runs the loop; nn/torch/trainer.h learns.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data/training_rows.h"
#include "nn/train_batch.h"
#include "util/log.h"
#include "util/rng.h"

namespace tengen::pipeline {

// A published shuffle (shuffleddata/<stamp>/ with its summary.json).
struct ShuffleDir {
  std::string path;
  std::string name;
  int64_t total_rows = 0;          // every row ever seen by the shuffler (the "d" of model names)
  std::vector<std::string> files;  // data-NNNN.npz paths, sorted
};

// The newest complete shuffle under <base>/shuffleddata (names sort by creation time;
// temporaries skipped), or nullopt when there is none. A directory whose summary.json is
// missing or unreadable is logged and skipped (the next older one is taken).
std::optional<ShuffleDir> FindNewestShuffle(const std::string& base_dir, Logger& logger);

// A file's identity for --no-repeat-files: its size and CRC-32, so the same rows reached
// under another name or through a link are recognised, and different shuffles' data-0000.npz
// are not confused.
std::string FileContentKey(const std::string& path);

struct BucketOptions {
  double per_new_data = 0;  // credit per new row; 0: no bucket (train without limit)
  double max_size = 1e30;   // cap (at least samples_per_epoch)
  int64_t samples_per_epoch = 1000000;
};

// The trainer state that lives in its checkpoint besides weights and optimizer.
struct TrainState {
  int64_t samples = 0;  // samples trained, all ranks
  // Samples the starting weights had been trained on (init_from: the model's or checkpoint's
  // count; 0 from fresh weights). Model names count on from them: "s" = samples_before + samples.
  int64_t samples_before = 0;
  int64_t epochs = 0;                   // epochs completed
  double bucket_level = 0;              // spendable samples
  int64_t bucket_at_row = -1;           // total rows credited up to; -1: no shuffle seen yet
  int64_t total_rows = 0;               // total rows of the newest shuffle seen (the "d")
  uint64_t seed = 0;                    // run seed: epoch plans derive from it
  std::vector<std::string> used_files;  // content keys (--no-repeat-files)
  // An epoch in progress (interrupted by a signal): its plan and how many steps are done.
  bool in_epoch = false;
  std::vector<std::string> epoch_files;
  int64_t epoch_steps_done = 0;
  int64_t epoch_steps = 0;
  // The trainer.pt written beside this state.json: its size and CRC-32, checked at resume.
  // -1 and "": not recorded (checkpoints of older versions).
  int64_t trainer_file_bytes = -1;
  std::string trainer_file_crc32;

  // Throws FormatError naming `what` when `bytes` (the trainer.pt beside this state) do not
  // have the recorded size and CRC-32; a state that recorded none accepts any bytes.
  void CheckTrainerFile(const std::string& bytes, const std::string& what) const;

  std::string ToJson() const;
  // FormatError naming `what` when a field is missing or of the wrong type.
  static TrainState FromJson(const std::string& text, const std::string& what);
};

// A fresh run: the bucket starts with one epoch (KataGo does the same).
TrainState FreshTrainState(const BucketOptions& bucket, uint64_t seed);

// Credits rows of a shuffle whose total is `total_rows`: the first shuffle ever seen only
// sets the mark; later ones add per_new_data x (total - mark), capped; a total below the mark
// (data deleted) resets the mark with a warning. Returns the credit added.
double CreditNewRows(TrainState& state, int64_t total_rows, const BucketOptions& options,
                     Logger& logger);
// True (and spends one epoch) when the bucket allows an epoch; always true with no bucket.
bool TrySpendEpoch(TrainState& state, const BucketOptions& options);

// Files for one epoch of `steps` global batches: the shuffle's files in a random order drawn
// from (seed, epoch), skipping used ones with no_repeat, each giving rows / batch whole
// batches; without no_repeat the list wraps around as often as needed. Returns the files and
// sets *steps to the batches they hold (fewer than asked when no_repeat runs out).
std::vector<std::string> PlanEpochFiles(const std::vector<std::string>& files,
                                        const std::vector<int64_t>& rows_per_file,
                                        const std::set<std::string>& used_keys,
                                        const std::vector<std::string>& keys, bool no_repeat,
                                        int64_t batch_size, uint64_t seed, int64_t epoch,
                                        int64_t* steps);

// Streams the global batches of an epoch plan: reads each file in turn, cuts whole batches of
// `batch_size` rows (a file's remainder is dropped), applies a random symmetry per batch drawn
// from (seed, epoch, batch index), and returns this rank's slice [rank * B / W, (rank+1) * B / W).
class EpochBatches {
 public:
  EpochBatches(std::vector<std::string> files, int64_t batch_size, int rank, int world_size,
               uint64_t seed, int64_t epoch);
  // The next batch, or false at the end of the plan. A file that cannot be read is logged and
  // skipped.
  bool Next(nn::TrainBatch* batch, Logger& logger);
  // Skips n batches without building them (resuming an interrupted epoch).
  void Skip(int64_t n, Logger& logger);
  int64_t batches_done() const { return batches_done_; }

 private:
  bool EnsureRows(Logger& logger);
  std::vector<std::string> files_;
  size_t next_file_ = 0;
  int64_t batch_size_;
  int rank_;
  int world_size_;
  uint64_t seed_;
  int64_t epoch_;
  data::Shard shard_;
  size_t row_ = 0;
  int64_t batches_done_ = 0;
};

// Rows [begin, end) of a shard as a batch, every row mapped by symmetry `sym` (go/symmetry.h)
// within its own board (rows smaller than pos_len sit in the top-left corner).
nn::TrainBatch MakeBatch(const data::Shard& shard, size_t begin, size_t end, int sym);

}  // namespace tengen::pipeline
