#pragma once
// The shuffler (docs/OPERATIONS.md "Shuffler", docs/TRAINING.md "Epochs and the train bucket"):
// picks a window of the newest training shards under <base>/selfplay/*/tdata/, subsamples it to a
// target size, shuffles the rows uniformly and publishes them as one directory
// <base>/shuffleddata/<stamp>/ of data-NNNN.npz files plus summary.json (written last; the
// directory is renamed into place whole, so a reader sees all of it or nothing).
//
// Window: N = total rows (rows of the random net count only up to min_rows); below min_rows
// nothing is published. Otherwise the desired window is KataGo's power-law taper
// (DesiredWindowRows) and whole files are taken newest first (by mtime, ties by name) until it
// is covered. If the window holds more than keep_target_rows, a uniform subset of exactly
// that many rows is kept (selection sampling).
//
// Bounded memory: when the kept rows exceed memory_budget_rows, each input file's rows are
// dealt at random into K temporary bucket shards (in a temporary directory under
// shuffleddata/); each bucket is then loaded alone, shuffled and appended to the output.
// Random bucket assignment followed by a uniform shuffle within each bucket is a uniform
// permutation of all kept rows.
//
// Threads (options.threads): up to that many input shards are read ahead in parallel, and
// bucket and output files are written by up to that many threads (so that many more files'
// rows can be in memory beyond memory_budget_rows). Every random draw (selection, bucket,
// shuffle) is made on the calling thread in file order, so the output depends on the seed
// only: any thread count publishes identical files.
//
// Symmetry augmentation is not applied here: rows are published as played and the trainer
// applies a random symmetry (docs/DATA_FORMAT.md).

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipeline/shard_scanner.h"
#include "util/config.h"
#include "util/log.h"
#include "util/rng.h"
#include "util/signals.h"

namespace tengen::pipeline {

struct ShuffleOptions {
  std::string base_dir;
  int64_t min_rows = 250000;
  double taper_window_exponent = 0.65;
  double expand_window_per_row = 0.4;
  double taper_window_scale = 50000;
  int64_t keep_target_rows = 1200000;
  int64_t memory_budget_rows = 2000000;
  int64_t rows_per_output_file = 100000;
  int compression_level = 1;  // zlib level of output and bucket files
  int keep_shuffles = 3;
  std::chrono::seconds cleanup_grace{3600};
  std::chrono::seconds interval{600};
  bool once = false;
  bool dry_run = false;  // only choose and log the window: nothing read or published
  uint64_t seed = 0;     // 0: a fresh seed from the OS
  int threads = 1;       // reader / writer threads; the output depends on the seed only
  std::chrono::milliseconds heartbeat_interval{5000};
};

// KataGo's taper: min_rows + expand * ((N - min_rows + scale)^exp - scale^exp) /
// (exp * scale^(exp-1)). For N <= min_rows it is min_rows.
double DesiredWindowRows(double total_rows, double min_rows, double exponent, double expand,
                         double scale);

struct ShuffleResult {
  bool published = false;
  std::string dir;           // the published directory
  int64_t total_rows = 0;    // N (random-net rows capped at min_rows)
  double desired_rows = 0;   // the taper's window
  int64_t window_rows = 0;   // rows in the files used
  int64_t output_rows = 0;   // rows published
  int64_t output_files = 0;  // data-NNNN.npz files
  int files_used = 0;
  int buckets = 0;
};

// One shuffle. Throws IoError / FormatError for failures of the output; unreadable inputs are
// logged and skipped. A stop request abandons the shuffle (nothing published).
ShuffleResult ShuffleOnce(const ShuffleOptions& options, ShardScanner& scanner, Logger& logger,
                          Rng& rng, const StopToken& stop);

// Removes published shuffles in shuffleddata/ that are older than `grace` and not among the
// newest `keep`, and temporaries older than `grace`. Returns how many shuffles it removed.
int CleanupShuffles(const std::string& base_dir, int keep, std::chrono::seconds grace,
                    Logger& logger);

// The program: shuffles once (options.once) or every interval until a stop, with cleanup and a
// heartbeat in status/. Returns the number of shuffles published.
int RunShuffler(const ShuffleOptions& options, Logger& logger, const StopToken& stop);

}  // namespace tengen::pipeline
