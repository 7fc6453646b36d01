#include "pipeline/shard_sink.h"

#include <utility>

#include "go/sgf.h"
#include "pipeline/base_dir.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::pipeline {

ShardSink::ShardSink(const std::string& base_dir, std::string model, data::RowShape shape,
                     int first_target, int max_rows, int64_t max_failed_rows, Logger& logger,
                     PublishCounters& counters)
    : tdata_dir_(TdataDir(base_dir, model)),
      sgfs_dir_(SgfsDir(base_dir, model)),
      model_(std::move(model)),
      shape_(shape),
      target_(first_target),
      max_rows_(max_rows),
      max_failed_rows_(max_failed_rows),
      logger_(logger),
      counters_(counters),
      writer_(shape_, model_) {
  try {
    EnsureDirectory(tdata_dir_);
    EnsureDirectory(sgfs_dir_);
  } catch (const Error& e) {
    // Publishing creates them again; it keeps the rows if that fails too.
    logger_.Warning(std::string("cannot create the output directories: ") + e.what());
  }
}

void ShardSink::Add(const play::FinishedGame& game) {
  std::vector<Ready> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (writer_.rows() == 0 && sgf_text_.empty()) pending_since_ = Clock::now();
    sgf_text_ += go::WriteSgf(game.sgf) + "\n";
    for (const data::TrainingRow& row : game.rows) {
      writer_.Add(row);
      if (writer_.rows() >= target_) {
        ready.push_back(TakeLocked());
        target_ = max_rows_;
      }
    }
    // A game's rows may continue in the next shard; its age is the game's.
    if (!ready.empty() && writer_.rows() > 0) pending_since_ = Clock::now();
  }
  if (!ready.empty()) PublishWithFailed(std::move(ready));
}

void ShardSink::PublishIfOld(Clock::duration max_age, Clock::duration retry_interval) {
  std::vector<Ready> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = Clock::now();
    const bool partial_due =
        (writer_.rows() > 0 || !sgf_text_.empty()) && now - pending_since_ >= max_age;
    const bool retry_due = !failed_.empty() && now - last_failure_ >= retry_interval;
    if (!partial_due && !retry_due) return;
    if (partial_due) ready.push_back(TakeLocked());
  }
  PublishWithFailed(std::move(ready));
}

void ShardSink::Flush() {
  std::vector<Ready> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (writer_.rows() > 0 || !sgf_text_.empty()) ready.push_back(TakeLocked());
  }
  PublishWithFailed(std::move(ready));
}

int64_t ShardSink::failed_rows() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_rows_;
}

bool ShardSink::has_failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !failed_.empty();
}

bool ShardSink::over_limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_rows_ > max_failed_rows_;
}

int ShardSink::target() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return target_;
}

ShardSink::Ready ShardSink::TakeLocked() {
  Ready shard;
  shard.writer = std::make_unique<data::ShardWriter>(std::move(writer_));
  shard.sgf_text = std::move(sgf_text_);
  writer_ = data::ShardWriter(shape_, model_);
  sgf_text_.clear();
  return shard;
}

void ShardSink::PublishWithFailed(std::vector<Ready> ready) {
  std::vector<Ready> queue;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue = std::move(failed_);
    failed_.clear();
    failed_rows_ = 0;
  }
  for (Ready& shard : ready) queue.push_back(std::move(shard));
  size_t published = 0;
  while (published < queue.size() && Publish(queue[published])) ++published;
  if (published == queue.size()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // Another thread may have put shards back meanwhile: the order among kept shards does not
  // matter (each keeps its stem, rows and games together).
  for (size_t i = published; i < queue.size(); ++i) failed_.push_back(std::move(queue[i]));
  failed_rows_ = 0;
  for (const Ready& shard : failed_) failed_rows_ += shard.writer->rows();
  last_failure_ = Clock::now();
}

bool ShardSink::Publish(Ready& shard) {
  const int rows = shard.writer->rows();
  try {
    if (shard.stem.empty()) shard.stem = UniqueFileStem();
    if (!shard.sgf_published && !shard.sgf_text.empty()) {
      EnsureDirectory(sgfs_dir_);  // it may have been deleted since
      PublishFile(sgfs_dir_ + "/" + shard.stem + ".sgfs", shard.sgf_text);
    }
    shard.sgf_published = true;
    if (rows > 0) {
      EnsureDirectory(tdata_dir_);
      shard.writer->WriteAndClear(tdata_dir_ + "/" + ShardFileName(shard.stem, rows));
      counters_.rows += rows;
      ++counters_.shards;
    }
    return true;
  } catch (const Error& e) {
    logger_.Warning(StrCat("cannot publish shard ", shard.stem, " of model ", model_, " (", rows,
                           " rows, kept to publish later): ", e.what()));
    return false;
  }
}

}  // namespace tengen::pipeline
