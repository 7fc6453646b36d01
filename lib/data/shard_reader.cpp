#include "data/shard_reader.h"

#include <algorithm>
#include <utility>

#include "util/error.h"

namespace tengen::data {

ShardRead ReadShardOrProblem(const std::string& path) {
  ShardRead result;
  try {
    result.shard = ReadPackedShard(path);
  } catch (const Error& e) {
    result.problem = e.what();
    result.error = std::current_exception();
  }
  return result;
}

ShardReader::ShardReader(std::vector<std::string> paths, int threads)
    : paths_(std::move(paths)), threads_(static_cast<size_t>(std::max(1, threads))) {}

ShardReader::~ShardReader() {
  for (std::future<ShardRead>& read : pending_)
    if (read.valid()) read.wait();
}

ShardRead ShardReader::Next() {
  if (threads_ <= 1) return ReadShardOrProblem(paths_[next_consumed_++]);
  while (next_started_ < paths_.size() && next_started_ < next_consumed_ + threads_)
    pending_.push_back(std::async(std::launch::async, ReadShardOrProblem, paths_[next_started_++]));
  std::future<ShardRead> read = std::move(pending_.front());
  pending_.pop_front();
  ++next_consumed_;
  return read.get();
}

}  // namespace tengen::data
