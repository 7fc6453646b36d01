#include "status/status_format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "pipeline/json_text.h"
#include "util/text.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;

std::string SignedNum(double value) {
  if (!std::isfinite(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%+.0f", value);
  return buffer;
}

json NumberOrNull(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

}  // namespace

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

std::string Percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f%%", 100 * fraction);
  return buffer;
}

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
  return StrCat(h.program, " on ", h.host, " (pid ", h.pid, SlurmSuffix(h), ")");
}

namespace {

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
  // Heartbeats of selfplay before pass-alive endings have no such counter.
  if (std::isfinite(h.Counter("games_end_pass_alive")))
    line += ", pass-alive " + Num(h.Counter("games_end_pass_alive"));
  if (h.Counter("moves_after_first_pass_median") >= 0) {
    line += "; moves after the first pass: median " +
            Num(h.Counter("moves_after_first_pass_median")) + ", 90th percentile " +
            Num(h.Counter("moves_after_first_pass_p90"));
  }
  if (std::isfinite(h.Counter("mean_abs_final_score")))
    line += "; mean |final score| " + Num(h.Counter("mean_abs_final_score"));
  return line;
}

// Counts one more item of a kind in *listed; false when max_listed (0: no limit) are listed.
bool Listed(int max_listed, int* listed) {
  if (max_listed > 0 && *listed >= max_listed) return false;
  ++*listed;
  return true;
}

// FormatStatus's sections, each with the empty line before it.
void WriteProcesses(std::ostream& out, const RunStatus& s) {
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
  // Beyond max_listed of one program and condition (a thousand selfplay hosts), only counted.
  std::map<std::pair<std::string, std::string>, int> listed, unlisted;
  for (const ProcessStatus& p : s.processes) {
    const HeartbeatRecord& h = p.heartbeat;
    if (p.condition == "ended" && newest_ended[h.program] != &p) continue;
    const std::pair<std::string, std::string> kind(h.program, p.condition);
    if (!Listed(s.options.max_listed, &listed[kind])) {
      ++unlisted[kind];
      continue;
    }
    const std::string condition = p.condition == "alive" ? p.condition : UpperCase(p.condition);
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
  for (const auto& [kind, count] : unlisted) {
    out << "  ... and " << count << " more " << kind.first << " processes " << kind.second
        << " (--max-listed " << s.options.max_listed << ")\n";
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
}

void WriteSelfplay(std::ostream& out, const RunStatus& s) {
  out << "\nSelfplay\n";
  out << "  active processes: " << s.selfplay_active;
  if (s.selfplay_active > 0)
    out << ", " << Num(s.games_per_hour) << " games/h, " << Num(s.rows_per_hour) << " rows/h";
  out << "\n";
  int hosts_listed = 0;
  for (const SelfplayHost& h : s.selfplay_hosts) {
    if (!Listed(s.options.max_listed, &hosts_listed)) continue;
    out << "    " << h.host << ": " << h.processes << " processes, " << Num(h.games_per_hour)
        << " games/h, " << Num(h.rows_per_hour) << " rows/h, " << Num(h.nn_evals_per_second)
        << " NN evals/s\n";
  }
  if (hosts_listed < static_cast<int>(s.selfplay_hosts.size())) {
    out << "    ... and " << s.selfplay_hosts.size() - static_cast<size_t>(hosts_listed)
        << " more hosts\n";
  }
  out << "  games (all selfplay heartbeats): " << Num(s.games_heartbeats) << "\n";
  const char* about = s.sizes_estimated ? "~" : "";
  out << "  shards: " << s.shard_files << " files, " << about
      << FormatBytes(static_cast<double>(s.shard_bytes));
  if (s.shard_rows >= 0) out << ", " << s.shard_rows << " rows";
  out << " from " << s.models_with_data << " models";
  if (s.rows_last_hour >= 0) out << "; " << s.rows_last_hour << " rows in the last hour";
  out << "\n";
  if (s.newest_shard_time)
    out << "  newest shard " << Ago(s.now, *s.newest_shard_time) << ": " << s.newest_shard << "\n";

  out << "\nWritten in the last hour: selfplay " << about
      << FormatBytes(static_cast<double>(s.selfplay_bytes_last_hour)) << ", shuffleddata "
      << FormatBytes(static_cast<double>(s.shuffle_bytes_last_hour)) << ", train "
      << FormatBytes(static_cast<double>(s.train_bytes_last_hour)) << "\n";
}

void WriteShuffle(std::ostream& out, const RunStatus& s) {
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
}

void WriteTraining(std::ostream& out, const RunStatus& s) {
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
}

void WriteModels(std::ostream& out, const RunStatus& s) {
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
}

void WriteDisk(std::ostream& out, const RunStatus& s) {
  out << "\nDisk\n  " << s.base << " holds " << (s.sizes_estimated ? "~" : "")
      << FormatBytes(static_cast<double>(s.base_bytes)) << " in " << s.base_files << " files";
  if (s.sizes_estimated)
    out << " (sizes of directories over " << kExactFiles << " files estimated from a sample)";
  if (s.space && s.space->capacity > 0) {
    out << "; " << FormatBytes(static_cast<double>(s.space->available)) << " free of "
        << FormatBytes(static_cast<double>(s.space->capacity)) << " ("
        << Percent(static_cast<double>(s.space->available) / static_cast<double>(s.space->capacity))
        << ")";
  }
  out << "\n";
}

void WriteNotesAndWarnings(std::ostream& out, const RunStatus& s) {
  if (!s.notes.empty()) {
    out << "\nNotes (files skipped)\n";
    for (const std::string& note : s.notes) out << "  " << note << "\n";
  }
  out << "\nWarnings: " << (s.warnings.empty() ? "none" : std::to_string(s.warnings.size()))
      << "\n";
  // Of each kind (the text before the first ':'), at most max_listed.
  std::map<std::string, int> listed, unlisted;
  for (const std::string& warning : s.warnings) {
    const std::string kind = warning.substr(0, warning.find(':'));
    if (Listed(s.options.max_listed, &listed[kind])) {
      out << "  ! " << warning << "\n";
    } else {
      ++unlisted[kind];
    }
  }
  for (const auto& [kind, count] : unlisted)
    out << "  ! ... and " << count << " more '" << kind << "' warnings\n";
}

}  // namespace

std::string FormatStatus(const RunStatus& s) {
  std::ostringstream out;
  out << "tengen status of " << s.base << " at " << FormatUtc(s.now) << "\n";

  WriteProcesses(out, s);
  WriteSelfplay(out, s);
  WriteShuffle(out, s);
  WriteTraining(out, s);
  WriteModels(out, s);
  WriteDisk(out, s);
  WriteNotesAndWarnings(out, s);
  return out.str();
}

namespace {

// StatusJson's sections.
json ProcessesJson(const RunStatus& s) {
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
  return processes;
}

json LoopsJson(const RunStatus& s) {
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
  return loops;
}

json SelfplayJson(const RunStatus& s) {
  json hosts = json::array();
  for (const SelfplayHost& h : s.selfplay_hosts) {
    hosts.push_back({{"host", h.host},
                     {"processes", h.processes},
                     {"games_per_hour", h.games_per_hour},
                     {"rows_per_hour", h.rows_per_hour},
                     {"nn_evals_per_second", h.nn_evals_per_second}});
  }
  return {{"hosts", hosts},
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
}

json ShuffleJson(const RunStatus& s) {
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
  return {{"count", s.shuffles.count}, {"newest", shuffle}};
}

json TrainingsJson(const RunStatus& s) {
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
  return trainings;
}

json ModelsJson(const RunStatus& s) {
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
  return {{"accepted", s.models.accepted},
          {"rejected", s.models.rejected},
          {"queue", s.models.queue},
          {"newest_accepted",
           s.models.newest_accepted ? json(s.models.newest_accepted->name) : json(nullptr)},
          {"broken_snapshots", s.models.broken_snapshots},
          {"gating",
           {{"accepted", s.gating.accepted}, {"rejected", s.gating.rejected}, {"last", last}}}};
}

json LadderJson(const RunStatus& s) {
  json ratings = json::array();
  for (const LadderEntry& e : s.ladder.ratings) {
    ratings.push_back({{"name", e.name},
                       {"elo", NumberOrNull(e.elo)},
                       {"low", NumberOrNull(e.low)},
                       {"high", NumberOrNull(e.high)},
                       {"games", e.games},
                       {"anchor", e.anchor}});
  }
  return {{"file", s.ladder.file},
          {"present", s.ladder.present},
          {"matches", s.ladder.matches},
          {"ratings", ratings}};
}

}  // namespace

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
  j["processes"] = ProcessesJson(s);
  j["forgotten_heartbeats"] = s.forgotten_heartbeats;
  j["synchronous_loops"] = LoopsJson(s);
  j["selfplay"] = SelfplayJson(s);
  j["bytes_last_hour"] = {
      {"selfplay", s.selfplay_bytes_last_hour},
      {"shuffleddata", s.shuffle_bytes_last_hour},
      {"train", s.train_bytes_last_hour},
      {"total", s.selfplay_bytes_last_hour + s.shuffle_bytes_last_hour + s.train_bytes_last_hour}};
  j["shuffle"] = ShuffleJson(s);
  j["training"] = TrainingsJson(s);
  j["models"] = ModelsJson(s);
  j["ladder"] = LadderJson(s);
  j["disk"] = {{"base_bytes", s.base_bytes},
               {"base_files", s.base_files},
               {"sizes_estimated", s.sizes_estimated},
               {"free_bytes", s.space ? json(s.space->available) : json(nullptr)},
               {"capacity_bytes", s.space ? json(s.space->capacity) : json(nullptr)}};
  j["warnings"] = s.warnings;
  j["notes"] = s.notes;
  return pipeline::JsonFileText(j);
}

}  // namespace tengen::status
