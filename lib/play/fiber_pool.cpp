#include "play/fiber_pool.h"

#include <algorithm>
#include <deque>
#include <exception>
#include <memory>

#include "util/error.h"

namespace tengen::play {

using Clock = std::chrono::steady_clock;

void FiberTask::WaitForRow() { fiber_->Suspend(); }

void FiberTask::SleepFor(std::chrono::milliseconds duration) {
  sleeping_ = true;
  wake_ = Clock::now() + duration;
  fiber_->Suspend();
}

void RunFibers(std::vector<std::function<void(FiberTask&)>> bodies) {
  const size_t n = bodies.size();
  nn::Doorbell bell;
  std::vector<FiberTask> tasks(n);
  std::vector<std::unique_ptr<Fiber>> fibers;
  fibers.reserve(n);
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i) {
    tasks[i].bell_ = &bell;
    tasks[i].tag_ = i;
    fibers.push_back(std::make_unique<Fiber>([&bodies, &tasks, i] { bodies[i](tasks[i]); }));
    tasks[i].fiber_ = fibers[i].get();
    ready.push_back(i);
  }
  size_t unfinished = n;
  std::exception_ptr first_error;
  std::vector<size_t> sleepers;
  std::vector<uint64_t> rung;
  while (unfinished > 0) {
    while (!ready.empty()) {
      const size_t i = ready.front();
      ready.pop_front();
      try {
        fibers[i]->Resume();
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
      if (fibers[i]->finished()) {
        --unfinished;
        fibers[i].reset();  // its stack goes back at once
      } else if (tasks[i].sleeping_) {
        sleepers.push_back(i);
      }
    }
    if (unfinished == 0) break;
    // Sleepers whose time has come go first; otherwise wait for the bell until the next is due.
    Clock::time_point next_wake = Clock::time_point::max();
    const Clock::time_point now = Clock::now();
    for (size_t k = 0; k < sleepers.size();) {
      FiberTask& task = tasks[sleepers[k]];
      if (task.wake_ <= now) {
        task.sleeping_ = false;
        ready.push_back(sleepers[k]);
        sleepers[k] = sleepers.back();
        sleepers.pop_back();
      } else {
        next_wake = std::min(next_wake, task.wake_);
        ++k;
      }
    }
    if (!ready.empty()) continue;
    rung.clear();
    bell.WaitUntil(next_wake, &rung);
    for (const uint64_t tag : rung) {
      TENGEN_CHECK(tag < n && fibers[tag] != nullptr, "a doorbell rang for no waiting fiber");
      ready.push_back(tag);
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace tengen::play
