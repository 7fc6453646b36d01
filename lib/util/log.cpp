#include "util/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/filesystem.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>

#include "util/config.h"
#include "util/error.h"

namespace tengen {

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?";
}

LogLevel ParseLogLevel(const std::string& name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "info") return LogLevel::kInfo;
  if (name == "warning") return LogLevel::kWarning;
  if (name == "error") return LogLevel::kError;
  throw ConfigError("unknown log level '" + name + "' (debug, info, warning, error)");
}

void DeclareLogLevelOption(ConfigSpec& spec) {
  spec.Choice("log_level", "info", {"debug", "info", "warning", "error"}, "least severe logged");
}

std::string UtcTimestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[40];
  const size_t n = std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buffer + n, sizeof(buffer) - n, ".%03dZ", static_cast<int>(millis));
  return buffer;
}

std::string UtcTimestampSeconds() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string FormatFixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

Logger::Logger(LogLevel min_level, bool to_stderr) : min_level_(min_level), to_stderr_(to_stderr) {}

Logger::~Logger() {
  if (fd_ >= 0) close(fd_);
}

void Logger::OpenFile(const std::string& path) {
  const boost::filesystem::path parent = boost::filesystem::path(path).parent_path();
  boost::system::error_code ec;
  if (!parent.empty()) boost::filesystem::create_directories(parent, ec);
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw IoError("cannot open log file '" + path + "': " + std::strerror(errno));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  path_ = path;
}

void Logger::WriteFileLocked(const std::string& line) {
  pending_ += line;
  // Too much kept back: drop the oldest whole lines.
  while (pending_.size() > kMaxPendingLogBytes) {
    const size_t end = pending_.find('\n');
    pending_.erase(0, end == std::string::npos ? pending_.size() : end + 1);
    ++dropped_lines_;
  }
  bool reopened = false;
  while (!pending_.empty()) {
    ssize_t written = -1;
    errno = EBADF;  // no descriptor: the last reopen failed
    if (fd_ >= 0) written = write(fd_, pending_.data(), pending_.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      if (failing_since_.empty()) {
        failing_since_ = line.substr(0, line.find(' '));  // the first line kept back
        failure_ = written < 0 ? std::strerror(errno) : "nothing written";
      }
      // A descriptor can stay broken when the file is fine again: sshfs fails the files
      // opened before it reconnected, NFS says ESTALE. Open the file again, once per line.
      if (reopened) return;  // kept for the next line
      reopened = true;
      if (fd_ >= 0) close(fd_);
      fd_ = open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
      continue;
    }
    pending_.erase(0, static_cast<size_t>(written));
    // The file takes writes again: once everything kept back is out, say what happened.
    if (pending_.empty() && !failing_since_.empty()) {
      pending_ = UtcTimestamp() + " WARNING log file '" + path_ + "' could not be written from " +
                 failing_since_ + " (" + failure_ + "): the lines since then were written late" +
                 (dropped_lines_ > 0 ? ", " + std::to_string(dropped_lines_) + " lost" : "") + "\n";
      failing_since_.clear();
      dropped_lines_ = 0;
    }
  }
}

void Logger::Log(LogLevel level, const std::string& message) {
  if (level < min_level_) return;
  // Format outside the lock; write the whole line at once so threads never interleave.
  const std::string line = UtcTimestamp() + " " + LogLevelName(level) + " " + message + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  if (to_stderr_) {
    std::cerr << line;
    std::cerr.flush();
    // A failed write (stderr on a full disk) leaves the stream failed for good: clear it, so
    // that the next line is tried again.
    if (!std::cerr) std::cerr.clear();
  }
  if (!path_.empty()) WriteFileLocked(line);
}

}  // namespace tengen
