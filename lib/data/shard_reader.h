#pragma once
// Reads a list of training shards in order, with up to `threads` reads running ahead of the
// consumer on threads of their own (inline for 1): inflating a shard takes longer than dealing
// its rows, so the shuffler reads the next files while it deals the current one. Each shard
// comes back as it was read or with why it could not be (a shard that cannot be read is the
// caller's to skip or to fail on); every draw of randomness stays with the consumer, so the
// order of the results is the order of the paths whatever the thread count.

#include <cstddef>
#include <deque>
#include <exception>
#include <future>
#include <string>
#include <vector>

#include "data/training_rows.h"

namespace tengen::data {

// A shard read (or why it could not be).
struct ShardRead {
  PackedShard shard;
  std::string problem;       // empty when the read succeeded
  std::exception_ptr error;  // what ReadPackedShard threw (an Error), if anything
};

// ReadPackedShard with an Error caught into the result.
ShardRead ReadShardOrProblem(const std::string& path);

class ShardReader {
 public:
  ShardReader(std::vector<std::string> paths, int threads);
  ShardReader(const ShardReader&) = delete;
  ShardReader& operator=(const ShardReader&) = delete;
  // Waits for the reads still running.
  ~ShardReader();

  // The next shard in order; call at most paths.size() times.
  ShardRead Next();

 private:
  std::vector<std::string> paths_;
  size_t threads_;
  size_t next_started_ = 0;
  size_t next_consumed_ = 0;
  std::deque<std::future<ShardRead>> pending_;
};

}  // namespace tengen::data
