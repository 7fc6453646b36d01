#include "util/log.h"

#include <boost/filesystem.hpp>
#include <chrono>
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

void Logger::OpenFile(const std::string& path) {
  const boost::filesystem::path parent = boost::filesystem::path(path).parent_path();
  boost::system::error_code ec;
  if (!parent.empty()) boost::filesystem::create_directories(parent, ec);
  std::lock_guard<std::mutex> lock(mutex_);
  file_.open(path, std::ios::app);
  if (!file_) throw IoError("cannot open log file '" + path + "'");
}

void Logger::Log(LogLevel level, const std::string& message) {
  if (level < min_level_) return;
  // Format outside the lock; write the whole line at once so threads never interleave.
  const std::string line = UtcTimestamp() + " " + LogLevelName(level) + " " + message + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  if (to_stderr_) {
    std::cerr << line;
    std::cerr.flush();
  }
  if (file_.is_open()) {
    file_ << line;
    file_.flush();
  }
}

}  // namespace tengen
