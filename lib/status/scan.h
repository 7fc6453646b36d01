#pragma once
// Reading a base directory for people: the status tool (status/run_status.h) and the HTML
// report (status/report.h) share these readers. Every reader is read-only and tolerant: a
// file that is missing, half-written, truncated or garbage is skipped with a one-line note
// (appended to `notes`), never an exception, because a status tool that crashes on the
// run's odd file is useless exactly when the run is in trouble. Temporaries (names with
// ".tmp", util/publish.h) are skipped everywhere except in disk usage.
//
// Times are seconds since the Unix epoch as doubles (UTC); NaN stands for "not known" in
// numeric fields that a file may lack.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/heartbeat.h"
#include "status/disk_survey.h"
#include "status/utc_time.h"

namespace tengen::status {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// Modification time of a path, nullopt when it cannot be read.
std::optional<double> ModificationTime(const std::string& path);

// One heartbeat file status/<program>-<host>-<pid>.json (pipeline/heartbeat.h), or the phase
// record of scripts/synchronous_loop.sh in the same format.
struct HeartbeatRecord {
  std::string file;  // path
  std::string program, host, state, time_utc;
  long pid = 0;
  pipeline::SlurmJob slurm;  // its "slurm" object; empty outside SLURM
  double time = 0;           // time_utc parsed
  std::vector<std::pair<std::string, std::string>> texts;
  std::vector<std::pair<std::string, double>> counters;  // null -> NaN

  // The counter's value, or `fallback` when absent or null.
  double Counter(const std::string& key, double fallback = kUnknown) const;
  // The text's value, or "" when absent.
  std::string Text(const std::string& key) const;
};
// Every heartbeat in status_dir, sorted by program, host, pid. Files that do not parse as a
// heartbeat (not JSON, no program, no valid time_utc) are skipped with a note.
std::vector<HeartbeatRecord> ReadHeartbeats(const std::string& status_dir,
                                            std::vector<std::string>* notes);

// One line of train/<name>/metrics.jsonl (lib/pipeline/torch/trainer_loop.cpp).
struct EpochMetrics {
  std::string time_utc;
  double time = kUnknown;
  double epoch = kUnknown, samples = kUnknown, rows = kUnknown, lr = kUnknown, bucket = kUnknown,
         samples_per_second = kUnknown;
  double loss_policy = kUnknown, loss_value = kUnknown, loss_score = kUnknown,
         loss_ownership = kUnknown, loss_total = kUnknown;
};
struct TrainingMetrics {
  std::string name;                  // the training name (directory under train/)
  std::vector<EpochMetrics> epochs;  // in file order
};
// train/*/metrics.jsonl, sorted by training name. Lines that are not JSON objects (a line
// being appended, a damaged file) are skipped with a note counting them.
std::vector<TrainingMetrics> ReadAllMetrics(const std::string& base,
                                            std::vector<std::string>* notes);

// A selfplay shard selfplay/<model>/tdata/<name>.npz or its games selfplay/<model>/sgfs/*.sgfs.
struct DataFile {
  std::string path, model;
  double mtime = 0;
  int64_t bytes = 0;
  int64_t count = -1;  // rows of a shard, games (lines) of an .sgfs file; -1 not counted/unreadable
};
// Shards under selfplay/*/tdata, oldest first. With count_rows, rows are taken from the names
// (pipeline::RowsInShardName), else read from the npy headers (data::CountShardRows); an
// unreadable shard keeps count -1 and adds a note.
std::vector<DataFile> ListShards(const std::string& base, bool count_rows,
                                 std::vector<std::string>* notes);
// SGF files under selfplay/*/sgfs, oldest first. With count_games, the games are the lines of
// each file (one SGF per line).
std::vector<DataFile> ListSgfFiles(const std::string& base, bool count_games,
                                   std::vector<std::string>* notes);

// shuffleddata/<stamp>/summary.json (lib/pipeline/shuffle.cpp).
struct ShuffleSummary {
  std::string name, path;
  double time = 0;  // created_utc, else the summary's modification time
  double total_rows = kUnknown, window_rows = kUnknown, desired_window_rows = kUnknown,
         output_rows = kUnknown;
  std::string window_start_file, window_start_utc;
  int64_t files = 0;
};
struct Shuffles {
  int count = 0;  // published shuffle directories with a readable summary
  std::optional<ShuffleSummary> newest;
};
Shuffles ReadShuffles(const std::string& base, std::vector<std::string>* notes);

// A model directory in models/, rejectedmodels/ or modelstobetested/.
struct ModelEntry {
  std::string name, path;
  int64_t samples = 0, rows = 0;  // from the name; 0 when it does not follow the pattern
  double time = 0;  // export.json exported_utc, else model.json created_utc, else the mtime
};
// The model directories in dir (plain files and temporaries skipped), oldest first (samples,
// then time).
// Which models' times ListModelDirs reads (each costs a few file reads: round trips on a network
// filesystem, for every model of a week-long run).
enum class ModelTimes { kAll, kNewest, kNone };  // kNone: time 0
std::vector<ModelEntry> ListModelDirs(const std::string& dir, std::vector<std::string>* notes,
                                      ModelTimes times = ModelTimes::kAll);

// A gatekeeper match record gatekeepersgf/<candidate>/<stem>.json (format "tengen-gating").
struct GatingRecord {
  std::string file, candidate, baseline, decision, reason, mode;
  int64_t games = 0, wins = 0, losses = 0, draws = 0;
  double score_fraction = kUnknown, elo = kUnknown, elo_low = kUnknown, elo_high = kUnknown;
  double time = 0;  // finished_utc, else the file's modification time
};
// Every record, oldest first; files of another format are skipped with a note.
std::vector<GatingRecord> ReadGatingRecords(const std::string& base,
                                            std::vector<std::string>* notes);

// The gatekeeper's decisions without reading every record: candidates with a directory under
// gatekeepersgf/ that are now among `accepted` (models/) or `rejected` (rejectedmodels/), and
// the newest record of the newest candidate (by the samples in its name) that has one.
struct GatingSummary {
  int accepted = 0, rejected = 0;
  std::optional<GatingRecord> last;
};
GatingSummary SummarizeGating(const std::string& base, const std::vector<ModelEntry>& accepted,
                              const std::vector<ModelEntry>& rejected,
                              std::vector<std::string>* notes);

// Bytes under a directory tree (symbolic links not followed; temporaries included, as they
// use disk too), and the bytes of files modified at or after `since`.
// Usage of base as a whole and of each of its top-level entries (by name).
struct BaseUsage {
  DiskUsage total;
  std::vector<std::pair<std::string, DiskUsage>> top;
  DiskUsage Of(const std::string& top_name) const;
};
BaseUsage ScanBaseUsage(const std::string& base, double since, std::vector<std::string>* notes);

// Free and total bytes of the filesystem holding path; nullopt when it cannot be read.
struct FilesystemSpace {
  int64_t capacity = 0, available = 0;
};
std::optional<FilesystemSpace> SpaceOf(const std::string& path);

// Whether process pid runs on this machine (kill(pid, 0)); only meaningful when the
// heartbeat's host is this machine's host name.
bool ProcessRunsHere(long pid);

}  // namespace tengen::status
