#pragma once
// The state of a run, read from its base directory alone (no server, no process to ask):
// what tengen-status prints and the summary of tengen-report. CollectStatus reads the
// heartbeats in status/, the selfplay shards, the newest shuffle's summary, the trainer's
// metrics, the model directories, the gatekeeper's records, the Elo ladder and the disk, and
// derives the warnings listed in docs/OPERATIONS.md ("Watching a run: status and report").
// Nothing it reads can make it throw: bad files become notes (status/scan.h).
//
// A process is
//   alive  its heartbeat is younger than stale_seconds;
//   stale  older, and not in a final state: hung, or killed on a machine we cannot look at;
//   dead   older or not, its host is this machine and its pid no longer runs, without a
//          final state: it was killed or crashed;
//   ended  its last state is final ("stopped", "done", "failed..."): it exited.
// Heartbeats older than forget_hours are not listed (only counted): a run keeps the file of
// every process that ever ran.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "status/scan.h"
#include "util/config.h"

namespace tengen::status {

struct StatusOptions {
  double stale_seconds = 300;   // a heartbeat older than this is stale
  double no_data_minutes = 30;  // warn when the newest shard is older than this
  double min_free_gb = 10;      // warn below this much free disk ...
  double min_free_percent = 5;  // ... or below this share of the filesystem
  int rising_loss_epochs = 3;   // warn when loss_total rose over this many epochs (0: never)
  double forget_hours = 24;     // heartbeats older than this are not listed
  bool count_rows = true;       // open shards whose names carry no row count (older versions)
  int max_listed = 20;          // text: processes, hosts and warnings of one kind listed (0: all)
  std::string ladder_file;      // "" : <base>/ladder/ladder.json
};

struct ProcessStatus {
  HeartbeatRecord heartbeat;
  double age_seconds = 0;
  std::string condition;  // "alive", "stale", "dead", "ended"
};

// scripts/synchronous_loop.sh's phase record (status/synchronous_loop-<host>.json).
struct LoopStatus {
  std::string host, phase, run, training_name;
  long pid = 0;
  double cycle = kUnknown;
  double age_seconds = 0;       // time in the current phase (the record is written at each change)
  bool ended = false;           // done, stopped or failed
  std::optional<bool> running;  // whether its pid runs, when the host is this machine
};

struct SelfplayHost {
  std::string host;
  int processes = 0;  // alive selfplay processes
  double games_per_hour = 0, rows_per_hour = 0, nn_evals_per_second = 0;
};

struct TrainingStatus {
  std::string name;
  int epochs_logged = 0;
  EpochMetrics last;
  bool loss_rising = false;
  std::vector<double> recent_loss_total;  // the last rising_loss_epochs values
  int broken_checkpoints = 0;             // checkpoints/broken-*: set aside by the trainer
};

struct ModelCounts {
  int accepted = 0, rejected = 0;
  std::vector<std::string> queue;  // modelstobetested/, oldest first
  std::optional<ModelEntry> newest_accepted;
  int broken_snapshots = 0;  // torchmodels_toexport_broken/
};

struct LadderEntry {
  std::string name;
  double elo = kUnknown, low = kUnknown, high = kUnknown;
  int games = 0;
  bool anchor = false;
};

struct LadderSummary {
  std::string file;
  bool present = false;
  int matches = 0;
  std::vector<LadderEntry> ratings;  // best first (match/ladder.h ComputeRatings)
};

struct RunStatus {
  std::string base;
  double now = 0;
  StatusOptions options;

  std::vector<ProcessStatus> processes;  // not forgotten, sorted by program, host, pid
  int forgotten_heartbeats = 0;
  std::vector<LoopStatus> loops;

  // Selfplay: rates of the alive processes (from their heartbeats), per host.
  std::vector<SelfplayHost> selfplay_hosts;
  int selfplay_active = 0;
  double games_per_hour = 0, rows_per_hour = 0;
  double games_heartbeats = 0;  // sum of the games counters of every selfplay heartbeat
  // Selfplay: what the shards say.
  int64_t shard_files = 0, shard_bytes = 0, unreadable_shards = 0;
  int64_t shard_rows = -1;      // -1 when not counted
  int64_t rows_last_hour = -1;  // rows in shards modified in the last hour
  int models_with_data = 0;
  bool sizes_estimated = false;  // some byte counts come from a sample (status/disk_survey.h)
  std::optional<double> newest_shard_time;
  std::string newest_shard;

  // Bytes written (modified) in the last hour, per area, and their sum.
  int64_t selfplay_bytes_last_hour = 0, shuffle_bytes_last_hour = 0, train_bytes_last_hour = 0;

  Shuffles shuffles;
  std::vector<TrainingStatus> trainings;
  ModelCounts models;
  GatingSummary gating;
  LadderSummary ladder;

  int64_t base_bytes = 0, base_files = 0;
  std::optional<FilesystemSpace> space;

  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // files skipped and why
};

// Seconds since the epoch, now: the `now` CollectStatus takes.
double NowSeconds();

// Reads base at time `now` (seconds since the epoch). A missing base directory gives an
// empty status with a warning.
RunStatus CollectStatus(const std::string& base, const StatusOptions& options, double now);

// The status as text or JSON: status/status_format.h.

}  // namespace tengen::status
