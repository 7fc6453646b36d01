#include "pipeline/shuffler_options.h"

#include <algorithm>
#include <thread>

#include "pipeline/base_dir.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/rng.h"

namespace tengen::pipeline {
namespace {

// threads is not a plain copy (0 means one per core), so it is read in ShuffleOptionsFromConfig.
OptionTable<ShuffleOptions> ShuffleOptionTable() {
  using O = ShuffleOptions;
  return OptionTable<O>()
      .String("output_dir", &O::base_dir,
              "base directory (required); reads <output_dir>/selfplay, "
              "writes <output_dir>/shuffleddata")
      .Int("min_rows", &O::min_rows, 1, int64_t{1} << 50,
           "rows needed before anything is published (random-net rows count up to this)")
      .Double("taper_window_exponent", &O::taper_window_exponent, 0.01, 1.0,
              "exponent of the power-law window taper")
      .Double("expand_window_per_row", &O::expand_window_per_row, 0.0, 10.0,
              "window growth per new row at the start of the taper")
      .Double("taper_window_scale", &O::taper_window_scale, 1.0, 1e15,
              "scale (rows) of the power-law taper")
      .Int("keep_target_rows", &O::keep_target_rows, 1, int64_t{1} << 50,
           "uniformly subsample the window to at most this many rows")
      .Int("memory_budget_rows", &O::memory_budget_rows, 1, int64_t{1} << 50,
           "rows held in memory at once; more are shuffled through temporary bucket files")
      .Int("rows_per_output_file", &O::rows_per_output_file, 1, int64_t{1} << 40,
           "rows in each data-NNNN.npz of a shuffle (the last may hold fewer)")
      .Int("compression_level", &O::compression_level, -1, 9,
           "zlib level of the output and bucket files: 1 fast (~1.8x faster writes than 6, "
           "~20% bigger), 9 small, -1 zlib's default (6), 0 stored")
      .Int("keep_shuffles", &O::keep_shuffles, 1, 1000000, "newest shuffles never removed")
      .WholeSeconds("cleanup_grace_seconds", &O::cleanup_grace, 0, int64_t{1} << 40,
                    "older shuffles and stale temporaries (in selfplay/, at least an hour old) are "
                    "removed after this many seconds")
      .WholeSeconds("interval_seconds", &O::interval, 0, int64_t{1} << 40,
                    "seconds between shuffles when looping")
      .Bool("once", &O::once, "publish one shuffle (or nothing, below min_rows) and exit")
      .Bool("dry_run", &O::dry_run,
            "only choose the window and log it (every interval, or once with once): no shard "
            "is read, nothing is published or removed")
      .Custom(
          [](ConfigSpec& spec, const O&) {
            spec.Int("threads", 0, 0, 256,
                     "threads reading input shards and writing output files; 0: one per core "
                     "(the output depends on the seed only)");
          },
          {})
      .Int("seed", &O::seed, 0, kMaxSeed, "random seed; 0 draws a fresh one")
      .Seconds("heartbeat_seconds", &O::heartbeat_interval, 0.1, 3600.0,
               "how often status/ is refreshed");
}

}  // namespace

void DeclareShuffleOptions(ConfigSpec& spec) {
  ShuffleOptionTable().Declare(spec);
  DeclareLogLevelOption(spec);
}

ShuffleOptions ShuffleOptionsFromConfig(const Config& config) {
  ShuffleOptions o;
  ShuffleOptionTable().Read(config, &o);
  RequireBaseDir(o.base_dir);
  o.threads = static_cast<int>(config.GetInt("threads"));
  if (o.threads == 0)
    o.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return o;
}

}  // namespace tengen::pipeline
