// The logger (thread-safe whole lines, UTC timestamps, levels, file output) and stop signals.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"
#include "util/error.h"
#include "util/log.h"
#include "util/signals.h"

namespace tengen {
namespace {

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_CASE("log: threads write whole lines with UTC timestamps and levels to the file") {
  testing::TempDir dir;
  const std::string path = dir / "logs/test/test.log";  // parents are created
  constexpr int kThreads = 4;
  constexpr int kLinesPerThread = 500;
  {
    Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
    logger.OpenFile(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&logger, t] {
        for (int i = 0; i < kLinesPerThread; ++i)
          logger.Info("thread " + std::to_string(t) + " line " + std::to_string(i) +
                      " padding-padding-padding-padding-padding-padding-padding-padding");
      });
    }
    for (std::thread& thread : threads) thread.join();
    logger.Debug("below the level: not written");
    logger.Warning("a warning");
  }
  const std::vector<std::string> lines = ReadLines(path);
  REQUIRE(lines.size() == kThreads * kLinesPerThread + 1);
  const std::regex info_line(
      R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z INFO thread \d line \d+ (padding-){7}padding$)");
  int malformed = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    if (!std::regex_match(lines[i], info_line)) ++malformed;
  CHECK(malformed == 0);
  CHECK(lines.back().find(" WARNING a warning") != std::string::npos);
  CHECK_THROWS_AS(ParseLogLevel("loud"), ConfigError);
  CHECK(ParseLogLevel("warning") == LogLevel::kWarning);
}

TEST_CASE("log: a log file that cannot be opened is an IoError naming it") {
  testing::TempDir dir;
  const std::string blocker = dir.Write("file", "x");
  Logger logger(LogLevel::kInfo, false);
  try {
    logger.OpenFile(blocker + "/sub/x.log");
    FAIL("expected an IoError");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find(blocker) != std::string::npos);
  }
}

// A file size limit makes write(2) fail as a full disk does (EFBIG instead of ENOSPC) while
// this process runs; restored, the file takes writes again.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(off_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);  // EFBIG rather than the signal
    rlimit limit = old_;
    limit.rlim_cur = static_cast<rlim_t>(bytes);
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  sighandler_t old_handler_ = SIG_DFL;
};

off_t FileSize(const std::string& path) {
  struct stat info {};
  REQUIRE(stat(path.c_str(), &info) == 0);
  return info.st_size;
}

TEST_CASE("log: lines the file cannot take (disk full) are kept and written late, with a warning") {
  testing::TempDir dir;
  const std::string path = dir / "test.log";
  Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
  logger.OpenFile(path);
  logger.Info("before");
  const off_t size = FileSize(path);
  {
    FileSizeLimit full(size);
    logger.Info("while full 1");
    logger.Warning("while full 2");
    CHECK(FileSize(path) == size);  // nothing got through
  }
  logger.Info("after");
  const std::vector<std::string> lines = ReadLines(path);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].find(" INFO before") != std::string::npos);
  CHECK(lines[1].find(" INFO while full 1") != std::string::npos);
  CHECK(lines[2].find(" WARNING while full 2") != std::string::npos);
  CHECK(lines[3].find(" INFO after") != std::string::npos);
  // The warning names the file, when writing failed and why; nothing was lost.
  CHECK(lines[4].find(" WARNING log file '" + path + "' could not be written from " +
                      lines[1].substr(0, lines[1].find(' ')) + " (File too large)") !=
        std::string::npos);
  CHECK(lines[4].find("lost") == std::string::npos);
  // The file keeps working afterwards.
  logger.Info("later");
  CHECK(ReadLines(path).size() == 6);
}

TEST_CASE("log: beyond kMaxPendingLogBytes kept back, the oldest lines are dropped and counted") {
  testing::TempDir dir;
  const std::string path = dir / "test.log";
  Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
  logger.OpenFile(path);
  logger.Info("before");
  const std::string padding(100, 'p');
  const int lines_while_full = static_cast<int>(2 * kMaxPendingLogBytes / padding.size());
  {
    FileSizeLimit full(FileSize(path));
    for (int i = 0; i < lines_while_full; ++i) logger.Info("line " + std::to_string(i) + padding);
  }
  logger.Info("after");
  const std::vector<std::string> lines = ReadLines(path);
  REQUIRE(lines.size() > 3);
  CHECK(lines[0].find(" INFO before") != std::string::npos);
  // The newest lines made it, the oldest did not; the warning counts the lost ones.
  CHECK(lines[lines.size() - 3].find(" INFO line " + std::to_string(lines_while_full - 1)) !=
        std::string::npos);
  CHECK(lines[1].find(" INFO line 0" + padding) == std::string::npos);
  const long kept = static_cast<long>(lines.size()) - 3;  // before, after, the warning
  CHECK(lines.back().find(", " + std::to_string(lines_while_full - kept) + " lost") !=
        std::string::npos);
  CHECK(static_cast<size_t>(kept) * (padding.size() + 40) <= kMaxPendingLogBytes + 200);
}

TEST_CASE("signals: a StopToken follows its flag and wakes a sleeper") {
  std::atomic<bool> flag{false};
  const StopToken token(&flag);
  CHECK_FALSE(token.stop_requested());
  CHECK_FALSE(token.SleepFor(std::chrono::milliseconds(10)));
  std::thread setter([&flag] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    flag = true;
  });
  CHECK(token.SleepFor(std::chrono::hours(1)));  // returns once the flag is set
  setter.join();
  CHECK(token.stop_requested());
}

TEST_CASE(
    "signals: the first SIGINT sets the stop flag, a repeat at once and any SIGTERM are ignored, "
    "a later SIGINT ends the process") {
  // In a child process, so that the real handlers and the real default action are exercised.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    InstallStopSignalHandlers();
    const StopToken token = StopToken::FromSignals();
    if (token.stop_requested()) _exit(10);
    kill(getpid(), SIGINT);
    if (!token.stop_requested()) _exit(11);
    // The same stop delivered again at once (as SLURM can): nothing happens.
    kill(getpid(), SIGTERM);
    kill(getpid(), SIGINT);
    if (!token.stop_requested() || token.urgent_requested()) _exit(13);
    std::this_thread::sleep_for(std::chrono::nanoseconds(kRepeatWindowNanos) +
                                std::chrono::milliseconds(100));
    kill(getpid(), SIGTERM);  // a scheduler repeating its stop: nothing happens
    if (token.urgent_requested()) _exit(14);
    kill(getpid(), SIGINT);  // a second SIGINT: default action
    _exit(12);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGINT);
  if (WIFEXITED(status)) MESSAGE("child exited with code " << WEXITSTATUS(status));
}

TEST_CASE("signals: a stop by SIGTERM is not hurried by more SIGTERMs") {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    InstallStopSignalHandlers();
    const StopToken token = StopToken::FromSignals();
    kill(getpid(), SIGTERM);
    if (!token.stop_requested()) _exit(11);
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(kRepeatWindowNanos) +
                                  std::chrono::milliseconds(100));
      kill(getpid(), SIGTERM);
    }
    _exit(token.urgent_requested() ? 12 : 0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("signals: in two stages the second signal sets the urgent flag, the third ends it") {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const auto after_window =
        std::chrono::nanoseconds(kRepeatWindowNanos) + std::chrono::milliseconds(100);
    InstallStopSignalHandlers(/*two_stage=*/true);
    const StopToken token = StopToken::FromSignals();
    kill(getpid(), SIGTERM);
    kill(getpid(), SIGTERM);  // the same request twice
    if (!token.stop_requested() || token.urgent_requested()) _exit(11);
    std::this_thread::sleep_for(after_window);
    kill(getpid(), SIGINT);
    if (!token.urgent_requested()) _exit(12);
    kill(getpid(), SIGINT);  // repeated at once: still alive
    std::this_thread::sleep_for(after_window);
    kill(getpid(), SIGINT);
    _exit(13);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGINT);
  if (WIFEXITED(status)) MESSAGE("child exited with code " << WEXITSTATUS(status));
}

}  // namespace
}  // namespace tengen
