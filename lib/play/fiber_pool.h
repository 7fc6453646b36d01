#pragma once
// Many games on a few threads (selfplay's way to keep thousands of games in flight): each game
// runs on a fiber (util/fiber.h), and a thread runs its fibers one after another, each until it
// waits for the net or sleeps. A game that needs the net reserves a row of a batching server's
// batch, writes its inputs there, submits it with its thread's doorbell and its own tag, and
// suspends (WaitForRow); the thread then runs the next game that can go on, and when none can,
// sleeps on its doorbell until the server rings it with the tags of the rows it answered
// (nn/batching.h). So a thread is woken once per batch, not once per game, and the cost of the
// hand-off no longer grows with the number of games in flight.
//
// A thread's fibers run in turn (first come, first served), so a game's moves depend only on
// its own seed and the answers it gets, as when it had a thread of its own.

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "nn/batching.h"
#include "util/fiber.h"

namespace tengen::play {

// What a body running in RunFibers uses to wait without blocking its thread.
class FiberTask {
 public:
  // The bell and tag to submit rows with (BatchingServer::Submit).
  nn::Doorbell* bell() const { return bell_; }
  uint64_t tag() const { return tag_; }
  // Suspends until bell() has rung with tag(): the row submitted with them is answered.
  void WaitForRow();
  // Suspends for at least `duration` while the thread's other fibers run.
  void SleepFor(std::chrono::milliseconds duration);

 private:
  friend void RunFibers(std::vector<std::function<void(FiberTask&)>> bodies);
  Fiber* fiber_ = nullptr;
  nn::Doorbell* bell_ = nullptr;
  uint64_t tag_ = 0;
  bool sleeping_ = false;
  std::chrono::steady_clock::time_point wake_;
};

// Runs every body on a fiber of its own on the calling thread and returns once all have
// returned. An exception that escapes a body is rethrown here once all are done (the first
// one; the others are lost), so bodies that must not stop each other catch their own.
void RunFibers(std::vector<std::function<void(FiberTask&)>> bodies);

}  // namespace tengen::play
