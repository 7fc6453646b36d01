#pragma once
// What the five long-running programs (selfplay, shuffler, trainer, exporter, gatekeeper) do the
// same way, written once: their start (signals, log file, start-up message), a heartbeat whose
// failures are warnings, a wait that a stop request cuts short, the loop of a program that works in
// passes, the master seed and the seeds drawn from it. No libtorch here: the trainer uses it from
// pipeline/torch, the others from pipeline.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "pipeline/heartbeat.h"
#include "util/config.h"
#include "util/log.h"
#include "util/rng.h"
#include "util/signals.h"

namespace tengen::pipeline {

// The start of tengen-<program> once its options are read: SIGINT and SIGTERM request a stop
// (util/signals.h), and a logger at the config's log_level that also writes
// <base>/logs/<program>/<host>-<pid>.log has logged the start-up message (version and every
// option's value). two_stage_stop: the second signal requests an urgent stop and only the third
// ends the process (util/signals.h; selfplay, whose graceful stop finishes games).
std::unique_ptr<Logger> StartService(const std::string& program, const std::string& base_dir,
                                     const Config& config, bool two_stage_stop = false);

// How often a program's monitor (the thread that watches its game threads) wakes to see
// whether they are done, refresh the heartbeat and publish what is due.
inline constexpr std::chrono::milliseconds kMonitorTick{50};
// How often a program that waits for work (a poll interval, the time between passes) wakes to
// refresh its heartbeat.
inline constexpr std::chrono::milliseconds kWaitTick{1000};

// A program's heartbeat (heartbeat.h, status/<program>-<host>-<pid>.json) whose failures are
// warnings: a status directory that cannot be written (deleted, disk full) never stops a
// program. Heartbeat::Beat already retries a failed write only once per interval, so the
// warning is not repeated on every monitor tick.
class ServiceHeartbeat {
 public:
  ServiceHeartbeat(const std::string& base_dir, const std::string& program,
                   std::chrono::milliseconds interval, Logger& logger);

  // Heartbeat::Beat, with a failure logged as a warning instead of thrown. Returns whether it
  // wrote.
  bool Beat(const HeartbeatInfo& info, bool force = false);
  const std::string& path() const { return heartbeat_.path(); }

 private:
  Heartbeat heartbeat_;
  Logger& logger_;
};

// Sleeps for `duration` in steps of at most `tick`, calling `after_tick` after each step that
// did not end in a stop request (a program refreshes its heartbeat there). Returns true when it
// ended early because a stop was requested, false when the time was up.
bool WaitUnlessStopped(const StopToken& stop, std::chrono::milliseconds duration,
                       const std::function<void()>& after_tick,
                       std::chrono::milliseconds tick = kWaitTick);

// How a program that works in passes (the shuffler, the exporter) runs them.
struct PassLoop {
  std::string working_state = "working";  // the heartbeat's state during a pass
  std::string failure = "pass failed";    // logged before a failed pass's error
  bool once = false;  // one pass, whose failure is thrown (the synchronous loop)
  std::chrono::milliseconds interval{0};  // the wait after each pass
};

// Runs `pass` until a stop is requested (after one pass when loop.once): the heartbeat says
// loop.working_state during a pass, "waiting" between passes and "stopped" at the end, each
// through `beat(state, force)`, which builds the program's HeartbeatInfo and beats. A pass that
// throws a ConfigError ends the loop with it (the next pass would fail the same way); another
// Error is logged and the next pass tries again, unless loop.once, where it is thrown.
void RunPasses(const PassLoop& loop, const StopToken& stop, Logger& logger,
               const std::function<void()>& pass,
               const std::function<void(const std::string& state, bool force)>& beat);

// A program's master seed: its seed option, or a fresh seed when that is 0 (SeedOrFresh; the
// program logs it so that the run can be replayed by passing it back).
uint64_t MasterSeed(uint64_t seed_option);

// The master random stream of a program whose threads each need a seed of their own (selfplay,
// the gatekeeper): draws under a lock, in the order they are asked for, so that one master
// seed gives one sequence of game seeds.
class SeedSource {
 public:
  explicit SeedSource(uint64_t seed_option) : rng_(MasterSeed(seed_option)) {}
  SeedSource(const SeedSource&) = delete;
  SeedSource& operator=(const SeedSource&) = delete;

  uint64_t seed() const { return rng_.seed(); }
  // A seed for a game or a thread: non-zero and below 2^53, so that it survives a round trip
  // through anything that stores numbers as doubles (an SGF comment, JSON).
  uint64_t NextSeed();
  // Uniform in [0, n), from the same stream.
  uint32_t Uniform(uint32_t n);

 private:
  std::mutex mutex_;
  Rng rng_;
};

}  // namespace tengen::pipeline
