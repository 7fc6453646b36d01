#pragma once
// Where selfplay's finished games go: the rows and SGFs of one model's games, cut into shards
// of training rows (tdata/*.npz) with their games (sgfs/*.sgfs) under the model's selfplay
// directory (pipeline/selfplay.h describes the files). Add is called by the game threads,
// PublishIfOld by the monitor; the slow part (compressing and writing) runs outside the lock.
// A shard that cannot be published (disk full, directory gone) is kept, with the stem it was
// given, and published again before the next shard (or by PublishIfOld once retry_interval
// has passed since the failure); the runner pauses play while the kept shards hold more than
// max_failed_rows rows (over_limit()).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "data/training_rows.h"
#include "play/game_runner.h"
#include "util/log.h"

namespace tengen::pipeline {

// Rows and shards published (all models), shared by the sinks of a run.
struct PublishCounters {
  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> shards{0};
};

class ShardSink {
 public:
  using Clock = std::chrono::steady_clock;

  // The first shard is cut at first_target rows, the next ones at max_rows.
  ShardSink(const std::string& base_dir, std::string model, data::RowShape shape, int first_target,
            int max_rows, int64_t max_failed_rows, Logger& logger, PublishCounters& counters);

  void Add(const play::FinishedGame& game);
  // Publishes the partial shard when its oldest game finished max_age ago or more, and retries
  // the shards that failed once retry_interval has passed since the last failure.
  void PublishIfOld(Clock::duration max_age, Clock::duration retry_interval);
  // Publishes what is pending (an .sgfs alone when there are games but no rows), the shards
  // that failed before first. What fails again stays in failed_rows().
  void Flush();

  // Rows of the shards that could not be published yet.
  int64_t failed_rows() const;
  bool has_failed() const;
  // The kept shards hold more than max_failed_rows rows: play should wait.
  bool over_limit() const;
  const std::string& model() const { return model_; }
  // The target of the shard being filled (the next sink continues with it).
  int target() const;

 private:
  struct Ready {
    std::unique_ptr<data::ShardWriter> writer;
    std::string sgf_text;
    std::string stem;            // given on the first attempt, kept for the retries
    bool sgf_published = false;  // the .sgfs went out, the .npz did not
  };

  Ready TakeLocked();
  // Publishes the failed shards (oldest first), then `ready`; stops at the first failure and
  // keeps that shard and the rest for a retry.
  void PublishWithFailed(std::vector<Ready> ready);
  // SGFs first, so that every published shard's games can be looked up. False (after a
  // warning) when it failed; the shard keeps its rows and SGFs.
  bool Publish(Ready& shard);

  const std::string tdata_dir_;
  const std::string sgfs_dir_;
  const std::string model_;
  const data::RowShape shape_;
  mutable std::mutex mutex_;
  int target_;
  const int max_rows_;
  const int64_t max_failed_rows_;
  Logger& logger_;
  PublishCounters& counters_;
  data::ShardWriter writer_;
  std::string sgf_text_;
  Clock::time_point pending_since_;  // when the oldest game in writer_/sgf_text_ finished
  std::vector<Ready> failed_;        // shards that could not be published, oldest first
  int64_t failed_rows_ = 0;
  Clock::time_point last_failure_;
};

}  // namespace tengen::pipeline
