#include "pipeline/heartbeat.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "pipeline/base_dir.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"

namespace tengen::pipeline {

namespace {

using Json = nlohmann::ordered_json;

// A counter: whole numbers as integers, others rounded to 6 significant digits, NaN and
// infinities as null.
Json CounterJson(double value) {
  if (!std::isfinite(value)) return nullptr;
  if (value == std::floor(value) && std::fabs(value) < 1e15) return static_cast<int64_t>(value);
  char rounded[32];
  std::snprintf(rounded, sizeof(rounded), "%.6g", value);
  return std::strtod(rounded, nullptr);
}

// `value` on one line with ", " and ": " between the items of its objects, where nlohmann's
// dump puts no spaces: the heartbeat's format, which scripts/synchronous_loop.sh reads with sed
// and the loop tests with grep.
std::string OneLine(const Json& value) {
  if (!value.is_object()) return value.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out = "{";
  for (auto item = value.begin(); item != value.end(); ++item) {
    if (item != value.begin()) out += ", ";
    out += OneLine(item.key()) + ": " + OneLine(item.value());
  }
  return out + "}";
}

// An environment variable's value, "" when unset.
std::string Environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

SlurmJob SlurmJobFromEnvironment() {
  SlurmJob job;
  job.job_id = Environment("SLURM_JOB_ID");
  if (job.job_id.empty()) return job;
  const std::string array_job = Environment("SLURM_ARRAY_JOB_ID");
  const std::string array_task = Environment("SLURM_ARRAY_TASK_ID");
  if (!array_job.empty() && !array_task.empty()) {
    job.array_job_id = array_job;
    job.array_task_id = array_task;
  }
  return job;
}

std::string SlurmJobName(const SlurmJob& job) {
  if (job.empty()) return "";
  if (!job.array_job_id.empty()) return job.array_job_id + "_" + job.array_task_id;
  return job.job_id;
}

std::string JsonNumber(double value) { return CounterJson(value).dump(); }

std::string PadHeartbeat(std::string json) {
  if (!json.empty() && json.back() == '\n') json.pop_back();
  const size_t size = json.size() + 1;
  const size_t padded =
      (size + kHeartbeatFileBytes - 1) / kHeartbeatFileBytes * kHeartbeatFileBytes;
  json.append(padded - size, ' ');
  return json + "\n";
}

std::string HeartbeatJson(const std::string& program, const std::string& host, long pid,
                          const std::string& time_utc, const HeartbeatInfo& info,
                          const SlurmJob& slurm) {
  Json texts = Json::object();
  for (const auto& [key, text] : info.texts) texts[key] = text;
  Json counters = Json::object();
  for (const auto& [key, value] : info.counters) counters[key] = CounterJson(value);
  Json json = {{"program", program}, {"host", host}, {"pid", pid}};
  if (!slurm.empty()) {
    Json job = {{"job_id", slurm.job_id}};
    if (!slurm.array_job_id.empty()) {
      job["array_job_id"] = slurm.array_job_id;
      job["array_task_id"] = slurm.array_task_id;
    }
    json["slurm"] = job;
  }
  json["time_utc"] = time_utc;
  json["state"] = info.state;
  json["texts"] = texts;
  json["counters"] = counters;
  return OneLine(json) + "\n";
}

Heartbeat::Heartbeat(std::string status_dir, std::string program,
                     std::chrono::milliseconds interval)
    : status_dir_(std::move(status_dir)),
      program_(std::move(program)),
      path_(status_dir_ + "/" + program_ + "-" + HostPid() + ".json"),
      slurm_(SlurmJobFromEnvironment()),
      interval_(interval) {}

bool Heartbeat::Beat(const HeartbeatInfo& info, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && attempted_ && now - last_ < interval_) return false;
  // The attempt counts even if it fails: a status directory that cannot be written (deleted,
  // disk full) is retried once per interval, not on every call.
  attempted_ = true;
  last_ = now;
  const std::string json = PadHeartbeat(HeartbeatJson(
      program_, HostName(), static_cast<long>(getpid()), UtcTimestamp(), info, slurm_));
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
