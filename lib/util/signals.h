#pragma once
// Cooperative shutdown. The first SIGINT or SIGTERM sets a stop flag that long-running loops
// poll (publish what is complete, then return); the handler then restores the default action,
// so a second signal ends the process at once. The flag itself is
// necessarily process-wide (a signal handler can reach nothing else); everything else takes a
// StopToken by value so tests can drive it without signals.

#include <atomic>
#include <chrono>

namespace tengen {

class StopToken {
 public:
  // A token that follows the process-wide signal flag.
  static StopToken FromSignals();
  // A token driven by the given flag (tests, internal shutdown).
  explicit StopToken(const std::atomic<bool>* flag) : flag_(flag) {}

  bool stop_requested() const { return flag_->load(std::memory_order_relaxed); }
  // Sleeps up to `duration`, waking early (within ~50 ms) when a stop is requested.
  // Returns true if a stop was requested.
  bool SleepFor(std::chrono::milliseconds duration) const;

 private:
  const std::atomic<bool>* flag_;
};

// Installs the SIGINT/SIGTERM handlers. Safe to call more than once.
void InstallStopSignalHandlers();
// Sets the process-wide flag as a signal would (for programs that decide to stop themselves).
void RequestStop();

}  // namespace tengen
