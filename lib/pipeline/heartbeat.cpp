#include "pipeline/heartbeat.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "pipeline/base_dir.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"

namespace tengen::pipeline {

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;  // UTF-8 bytes pass through unchanged, as JSON allows
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[64];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  }
  return buffer;
}

std::string HeartbeatJson(const std::string& program, const std::string& host, long pid,
                          const std::string& time_utc, const HeartbeatInfo& info) {
  std::string json = "{\"program\": " + JsonString(program) + ", \"host\": " + JsonString(host) +
                     ", \"pid\": " + std::to_string(pid) +
                     ", \"time_utc\": " + JsonString(time_utc) +
                     ", \"state\": " + JsonString(info.state) + ", \"texts\": {";
  for (size_t i = 0; i < info.texts.size(); ++i) {
    if (i > 0) json += ", ";
    json += JsonString(info.texts[i].first) + ": " + JsonString(info.texts[i].second);
  }
  json += "}, \"counters\": {";
  for (size_t i = 0; i < info.counters.size(); ++i) {
    if (i > 0) json += ", ";
    json += JsonString(info.counters[i].first) + ": " + JsonNumber(info.counters[i].second);
  }
  return json + "}}\n";
}

Heartbeat::Heartbeat(std::string status_dir, std::string program,
                     std::chrono::milliseconds interval)
    : status_dir_(std::move(status_dir)),
      program_(std::move(program)),
      path_(status_dir_ + "/" + program_ + "-" + HostPid() + ".json"),
      interval_(interval) {}

bool Heartbeat::Beat(const HeartbeatInfo& info, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && attempted_ && now - last_ < interval_) return false;
  // The attempt counts even if it fails: a status directory that cannot be written (deleted,
  // disk full) is retried once per interval, not on every call.
  attempted_ = true;
  last_ = now;
  const std::string json =
      HeartbeatJson(program_, HostName(), static_cast<long>(getpid()), UtcTimestamp(), info);
  if (!directory_ok_) EnsureDirectory(status_dir_);
  directory_ok_ = true;
  try {
    PublishFile(path_, json);
  } catch (const Error&) {
    // The directory may have been deleted since: create it again and try once more.
    directory_ok_ = false;
    EnsureDirectory(status_dir_);
    directory_ok_ = true;
    PublishFile(path_, json);
  }
  return true;
}

}  // namespace tengen::pipeline
