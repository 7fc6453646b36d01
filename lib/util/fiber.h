#pragma once
// Stackful coroutines: one thread runs many games, each on a stack of its own, and a game that
// waits for the net suspends itself instead of blocking its thread. Search code stays plain
// synchronous C++ (a leaf evaluation is a function call that returns the answer), so the same
// game seed gives the same moves whether the game runs on a thread or on a fiber; only the
// hand-off to the net changes (play/fiber_pool.h, nn/batching.h).
//
// A fiber is resumed by the thread that created it and suspends itself from inside; it never
// moves between threads. Its body must run to the end before the fiber is destroyed (objects on
// a suspended stack would never be destroyed). Built on POSIX ucontext: makecontext for the
// start, swapcontext for each switch (one system call for the signal mask; well under a
// microsecond, against tens of microseconds of search per evaluation). The stack is an
// mmap'ed region whose pages are committed only when touched, with a guard page below it so
// that an overflow faults instead of writing into a neighbour's stack.

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>

namespace tengen {

class Fiber {
 public:
  // 256 KiB: searches and games keep their trees on the heap; their frames are small.
  static constexpr size_t kDefaultStackBytes = 256 * 1024;

  explicit Fiber(std::function<void()> body, size_t stack_bytes = kDefaultStackBytes);
  // The body must have finished (or never started).
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the body until it calls Suspend() or returns. From the owning thread, not from inside
  // a fiber. An exception that escaped the body is rethrown here, once, when it finishes.
  void Resume();
  // From inside this fiber's body: back to the Resume() that ran it.
  void Suspend();
  bool finished() const;

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

}  // namespace tengen
