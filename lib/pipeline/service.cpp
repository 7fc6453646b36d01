#include "pipeline/service.h"

#include <algorithm>
#include <exception>

#include "pipeline/base_dir.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::pipeline {

std::unique_ptr<Logger> StartService(const std::string& program, const std::string& base_dir,
                                     const Config& config, bool two_stage_stop) {
  InstallStopSignalHandlers(two_stage_stop);
  auto logger = std::make_unique<Logger>(ParseLogLevel(config.GetString("log_level")));
  logger->OpenFile(LogsDir(base_dir, program) + "/" + HostPid() + ".log");
  logger->Info(StartupMessage("tengen-" + program, config));
  return logger;
}

ServiceHeartbeat::ServiceHeartbeat(const std::string& base_dir, const std::string& program,
                                   std::chrono::milliseconds interval, Logger& logger)
    : heartbeat_(StatusDir(base_dir), program, interval), logger_(logger) {}

bool ServiceHeartbeat::Beat(const HeartbeatInfo& info, bool force) {
  try {
    return heartbeat_.Beat(info, force);
  } catch (const std::exception& e) {
    logger_.Warning(StrCat("cannot write the heartbeat: ", e.what()));
    return false;
  }
}

bool WaitUnlessStopped(const StopToken& stop, std::chrono::milliseconds duration,
                       const std::function<void()>& after_tick, std::chrono::milliseconds tick) {
  using Clock = std::chrono::steady_clock;
  const auto wake = Clock::now() + duration;
  while (!stop.stop_requested() && Clock::now() < wake) {
    // Rounded up: a last sleep of 0 ms would spin through the final fraction of a millisecond.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now());
    if (stop.SleepFor(std::min(left, tick))) return true;
    after_tick();
  }
  return stop.stop_requested();
}

void RunPasses(const PassLoop& loop, const StopToken& stop, Logger& logger,
               const std::function<void()>& pass,
               const std::function<void(const std::string& state, bool force)>& beat) {
  while (!stop.stop_requested()) {
    beat(loop.working_state, true);
    try {
      pass();
    } catch (const ConfigError&) {
      throw;
    } catch (const Error& e) {
      if (loop.once) throw;
      logger.Error(StrCat(loop.failure, ": ", e.what()));
    }
    if (loop.once) break;
    beat("waiting", true);
    WaitUnlessStopped(stop, loop.interval, [&beat] { beat("waiting", false); });
  }
  beat("stopped", true);
}

uint64_t MasterSeed(uint64_t seed_option) { return SeedOrFresh(static_cast<int64_t>(seed_option)); }

uint64_t SeedSource::NextSeed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return (rng_.Next() >> 11) | 1;
}

uint32_t SeedSource::Uniform(uint32_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  return rng_.Uniform(n);
}

}  // namespace tengen::pipeline
