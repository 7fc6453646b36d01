#include "status/report_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "go/sgf.h"
#include "match/ladder.h"
#include "pipeline/base_dir.h"
#include "pipeline/game_end_stats.h"
#include "play/model_registry.h"
#include "util/log.h"
#include "util/publish.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;

// Throughput buckets: the smallest of these widths that gives at most
// kMaxBuckets buckets and on average at least kFilesPerBucket files per bucket
// (narrower buckets than the gaps between files draw a comb, not a rate).
constexpr std::array<double, 10> kBucketSeconds = {60,   300,   600,   1800,  3600,
                                                   7200, 21600, 43200, 86400, 604800};
constexpr double kMaxBuckets = 80;
constexpr double kFilesPerBucket = 3;
// The gating chart shows the newest decisions only.
constexpr size_t kMaxGatingBars = 120;

json NumberOrNull(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json LossData(const std::string& base, std::vector<std::string>* notes) {
  json trainings = json::array();
  for (const TrainingMetrics& m : ReadAllMetrics(base, notes)) {
    json points = json::array();
    for (const EpochMetrics& e : m.epochs) {
      points.push_back({NumberOrNull(e.samples), NumberOrNull(e.loss_policy),
                        NumberOrNull(e.loss_value), NumberOrNull(e.loss_score),
                        NumberOrNull(e.loss_ownership), NumberOrNull(e.loss_total)});
    }
    trainings.push_back({{"training", m.name}, {"points", points}});
  }
  return trainings;
}

json ThroughputData(const std::string& base, bool count_games, std::vector<std::string>* notes) {
  const std::vector<DataFile> shards = ListShards(base, true, notes);
  const std::vector<DataFile> sgfs = ListSgfFiles(base, count_games, notes);
  double t0 = 0, t1 = 0;
  bool any = false;
  double counted_shards = 0;
  for (const std::vector<DataFile>* files : {&shards, &sgfs}) {
    for (const DataFile& f : *files) {
      if (f.count < 0) continue;
      if (files == &shards) ++counted_shards;
      t0 = any ? std::min(t0, f.mtime) : f.mtime;
      t1 = any ? std::max(t1, f.mtime) : f.mtime;
      any = true;
    }
  }
  json out = {{"bucket_seconds", nullptr}, {"points", json::array()}};
  if (!any) return out;
  double width = kBucketSeconds.back();
  const double min_width = std::max((t1 - t0) / kMaxBuckets,
                                    kFilesPerBucket * (t1 - t0) / std::max(1.0, counted_shards));
  for (const double w : kBucketSeconds) {
    if (w >= min_width) {
      width = w;
      break;
    }
  }
  const double start = std::floor(t0 / width) * width;
  const size_t buckets = static_cast<size_t>(std::floor((t1 - start) / width)) + 1;
  std::vector<double> rows(buckets, 0), games(buckets, 0);
  for (const DataFile& f : shards) {
    if (f.count >= 0) rows[static_cast<size_t>((f.mtime - start) / width)] += f.count;
  }
  for (const DataFile& f : sgfs) {
    if (f.count >= 0) games[static_cast<size_t>((f.mtime - start) / width)] += f.count;
  }
  json points = json::array();
  const bool have_games = count_games && !sgfs.empty();
  for (size_t i = 0; i < buckets; ++i) {
    points.push_back({start + width * static_cast<double>(i),
                      have_games ? json(games[i] * 3600 / width) : json(nullptr),
                      rows[i] * 3600 / width});
  }
  out["bucket_seconds"] = width;
  out["points"] = points;
  return out;
}

json GatingData(const std::vector<GatingRecord>& records) {
  json out = json::array();
  const size_t first = records.size() > kMaxGatingBars ? records.size() - kMaxGatingBars : 0;
  for (size_t i = first; i < records.size(); ++i) {
    const GatingRecord& r = records[i];
    out.push_back({{"candidate", r.candidate},
                   {"baseline", r.baseline},
                   {"decision", r.decision},
                   {"accepted", r.decision == "accept" || r.decision == "accepted"},
                   {"games", r.games},
                   {"wins", r.wins},
                   {"losses", r.losses},
                   {"draws", r.draws},
                   {"score_fraction", NumberOrNull(r.score_fraction)},
                   {"elo", NumberOrNull(r.elo)},
                   {"elo_low", NumberOrNull(r.elo_low)},
                   {"elo_high", NumberOrNull(r.elo_high)},
                   {"time", r.time}});
  }
  return out;
}

// The run's models in the order they appeared, and the selfplay games each
// played, for the Elo charts and the game-ends table.
struct RunModels {
  // When each model appeared: its directory's time in models/, rejectedmodels/
  // or modelstobetested/ (ModelEntry::time), else (its directory removed) its
  // oldest SGF file's, since a model plays only after it appears.
  std::map<std::string, double> time;
  // The random net first (it plays before any model exists), then by time, then
  // by name.
  std::vector<std::string> order;
  // Games (lines) of each model's SGF files; empty when they were not counted.
  std::map<std::string, int64_t> games;
  double first_time = kUnknown;  // the oldest model time or SGF file: the run's start
};

RunModels ReadRunModels(const std::string& base, const std::vector<DataFile>& sgfs) {
  RunModels run;
  for (const std::string& dir : {pipeline::ModelsDir(base), pipeline::RejectedModelsDir(base),
                                 pipeline::ModelsToBeTestedDir(base)}) {
    for (const ModelEntry& m : ListModelDirs(dir, nullptr)) run.time[m.name] = m.time;
  }
  std::map<std::string, double> oldest_file;
  for (const DataFile& f : sgfs) {
    const auto it = oldest_file.find(f.model);
    if (it == oldest_file.end() || f.mtime < it->second) oldest_file[f.model] = f.mtime;
    if (f.count >= 0) run.games[f.model] += f.count;
  }
  for (const auto& [model, mtime] : oldest_file) {
    run.time.emplace(model, mtime);  // a model directory's time wins
    run.first_time = std::isfinite(run.first_time) ? std::min(run.first_time, mtime) : mtime;
  }
  for (const auto& [model, time] : run.time) {
    run.order.push_back(model);
    run.first_time = std::isfinite(run.first_time) ? std::min(run.first_time, time) : time;
  }
  const auto key = [&](const std::string& model) {
    return std::make_tuple(model != pipeline::kRandomModelName, run.time.at(model), model);
  };
  std::sort(run.order.begin(), run.order.end(),
            [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return run;
}

// Where the run stood when a model appeared: hours of running time and selfplay
// games played.
struct ModelProgress {
  double hours = kUnknown;
  double games = kUnknown;
};

// From strength/models.tsv (scripts/strength_run.sh: running time, stops not
// counted, and the games in the SGF files when it saw the model) when the run
// has one. Otherwise hours since the run's first model or SGF file (stops
// counted), and the games of the models that appeared before it (read from the
// SGF files: exact across restarts and hosts, and independent of when the files
// were written; a previous model's games that finish after the model appeared,
// while selfplay switches, count as before it).
std::map<std::string, ModelProgress> ReadModelProgress(const std::string& base,
                                                       const RunModels& run, bool count_games) {
  std::map<std::string, ModelProgress> progress;
  std::ifstream tsv(base + "/strength/models.tsv");
  std::string line;
  while (std::getline(tsv, line)) {
    std::istringstream fields(line);
    std::string name;
    double seconds = 0, games = 0;
    if (std::getline(fields, name, '\t') && fields >> seconds >> games)
      progress[name] = {seconds / 3600.0, games};
  }
  if (!progress.empty()) return progress;
  double games_before = 0;
  for (const std::string& model : run.order) {
    ModelProgress& p = progress[model];
    p.hours = (run.time.at(model) - run.first_time) / 3600.0;
    if (count_games) p.games = games_before;
    if (const auto it = run.games.find(model); it != run.games.end())
      games_before += static_cast<double>(it->second);
  }
  return progress;
}

// How each model's selfplay games ended (pipeline/game_end_stats.h), from its
// SGF files, models in the order they appeared.
json GameEndsData(const std::vector<DataFile>& sgfs, const RunModels& run,
                  std::vector<std::string>* notes) {
  std::map<std::string, pipeline::GameEndStats> by_model;
  for (const DataFile& f : sgfs) {
    try {
      for (const go::SgfRecord& record : go::ReadSgfFile(f.path))
        by_model[f.model].AddRecord(record);
    } catch (const std::exception& e) {
      notes->push_back("SGF file skipped for game ends: " + f.path + ": " + e.what());
    }
  }
  json rows = json::array();
  for (const std::string& name : run.order) {
    const auto it = by_model.find(name);
    if (it == by_model.end() || it->second.games() == 0) continue;
    const pipeline::GameEndStats& s = it->second;
    const auto share = [&](play::GameEnd end) {
      return static_cast<double>(s.ended_by(end)) / static_cast<double>(s.games());
    };
    const bool passed = s.games_with_pass() > 0;
    rows.push_back(
        {{"model", name},
         {"games", s.games()},
         {"passes", share(play::GameEnd::kPasses)},
         {"move_cap", share(play::GameEnd::kMoveCap)},
         {"resignation", share(play::GameEnd::kResignation)},
         {"pass_alive", share(play::GameEnd::kPassAlive)},
         {"after_first_pass_median", passed ? json(s.MovesAfterFirstPass(0.5)) : json()},
         {"after_first_pass_p90", passed ? json(s.MovesAfterFirstPass(0.9)) : json()},
         {"mean_abs_final_score", s.scored_games() > 0 ? json(s.MeanAbsFinalScore()) : json()}});
  }
  return rows;
}

// When each player of the ladder file played its first match (seconds since the epoch); empty
// (with a note) when the file cannot be read.
std::map<std::string, double> FirstMatchTimes(const std::string& ladder_file,
                                              std::vector<std::string>* notes) {
  std::map<std::string, double> first_match;
  try {
    for (const match::LadderMatch& m : match::ReadLadder(ladder_file).matches) {
      const std::optional<double> t = ParseUtc(m.time_utc);
      if (!t) continue;
      for (const std::string& name : {m.a, m.b}) {
        auto it = first_match.find(name);
        if (it == first_match.end() || *t < it->second) first_match[name] = *t;
      }
    }
  } catch (const std::exception& e) {
    notes->push_back(std::string("ladder times skipped: ") + e.what());
  }
  return first_match;
}

// Elo of models over time: the ladder's ratings when it rates a model, else the
// gatekeeper's matches chained from the first baseline (rated 0). Each model
// also gets the hours of the run and the selfplay games before it (`progress`).
// Ladder players that are not models (GNU Go levels, other engines) are drawn
// as horizontal lines, as the anchors are: "anchors" lists both, "anchor"
// telling them apart.
json EloData(const RunStatus& status, const std::vector<GatingRecord>& records,
             const RunModels& run, const std::map<std::string, ModelProgress>& progress,
             std::vector<std::string>* notes) {
  const auto hours = [&](const std::string& name) {
    const auto it = progress.find(name);
    return it == progress.end() ? json(nullptr) : NumberOrNull(it->second.hours);
  };
  const auto games_before = [&](const std::string& name) {
    const auto it = progress.find(name);
    return it == progress.end() ? json(nullptr) : NumberOrNull(it->second.games);
  };
  // A model has a directory or selfplay games, or at least a model's name (its
  // directory may have been removed since it was rated).
  const auto is_model = [&](const std::string& name) {
    int64_t samples = 0, rows = 0;
    return run.time.count(name) > 0 || play::ParseModelName(name, &samples, &rows);
  };
  json models = json::array();
  json anchors = json::array();
  if (status.ladder.present) {
    const std::map<std::string, double> first_match = FirstMatchTimes(status.ladder.file, notes);
    for (const LadderEntry& e : status.ladder.ratings) {
      if (e.anchor || !is_model(e.name)) {
        anchors.push_back({{"name", e.name}, {"elo", NumberOrNull(e.elo)}, {"anchor", e.anchor}});
        continue;
      }
      double time = kUnknown;
      if (auto it = run.time.find(e.name); it != run.time.end()) {
        time = it->second;
      } else if (auto first = first_match.find(e.name); first != first_match.end()) {
        time = first->second;
      }
      if (!std::isfinite(time)) continue;
      models.push_back({{"name", e.name},
                        {"time", time},
                        {"hours", hours(e.name)},
                        {"selfplay_games", games_before(e.name)},
                        {"elo", NumberOrNull(e.elo)},
                        {"low", NumberOrNull(e.low)},
                        {"high", NumberOrNull(e.high)},
                        {"games", e.games}});
    }
    if (!models.empty()) {
      std::sort(models.begin(), models.end(),
                [](const json& a, const json& b) { return a["time"] < b["time"]; });
      return {{"source", "ladder"}, {"models", models}, {"anchors", anchors}};
    }
  }
  std::map<std::string, double> chained;
  for (const GatingRecord& r : records) {
    const bool accepted = r.decision == "accept" || r.decision == "accepted";
    if (!accepted || r.games <= 0 || !std::isfinite(r.elo)) continue;
    double baseline = 0;
    if (auto it = chained.find(r.baseline); it != chained.end()) {
      baseline = it->second;
    } else if (!chained.empty() && !models.empty()) {
      baseline = models.back()["elo"].get<double>();  // baseline not seen: chain on the last
    }
    const double elo = baseline + r.elo;
    chained[r.candidate] = elo;
    models.push_back(
        {{"name", r.candidate},
         {"time", r.time},
         {"hours", hours(r.candidate)},
         {"selfplay_games", games_before(r.candidate)},
         {"elo", elo},
         {"low", std::isfinite(r.elo_low) ? json(baseline + r.elo_low) : json(nullptr)},
         {"high", std::isfinite(r.elo_high) ? json(baseline + r.elo_high) : json(nullptr)},
         {"games", r.games}});
  }
  return {{"source", models.empty() ? "none" : "gating"}, {"models", models}, {"anchors", anchors}};
}

}  // namespace

json ReportData(const std::string& base, const ReportOptions& options, const RunStatus& status,
                double now, std::vector<std::string>* notes) {
  const std::vector<GatingRecord> records = ReadGatingRecords(base, nullptr);
  json data;
  data["base"] = base;
  data["generated_utc"] = FormatUtc(now);
  data["losses"] = LossData(base, nullptr);
  data["throughput"] = ThroughputData(base, options.count_games, notes);
  // Listed once (with their games when counted) for the Elo charts and the
  // game-ends table.
  const std::vector<DataFile> sgfs = ListSgfFiles(base, options.count_games, nullptr);
  const RunModels run = ReadRunModels(base, sgfs);
  data["elo"] =
      EloData(status, records, run, ReadModelProgress(base, run, options.count_games), notes);
  data["game_ends"] = options.count_games ? GameEndsData(sgfs, run, notes) : json::array();
  data["gating"] = GatingData(records);
  return data;
}

}  // namespace tengen::status
