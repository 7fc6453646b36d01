#pragma once
// One thread-safe logger per program: each line carries a UTC timestamp with milliseconds, the
// level and the message, and goes to stderr and (when opened) to a log file. Programs create
// it in main and pass it by reference; library code never reaches for a global logger.
//
// The log file usually lives in the base directory, so it fails when that does (disk full, a
// network filesystem that lost its server): lines that cannot be written are kept (up to
// kMaxPendingLogBytes, the oldest dropped beyond that and counted) and written, with their own
// timestamps, once the file takes writes again, followed by a warning that says when writing
// failed, why, and how many lines were lost. A failed write to stderr is dropped, and stderr
// goes on with the next line.

#include <cstddef>
#include <mutex>
#include <sstream>
#include <string>

namespace tengen {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

const char* LogLevelName(LogLevel level);
// Parses "debug", "info", "warning", "error"; throws ConfigError otherwise.
LogLevel ParseLogLevel(const std::string& name);

class ConfigSpec;
// Declares the log_level key every program takes: debug, info (the default), warning or error.
void DeclareLogLevelOption(ConfigSpec& spec);

// "2026-11-21T10:04:05.123Z" for the current time.
std::string UtcTimestamp();
// "2026-11-21T10:04:05Z" for the current time (metadata files).
std::string UtcTimestampSeconds();
// `value` with exactly `digits` digits after the point ("%.*f"), for log lines.
std::string FormatFixed(double value, int digits);

constexpr size_t kMaxPendingLogBytes = 1 << 20;

class Logger {
 public:
  explicit Logger(LogLevel min_level = LogLevel::kInfo, bool to_stderr = true);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  // Appends to the file (creating parent directories); throws IoError when it cannot.
  void OpenFile(const std::string& path);
  void set_min_level(LogLevel level) { min_level_ = level; }

  void Log(LogLevel level, const std::string& message);
  void Debug(const std::string& m) { Log(LogLevel::kDebug, m); }
  void Info(const std::string& m) { Log(LogLevel::kInfo, m); }
  void Warning(const std::string& m) { Log(LogLevel::kWarning, m); }
  void Error(const std::string& m) { Log(LogLevel::kError, m); }

 private:
  void WriteFileLocked(const std::string& line);

  std::mutex mutex_;
  LogLevel min_level_;
  bool to_stderr_;
  int fd_ = -1;
  std::string path_;
  std::string pending_;        // lines (or the rest of one) not written to the file yet
  long dropped_lines_ = 0;     // lines dropped from pending_ (it was full)
  std::string failing_since_;  // timestamp of the first failed write, "" while writes work
  std::string failure_;        // strerror of the first failed write
};

}  // namespace tengen
