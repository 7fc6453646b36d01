#pragma once
// Cooperative shutdown. The first SIGINT or SIGTERM sets a stop flag that long-running loops
// poll (publish what is complete, then return); a second SIGINT ends the process at once, with
// SIGINT's default action. A program whose graceful stop can take a while (selfplay finishes its
// games in flight) asks for two stages instead: the second SIGINT sets an urgent flag (stop now,
// still publishing what is complete) and only the third ends the process. Only a SIGINT (a
// person at a terminal) hurries a stop: once a stop is requested, SIGTERM changes nothing, since
// schedulers repeat it while a job is still stopping (SLURM resends its terminate request to a
// job that is slow to complete) and end it with SIGKILL when their grace time is up. A SIGINT
// that comes within kRepeatWindowNanos of the last signal that counted is the same request
// again and changes nothing, so that a stop delivered twice (to the process and to its process
// group) does not end a program that is still stopping. The flags themselves are necessarily
// process-wide (a signal handler can reach nothing else); everything else takes a StopToken by
// value so tests can drive it without signals.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace tengen {

// SIGINTs closer than this to the last signal that counted are the same stop request.
constexpr int64_t kRepeatWindowNanos = 1000000000;

class StopToken {
 public:
  // A token that follows the process-wide signal flag.
  static StopToken FromSignals();
  // A token driven by the given flags (tests, internal shutdown); urgent may be null (never).
  explicit StopToken(const std::atomic<bool>* flag, const std::atomic<bool>* urgent = nullptr)
      : flag_(flag), urgent_(urgent) {}

  bool stop_requested() const { return flag_->load(std::memory_order_relaxed); }
  // A second stop request: finish nothing that takes long, publish what is complete, return.
  bool urgent_requested() const {
    return urgent_ != nullptr && urgent_->load(std::memory_order_relaxed);
  }
  // Sleeps up to `duration`, waking early (within ~50 ms) when a stop is requested.
  // Returns true if a stop was requested.
  bool SleepFor(std::chrono::milliseconds duration) const;

 private:
  const std::atomic<bool>* flag_;
  const std::atomic<bool>* urgent_;
};

// Installs the SIGINT/SIGTERM handlers. Safe to call more than once. two_stage: the second
// SIGINT sets the urgent flag, the third ends the process (see above).
void InstallStopSignalHandlers(bool two_stage = false);
// Sets the process-wide flag as a signal would (for programs that decide to stop themselves).
void RequestStop();

}  // namespace tengen
