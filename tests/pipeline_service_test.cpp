// The service layer the five programs share (pipeline/service.h): a heartbeat that warns
// instead of throwing, the stop-aware wait, the loop of passes, seeds and the board-size check.
#include <doctest/doctest.h>

#include <atomic>
#include <boost/filesystem.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "pipeline/base_dir.h"
#include "pipeline/service.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using std::chrono::milliseconds;

HeartbeatInfo State(const std::string& state) {
  HeartbeatInfo info;
  info.state = state;
  return info;
}

TEST_CASE("service: the heartbeat writes status/, and a failed write is a warning") {
  testing::TempDir base;
  Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
  logger.OpenFile(base / "log.txt");
  ServiceHeartbeat heartbeat(base.path(), "shuffler", std::chrono::hours(1), logger);
  CHECK(heartbeat.Beat(State("shuffling")));
  CHECK(fs::path(heartbeat.path()).parent_path().string() == StatusDir(base.path()));
  CHECK(ReadFile(heartbeat.path()).find("\"shuffling\"") != std::string::npos);
  CHECK_FALSE(heartbeat.Beat(State("waiting")));  // within the interval

  // A file where status/ should be: no exception, a warning in the log.
  testing::TempDir other;
  other.Write("status", "not a directory");
  ServiceHeartbeat blocked(other.path(), "exporter", std::chrono::hours(1), logger);
  bool wrote = true;
  CHECK_NOTHROW(wrote = blocked.Beat(State("exporting"), /*force=*/true));
  CHECK_FALSE(wrote);
  CHECK(ReadFile(base / "log.txt").find("cannot write the heartbeat") != std::string::npos);
}

TEST_CASE("service: the wait ticks until its time is up, and a stop cuts it short") {
  std::atomic<bool> flag{false};
  const StopToken stop(&flag);
  int ticks = 0;
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(WaitUnlessStopped(
      stop, milliseconds(120), [&] { ++ticks; }, milliseconds(30)));
  CHECK(std::chrono::steady_clock::now() - start >= milliseconds(120));
  CHECK(ticks >= 1);  // fewer than 4 only when a loaded machine oversleeps
  CHECK(ticks <= 5);

  // A stop requested during a tick: the wait ends within a tick, long before its time.
  ticks = 0;
  const auto stopped_at = std::chrono::steady_clock::now();
  CHECK(WaitUnlessStopped(
      stop, std::chrono::hours(1),
      [&] {
        if (++ticks == 2) flag = true;
      },
      milliseconds(10)));
  CHECK(ticks == 2);
  CHECK(std::chrono::steady_clock::now() - stopped_at < std::chrono::seconds(10));

  // Already stopped: no sleep, no tick.
  ticks = 0;
  CHECK(WaitUnlessStopped(stop, std::chrono::hours(1), [&] { ++ticks; }));
  CHECK(ticks == 0);
}

TEST_CASE("service: passes run until a stop, and a failed pass is logged and retried") {
  testing::TempDir dir;
  Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
  logger.OpenFile(dir / "log.txt");
  std::atomic<bool> flag{false};
  const StopToken stop(&flag);
  std::vector<std::string> states;
  const auto beat = [&](const std::string& state, bool force) {
    if (force) states.push_back(state);
  };
  PassLoop loop;
  loop.working_state = "shuffling";
  loop.failure = "shuffle failed";
  loop.interval = milliseconds(10);
  int passes = 0;
  RunPasses(
      loop, stop, logger,
      [&] {
        if (++passes == 1) throw IoError("disk full");
        if (passes == 2) flag = true;
      },
      beat);
  CHECK(passes == 2);
  CHECK(states ==
        std::vector<std::string>{"shuffling", "waiting", "shuffling", "waiting", "stopped"});
  CHECK(ReadFile(dir / "log.txt").find("shuffle failed: disk full") != std::string::npos);

  // Once: one pass, and its failure is thrown.
  flag = false;
  states.clear();
  loop.once = true;
  passes = 0;
  RunPasses(
      loop, stop, logger, [&] { ++passes; }, beat);
  CHECK(passes == 1);
  CHECK(states == std::vector<std::string>{"shuffling", "stopped"});
  CHECK_THROWS_AS(RunPasses(
                      loop, stop, logger, [] { throw IoError("disk full"); }, beat),
                  IoError);

  // A ConfigError would fail every pass: it ends the loop even when not once.
  loop.once = false;
  passes = 0;
  CHECK_THROWS_AS(RunPasses(
                      loop, stop, logger,
                      [&] {
                        ++passes;
                        throw ConfigError("bad key");
                      },
                      beat),
                  ConfigError);
  CHECK(passes == 1);

  // Stopped before it starts: no pass, only the final state.
  flag = true;
  states.clear();
  RunPasses(
      loop, stop, logger, [&] { ++passes; }, beat);
  CHECK(passes == 1);
  CHECK(states == std::vector<std::string>{"stopped"});
}

TEST_CASE("service: seeds from the master seed") {
  CHECK(MasterSeed(12345) == 12345);
  const uint64_t fresh = MasterSeed(0);
  CHECK(fresh >= 1);
  CHECK(fresh <= static_cast<uint64_t>(kMaxSeed));

  SeedSource a(99);
  SeedSource b(99);
  CHECK(a.seed() == 99);
  Rng reference(99);
  for (int i = 0; i < 100; ++i) {
    const uint64_t seed = a.NextSeed();
    CHECK(seed == b.NextSeed());
    CHECK(seed == ((reference.Next() >> 11) | 1));
    CHECK(seed != 0);
    CHECK(seed < (uint64_t{1} << 53));
  }
  CHECK(a.Uniform(10) == b.Uniform(10));
  CHECK(a.Uniform(10) < 10);
  CHECK(SeedSource(0).seed() != 0);
}

}  // namespace
}  // namespace tengen::pipeline
