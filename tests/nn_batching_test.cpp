// The batching server: every caller gets the answer for its own position, batches never
// exceed the maximum, concurrent callers are batched together, and evaluator errors reach the
// caller; rows written straight into the batch are answered with one ring per thread and batch,
// a batch waits for a row still being written, and the next batch fills while one runs.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "nn/batching.h"
#include "nn/features.h"
#include "util/error.h"

namespace tengen::nn {
namespace {

// Answers with a function of the input so that mixed-up rows are detected: policy logit 0 is
// the first spatial value, the value logits echo the first global.
class EchoEvaluator : public Evaluator {
 public:
  explicit EchoEvaluator(int pos_len, std::vector<int>* batch_sizes, bool fail = false)
      : pos_len_(pos_len), batch_sizes_(batch_sizes), fail_(fail) {}
  void Evaluate(const EvalBatch& batch, EvalOutput* output) override {
    if (fail_) throw std::runtime_error("device lost");
    batch_sizes_->push_back(batch.size);  // the server calls from one thread
    output->Resize(batch.size, batch.pos_len);
    const int area = batch.pos_len * batch.pos_len;
    for (int i = 0; i < batch.size; ++i) {
      const float* spatial =
          batch.spatial.data() + static_cast<size_t>(i) * kNumSpatialFeatures * area;
      const float* global = batch.global.data() + static_cast<size_t>(i) * kNumGlobalFeatures;
      output->policy_logits[static_cast<size_t>(i) * (area + 1)] = spatial[0];
      output->value_logits[3 * i] = global[0];
      output->score[i] = spatial[1] + global[1];
    }
  }
  std::string model_name() const override { return "echo"; }
  int pos_len() const override { return pos_len_; }

 private:
  int pos_len_;
  std::vector<int>* batch_sizes_;
  bool fail_;
};

TEST_CASE("batching: each of many concurrent callers gets its own answer") {
  constexpr int kPosLen = 5;
  constexpr int kThreads = 16;
  constexpr int kCallsPerThread = 200;
  std::vector<int> batch_sizes;
  BatchingOptions options;
  options.max_batch_size = 8;
  BatchingServer server(std::make_unique<EchoEvaluator>(kPosLen, &batch_sizes), options);
  CHECK(server.pos_len() == kPosLen);
  CHECK(server.model_name() == "echo");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> spatial(kNumSpatialFeatures * kPosLen * kPosLen, 0.0f);
      std::vector<float> global(kNumGlobalFeatures, 0.0f);
      RowOutput out;
      for (int i = 0; i < kCallsPerThread; ++i) {
        spatial[0] = static_cast<float>(t);
        spatial[1] = static_cast<float>(i);
        global[0] = static_cast<float>(t * 1000 + i);
        global[1] = 0.5f;
        server.Evaluate(spatial.data(), global.data(), &out);
        if (out.policy_logits.size() != kPosLen * kPosLen + 1 || out.policy_logits[0] != t ||
            out.value_logits[0] != static_cast<float>(t * 1000 + i) || out.score != i + 0.5f ||
            out.ownership.size() != kPosLen * kPosLen)
          ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(wrong == 0);
  const BatchingStats stats = server.stats();
  CHECK(stats.positions == kThreads * kCallsPerThread);
  int total = 0, largest = 0;
  for (int size : batch_sizes) {
    total += size;
    largest = std::max(largest, size);
  }
  CHECK(total == kThreads * kCallsPerThread);
  CHECK(largest <= options.max_batch_size);
  // With twice as many callers as the batch holds, batches fill up.
  CHECK(stats.MeanBatchSize() > 2.0);
  MESSAGE("mean batch size " << stats.MeanBatchSize() << " over " << stats.batches << " batches");
}

TEST_CASE("batching: a lone caller is answered without waiting for a full batch") {
  std::vector<int> batch_sizes;
  BatchingOptions options;
  options.max_batch_size = 64;
  options.max_wait = std::chrono::microseconds(100);
  BatchingServer server(std::make_unique<EchoEvaluator>(3, &batch_sizes), options);
  std::vector<float> spatial(kNumSpatialFeatures * 9, 1.0f), global(kNumGlobalFeatures, 2.0f);
  RowOutput out;
  for (int i = 0; i < 5; ++i) server.Evaluate(spatial.data(), global.data(), &out);
  CHECK(batch_sizes == std::vector<int>(5, 1));
  CHECK(out.value_logits[0] == 2.0f);
}

TEST_CASE("batching: an evaluator error reaches every caller of that batch") {
  std::vector<int> batch_sizes;
  BatchingServer server(std::make_unique<EchoEvaluator>(3, &batch_sizes, /*fail=*/true),
                        BatchingOptions());
  std::vector<float> spatial(kNumSpatialFeatures * 9, 0.0f), global(kNumGlobalFeatures, 0.0f);
  RowOutput out;
  CHECK_THROWS_WITH_AS(server.Evaluate(spatial.data(), global.data(), &out), "device lost",
                       std::runtime_error);
}

// Returns outputs for one position fewer than it was given.
class ShortEvaluator : public Evaluator {
 public:
  void Evaluate(const EvalBatch& batch, EvalOutput* output) override {
    output->Resize(batch.size - 1, batch.pos_len);
  }
  std::string model_name() const override { return "short"; }
  int pos_len() const override { return 3; }
};

TEST_CASE("batching: outputs of the wrong size are an error for the callers, not a bad read") {
  BatchingServer server(std::make_unique<ShortEvaluator>(), BatchingOptions());
  std::vector<float> spatial(kNumSpatialFeatures * 9, 0.0f), global(kNumGlobalFeatures, 0.0f);
  RowOutput out;
  try {
    server.Evaluate(spatial.data(), global.data(), &out);
    FAIL("expected an Error");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find("short") != std::string::npos);
    CHECK(what.find("wrong size") != std::string::npos);
  }
  // The server thread survives and answers the next caller the same way.
  CHECK_THROWS_AS(server.Evaluate(spatial.data(), global.data(), &out), Error);
}

}  // namespace
}  // namespace tengen::nn

namespace tengen::nn {
namespace {

TEST_CASE("batching: registered clients that are all waiting do not wait for stragglers") {
  // Two clients, batches of up to 64, and a straggler wait far longer than the test: if the
  // server waited for a full batch, 50 rounds would take 50 minutes. With both registered,
  // every batch runs as soon as both have submitted, so each batch holds exactly two.
  std::vector<int> batch_sizes;
  BatchingOptions options;
  options.max_batch_size = 64;
  options.max_wait = std::chrono::minutes(1);
  BatchingServer server(std::make_unique<EchoEvaluator>(3, &batch_sizes), options);
  server.AddClient();
  server.AddClient();
  auto client = [&server] {
    std::vector<float> spatial(kNumSpatialFeatures * 9, 0.0f), global(kNumGlobalFeatures, 0.0f);
    RowOutput out;
    for (int i = 0; i < 50; ++i) server.Evaluate(spatial.data(), global.data(), &out);
    server.RemoveClient();
  };
  std::thread a(client), b(client);
  a.join();
  b.join();
  int total = 0;
  for (int size : batch_sizes) total += size;
  CHECK(total == 100);
  CHECK(batch_sizes.size() <= 51);  // nearly all batches hold both clients' positions
}

}  // namespace
}  // namespace tengen::nn

namespace tengen::nn {
namespace {

constexpr int kRowPosLen = 3;
constexpr size_t kSpatialRow = static_cast<size_t>(kNumSpatialFeatures) * kRowPosLen * kRowPosLen;

// Writes EchoEvaluator's inputs for (a, b) into a reserved slot.
void WriteEcho(const BatchingServer::Slot& slot, float a, float b) {
  std::fill(slot.spatial, slot.spatial + kSpatialRow, 0.0f);
  std::fill(slot.global, slot.global + kNumGlobalFeatures, 0.0f);
  slot.spatial[0] = a;
  slot.global[0] = b;
}

TEST_CASE("batching: rows written into the batch by one thread are answered with one ring") {
  std::vector<int> batch_sizes;
  BatchingOptions options;
  options.max_batch_size = 16;
  options.max_wait = std::chrono::minutes(1);  // only a full batch runs
  BatchingServer server(std::make_unique<EchoEvaluator>(kRowPosLen, &batch_sizes), options);
  Doorbell bell;
  std::vector<RowOutput> outputs(16);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 16; ++i) {
      const BatchingServer::Slot slot = server.Reserve();
      WriteEcho(slot, static_cast<float>(i), static_cast<float>(100 * round + i));
      server.Submit(slot, &outputs[static_cast<size_t>(i)], &bell, static_cast<uint64_t>(i));
    }
    std::vector<uint64_t> tags;
    bell.Wait(&tags);  // one ring carries every tag of the batch
    std::sort(tags.begin(), tags.end());
    std::vector<uint64_t> expected(16);
    for (int i = 0; i < 16; ++i) expected[static_cast<size_t>(i)] = static_cast<uint64_t>(i);
    CHECK(tags == expected);
    for (int i = 0; i < 16; ++i) {
      const RowOutput& out = outputs[static_cast<size_t>(i)];
      CHECK(out.policy_logits[0] == static_cast<float>(i));
      CHECK(out.value_logits[0] == static_cast<float>(100 * round + i));
      CHECK(!out.error);
    }
  }
  CHECK(batch_sizes == std::vector<int>(3, 16));
}

TEST_CASE(
    "batching: a due batch waits for a row still being written, and a null output is dropped") {
  std::vector<int> batch_sizes;
  BatchingOptions options;
  options.max_batch_size = 8;
  options.max_wait = std::chrono::microseconds(100);
  BatchingServer server(std::make_unique<EchoEvaluator>(kRowPosLen, &batch_sizes), options);
  Doorbell bell;
  RowOutput first;
  const BatchingServer::Slot a = server.Reserve();
  const BatchingServer::Slot b = server.Reserve();
  WriteEcho(a, 1, 2);
  server.Submit(a, &first, &bell, 7);
  // Long past max_wait, but b is reserved and not yet submitted: nothing may run.
  std::vector<uint64_t> tags;
  CHECK(!bell.WaitUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(50), &tags));
  CHECK(batch_sizes.empty());
  WriteEcho(b, 3, 4);
  server.Submit(b, nullptr, &bell, 8);
  while (tags.size() < 2) bell.Wait(&tags);
  std::sort(tags.begin(), tags.end());
  CHECK(tags == std::vector<uint64_t>{7, 8});
  CHECK(batch_sizes == std::vector<int>{2});
  CHECK(first.policy_logits[0] == 1.0f);
  CHECK(first.value_logits[0] == 2.0f);
}

TEST_CASE("batching: threads keeping many rows in flight, written at odd moments, all answered") {
  // Rows are reserved, and submitted a little later, from four threads at once with batches
  // that rarely fill: every way a batch can become due (full, everyone waiting, max_wait, its
  // last row submitted late) happens many times. A lost wake-up would hang the test.
  std::vector<int> batch_sizes;
  BatchingOptions options;
  options.max_batch_size = 5;
  options.max_wait = std::chrono::microseconds(50);
  BatchingServer server(std::make_unique<EchoEvaluator>(kRowPosLen, &batch_sizes), options);
  constexpr int kThreads = 4, kInFlight = 7, kRows = 3000;
  for (int i = 0; i < kThreads * kInFlight; ++i) server.AddClient();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Doorbell bell;
      std::vector<RowOutput> outputs(kInFlight);
      std::vector<int> sent(kInFlight, 0);
      int submitted = 0, answered = 0;
      const auto submit = [&](int tag) {
        const BatchingServer::Slot slot = server.Reserve();
        if (submitted % 3 == t % 3) std::this_thread::yield();  // a row written late
        WriteEcho(slot, static_cast<float>(t), static_cast<float>(submitted));
        sent[static_cast<size_t>(tag)] = submitted++;
        server.Submit(slot, &outputs[static_cast<size_t>(tag)], &bell, static_cast<uint64_t>(tag));
      };
      for (int tag = 0; tag < kInFlight; ++tag) submit(tag);
      std::vector<uint64_t> tags;
      while (answered < submitted) {
        tags.clear();
        bell.Wait(&tags);
        for (uint64_t tag : tags) {
          ++answered;
          const RowOutput& out = outputs[tag];
          if (out.policy_logits[0] != static_cast<float>(t) ||
              out.value_logits[0] != static_cast<float>(sent[tag]))
            ++wrong;
          if (submitted < kRows) submit(static_cast<int>(tag));
        }
      }
      for (int i = 0; i < kInFlight; ++i) server.RemoveClient();
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(wrong == 0);
  CHECK(server.stats().positions == kThreads * kRows);
  CHECK(*std::max_element(batch_sizes.begin(), batch_sizes.end()) <= 5);
}

// Holds its first batch until released, so that a test can fill more while it runs.
class GatedEvaluator : public Evaluator {
 public:
  explicit GatedEvaluator(std::vector<int>* batch_sizes) : echo_(kRowPosLen, batch_sizes) {}
  void Evaluate(const EvalBatch& batch, EvalOutput* output) override {
    std::unique_lock<std::mutex> lock(mutex_);
    started_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
    echo_.Evaluate(batch, output);
  }
  void WaitStarted() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return started_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  std::string model_name() const override { return "gated"; }
  int pos_len() const override { return kRowPosLen; }

 private:
  EchoEvaluator echo_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool started_ = false;
  bool open_ = false;
};

TEST_CASE("batching: while one batch runs, the next ones fill and then run in order") {
  std::vector<int> batch_sizes;
  BatchingOptions options;
  options.max_batch_size = 4;
  options.max_wait = std::chrono::minutes(1);
  auto gated = std::make_unique<GatedEvaluator>(&batch_sizes);
  GatedEvaluator& gate = *gated;
  BatchingServer server(std::move(gated), options);
  Doorbell bell;
  std::vector<RowOutput> outputs(12);
  const auto submit = [&](int i) {
    const BatchingServer::Slot slot = server.Reserve();
    WriteEcho(slot, static_cast<float>(i), 0);
    server.Submit(slot, &outputs[static_cast<size_t>(i)], &bell, static_cast<uint64_t>(i));
  };
  for (int i = 0; i < 4; ++i) submit(i);
  gate.WaitStarted();                      // the first batch is running (and held)
  for (int i = 4; i < 12; ++i) submit(i);  // two more full batches, written meanwhile
  gate.Open();
  std::vector<uint64_t> tags;
  while (tags.size() < 12) bell.Wait(&tags);
  CHECK(batch_sizes == std::vector<int>{4, 4, 4});
  for (int i = 0; i < 12; ++i) CHECK(outputs[static_cast<size_t>(i)].policy_logits[0] == i);
}

}  // namespace
}  // namespace tengen::nn
