#include "nn/batching.h"

#include <algorithm>
#include <exception>
#include <string>

#include "nn/features.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::nn {

struct BatchingServer::Request {
  const float* spatial = nullptr;
  const float* global = nullptr;
  RowOutput* output = nullptr;
  std::exception_ptr error;
  bool done = false;
  std::condition_variable finished;
};

BatchingServer::BatchingServer(std::unique_ptr<Evaluator> evaluator, BatchingOptions options)
    : evaluator_(std::move(evaluator)),
      options_(options),
      pos_len_(evaluator_->pos_len()),
      model_name_(evaluator_->model_name()) {
  options_.max_batch_size = std::max(1, options_.max_batch_size);
  thread_ = std::thread([this] { Serve(); });
}

BatchingServer::~BatchingServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  thread_.join();
}

void BatchingServer::Evaluate(const float* spatial, const float* global, RowOutput* output) {
  Request request;
  request.spatial = spatial;
  request.global = global;
  request.output = output;
  std::unique_lock<std::mutex> lock(mutex_);
  queue_.push_back(&request);
  if (queue_.size() == 1 || BatchReady()) work_ready_.notify_one();
  request.finished.wait(lock, [&request] { return request.done; });
  if (request.error) std::rethrow_exception(request.error);
}

void BatchingServer::AddClient() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++clients_;
}

void BatchingServer::RemoveClient() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --clients_;
  }
  work_ready_.notify_one();  // the others may now be all there is
}

bool BatchingServer::BatchReady() const {
  const int queued = static_cast<int>(queue_.size());
  return queued >= options_.max_batch_size || (clients_ > 0 && queued >= clients_);
}

BatchingStats BatchingServer::stats() const {
  BatchingStats s;
  s.batches = batches_.load();
  s.positions = positions_.load();
  return s;
}

void BatchingServer::Serve() {
  std::vector<Request*> batch;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping with nothing left to answer
    if (!BatchReady() && !stopping_) {
      work_ready_.wait_for(lock, options_.max_wait, [this] { return stopping_ || BatchReady(); });
    }
    const size_t take = std::min(queue_.size(), static_cast<size_t>(options_.max_batch_size));
    batch.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
    lock.unlock();
    RunBatch(batch);
    lock.lock();
    for (Request* request : batch) {
      request->done = true;
      request->finished.notify_one();
    }
  }
}

void BatchingServer::RunBatch(std::vector<Request*>& batch) {
  // Everything runs inside the try: an exception escaping the server thread (a bad_alloc in a
  // resize, say) would terminate the process instead of reaching the callers.
  try {
    const int n = static_cast<int>(batch.size());
    const int area = pos_len_ * pos_len_;
    const int spatial_size = kNumSpatialFeatures * area;
    EvalBatch input;
    input.Resize(n, pos_len_);
    for (int i = 0; i < n; ++i) {
      std::copy(batch[i]->spatial, batch[i]->spatial + spatial_size, input.SpatialRow(i));
      std::copy(batch[i]->global, batch[i]->global + kNumGlobalFeatures, input.GlobalRow(i));
    }
    EvalOutput output;
    evaluator_->Evaluate(input, &output);
    const size_t rows = static_cast<size_t>(n);
    const size_t cells = static_cast<size_t>(area);
    if (output.policy_logits.size() != rows * (cells + 1) ||
        output.value_logits.size() != 3 * rows || output.score.size() != rows ||
        output.ownership.size() != rows * cells) {
      throw Error(StrCat("evaluator ", model_name_,
                         " returned outputs of the wrong size for a batch of ", n, " at pos_len ",
                         pos_len_, ": policy ", output.policy_logits.size(), ", value ",
                         output.value_logits.size(), ", score ", output.score.size(),
                         ", ownership ", output.ownership.size()));
    }
    for (int i = 0; i < n; ++i) {
      RowOutput* out = batch[i]->output;
      const float* policy = output.policy_logits.data() + static_cast<size_t>(i) * (cells + 1);
      out->policy_logits.assign(policy, policy + area + 1);
      std::copy(output.value_logits.begin() + 3 * i, output.value_logits.begin() + 3 * i + 3,
                out->value_logits);
      out->score = output.score[static_cast<size_t>(i)];
      const float* ownership = output.ownership.data() + static_cast<size_t>(i) * cells;
      out->ownership.assign(ownership, ownership + area);
    }
    batches_ += 1;
    positions_ += n;
  } catch (...) {
    for (Request* request : batch) request->error = std::current_exception();
  }
}

}  // namespace tengen::nn
