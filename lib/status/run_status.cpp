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
#include "util/error.h"
#include "util/publish.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;

constexpr double kGb = 1e9;
constexpr char kLoopProgram[] = "synchronous_loop";

bool IsFinalState(const std::string& state) {
  return state == "stopped" || state == "done" || state.rfind("failed", 0) == 0;
}

// Integers as integers, other values with a few significant digits; "-" when unknown.
std::string Num(double value) {
  if (!std::isfinite(value)) return "-";
  char buffer[64];
  const double magnitude = std::fabs(value);
  if (value == std::floor(value) && magnitude < 1e15) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
  } else if (magnitude >= 1000) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
  } else if (magnitude >= 10) {
    std::snprintf(buffer, sizeof(buffer), "%.1f", value);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.4g", value);
  }
  return buffer;
}

// How the current model's selfplay games ended (pipeline/game_end_stats.h), from a selfplay
// heartbeat's counters; "" for other heartbeats. The figures no game says anything about yet
// (null: no game with a pass, no scored game) are left out, as in selfplay's progress line.
std::string GameEndsLine(const HeartbeatRecord& h) {
  const double games = h.Counter("model_games");
  if (!std::isfinite(games) || games <= 0) return "";
  std::string line = "games of this model " + Num(games) + ": ended by passes " +
                     Num(h.Counter("games_end_passes")) + ", move cap " +
                     Num(h.Counter("games_end_move_cap")) + ", resignation " +
                     Num(h.Counter("games_end_resignation"));
  if (h.Counter("moves_after_first_pass_median") >= 0) {
    line += "; moves after the first pass: median " +
            Num(h.Counter("moves_after_first_pass_median")) + ", 90th percentile " +
            Num(h.Counter("moves_after_first_pass_p90"));
  }
  if (std::isfinite(h.Counter("mean_abs_final_score")))
    line += "; mean |final score| " + Num(h.Counter("mean_abs_final_score"));
  return line;
}

std::string SignedNum(double value) {
  if (!std::isfinite(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%+.0f", value);
  return buffer;
}

std::string Percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f%%", 100 * fraction);
  return buffer;
}

double Finite(double value, double fallback = 0) { return std::isfinite(value) ? value : fallback; }

json NumberOrNull(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

std::string Ago(double now, double then) {
  const double age = now - then;
  if (age < -60) return "in " + FormatDuration(-age) + " (clock skew?)";
  return FormatDuration(std::max(0.0, age)) + " ago";
}

// ", SLURM job 1230_4" (pipeline::SlurmJobName), or "" outside SLURM.
std::string SlurmSuffix(const HeartbeatRecord& h) {
  return h.slurm.empty() ? "" : ", SLURM job " + pipeline::SlurmJobName(h.slurm);
}

std::string Who(const HeartbeatRecord& h) {
  return h.program + " on " + h.host + " (pid " + std::to_string(h.pid) + SlurmSuffix(h) + ")";
}

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
  const std::vector<DataFile> shards = ListShards(s.base, s.options.count_rows, &s.notes);
  std::vector<std::string> models;
  if (s.options.count_rows) {
    s.shard_rows = 0;
    s.rows_last_hour = 0;
  }
  for (const DataFile& f : shards) {
    ++s.shard_files;
    s.shard_bytes += f.bytes;
    if (std::find(models.begin(), models.end(), f.model) == models.end()) models.push_back(f.model);
    if (s.options.count_rows) {
      if (f.count < 0) {
        ++s.unreadable_shards;
      } else {
        s.shard_rows += f.count;
        if (f.mtime >= s.now - 3600) s.rows_last_hour += f.count;
      }
    }
  }
  s.models_with_data = static_cast<int>(models.size());
  if (!shards.empty()) {
    s.newest_shard_time = shards.back().mtime;
    s.newest_shard = shards.back().path;
  }
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
  const std::vector<ModelEntry> accepted = ListModelDirs(pipeline::ModelsDir(s.base), &s.notes);
  s.models.accepted = static_cast<int>(accepted.size());
  if (!accepted.empty()) s.models.newest_accepted = accepted.back();
  s.models.rejected =
      static_cast<int>(ListModelDirs(pipeline::RejectedModelsDir(s.base), &s.notes).size());
  for (const ModelEntry& m : ListModelDirs(pipeline::ModelsToBeTestedDir(s.base), &s.notes))
    s.models.queue.push_back(m.name);
  s.models.broken_snapshots =
      static_cast<int>(ListModelDirs(s.base + "/torchmodels_toexport_broken", nullptr).size());
  const std::vector<GatingRecord> records = ReadGatingRecords(s.base, &s.notes);
  for (const GatingRecord& r : records) {
    if (r.decision == "accept" || r.decision == "accepted") ++s.gating.accepted;
    if (r.decision == "reject" || r.decision == "rejected") ++s.gating.rejected;
  }
  if (!records.empty()) s.gating.last = records.back();
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
      s.warnings.push_back("synchronous loop on " + loop.host + " (pid " +
                           std::to_string(loop.pid) + ") no longer runs but its record says '" +
                           loop.phase + "': it was killed; run it again to resume");
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
      s.warnings.push_back("broken checkpoints: training " + t.name + ": " +
                           std::to_string(t.broken_checkpoints) +
                           " damaged checkpoints set aside as train/" + t.name +
                           "/checkpoints/broken-* (the disk, or a copy, went bad?)");
    }
    if (!t.loss_rising) continue;
    std::string values;
    for (const double v : t.recent_loss_total) values += (values.empty() ? "" : ", ") + Num(v);
    s.warnings.push_back("rising loss: training " + t.name + ": loss_total rose over the last " +
                         std::to_string(t.recent_loss_total.size()) + " epochs (" + values +
                         "): learning rate too high, or bad data?");
  }
  if (s.unreadable_shards > 0) {
    s.warnings.push_back("unreadable data: " + std::to_string(s.unreadable_shards) +
                         " selfplay shards cannot be read (see the notes)");
  }
  if (s.models.broken_snapshots > 0) {
    s.warnings.push_back("broken snapshots: " + std::to_string(s.models.broken_snapshots) +
                         " in torchmodels_toexport_broken/ (each has a .reason.txt)");
  }
}

}  // namespace

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "?";
  char buffer[32];
  if (seconds < 120) {
    std::snprintf(buffer, sizeof(buffer), "%.0f s", seconds);
  } else if (seconds < 2 * 3600) {
    std::snprintf(buffer, sizeof(buffer), "%.0f min", seconds / 60);
  } else if (seconds < 48 * 3600) {
    std::snprintf(buffer, sizeof(buffer), "%.1f h", seconds / 3600);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.1f d", seconds / 86400);
  }
  return buffer;
}

std::string FormatBytes(double bytes) {
  char buffer[32];
  if (bytes < 1e3) {
    std::snprintf(buffer, sizeof(buffer), "%.0f B", bytes);
  } else if (bytes < 1e6) {
    std::snprintf(buffer, sizeof(buffer), "%.1f kB", bytes / 1e3);
  } else if (bytes < 1e9) {
    std::snprintf(buffer, sizeof(buffer), "%.1f MB", bytes / 1e6);
  } else if (bytes < 1e12) {
    std::snprintf(buffer, sizeof(buffer), "%.2f GB", bytes / 1e9);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.2f TB", bytes / 1e12);
  }
  return buffer;
}

void DeclareStatusOptions(ConfigSpec& spec) {
  const StatusOptions d;
  spec.String("base_dir", "", "the run's base directory (or give it as the argument)");
  spec.Double("stale_seconds", d.stale_seconds, 1, 1e9,
              "a heartbeat older than this many seconds is stale (programs beat every few s)");
  spec.Double("no_data_minutes", d.no_data_minutes, 0, 1e9,
              "warn when the newest selfplay shard is older than this (0: never)");
  spec.Double("min_free_gb", d.min_free_gb, 0, 1e9,
              "warn when the base directory's filesystem has less free space (GB, 1e9 bytes)");
  spec.Double("min_free_percent", d.min_free_percent, 0, 100,
              "warn when less than this share of the filesystem is free");
  spec.Int("rising_loss_epochs", d.rising_loss_epochs, 0, 1000,
           "warn when loss_total rose strictly over this many epochs in a row (0 or 1: never)");
  spec.Double("forget_hours", d.forget_hours, 0.001, 1e9,
              "heartbeats older than this are counted, not listed");
  spec.Bool("count_rows", d.count_rows,
            "count the rows of every shard (npy headers; false: only count files)");
  spec.String("ladder", "", "Elo ladder file (\"\": <base>/ladder/ladder.json)");
}

StatusOptions StatusOptionsFromConfig(const Config& config) {
  StatusOptions o;
  o.stale_seconds = config.GetDouble("stale_seconds");
  o.no_data_minutes = config.GetDouble("no_data_minutes");
  o.min_free_gb = config.GetDouble("min_free_gb");
  o.min_free_percent = config.GetDouble("min_free_percent");
  o.rising_loss_epochs = static_cast<int>(config.GetInt("rising_loss_epochs"));
  o.forget_hours = config.GetDouble("forget_hours");
  o.count_rows = config.GetBool("count_rows");
  o.ladder_file = config.GetString("ladder");
  return o;
}

std::optional<std::string> ParseStatusCommandLine(const ConfigSpec& spec, int argc,
                                                  const char* const argv[], Config& config,
                                                  std::ostream& help_out) {
  const CommandLine command_line = ParseCommandLine(spec, argc, argv, config, true);
  if (AnswerHelpOrPrintConfig(spec, command_line, config, help_out)) return std::nullopt;
  return BaseDirFromArguments(config, command_line.positional);
}

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string BaseDirFromArguments(const Config& config, const std::vector<std::string>& positional) {
  if (positional.size() > 1)
    throw ConfigError("one base directory expected, got " + std::to_string(positional.size()) +
                      " arguments");
  const std::string key = config.GetString("base_dir");
  if (!positional.empty() && !key.empty() && positional[0] != key)
    throw ConfigError("base_dir: " + key + " disagrees with the argument " + positional[0]);
  const std::string base = positional.empty() ? key : positional[0];
  if (base.empty()) throw ConfigError("base_dir: give the run's base directory (BASE)");
  return base;
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
  s.selfplay_bytes_last_hour = usage.Of("selfplay").recent_bytes;
  s.shuffle_bytes_last_hour = usage.Of("shuffleddata").recent_bytes;
  s.train_bytes_last_hour = usage.Of("train").recent_bytes;
  s.space = SpaceOf(base);
  AddWarnings(s);
  return s;
}

std::string FormatStatus(const RunStatus& s) {
  std::ostringstream out;
  out << "tengen status of " << s.base << " at " << FormatUtc(s.now) << "\n";

  out << "\nProcesses (stale after " << FormatDuration(s.options.stale_seconds) << ")\n";
  if (s.processes.empty()) out << "  no heartbeats in " << pipeline::StatusDir(s.base) << "\n";
  // Ended processes: only the newest per program, the others counted.
  std::map<std::string, const ProcessStatus*> newest_ended;
  std::map<std::string, int> ended_count;
  for (const ProcessStatus& p : s.processes) {
    if (p.condition != "ended") continue;
    const ProcessStatus*& newest = newest_ended[p.heartbeat.program];
    if (newest == nullptr || p.heartbeat.time > newest->heartbeat.time) newest = &p;
    ++ended_count[p.heartbeat.program];
  }
  for (const ProcessStatus& p : s.processes) {
    const HeartbeatRecord& h = p.heartbeat;
    if (p.condition == "ended" && newest_ended[h.program] != &p) continue;
    std::string condition = p.condition;
    if (condition != "alive") {
      for (char& c : condition) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    out << "  " << h.program << " on " << h.host << " pid " << h.pid;
    if (!h.slurm.empty()) out << " (SLURM job " << pipeline::SlurmJobName(h.slurm) << ")";
    out << ": " << condition << ", '" << h.state << "', heartbeat " << Ago(s.now, h.time);
    if (p.condition == "ended" && ended_count[h.program] > 1)
      out << " (newest of " << ended_count[h.program] << " ended)";
    out << "\n";
    std::string texts;
    for (const auto& [key, value] : h.texts) {
      if (!value.empty()) texts += (texts.empty() ? "" : ", ") + key + " " + value;
    }
    if (!texts.empty()) out << "      " << texts << "\n";
    if (p.condition != "ended" && !h.counters.empty()) {
      std::string counters;
      for (const auto& [key, value] : h.counters)
        counters += (counters.empty() ? "" : ", ") + key + " " + Num(value);
      out << "      " << counters << "\n";
    }
    for (const auto& [key, value] : h.counters) {
      if ((key.find("load") != std::string::npos || key.find("switch") != std::string::npos) &&
          std::isfinite(value)) {
        out << "      model " << key << ": " << Num(value) << "\n";
      }
    }
    const std::string ends = GameEndsLine(h);
    if (!ends.empty()) out << "      " << ends << "\n";
  }
  if (s.forgotten_heartbeats > 0) {
    out << "  (" << s.forgotten_heartbeats << " heartbeats older than "
        << Num(s.options.forget_hours) << " h not shown)\n";
  }
  for (const LoopStatus& loop : s.loops) {
    out << "  synchronous loop on " << loop.host << " pid " << loop.pid << ": phase '" << loop.phase
        << "', cycle " << Num(loop.cycle) << ", for "
        << FormatDuration(std::max(0.0, loop.age_seconds));
    if (loop.running.has_value()) out << (*loop.running ? " (running)" : " (not running)");
    if (!loop.run.empty()) out << ", run " << loop.run << " training " << loop.training_name;
    out << "\n";
  }

  out << "\nSelfplay\n";
  out << "  active processes: " << s.selfplay_active;
  if (s.selfplay_active > 0)
    out << ", " << Num(s.games_per_hour) << " games/h, " << Num(s.rows_per_hour) << " rows/h";
  out << "\n";
  for (const SelfplayHost& h : s.selfplay_hosts) {
    out << "    " << h.host << ": " << h.processes << " processes, " << Num(h.games_per_hour)
        << " games/h, " << Num(h.rows_per_hour) << " rows/h, " << Num(h.nn_evals_per_second)
        << " NN evals/s\n";
  }
  out << "  games (all selfplay heartbeats): " << Num(s.games_heartbeats) << "\n";
  out << "  shards: " << s.shard_files << " files, "
      << FormatBytes(static_cast<double>(s.shard_bytes));
  if (s.shard_rows >= 0) out << ", " << s.shard_rows << " rows";
  out << " from " << s.models_with_data << " models";
  if (s.rows_last_hour >= 0) out << "; " << s.rows_last_hour << " rows in the last hour";
  out << "\n";
  if (s.newest_shard_time)
    out << "  newest shard " << Ago(s.now, *s.newest_shard_time) << ": " << s.newest_shard << "\n";

  out << "\nWritten in the last hour: selfplay "
      << FormatBytes(static_cast<double>(s.selfplay_bytes_last_hour)) << ", shuffleddata "
      << FormatBytes(static_cast<double>(s.shuffle_bytes_last_hour)) << ", train "
      << FormatBytes(static_cast<double>(s.train_bytes_last_hour)) << "\n";

  out << "\nShuffle\n";
  if (!s.shuffles.newest) {
    out << "  none yet\n";
  } else {
    const ShuffleSummary& sh = *s.shuffles.newest;
    out << "  newest " << sh.name << " (" << Ago(s.now, sh.time) << ", " << s.shuffles.count
        << " kept): total rows " << Num(sh.total_rows) << ", window " << Num(sh.window_rows)
        << " of desired " << Num(sh.desired_window_rows) << " rows, " << Num(sh.output_rows)
        << " rows out from " << sh.files << " files\n";
    if (!sh.window_start_file.empty())
      out << "  window starts at " << sh.window_start_file << " (" << sh.window_start_utc << ")\n";
  }

  out << "\nTraining\n";
  if (s.trainings.empty()) out << "  no metrics yet\n";
  for (const TrainingStatus& t : s.trainings) {
    const EpochMetrics& m = t.last;
    out << "  " << t.name << ": epoch " << Num(m.epoch) << ", samples " << Num(m.samples)
        << ", rows " << Num(m.rows) << ", bucket " << Num(m.bucket) << ", lr " << Num(m.lr) << ", "
        << Num(m.samples_per_second) << " samples/s";
    if (std::isfinite(m.time)) out << ", " << Ago(s.now, m.time);
    out << "\n    loss: policy " << Num(m.loss_policy) << ", value " << Num(m.loss_value)
        << ", score " << Num(m.loss_score) << ", ownership " << Num(m.loss_ownership) << ", total "
        << Num(m.loss_total) << "\n";
  }

  out << "\nModels\n";
  out << "  accepted " << s.models.accepted;
  if (s.models.newest_accepted)
    out << " (newest " << s.models.newest_accepted->name << ", "
        << Ago(s.now, s.models.newest_accepted->time) << ")";
  out << ", rejected " << s.models.rejected << ", waiting for the gatekeeper "
      << s.models.queue.size();
  for (size_t i = 0; i < s.models.queue.size(); ++i)
    out << (i == 0 ? ": " : ", ") << s.models.queue[i];
  out << "\n";
  out << "  gating records: " << s.gating.accepted << " accepted, " << s.gating.rejected
      << " rejected";
  if (s.gating.last) {
    const GatingRecord& r = *s.gating.last;
    out << "; last " << r.candidate << ": " << r.decision << " " << r.wins << "-" << r.losses << "-"
        << r.draws << " in " << r.games << " games, Elo " << SignedNum(r.elo) << " ["
        << SignedNum(r.elo_low) << ", " << SignedNum(r.elo_high) << "], " << Ago(s.now, r.time);
  }
  out << "\n";
  if (s.ladder.present) {
    out << "  ladder " << s.ladder.file << ": " << s.ladder.ratings.size() << " players, "
        << s.ladder.matches << " matches";
    for (const LadderEntry& e : s.ladder.ratings) {
      if (e.anchor) continue;
      out << "; best " << e.name << " " << SignedNum(e.elo) << " [" << SignedNum(e.low) << ", "
          << SignedNum(e.high) << "]";
      break;
    }
    out << "\n";
  }

  out << "\nDisk\n  " << s.base << " holds " << FormatBytes(static_cast<double>(s.base_bytes))
      << " in " << s.base_files << " files";
  if (s.space && s.space->capacity > 0) {
    out << "; " << FormatBytes(static_cast<double>(s.space->available)) << " free of "
        << FormatBytes(static_cast<double>(s.space->capacity)) << " ("
        << Percent(static_cast<double>(s.space->available) / static_cast<double>(s.space->capacity))
        << ")";
  }
  out << "\n";

  if (!s.notes.empty()) {
    out << "\nNotes (files skipped)\n";
    for (const std::string& note : s.notes) out << "  " << note << "\n";
  }
  out << "\nWarnings: " << (s.warnings.empty() ? "none" : std::to_string(s.warnings.size()))
      << "\n";
  for (const std::string& warning : s.warnings) out << "  ! " << warning << "\n";
  return out.str();
}

std::string StatusJson(const RunStatus& s) {
  json j;
  j["format"] = "tengen-status";
  j["base"] = s.base;
  j["time_utc"] = FormatUtc(s.now);
  j["options"] = {{"stale_seconds", s.options.stale_seconds},
                  {"no_data_minutes", s.options.no_data_minutes},
                  {"min_free_gb", s.options.min_free_gb},
                  {"min_free_percent", s.options.min_free_percent},
                  {"rising_loss_epochs", s.options.rising_loss_epochs},
                  {"forget_hours", s.options.forget_hours}};
  json processes = json::array();
  for (const ProcessStatus& p : s.processes) {
    const HeartbeatRecord& h = p.heartbeat;
    json texts = json::object();
    for (const auto& [key, value] : h.texts) texts[key] = value;
    json counters = json::object();
    for (const auto& [key, value] : h.counters) counters[key] = NumberOrNull(value);
    json process = {
        {"program", h.program},     {"host", h.host},         {"pid", h.pid},
        {"file", h.file},           {"time_utc", h.time_utc}, {"age_seconds", p.age_seconds},
        {"condition", p.condition}, {"state", h.state},       {"texts", texts},
        {"counters", counters}};
    if (!h.slurm.empty()) {
      json job = {{"job_id", h.slurm.job_id}, {"name", pipeline::SlurmJobName(h.slurm)}};
      if (!h.slurm.array_job_id.empty()) {
        job["array_job_id"] = h.slurm.array_job_id;
        job["array_task_id"] = h.slurm.array_task_id;
      }
      process["slurm"] = job;
    }
    processes.push_back(process);
  }
  j["processes"] = processes;
  j["forgotten_heartbeats"] = s.forgotten_heartbeats;
  json loops = json::array();
  for (const LoopStatus& loop : s.loops) {
    loops.push_back({{"host", loop.host},
                     {"pid", loop.pid},
                     {"phase", loop.phase},
                     {"cycle", NumberOrNull(loop.cycle)},
                     {"seconds_in_phase", loop.age_seconds},
                     {"ended", loop.ended},
                     {"running", loop.running ? json(*loop.running) : json(nullptr)},
                     {"run", loop.run},
                     {"training_name", loop.training_name}});
  }
  j["synchronous_loops"] = loops;
  json hosts = json::array();
  for (const SelfplayHost& h : s.selfplay_hosts) {
    hosts.push_back({{"host", h.host},
                     {"processes", h.processes},
                     {"games_per_hour", h.games_per_hour},
                     {"rows_per_hour", h.rows_per_hour},
                     {"nn_evals_per_second", h.nn_evals_per_second}});
  }
  j["selfplay"] = {
      {"hosts", hosts},
      {"active_processes", s.selfplay_active},
      {"games_per_hour", s.games_per_hour},
      {"rows_per_hour", s.rows_per_hour},
      {"games_from_heartbeats", s.games_heartbeats},
      {"shard_files", s.shard_files},
      {"shard_bytes", s.shard_bytes},
      {"shard_rows", s.shard_rows >= 0 ? json(s.shard_rows) : json(nullptr)},
      {"rows_last_hour", s.rows_last_hour >= 0 ? json(s.rows_last_hour) : json(nullptr)},
      {"unreadable_shards", s.unreadable_shards},
      {"models_with_data", s.models_with_data},
      {"newest_shard", s.newest_shard},
      {"newest_shard_age_seconds",
       s.newest_shard_time ? json(s.now - *s.newest_shard_time) : json(nullptr)}};
  j["bytes_last_hour"] = {
      {"selfplay", s.selfplay_bytes_last_hour},
      {"shuffleddata", s.shuffle_bytes_last_hour},
      {"train", s.train_bytes_last_hour},
      {"total", s.selfplay_bytes_last_hour + s.shuffle_bytes_last_hour + s.train_bytes_last_hour}};
  json shuffle = nullptr;
  if (s.shuffles.newest) {
    const ShuffleSummary& sh = *s.shuffles.newest;
    shuffle = {{"name", sh.name},
               {"path", sh.path},
               {"time_utc", FormatUtc(sh.time)},
               {"age_seconds", s.now - sh.time},
               {"total_rows", NumberOrNull(sh.total_rows)},
               {"window_rows", NumberOrNull(sh.window_rows)},
               {"desired_window_rows", NumberOrNull(sh.desired_window_rows)},
               {"output_rows", NumberOrNull(sh.output_rows)},
               {"files", sh.files},
               {"window_start_file", sh.window_start_file},
               {"window_start_utc", sh.window_start_utc}};
  }
  j["shuffle"] = {{"count", s.shuffles.count}, {"newest", shuffle}};
  json trainings = json::array();
  for (const TrainingStatus& t : s.trainings) {
    const EpochMetrics& m = t.last;
    json recent = json::array();
    for (const double v : t.recent_loss_total) recent.push_back(NumberOrNull(v));
    trainings.push_back({{"name", t.name},
                         {"epochs_logged", t.epochs_logged},
                         {"time_utc", m.time_utc},
                         {"epoch", NumberOrNull(m.epoch)},
                         {"samples", NumberOrNull(m.samples)},
                         {"rows", NumberOrNull(m.rows)},
                         {"bucket", NumberOrNull(m.bucket)},
                         {"lr", NumberOrNull(m.lr)},
                         {"samples_per_second", NumberOrNull(m.samples_per_second)},
                         {"loss_policy", NumberOrNull(m.loss_policy)},
                         {"loss_value", NumberOrNull(m.loss_value)},
                         {"loss_score", NumberOrNull(m.loss_score)},
                         {"loss_ownership", NumberOrNull(m.loss_ownership)},
                         {"loss_total", NumberOrNull(m.loss_total)},
                         {"loss_rising", t.loss_rising},
                         {"broken_checkpoints", t.broken_checkpoints},
                         {"recent_loss_total", recent}});
  }
  j["training"] = trainings;
  json last = nullptr;
  if (s.gating.last) {
    const GatingRecord& r = *s.gating.last;
    last = {{"candidate", r.candidate},
            {"baseline", r.baseline},
            {"decision", r.decision},
            {"games", r.games},
            {"wins", r.wins},
            {"losses", r.losses},
            {"draws", r.draws},
            {"elo", NumberOrNull(r.elo)},
            {"elo_low", NumberOrNull(r.elo_low)},
            {"elo_high", NumberOrNull(r.elo_high)},
            {"time_utc", FormatUtc(r.time)}};
  }
  j["models"] = {
      {"accepted", s.models.accepted},
      {"rejected", s.models.rejected},
      {"queue", s.models.queue},
      {"newest_accepted",
       s.models.newest_accepted ? json(s.models.newest_accepted->name) : json(nullptr)},
      {"broken_snapshots", s.models.broken_snapshots},
      {"gating",
       {{"accepted", s.gating.accepted}, {"rejected", s.gating.rejected}, {"last", last}}}};
  json ratings = json::array();
  for (const LadderEntry& e : s.ladder.ratings) {
    ratings.push_back({{"name", e.name},
                       {"elo", NumberOrNull(e.elo)},
                       {"low", NumberOrNull(e.low)},
                       {"high", NumberOrNull(e.high)},
                       {"games", e.games},
                       {"anchor", e.anchor}});
  }
  j["ladder"] = {{"file", s.ladder.file},
                 {"present", s.ladder.present},
                 {"matches", s.ladder.matches},
                 {"ratings", ratings}};
  j["disk"] = {{"base_bytes", s.base_bytes},
               {"base_files", s.base_files},
               {"free_bytes", s.space ? json(s.space->available) : json(nullptr)},
               {"capacity_bytes", s.space ? json(s.space->capacity) : json(nullptr)}};
  j["warnings"] = s.warnings;
  j["notes"] = s.notes;
  // Invalid UTF-8 (a file name can hold any bytes) becomes U+FFFD rather than an exception.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace tengen::status
