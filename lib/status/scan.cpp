#include "status/scan.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "play/model_registry.h"
#include "status/note_limiter.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::status {
namespace {

namespace fs = boost::filesystem;
using json = nlohmann::json;

// JSON metadata files (heartbeats, summaries, records) larger than this are skipped unread.
constexpr int64_t kMaxJsonBytes = 64 << 20;
// Deeper trees than this are not walked for disk usage (a loop of bind mounts, say).
constexpr int kMaxWalkDepth = 16;

// Names of published entries (temporaries skipped), [] when the directory cannot be listed.
std::vector<std::string> ListQuietly(const std::string& dir) {
  try {
    return ListPublished(dir);
  } catch (const std::exception&) {
    return {};
  }
}

// A JSON document from a file, or a reason why not. Our JSON files are small: a big one is
// not read at all.
std::optional<json> ReadJson(const std::string& path, std::string* why) {
  const std::optional<FileStat> st = Lstat(path);
  if (st && st->regular && st->bytes > kMaxJsonBytes) {
    *why = StrCat("too large for a metadata file (", st->bytes, " bytes)");
    return std::nullopt;
  }
  std::string text;
  try {
    text = ReadFile(path);
  } catch (const std::exception& e) {
    *why = e.what();
    return std::nullopt;
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    *why = StrCat("not JSON (", text.size(), " bytes)");
    return std::nullopt;
  }
  if (!j.is_object()) {
    *why = "not a JSON object";
    return std::nullopt;
  }
  return j;
}

double Number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return kUnknown;
  return it->get<double>();
}

int64_t Integer(const json& j, const char* key) {
  const double value = Number(j, key);
  return std::isfinite(value) ? static_cast<int64_t>(value) : 0;
}

std::string Text(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// A time field, else the file's modification time, else 0.
double TimeOf(const json& j, const char* key, const std::string& path) {
  if (const auto t = ParseUtc(Text(j, key))) return *t;
  return ModificationTime(path).value_or(0);
}

// Counts '\n' in a file; -1 when it cannot be read.
int64_t CountLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return -1;
  int64_t lines = 0;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof(buffer));
    const std::streamsize got = in.gcount();
    lines += std::count(buffer, buffer + got, '\n');
  }
  return in.bad() ? -1 : lines;
}

std::vector<DataFile> ListDataFiles(const std::string& base, const std::string& sub,
                                    const std::string& extension, bool count,
                                    std::vector<std::string>* notes) {
  std::vector<DataFile> files;
  NoteLimiter limiter(notes, "unreadable " + sub + " files");
  const std::string selfplay = pipeline::SelfplayDir(base);
  for (const std::string& model : ListQuietly(selfplay)) {
    const std::string dir = selfplay + "/" + model + "/" + sub;
    for (const std::string& name : ListQuietly(dir)) {
      if (!EndsWith(name, extension)) continue;
      const std::string path = dir + "/" + name;
      const std::optional<FileStat> st = Lstat(path);
      if (!st || !st->regular) continue;
      DataFile file;
      file.path = path;
      file.model = model;
      file.mtime = st->mtime;
      file.bytes = st->bytes;
      if (count) {
        try {
          const std::optional<int64_t> named =
              extension == ".npz" ? pipeline::RowsInShardName(name) : std::nullopt;
          file.count = named                 ? *named
                       : extension == ".npz" ? data::CountShardRows(path)
                                             : CountLines(path);
          if (file.count < 0) limiter.Add(path + ": cannot be read");
        } catch (const std::exception& e) {
          file.count = -1;
          limiter.Add(std::string("unreadable shard skipped: ") + e.what());
        }
      }
      files.push_back(std::move(file));
    }
  }
  std::sort(files.begin(), files.end(), [](const DataFile& a, const DataFile& b) {
    return a.mtime != b.mtime ? a.mtime < b.mtime : a.path < b.path;
  });
  return files;
}

void Walk(const std::string& dir, int depth, double since, DiskUsage* usage, NoteLimiter* limiter) {
  if (depth > kMaxWalkDepth) {
    limiter->Add(StrCat(dir, ": deeper than ", kMaxWalkDepth, " levels, not counted"));
    return;
  }
  std::string why;
  const std::optional<std::vector<DirEntry>> entries = ReadEntries(dir, &why);
  if (!entries) {
    limiter->Add(dir + ": cannot list: " + why);
    return;
  }
  std::vector<std::string> files;
  for (const DirEntry& entry : *entries) {
    const std::string path = dir + "/" + entry.name;
    DirEntry::Kind kind = entry.kind;
    if (kind == DirEntry::Kind::kUnknown || kind == DirEntry::Kind::kOther) {
      const std::optional<FileStat> st = Lstat(path);
      if (!st) continue;  // removed meanwhile
      kind = st->directory ? DirEntry::Kind::kDirectory : DirEntry::Kind::kFile;
    }
    if (kind == DirEntry::Kind::kDirectory) {
      Walk(path, depth + 1, since, usage, limiter);
    } else {
      files.push_back(entry.name);
    }
  }
  usage->Add(MeasureFiles(dir, files, since));
}

}  // namespace

std::optional<double> ModificationTime(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
}

double HeartbeatRecord::Counter(const std::string& key, double fallback) const {
  for (const auto& [name, value] : counters) {
    if (name == key) return std::isfinite(value) ? value : fallback;
  }
  return fallback;
}

std::string HeartbeatRecord::Text(const std::string& key) const {
  for (const auto& [name, value] : texts) {
    if (name == key) return value;
  }
  return "";
}

std::vector<HeartbeatRecord> ReadHeartbeats(const std::string& status_dir,
                                            std::vector<std::string>* notes) {
  std::vector<HeartbeatRecord> records;
  NoteLimiter limiter(notes, "bad heartbeat files");
  for (const std::string& name : ListQuietly(status_dir)) {
    if (!EndsWith(name, ".json")) continue;
    const std::string path = status_dir + "/" + name;
    std::string why;
    const std::optional<json> j = ReadJson(path, &why);
    if (!j) {
      limiter.Add("heartbeat " + path + " skipped: " + why);
      continue;
    }
    HeartbeatRecord r;
    r.file = path;
    r.program = Text(*j, "program");
    r.host = Text(*j, "host");
    r.state = Text(*j, "state");
    r.time_utc = Text(*j, "time_utc");
    r.pid = static_cast<long>(Integer(*j, "pid"));
    if (const auto slurm = j->find("slurm"); slurm != j->end() && slurm->is_object()) {
      r.slurm.job_id = Text(*slurm, "job_id");
      if (!r.slurm.job_id.empty()) {
        r.slurm.array_job_id = Text(*slurm, "array_job_id");
        r.slurm.array_task_id = Text(*slurm, "array_task_id");
        if (r.slurm.array_job_id.empty() || r.slurm.array_task_id.empty())
          r.slurm.array_job_id = r.slurm.array_task_id = "";
      }
    }
    const std::optional<double> time = ParseUtc(r.time_utc);
    if (r.program.empty() || !time) {
      limiter.Add("heartbeat " + path +
                  " skipped: " + (r.program.empty() ? "no program" : "no valid time_utc"));
      continue;
    }
    r.time = *time;
    if (const auto texts = j->find("texts"); texts != j->end() && texts->is_object()) {
      for (const auto& [key, value] : texts->items())
        r.texts.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
    }
    if (const auto counters = j->find("counters"); counters != j->end() && counters->is_object()) {
      for (const auto& [key, value] : counters->items()) {
        if (value.is_number()) {
          r.counters.emplace_back(key, value.get<double>());
        } else if (value.is_null()) {
          r.counters.emplace_back(key, kUnknown);
        }
      }
    }
    records.push_back(std::move(r));
  }
  std::sort(records.begin(), records.end(), [](const HeartbeatRecord& a, const HeartbeatRecord& b) {
    if (a.program != b.program) return a.program < b.program;
    if (a.host != b.host) return a.host < b.host;
    return a.pid < b.pid;
  });
  return records;
}

std::vector<TrainingMetrics> ReadAllMetrics(const std::string& base,
                                            std::vector<std::string>* notes) {
  std::vector<TrainingMetrics> all;
  const std::string train = base + "/train";
  for (const std::string& name : ListQuietly(train)) {
    const std::string path = train + "/" + name + "/metrics.jsonl";
    std::ifstream in(path);
    if (!in) continue;
    TrainingMetrics metrics;
    metrics.name = name;
    std::string line;
    int bad = 0;
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      const json j = json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        ++bad;
        continue;
      }
      EpochMetrics m;
      m.time_utc = Text(j, "time_utc");
      m.time = ParseUtc(m.time_utc).value_or(kUnknown);
      m.epoch = Number(j, "epoch");
      m.samples = Number(j, "samples");
      m.rows = Number(j, "rows");
      m.lr = Number(j, "lr");
      m.bucket = Number(j, "bucket");
      m.samples_per_second = Number(j, "samples_per_second");
      m.loss_policy = Number(j, "loss_policy");
      m.loss_value = Number(j, "loss_value");
      m.loss_score = Number(j, "loss_score");
      m.loss_ownership = Number(j, "loss_ownership");
      m.loss_total = Number(j, "loss_total");
      metrics.epochs.push_back(m);
    }
    if (bad > 0 && notes != nullptr)
      notes->push_back(StrCat(path, ": ", bad, " lines skipped (not JSON objects)"));
    all.push_back(std::move(metrics));
  }
  return all;
}

std::vector<DataFile> ListShards(const std::string& base, bool count_rows,
                                 std::vector<std::string>* notes) {
  return ListDataFiles(base, "tdata", ".npz", count_rows, notes);
}

std::vector<DataFile> ListSgfFiles(const std::string& base, bool count_games,
                                   std::vector<std::string>* notes) {
  return ListDataFiles(base, "sgfs", ".sgfs", count_games, notes);
}

Shuffles ReadShuffles(const std::string& base, std::vector<std::string>* notes) {
  Shuffles shuffles;
  NoteLimiter limiter(notes, "bad shuffle summaries");
  const std::string dir = pipeline::ShuffledDataDir(base);
  for (const std::string& name : ListQuietly(dir)) {
    const std::string path = dir + "/" + name;
    const std::optional<FileStat> st = Lstat(path);
    if (!st || !st->directory) continue;
    const std::string summary_path = path + "/summary.json";
    if (!Lstat(summary_path)) continue;  // a bucket directory or an incomplete shuffle
    std::string why;
    const std::optional<json> j = ReadJson(summary_path, &why);
    if (!j) {
      limiter.Add("shuffle summary " + summary_path + " skipped: " + why);
      continue;
    }
    ShuffleSummary s;
    s.name = name;
    s.path = path;
    s.time = TimeOf(*j, "created_utc", summary_path);
    s.total_rows = Number(*j, "total_rows");
    s.window_rows = Number(*j, "window_rows");
    s.desired_window_rows = Number(*j, "desired_window_rows");
    s.output_rows = Number(*j, "output_rows");
    if (const auto start = j->find("window_start"); start != j->end() && start->is_object()) {
      s.window_start_file = Text(*start, "file");
      s.window_start_utc = Text(*start, "mtime_utc");
    }
    if (const auto files = j->find("files"); files != j->end() && files->is_array())
      s.files = static_cast<int64_t>(files->size());
    ++shuffles.count;
    if (!shuffles.newest || s.time > shuffles.newest->time ||
        (s.time == shuffles.newest->time && s.name > shuffles.newest->name)) {
      shuffles.newest = std::move(s);
    }
  }
  return shuffles;
}

namespace {

// m->time from export.json (exported_utc), else model.json (created_utc); unchanged when
// neither says.
void ReadModelTime(ModelEntry* m, NoteLimiter* limiter) {
  for (const auto& [file, key] :
       {std::pair<const char*, const char*>{"export.json", "exported_utc"},
        {"model.json", "created_utc"}}) {
    const std::string meta = m->path + "/" + file;
    if (!Lstat(meta)) continue;
    std::string why;
    const std::optional<json> j = ReadJson(meta, &why);
    if (!j) {
      limiter->Add(meta + " skipped: " + why);
      continue;
    }
    if (const auto t = ParseUtc(Text(*j, key))) {
      m->time = *t;
      return;
    }
  }
}

// Published subdirectories of dir (readdir says which entries are directories; an lstat
// decides where it cannot), sorted; [] when dir cannot be listed.
std::vector<std::string> ListSubdirectories(const std::string& dir) {
  std::vector<std::string> names;
  std::string why;
  const std::optional<std::vector<DirEntry>> entries = ReadEntries(dir, &why);
  if (!entries) return names;
  for (const DirEntry& e : *entries) {
    if (IsTemporaryName(e.name) || e.kind == DirEntry::Kind::kFile) continue;
    if (e.kind != DirEntry::Kind::kDirectory) {
      const std::optional<FileStat> st = Lstat(dir + "/" + e.name);
      if (!st || !st->directory) continue;
    }
    names.push_back(e.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::vector<ModelEntry> ListModelDirs(const std::string& dir, std::vector<std::string>* notes,
                                      ModelTimes times) {
  std::vector<ModelEntry> models;
  NoteLimiter limiter(notes, "bad model metadata files");
  for (const std::string& name : ListSubdirectories(dir)) {
    ModelEntry m;
    m.name = name;
    m.path = dir + "/" + name;
    if (!play::ParseModelName(name, &m.samples, &m.rows)) m.samples = m.rows = 0;
    if (times == ModelTimes::kAll) {
      if (const std::optional<FileStat> st = Lstat(m.path)) m.time = st->mtime;
      ReadModelTime(&m, &limiter);
    }
    models.push_back(std::move(m));
  }
  std::sort(models.begin(), models.end(), [](const ModelEntry& a, const ModelEntry& b) {
    if (a.samples != b.samples) return a.samples < b.samples;
    if (a.time != b.time) return a.time < b.time;
    return a.name < b.name;
  });
  if (times == ModelTimes::kNewest && !models.empty()) {
    ModelEntry& newest = models.back();
    if (const std::optional<FileStat> st = Lstat(newest.path)) newest.time = st->mtime;
    ReadModelTime(&newest, &limiter);
  }
  return models;
}

namespace {

// One gatekeeper match record, or nullopt (with a note) when it is not one.
std::optional<GatingRecord> ReadGatingRecord(const std::string& path, const std::string& candidate,
                                             NoteLimiter* limiter) {
  std::string why;
  const std::optional<json> j = ReadJson(path, &why);
  if (!j) {
    limiter->Add("gating record " + path + " skipped: " + why);
    return std::nullopt;
  }
  if (Text(*j, "format") != "tengen-gating") {
    limiter->Add("gating record " + path + " skipped: format is not tengen-gating");
    return std::nullopt;
  }
  GatingRecord r;
  r.file = path;
  r.candidate = Text(*j, "candidate");
  if (r.candidate.empty()) r.candidate = candidate;
  r.baseline = Text(*j, "baseline");
  r.decision = Text(*j, "decision");
  r.reason = Text(*j, "reason");
  r.mode = Text(*j, "mode");
  r.games = Integer(*j, "games");
  r.wins = Integer(*j, "candidate_wins");
  r.losses = Integer(*j, "candidate_losses");
  r.draws = Integer(*j, "draws");
  r.score_fraction = Number(*j, "score_fraction");
  r.elo = Number(*j, "elo");
  r.elo_low = Number(*j, "elo_low");
  r.elo_high = Number(*j, "elo_high");
  r.time = TimeOf(*j, "finished_utc", path);
  return r;
}

bool NewerRecord(const GatingRecord& a, const GatingRecord& b) {
  return a.time != b.time ? a.time > b.time : a.file > b.file;
}

// The newest record in one candidate's directory, or nullopt.
std::optional<GatingRecord> NewestRecordIn(const std::string& dir, const std::string& candidate,
                                           NoteLimiter* limiter) {
  std::optional<GatingRecord> newest;
  for (const std::string& name : ListQuietly(dir)) {
    if (!EndsWith(name, ".json")) continue;
    std::optional<GatingRecord> r = ReadGatingRecord(dir + "/" + name, candidate, limiter);
    if (r && (!newest || NewerRecord(*r, *newest))) newest = std::move(r);
  }
  return newest;
}

}  // namespace

std::vector<GatingRecord> ReadGatingRecords(const std::string& base,
                                            std::vector<std::string>* notes) {
  std::vector<GatingRecord> records;
  NoteLimiter limiter(notes, "bad gating records");
  const std::string root = pipeline::GatekeeperSgfDir(base);
  for (const std::string& candidate : ListQuietly(root)) {
    const std::string dir = root + "/" + candidate;
    for (const std::string& name : ListQuietly(dir)) {
      if (!EndsWith(name, ".json")) continue;
      std::optional<GatingRecord> r = ReadGatingRecord(dir + "/" + name, candidate, &limiter);
      if (r) records.push_back(std::move(*r));
    }
  }
  std::sort(records.begin(), records.end(),
            [](const GatingRecord& a, const GatingRecord& b) { return NewerRecord(b, a); });
  return records;
}

GatingSummary SummarizeGating(const std::string& base, const std::vector<ModelEntry>& accepted,
                              const std::vector<ModelEntry>& rejected,
                              std::vector<std::string>* notes) {
  GatingSummary summary;
  NoteLimiter limiter(notes, "bad gating records");
  std::set<std::string> accepted_names, rejected_names;
  for (const ModelEntry& m : accepted) accepted_names.insert(m.name);
  for (const ModelEntry& m : rejected) rejected_names.insert(m.name);
  const std::string root = pipeline::GatekeeperSgfDir(base);
  std::vector<ModelEntry> candidates = ListModelDirs(root, nullptr, ModelTimes::kNone);
  for (const ModelEntry& c : candidates) {
    summary.accepted += static_cast<int>(accepted_names.count(c.name));
    summary.rejected += static_cast<int>(rejected_names.count(c.name));
  }
  // Newest candidate first (by samples in the name): the first with a record has the last one.
  for (auto c = candidates.rbegin(); c != candidates.rend() && !summary.last; ++c)
    summary.last = NewestRecordIn(c->path, c->name, &limiter);
  return summary;
}

DiskUsage BaseUsage::Of(const std::string& top_name) const {
  for (const auto& [name, usage] : top) {
    if (name == top_name) return usage;
  }
  return {};
}

BaseUsage ScanBaseUsage(const std::string& base, double since, std::vector<std::string>* notes) {
  BaseUsage usage;
  NoteLimiter limiter(notes, "directories not counted in disk usage");
  std::string why;
  const std::optional<std::vector<DirEntry>> entries = ReadEntries(base, &why);
  if (!entries) {
    limiter.Add(base + ": cannot list: " + why);
    return usage;
  }
  for (const DirEntry& top : *entries) {
    const std::string path = base + "/" + top.name;
    const std::optional<FileStat> st = Lstat(path);
    if (!st) continue;
    DiskUsage entry;
    if (st->directory) {
      Walk(path, 1, since, &entry, &limiter);
    } else {
      entry = MeasureFiles(base, {top.name}, since);
    }
    usage.total.Add(entry);
    usage.top.emplace_back(top.name, entry);
  }
  std::sort(usage.top.begin(), usage.top.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return usage;
}

std::optional<FilesystemSpace> SpaceOf(const std::string& path) {
  boost::system::error_code error;
  const fs::space_info info = fs::space(path, error);
  if (error) return std::nullopt;
  FilesystemSpace space;
  space.capacity = static_cast<int64_t>(info.capacity);
  space.available = static_cast<int64_t>(info.available);
  return space;
}

bool ProcessRunsHere(long pid) {
  if (pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace tengen::status
