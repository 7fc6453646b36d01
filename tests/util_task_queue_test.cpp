// TaskQueue (util/task_queue.h): inline with a limit of 1, at most `limit` tasks at once,
// every task done after Wait, and a task's exception rethrown.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "util/task_queue.h"

namespace tengen {
namespace {

TEST_CASE("task queue: a limit of 1 runs each task inline, in order") {
  TaskQueue queue(1);
  std::vector<int> order;
  const auto caller = std::this_thread::get_id();
  for (int i = 0; i < 5; ++i) {
    queue.Run([&order, i, caller] {
      const bool on_caller = std::this_thread::get_id() == caller;
      CHECK(on_caller);
      order.push_back(i);
    });
    CHECK(order.size() == static_cast<size_t>(i + 1));  // done before Run returns
  }
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
  CHECK_THROWS_AS(queue.Run([] { throw std::runtime_error("inline"); }), std::runtime_error);
}

TEST_CASE("task queue: at most `limit` tasks at once, all done after Wait") {
  constexpr int kLimit = 3;
  TaskQueue queue(kLimit);
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::atomic<int> done{0};
  for (int i = 0; i < 12; ++i) {
    queue.Run([&] {
      const int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      --running;
      ++done;
    });
  }
  queue.Wait();
  CHECK(done == 12);
  CHECK(most.load() <= kLimit);
  CHECK(most.load() >= 1);
}

TEST_CASE("task queue: Wait rethrows a task's exception") {
  TaskQueue queue(2);
  std::atomic<int> done{0};
  queue.Run([&] { ++done; });
  queue.Run([] { throw std::runtime_error("write failed"); });
  CHECK_THROWS_WITH_AS(queue.Wait(), "write failed", std::runtime_error);
  CHECK(done == 1);
  queue.Run([&] { ++done; });  // usable again
  queue.Wait();
  CHECK(done == 2);
}

}  // namespace
}  // namespace tengen
