// Fibers: resume and suspend hand control back and forth in order, a body's exception comes
// out of the Resume that finished it, deep frames fit the stack, and many fibers on one thread
// keep their own stacks apart.
#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/fiber.h"

namespace tengen {
namespace {

TEST_CASE("fiber: resume and suspend alternate, and the body runs to its end") {
  std::vector<std::string> log;
  std::unique_ptr<Fiber> fiber;
  fiber = std::make_unique<Fiber>([&] {
    log.push_back("a");
    fiber->Suspend();
    log.push_back("b");
    fiber->Suspend();
    log.push_back("c");
  });
  CHECK(!fiber->finished());
  fiber->Resume();
  log.push_back("1");
  fiber->Resume();
  log.push_back("2");
  CHECK(!fiber->finished());
  fiber->Resume();
  CHECK(fiber->finished());
  CHECK(log == std::vector<std::string>{"a", "1", "b", "2", "c"});
  CHECK_THROWS_AS(fiber->Resume(), CheckError);
}

TEST_CASE("fiber: an exception thrown in the body comes out of the Resume that ends it") {
  std::unique_ptr<Fiber> fiber;
  fiber = std::make_unique<Fiber>([&] {
    fiber->Suspend();
    throw std::runtime_error("game over");
  });
  fiber->Resume();
  CHECK_THROWS_WITH_AS(fiber->Resume(), "game over", std::runtime_error);
  CHECK(fiber->finished());
}

// Recursion with a frame of its own at each level, so that the stack really is used.
int Deep(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (depth == 0) return frame[0];
  return Deep(depth - 1) + frame[0];
}

TEST_CASE("fiber: many fibers on one thread keep separate stacks, deep frames fit") {
  constexpr int kFibers = 200;
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::vector<long> sums(kFibers, 0);
  for (int i = 0; i < kFibers; ++i) {
    fibers.push_back(std::make_unique<Fiber>([&, i] {
      long local = i;  // lives on this fiber's stack across suspensions
      for (int round = 0; round < 5; ++round) {
        local += Deep(100);  // ~60 KB of frames
        fibers[static_cast<size_t>(i)]->Suspend();
      }
      sums[static_cast<size_t>(i)] = local;
    }));
  }
  bool any_running = true;
  while (any_running) {
    any_running = false;
    for (auto& fiber : fibers) {
      if (fiber->finished()) continue;
      fiber->Resume();
      any_running = true;
    }
  }
  const long deep = Deep(100);
  for (int i = 0; i < kFibers; ++i) CHECK(sums[static_cast<size_t>(i)] == i + 5 * deep);
}

TEST_CASE("fiber: one that never ran can be destroyed, and suspending outside it is an error") {
  auto never = std::make_unique<Fiber>([] {});
  never.reset();
  Fiber fiber([] {});
  CHECK_THROWS_AS(fiber.Suspend(), CheckError);
  fiber.Resume();
  CHECK(fiber.finished());
}

}  // namespace
}  // namespace tengen
