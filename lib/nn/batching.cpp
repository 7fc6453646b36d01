#include "nn/batching.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "nn/features.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::nn {

using Clock = std::chrono::steady_clock;

bool Doorbell::WaitUntil(Clock::time_point deadline, std::vector<uint64_t>* tags) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (done_.empty()) {
    if (Clock::now() >= deadline) return false;
    waiting_ = true;
    rung_.wait_until(lock, deadline);
    waiting_ = false;
  }
  tags->insert(tags->end(), done_.begin(), done_.end());
  done_.clear();
  return true;
}

void Doorbell::Wait(std::vector<uint64_t>* tags) { WaitUntil(Clock::time_point::max(), tags); }

void Doorbell::Ring(const uint64_t* tags, size_t n) {
  // Notified under the lock: a waiter that returns may destroy the bell at once (a blocking
  // Evaluate's bell lives on its stack).
  std::lock_guard<std::mutex> lock(mutex_);
  done_.insert(done_.end(), tags, tags + n);
  if (waiting_) rung_.notify_one();
}

BatchingServer::BatchingServer(std::unique_ptr<Evaluator> evaluator, BatchingOptions options)
    : evaluator_(std::move(evaluator)),
      options_(options),
      pos_len_(evaluator_->pos_len()),
      spatial_row_(kNumSpatialFeatures * pos_len_ * pos_len_),
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

BatchingServer::Batch* BatchingServer::FreeBatch() {
  if (!free_.empty()) {
    Batch* batch = free_.back();
    free_.pop_back();
    return batch;
  }
  auto batch = std::make_unique<Batch>();
  batch->input.Resize(options_.max_batch_size, pos_len_);
  batch->requests.resize(static_cast<size_t>(options_.max_batch_size));
  batches_.push_back(std::move(batch));
  return batches_.back().get();
}

BatchingServer::Slot BatchingServer::Reserve() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (filling_ == nullptr) filling_ = FreeBatch();
  Batch* batch = filling_;
  const int row = batch->reserved++;
  if (batch->reserved == options_.max_batch_size) {
    closed_.push_back(batch);
    filling_ = nullptr;
  }
  Slot slot;
  slot.spatial = batch->input.spatial.data() + static_cast<size_t>(row) * spatial_row_;
  slot.global = batch->input.global.data() + static_cast<size_t>(row) * kNumGlobalFeatures;
  slot.batch = batch;
  slot.row = row;
  return slot;
}

void BatchingServer::Submit(const Slot& slot, RowOutput* output, Doorbell* bell, uint64_t tag) {
  if (output != nullptr) output->error = nullptr;
  auto* batch = static_cast<Batch*>(slot.batch);
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch->requests[static_cast<size_t>(slot.row)] = Request{output, bell, tag};
    if (batch->submitted++ == 0) batch->first_submit = Clock::now();
    ++in_flight_;
    // The server sleeps until something is due: the first row of a partial batch (its
    // max_wait starts), or a batch complete (no row still being written) that may run: closed
    // (full), or partial and past its max_wait or with every client waiting.
    if (server_waiting_) {
      const bool complete = batch->submitted == batch->reserved;
      wake = batch->submitted == 1 ||
             (complete && (batch != filling_ || (clients_ > 0 && in_flight_ >= clients_) ||
                           Clock::now() >= batch->first_submit + options_.max_wait));
    }
  }
  if (wake) work_ready_.notify_one();
}

void BatchingServer::Evaluate(const float* spatial, const float* global, RowOutput* output) {
  const Slot slot = Reserve();
  std::memcpy(slot.spatial, spatial, sizeof(float) * static_cast<size_t>(spatial_row_));
  std::memcpy(slot.global, global, sizeof(float) * kNumGlobalFeatures);
  Doorbell bell;
  Submit(slot, output, &bell, 0);
  std::vector<uint64_t> tags;
  bell.Wait(&tags);
  if (output->error) std::rethrow_exception(std::exchange(output->error, nullptr));
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

BatchingStats BatchingServer::stats() const {
  BatchingStats s;
  s.batches = batch_count_.load();
  s.positions = positions_.load();
  return s;
}

BatchingServer::Batch* BatchingServer::NextBatch(Clock::time_point* wake) {
  *wake = Clock::time_point::max();
  if (!closed_.empty()) {
    Batch* batch = closed_.front();
    if (batch->submitted < batch->reserved) return nullptr;  // a row is still being written
    closed_.pop_front();
    return batch;
  }
  Batch* batch = filling_;
  if (batch == nullptr || batch->submitted == 0) return nullptr;
  const Clock::time_point due = batch->first_submit + options_.max_wait;
  const bool ready = stopping_ || (clients_ > 0 && in_flight_ >= clients_) || Clock::now() >= due;
  if (batch->submitted < batch->reserved) {
    // A row is still being written: its Submit wakes the server if the batch is due by then.
    if (!ready) *wake = due;
    return nullptr;
  }
  if (ready) {
    filling_ = nullptr;
    return batch;
  }
  *wake = due;
  return nullptr;
}

void BatchingServer::Serve() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    Clock::time_point wake;
    Batch* batch = NextBatch(&wake);
    if (batch != nullptr) {
      lock.unlock();
      RunBatch(*batch);
      lock.lock();
      in_flight_ -= batch->submitted;
      batch->reserved = 0;
      batch->submitted = 0;
      free_.push_back(batch);
      continue;
    }
    const bool reserved = filling_ != nullptr && filling_->reserved > 0;
    if (stopping_ && closed_.empty() && !reserved) return;
    server_waiting_ = true;
    if (wake == Clock::time_point::max()) {
      work_ready_.wait(lock);
    } else {
      work_ready_.wait_until(lock, wake);
    }
    server_waiting_ = false;
  }
}

void BatchingServer::RunBatch(Batch& batch) {
  // Everything runs inside the try: an exception escaping the server thread (a bad_alloc in a
  // resize, say) would terminate the process instead of reaching the callers.
  std::exception_ptr error;
  try {
    const int n = batch.submitted;
    batch.input.size = n;
    evaluator_->Evaluate(batch.input, &batch.output);
    const size_t rows = static_cast<size_t>(n);
    const size_t cells = static_cast<size_t>(pos_len_) * pos_len_;
    const EvalOutput& output = batch.output;
    if (output.policy_logits.size() != rows * (cells + 1) ||
        output.value_logits.size() != 3 * rows || output.score.size() != rows ||
        output.ownership.size() != rows * cells) {
      throw Error(StrCat("evaluator ", model_name_,
                         " returned outputs of the wrong size for a batch of ", n, " at pos_len ",
                         pos_len_, ": policy ", output.policy_logits.size(), ", value ",
                         output.value_logits.size(), ", score ", output.score.size(),
                         ", ownership ", output.ownership.size()));
    }
    batch_count_ += 1;
    positions_ += n;
  } catch (...) {
    error = std::current_exception();
  }
  Answer(batch, error);
}

void BatchingServer::Answer(Batch& batch, const std::exception_ptr& error) {
  const size_t cells = static_cast<size_t>(pos_len_) * pos_len_;
  const EvalOutput& output = batch.output;
  size_t used_rings = 0;
  for (int i = 0; i < batch.submitted; ++i) {
    const Request& request = batch.requests[static_cast<size_t>(i)];
    if (RowOutput* out = request.output; out != nullptr) {
      if (error) {
        out->error = error;
      } else {
        const size_t row = static_cast<size_t>(i);
        out->policy_logits.resize(cells + 1);
        std::memcpy(out->policy_logits.data(), output.policy_logits.data() + row * (cells + 1),
                    sizeof(float) * (cells + 1));
        std::memcpy(out->value_logits, output.value_logits.data() + 3 * row, 3 * sizeof(float));
        out->score = output.score[row];
        out->ownership.resize(cells);
        std::memcpy(out->ownership.data(), output.ownership.data() + row * cells,
                    sizeof(float) * cells);
      }
    }
    // Gather each bell's tags, to ring it once. The rings' vectors are kept from batch to
    // batch (bells come and go: a blocking Evaluate's lives for one call).
    const auto used_end = rings_.begin() + static_cast<std::ptrdiff_t>(used_rings);
    auto ring = std::find_if(rings_.begin(), used_end,
                             [&request](const Ring& r) { return r.bell == request.bell; });
    if (ring == used_end) {
      if (used_rings == rings_.size()) rings_.emplace_back();
      ring = rings_.begin() + static_cast<std::ptrdiff_t>(used_rings++);
      ring->bell = request.bell;
    }
    ring->tags.push_back(request.tag);
  }
  for (size_t r = 0; r < used_rings; ++r) {
    Ring& ring = rings_[r];
    if (ring.bell != nullptr) ring.bell->Ring(ring.tags.data(), ring.tags.size());
    ring.bell = nullptr;
    ring.tags.clear();
  }
}

}  // namespace tengen::nn
