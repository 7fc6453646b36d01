#pragma once
// A batching server for one device: many game threads each submit one position and block
// until it has been evaluated; one server thread gathers requests into batches of up to
// max_batch_size and runs them through its Evaluator. Once a request is waiting, the server
// waits at most max_wait for stragglers before running a partial batch, so a few slow games
// never stall the rest. Several devices in one process get one server each.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "nn/evaluator.h"

namespace tengen::nn {

struct BatchingOptions {
  int max_batch_size = 64;
  // How long a partial batch waits for more requests. Short: a batch is only worth waiting
  // for while game threads are still about to submit.
  std::chrono::microseconds max_wait{2000};
};

// One position's outputs (EvalOutput's rows for a batch of one).
struct RowOutput {
  std::vector<float> policy_logits;  // [L*L+1]
  float value_logits[3] = {0, 0, 0};
  float score = 0;
  std::vector<float> ownership;  // [L*L]
};

struct BatchingStats {
  int64_t batches = 0;
  int64_t positions = 0;
  double MeanBatchSize() const { return batches ? static_cast<double>(positions) / batches : 0; }
};

class BatchingServer {
 public:
  BatchingServer(std::unique_ptr<Evaluator> evaluator, BatchingOptions options);
  // Stops the server thread; requests still waiting are answered first.
  ~BatchingServer();
  BatchingServer(const BatchingServer&) = delete;
  BatchingServer& operator=(const BatchingServer&) = delete;

  // Evaluates one position (inputs as nn/features.h lays them out for pos_len()). Blocks;
  // safe from any number of threads. Rethrows an exception thrown by the evaluator.
  void Evaluate(const float* spatial, const float* global, RowOutput* output);

  // Callers that will keep submitting (game threads) register for their lifetime: when every
  // registered client is waiting, the batch runs at once rather than waiting out max_wait for
  // stragglers that cannot come (the last games of a run, a few threads per server).
  void AddClient();
  void RemoveClient();

  int pos_len() const { return pos_len_; }
  std::string model_name() const { return model_name_; }
  BatchingStats stats() const;

 private:
  struct Request;
  void Serve();
  void RunBatch(std::vector<Request*>& batch);
  // The queue is worth running now (mutex_ held).
  bool BatchReady() const;

  std::unique_ptr<Evaluator> evaluator_;
  BatchingOptions options_;
  int pos_len_;
  std::string model_name_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::vector<Request*> queue_;
  bool stopping_ = false;
  int clients_ = 0;
  std::atomic<int64_t> batches_{0};
  std::atomic<int64_t> positions_{0};
  std::thread thread_;
};

}  // namespace tengen::nn
