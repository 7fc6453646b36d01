#pragma once
// A batching server for one device: many games each hand over one position at a time; one
// server thread runs them through its Evaluator in batches of up to max_batch_size. Several
// devices in one process get one server each (or a device several servers).
//
// The hand-off is built so that the server thread does nothing per row but copy the outputs
// out (the net's time is the batch's, and everything per row runs on the games' threads, in
// parallel):
//   - a game reserves a row of the batch being filled (Reserve) and writes its inputs straight
//     into the batch's buffer, then submits it (Submit) and goes on with something else: a
//     thread that runs many games on fibers (util/fiber.h) runs its next game;
//   - once the batch has run, each row's outputs are copied to the RowOutput its game named,
//     and each thread that submitted rows to it is woken once, with the tags of all of its rows
//     (Doorbell), not once per row;
//   - while one batch runs, the next fills: a server keeps as many batch buffers as it needs
//     (reused, never freed while it runs), so a full batch never waits for the net to be done
//     with the previous one before games can write the one after.
// A batch runs as soon as it is full; when every registered client (AddClient) has a row in
// flight, no more can come and a partial batch runs at once; otherwise a partial batch waits
// at most max_wait after its first row for stragglers.
//
// Evaluate() is the blocking form of the same for callers that run one position at a time
// on a thread of their own (GTP's search threads, tests).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
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

// One position's outputs (EvalOutput's rows for a batch of one). Reused from one evaluation
// to the next, its vectors keep their size: no allocation once warm.
struct RowOutput {
  std::vector<float> policy_logits;  // [L*L+1]
  float value_logits[3] = {0, 0, 0};
  float score = 0;
  std::vector<float> ownership;  // [L*L]
  // Set instead of the outputs when the evaluator threw for this row's batch.
  std::exception_ptr error;
};

// Where a thread learns that rows it submitted have been answered: the server rings it once
// per batch with the tags of that thread's rows in it. One per thread that waits for rows.
class Doorbell {
 public:
  // Waits until at least one tag has rung or `deadline` has passed, then moves the tags that
  // rang into *tags (appended). Returns whether any did.
  bool WaitUntil(std::chrono::steady_clock::time_point deadline, std::vector<uint64_t>* tags);
  // Waits until at least one tag has rung.
  void Wait(std::vector<uint64_t>* tags);
  // Server side: these rows are answered.
  void Ring(const uint64_t* tags, size_t n);

 private:
  std::mutex mutex_;
  std::condition_variable rung_;
  std::vector<uint64_t> done_;
  bool waiting_ = false;
};

struct BatchingStats {
  int64_t batches = 0;
  int64_t positions = 0;
  double MeanBatchSize() const { return batches ? static_cast<double>(positions) / batches : 0; }
};

class BatchingServer {
 public:
  // A reserved row: write kNumSpatialFeatures * pos_len^2 floats at `spatial` and
  // kNumGlobalFeatures at `global` (nn/features.h's layout), then Submit it.
  struct Slot {
    float* spatial = nullptr;
    float* global = nullptr;
    void* batch = nullptr;
    int row = 0;
  };

  BatchingServer(std::unique_ptr<Evaluator> evaluator, BatchingOptions options);
  // Stops the server thread; rows already submitted are answered first.
  ~BatchingServer();
  BatchingServer(const BatchingServer&) = delete;
  BatchingServer& operator=(const BatchingServer&) = delete;

  // Reserves the next row of the batch being filled. Every reserved row must be submitted
  // (the batch waits for it), soon: nothing between the two may block.
  Slot Reserve();
  // The slot's inputs are written. Once its batch has run, its outputs are in *output (or
  // output->error is set) and `bell` rings with `tag`. *output and *bell must live until then;
  // output may be null (the row is evaluated and its outputs dropped).
  void Submit(const Slot& slot, RowOutput* output, Doorbell* bell, uint64_t tag);

  // Evaluates one position (inputs as nn/features.h lays them out for pos_len()). Blocks;
  // safe from any number of threads. Rethrows an exception thrown by the evaluator.
  void Evaluate(const float* spatial, const float* global, RowOutput* output);

  // Callers that will keep submitting (games) register for their lifetime: when every
  // registered client has a row in flight, the batch runs at once rather than waiting out
  // max_wait for stragglers that cannot come (the last games of a run, a few per server).
  void AddClient();
  void RemoveClient();

  int pos_len() const { return pos_len_; }
  std::string model_name() const { return model_name_; }
  BatchingStats stats() const;

 private:
  struct Request {
    RowOutput* output = nullptr;
    Doorbell* bell = nullptr;
    uint64_t tag = 0;
  };
  struct Batch {
    EvalBatch input;  // max_batch_size rows; input.size is set when it runs
    EvalOutput output;
    std::vector<Request> requests;
    int reserved = 0;
    int submitted = 0;
    std::chrono::steady_clock::time_point first_submit;
  };
  // One bell's tags of a batch, gathered to ring it once.
  struct Ring {
    Doorbell* bell = nullptr;
    std::vector<uint64_t> tags;
  };

  void Serve();
  // The batch to run next, taken off the queue (mutex_ held); null when none is due. *wake is
  // set to when a partial batch will be due.
  Batch* NextBatch(std::chrono::steady_clock::time_point* wake);
  void RunBatch(Batch& batch);
  void Answer(Batch& batch, const std::exception_ptr& error);
  Batch* FreeBatch();  // mutex_ held

  std::unique_ptr<Evaluator> evaluator_;
  BatchingOptions options_;
  int pos_len_;
  int spatial_row_;  // floats per row
  std::string model_name_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::vector<std::unique_ptr<Batch>> batches_;  // every buffer ever made
  std::vector<Batch*> free_;
  Batch* filling_ = nullptr;   // taking reservations
  std::deque<Batch*> closed_;  // full, waiting for the server thread
  int in_flight_ = 0;          // rows submitted and not yet answered
  bool server_waiting_ = false;
  bool stopping_ = false;
  int clients_ = 0;
  std::vector<Ring> rings_;  // server thread only
  std::atomic<int64_t> batch_count_{0};
  std::atomic<int64_t> positions_{0};
  std::thread thread_;
};

}  // namespace tengen::nn
