#include "util/signals.h"

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <ctime>
#include <thread>

namespace tengen {
namespace {

// The one process-wide flag: a signal handler can reach nothing but a static lock-free atomic.
std::atomic<bool>& SignalFlag() {
  static std::atomic<bool> flag{false};
  return flag;
}

std::atomic<bool>& UrgentFlag() {
  static std::atomic<bool> flag{false};
  return flag;
}

// Whether the second signal sets the urgent flag rather than ending the process.
std::atomic<bool>& TwoStage() {
  static std::atomic<bool> two_stage{false};
  return two_stage;
}

// CLOCK_MONOTONIC nanoseconds of the last signal that counted.
std::atomic<int64_t>& LastCounted() {
  static std::atomic<int64_t> nanos{0};
  return nanos;
}

// clock_gettime is async-signal-safe.
int64_t MonotonicNanos() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// The first SIGINT or SIGTERM sets the flag; after it, SIGTERM changes nothing. A later SIGINT
// sets the urgent flag in two stages; the next ends the process with SIGINT's default action
// (restored, then raised: it arrives when the handler returns), without any exit() call of
// ours. A SIGINT within kRepeatWindowNanos of the last signal that counted is that same request
// delivered again and changes nothing. sigaction and raise are async-signal-safe.
extern "C" void HandleStopSignal(int signal) {
  const int64_t now = MonotonicNanos();
  if (!SignalFlag().load()) {
    LastCounted().store(now);
    SignalFlag().store(true);
    return;
  }
  if (signal != SIGINT || now - LastCounted().load() < kRepeatWindowNanos) return;
  LastCounted().store(now);
  if (TwoStage().load() && !UrgentFlag().load()) {
    UrgentFlag().store(true);
    return;
  }
  UrgentFlag().store(true);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal, &default_action, nullptr);
  raise(signal);
}

}  // namespace

StopToken StopToken::FromSignals() { return StopToken(&SignalFlag(), &UrgentFlag()); }

bool StopToken::SleepFor(std::chrono::milliseconds duration) const {
  constexpr std::chrono::milliseconds kSlice(50);
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (!stop_requested()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(kSlice, deadline - now));
  }
  return true;
}

void InstallStopSignalHandlers(bool two_stage) {
  // Once a signal has come, the handlers stay as they are.
  if (SignalFlag().load()) return;
  TwoStage().store(two_stage);
  struct sigaction action {};
  action.sa_handler = HandleStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void RequestStop() { SignalFlag().store(true); }

}  // namespace tengen
