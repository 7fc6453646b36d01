#pragma once
// A process's heartbeat: a small JSON file status/<program>-<host>-<pid>.json that says what
// the process is doing, refreshed every few seconds, for people and the status tool. It is
// republished whole each time (util/publish.h PublishFile: temporary + rename), so a reader
// never sees half a file. Format (one JSON object):
//
//   {"program": "selfplay", "host": "box1", "pid": 1234, "time_utc": "2026-...Z",
//    "state": "playing", "texts": {"model": "random"},
//    "counters": {"games": 12, "rows": 340, "games_per_hour": 1800.5}}
//
// A process that runs in a SLURM job (SLURM_JOB_ID in its environment) also names the job,
// after "pid": "slurm": {"job_id": "1234"}, and for a task of a job array
// "slurm": {"job_id": "1234", "array_job_id": "1230", "array_task_id": "4"}. Without
// SLURM_JOB_ID there is no "slurm" key.
//
// texts and counters are the caller's key -> value pairs in the caller's order; a counter that
// is not finite is written as null. The file of a process that ended stays, with the last
// state the program gave (e.g. "stopped"), so that a status tool can tell ended from hung
// (an old time_utc).
//
// No thread of its own: the program's main loop calls Beat() as often as it likes and the file
// is rewritten at most every `interval` (always when forced). The JSON is built with nlohmann
// and written on one line with spaces after ':' and ',' as above (scripts read it with sed).

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tengen::pipeline {

// The SLURM job of this process, from the variables slurmstepd sets: SLURM_JOB_ID, and for a
// task of a job array SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID. All empty outside SLURM.
struct SlurmJob {
  std::string job_id, array_job_id, array_task_id;
  bool empty() const { return job_id.empty(); }
};
// The job of the calling process's environment (an empty SlurmJob when SLURM_JOB_ID is unset
// or empty; the array fields only when both array variables are set).
SlurmJob SlurmJobFromEnvironment();
// The name squeue and scancel take: "<array job>_<task>" for a task of a job array, else the
// job id; "" for an empty SlurmJob.
std::string SlurmJobName(const SlurmJob& job);

struct HeartbeatInfo {
  std::string state;                                       // "playing", "stopping", ...
  std::vector<std::pair<std::string, std::string>> texts;  // e.g. {"model", "random"}
  std::vector<std::pair<std::string, double>> counters;    // e.g. {"games", 12}
};

class Heartbeat {
 public:
  // The file is <status_dir>/<program>-<host>-<pid>.json; the directory is created on the
  // first Beat, and again whenever a write fails.
  Heartbeat(std::string status_dir, std::string program,
            std::chrono::milliseconds interval = std::chrono::seconds(5));

  // Publishes `info` if `interval` has passed since the last attempt, or if forced. Returns
  // whether it wrote. Throws IoError when the file cannot be written; a failed attempt counts
  // as one (the next unforced Beat waits out the interval). When writing fails, the directory
  // is created again (it may have been deleted) and the write tried once more.
  bool Beat(const HeartbeatInfo& info, bool force = false);
  const std::string& path() const { return path_; }

 private:
  std::string status_dir_;
  std::string program_;
  std::string path_;
  SlurmJob slurm_;  // read once, at construction
  std::chrono::milliseconds interval_;
  bool attempted_ = false;     // a Beat has tried to write
  bool directory_ok_ = false;  // status_dir_ was created and no write has failed since
  std::chrono::steady_clock::time_point last_;  // the last attempt
};

// The JSON text of a heartbeat (exposed for tests); `slurm` adds the "slurm" key when not empty.
std::string HeartbeatJson(const std::string& program, const std::string& host, long pid,
                          const std::string& time_utc, const HeartbeatInfo& info,
                          const SlurmJob& slurm = {});
// A counter as the heartbeat writes it: integers without a fraction, others rounded to 6
// significant digits; NaN and infinities as null.
std::string JsonNumber(double value);

// Heartbeat files are this many bytes (or a multiple, for a longer one).
constexpr size_t kHeartbeatFileBytes = 4096;
// `json` (one line ending in '\n') with spaces before its newline up to a multiple of
// kHeartbeatFileBytes. A heartbeat is replaced under the same name every few seconds; a
// reader on another host whose attribute cache still holds the old file's size (sshfs with
// attr_timeout, FUSE) reads only that many bytes of the new one. With every version the same
// size, it reads the whole of whichever it opens.
std::string PadHeartbeat(std::string json);

}  // namespace tengen::pipeline
