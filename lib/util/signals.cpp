#include "util/signals.h"

#include <algorithm>
#include <csignal>
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

// The first SIGINT or SIGTERM sets the flag; in two stages the second sets the urgent flag.
// The last handled signal restores the default action for both, so the next one (of either
// kind) ends the process at once, without any exit() call of ours. sigaction is
// async-signal-safe.
extern "C" void HandleStopSignal(int) {
  if (TwoStage().load() && !SignalFlag().load()) {
    SignalFlag().store(true);
    return;
  }
  if (SignalFlag().load()) UrgentFlag().store(true);
  SignalFlag().store(true);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(SIGINT, &default_action, nullptr);
  sigaction(SIGTERM, &default_action, nullptr);
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
  // After the first signal the default action must stay: the next signal ends the process.
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
