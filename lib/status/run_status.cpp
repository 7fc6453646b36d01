#include "status/run_status.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "match/ladder.h"
#include "pipeline/base_dir.h"
#include "status/status_format.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;

constexpr double kGb = 1e9;
constexpr char kLoopProgram[] = "synchronous_loop";

bool IsFinalState(const std::string& state) {
  return state == "stopped" || state == "done" || state.rfind("failed", 0) == 0;
}

double Finite(double value, double fallback = 0) { return std::isfinite(value) ? value : fallback; }

void ReadLadderInto(const std::string& path, LadderSummary* ladder,
                    std::vector<std::string>* notes) {
  ladder->file = path;
  if (!ModificationTime(path)) return;
  try {
    const match::Ladder data = match::ReadLadder(path);
    ladder->present = true;
    ladder->matches = static_cast<int>(data.matches.size());
    for (const match::LadderRating& r : match::ComputeRatings(data)) {
      LadderEntry e;
      e.name = r.name;
      e.elo = r.elo;
      e.low = r.low;
      e.high = r.high;
      e.games = r.games;
      e.anchor = r.anchor;
      ladder->ratings.push_back(e);
    }
  } catch (const std::exception& e) {
    notes->push_back("ladder " + path + " skipped: " + e.what());
  }
}

void CollectProcesses(RunStatus& s, const std::vector<HeartbeatRecord>& heartbeats) {
  const std::string this_host = pipeline::HostName();
  const StatusOptions& o = s.options;
  std::map<std::string, SelfplayHost> hosts;
  for (const HeartbeatRecord& h : heartbeats) {
    const double age = s.now - h.time;
    if (h.program == "selfplay") s.games_heartbeats += Finite(h.Counter("games"));
    if (h.program == kLoopProgram) {
      LoopStatus loop;
      loop.host = h.host;
      loop.pid = h.pid;
      loop.phase = h.state;
      loop.run = h.Text("run");
      loop.training_name = h.Text("training_name");
      loop.cycle = h.Counter("cycle");
      loop.age_seconds = age;
      loop.ended = IsFinalState(h.state);
      if (h.host == this_host) loop.running = ProcessRunsHere(h.pid);
      s.loops.push_back(loop);
      continue;
    }
    if (age > o.forget_hours * 3600) {
      ++s.forgotten_heartbeats;
      continue;
    }
    ProcessStatus p;
    p.heartbeat = h;
    p.age_seconds = age;
    if (IsFinalState(h.state)) {
      p.condition = "ended";
    } else if (h.host == this_host && !ProcessRunsHere(h.pid)) {
      p.condition = "dead";
    } else if (age > o.stale_seconds) {
      p.condition = "stale";
    } else {
      p.condition = "alive";
    }
    if (p.condition == "alive" && h.program == "selfplay") {
      SelfplayHost& host = hosts[h.host];
      host.host = h.host;
      ++host.processes;
      host.games_per_hour += Finite(h.Counter("games_per_hour"));
      host.rows_per_hour += 3600 * Finite(h.Counter("rows_per_second"));
      host.nn_evals_per_second += Finite(h.Counter("nn_evals_per_second"));
    }
    s.processes.push_back(std::move(p));
  }
  for (const auto& [name, host] : hosts) {
    s.selfplay_hosts.push_back(host);
    s.selfplay_active += host.processes;
    s.games_per_hour += host.games_per_hour;
    s.rows_per_hour += host.rows_per_hour;
  }
}

void CollectShards(RunStatus& s) {
  const ShardSurvey survey = SurveyShards(s.base, s.now - 3600, s.options.count_rows, &s.notes);
  s.shard_files = survey.usage.files;
  s.shard_bytes = survey.usage.bytes;
  s.sizes_estimated = s.sizes_estimated || survey.usage.estimated;
  s.unreadable_shards = survey.unreadable;
  s.shard_rows = survey.rows;
  s.rows_last_hour = survey.rows >= 0 ? survey.rows_since : -1;
  s.models_with_data = survey.models;
  s.newest_shard_time = survey.newest_time;
  s.newest_shard = survey.newest;
}

void CollectTraining(RunStatus& s) {
  const int n = s.options.rising_loss_epochs;
  for (const TrainingMetrics& m : ReadAllMetrics(s.base, &s.notes)) {
    TrainingStatus t;
    t.name = m.name;
    t.epochs_logged = static_cast<int>(m.epochs.size());
    if (!m.epochs.empty()) t.last = m.epochs.back();
    if (n >= 2 && static_cast<int>(m.epochs.size()) >= n) {
      t.loss_rising = true;
      for (size_t i = m.epochs.size() - static_cast<size_t>(n); i < m.epochs.size(); ++i) {
        const double loss = m.epochs[i].loss_total;
        if (!t.recent_loss_total.empty() &&
            !(std::isfinite(loss) && loss > t.recent_loss_total.back())) {
          t.loss_rising = false;
        }
        if (!std::isfinite(loss)) t.loss_rising = false;
        t.recent_loss_total.push_back(loss);
      }
    }
    for (const std::string& name :
         ListPublished(pipeline::TrainDir(s.base, m.name) + "/checkpoints"))
      if (name.rfind("broken-", 0) == 0) ++t.broken_checkpoints;
    s.trainings.push_back(std::move(t));
  }
}

void CollectModels(RunStatus& s) {
  // Only listings and the newest model's and record's files: on a network filesystem every file
  // read costs round trips, and a week-long run has thousands of models.
  const std::vector<ModelEntry> accepted =
      ListModelDirs(pipeline::ModelsDir(s.base), &s.notes, ModelTimes::kNewest);
  s.models.accepted = static_cast<int>(accepted.size());
  if (!accepted.empty()) s.models.newest_accepted = accepted.back();
  const std::vector<ModelEntry> rejected =
      ListModelDirs(pipeline::RejectedModelsDir(s.base), &s.notes, ModelTimes::kNone);
  s.models.rejected = static_cast<int>(rejected.size());
  for (const ModelEntry& m :
       ListModelDirs(pipeline::ModelsToBeTestedDir(s.base), &s.notes, ModelTimes::kNone))
    s.models.queue.push_back(m.name);
  s.models.broken_snapshots = static_cast<int>(
      ListModelDirs(s.base + "/torchmodels_toexport_broken", nullptr, ModelTimes::kNone).size());
  s.gating = SummarizeGating(s.base, accepted, rejected, &s.notes);
}

void AddWarnings(RunStatus& s) {
  const StatusOptions& o = s.options;
  for (const ProcessStatus& p : s.processes) {
    const HeartbeatRecord& h = p.heartbeat;
    if (p.condition == "stale") {
      s.warnings.push_back("stale: " + Who(h) + " last wrote its heartbeat " + Ago(s.now, h.time) +
                           " (state '" + h.state + "', threshold " +
                           FormatDuration(o.stale_seconds) +
                           "): hung, or killed on a machine this tool cannot look into");
    } else if (p.condition == "dead") {
      s.warnings.push_back("dead: " + Who(h) + " no longer runs on this machine and never wrote " +
                           "a final state (last state '" + h.state + "' " + Ago(s.now, h.time) +
                           "): killed or crashed; see logs/" + h.program + "/");
    }
    if (p.condition == "alive" && h.program == "selfplay" && h.Counter("rows_unpublished", 0) > 0) {
      s.warnings.push_back("unpublished rows: " + Who(h) + " holds " +
                           Num(h.Counter("rows_unpublished")) +
                           " rows it could not publish (disk full or directory gone?)");
    }
  }
  bool loop_outside_selfplay = false;
  for (const LoopStatus& loop : s.loops) {
    if (loop.phase.rfind("failed", 0) == 0) {
      s.warnings.push_back("synchronous loop on " + loop.host + " " + loop.phase + " " +
                           FormatDuration(std::max(0.0, loop.age_seconds)) +
                           " ago: see the log of that program in logs/");
    } else if (!loop.ended && loop.running.has_value() && !*loop.running) {
      s.warnings.push_back(StrCat("synchronous loop on ", loop.host, " (pid ", loop.pid,
                                  ") no longer runs but its record says '", loop.phase,
                                  "': it was killed; run it again to resume"));
    }
    if (!loop.ended && loop.phase != "selfplay" && loop.running.value_or(true))
      loop_outside_selfplay = true;
  }
  if (o.no_data_minutes > 0 && !loop_outside_selfplay) {
    if (!s.newest_shard_time) {
      s.warnings.push_back("no data: no selfplay shard under " + pipeline::SelfplayDir(s.base) +
                           " yet");
    } else if (s.now - *s.newest_shard_time > o.no_data_minutes * 60) {
      s.warnings.push_back("no data: no new selfplay shard for " +
                           FormatDuration(s.now - *s.newest_shard_time) + " (threshold " +
                           Num(o.no_data_minutes) + " min; newest " + s.newest_shard + ")");
    }
  }
  if (s.space && s.space->capacity > 0) {
    const double free_bytes = static_cast<double>(s.space->available);
    const double fraction = free_bytes / static_cast<double>(s.space->capacity);
    if (free_bytes < o.min_free_gb * kGb || fraction * 100 < o.min_free_percent) {
      s.warnings.push_back("disk nearly full: " + FormatBytes(free_bytes) + " free (" +
                           Percent(fraction) + ") on the filesystem of " + s.base +
                           " (thresholds " + Num(o.min_free_gb) + " GB, " +
                           Num(o.min_free_percent) + "%)");
    }
  }
  for (const TrainingStatus& t : s.trainings) {
    if (t.broken_checkpoints > 0) {
      s.warnings.push_back(StrCat("broken checkpoints: training ", t.name, ": ",
                                  t.broken_checkpoints, " damaged checkpoints set aside as train/",
                                  t.name,
                                  "/checkpoints/broken-* (the disk, or a copy, went bad?)"));
    }
    if (!t.loss_rising) continue;
    std::string values;
    for (const double v : t.recent_loss_total) values += (values.empty() ? "" : ", ") + Num(v);
    s.warnings.push_back(StrCat("rising loss: training ", t.name,
                                ": loss_total rose over the last ", t.recent_loss_total.size(),
                                " epochs (", values, "): learning rate too high, or bad data?"));
  }
  if (s.unreadable_shards > 0) {
    s.warnings.push_back(StrCat("unreadable data: ", s.unreadable_shards,
                                " selfplay shards cannot be read (see the notes)"));
  }
  if (s.models.broken_snapshots > 0) {
    s.warnings.push_back(StrCat("broken snapshots: ", s.models.broken_snapshots,
                                " in torchmodels_toexport_broken/ (each has a .reason.txt)"));
  }
}

}  // namespace

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

RunStatus CollectStatus(const std::string& base, const StatusOptions& options, double now) {
  RunStatus s;
  s.base = base;
  s.now = now;
  s.options = options;
  if (!ModificationTime(base)) {
    s.warnings.push_back("base directory " + base + " does not exist (or cannot be read)");
    return s;
  }
  CollectProcesses(s, ReadHeartbeats(pipeline::StatusDir(base), &s.notes));
  CollectShards(s);
  s.shuffles = ReadShuffles(base, &s.notes);
  CollectTraining(s);
  CollectModels(s);
  ReadLadderInto(options.ladder_file.empty() ? base + "/ladder/ladder.json" : options.ladder_file,
                 &s.ladder, &s.notes);
  const BaseUsage usage = ScanBaseUsage(base, now - 3600, &s.notes);
  s.base_bytes = usage.total.bytes;
  s.base_files = usage.total.files;
  s.sizes_estimated = s.sizes_estimated || usage.total.estimated;
  s.selfplay_bytes_last_hour = usage.Of("selfplay").recent_bytes;
  s.shuffle_bytes_last_hour = usage.Of("shuffleddata").recent_bytes;
  s.train_bytes_last_hour = usage.Of("train").recent_bytes;
  s.space = SpaceOf(base);
  AddWarnings(s);
  return s;
}

}  // namespace tengen::status
