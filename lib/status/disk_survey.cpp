#include "status/disk_survey.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>

#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "status/note_limiter.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::status {
namespace {

// A file whose name's time is this much before `since` may still have been modified after it
// (the name is made when the file is written; clocks of hosts differ).
constexpr double kNameTimeMargin = 3600;

struct Sizes {
  int64_t bytes = 0, recent_bytes = 0, files = 0;
  void Add(const FileStat& st, double since) {
    bytes += st.bytes;
    if (st.mtime >= since) recent_bytes += st.bytes;
    ++files;
  }
};

}  // namespace

void DiskUsage::Add(const DiskUsage& other) {
  bytes += other.bytes;
  files += other.files;
  recent_bytes += other.recent_bytes;
  estimated = estimated || other.estimated;
}

std::optional<FileStat> Lstat(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;
  FileStat s;
  s.mtime = static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
  s.bytes = static_cast<int64_t>(st.st_size);
  s.regular = S_ISREG(st.st_mode);
  s.directory = S_ISDIR(st.st_mode);
  return s;
}

std::optional<std::vector<DirEntry>> ReadEntries(const std::string& dir, std::string* why) {
  const std::unique_ptr<DIR, int (*)(DIR*)> handle(opendir(dir.c_str()), closedir);
  if (!handle) {
    *why = std::strerror(errno);
    return std::nullopt;
  }
  std::vector<DirEntry> entries;
  errno = 0;
  while (const dirent* e = readdir(handle.get())) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    DirEntry entry;
    entry.name = e->d_name;
    entry.kind = e->d_type == DT_DIR       ? DirEntry::Kind::kDirectory
                 : e->d_type == DT_REG     ? DirEntry::Kind::kFile
                 : e->d_type == DT_UNKNOWN ? DirEntry::Kind::kUnknown
                                           : DirEntry::Kind::kOther;
    entries.push_back(std::move(entry));
  }
  if (errno != 0) {
    *why = std::strerror(errno);
    return std::nullopt;
  }
  return entries;
}

DiskUsage MeasureFiles(const std::string& dir, const std::vector<std::string>& names,
                       double since) {
  const int64_t n = static_cast<int64_t>(names.size());
  const int64_t stride = n <= kExactFiles ? 1 : (n + kSampleFiles - 1) / kSampleFiles;
  Sizes exact, sample;
  int64_t unmeasured = 0;
  for (int64_t i = 0; i < n; ++i) {
    const std::string& name = names[static_cast<size_t>(i)];
    const std::optional<int64_t> named = pipeline::TimeInFileName(name);
    const bool recent = named && static_cast<double>(*named) >= since - kNameTimeMargin;
    if (stride > 1 && !recent && i % stride != 0) {
      ++unmeasured;
      continue;
    }
    const std::optional<FileStat> st = Lstat(dir + "/" + name);
    if (!st || !st->regular) continue;  // gone since listed
    (stride > 1 && !recent ? sample : exact).Add(*st, since);
  }
  DiskUsage usage;
  usage.files = exact.files + sample.files + unmeasured;
  usage.bytes = exact.bytes + sample.bytes;
  usage.recent_bytes = exact.recent_bytes + sample.recent_bytes;
  if (unmeasured > 0 && sample.files > 0) {
    const double per_file = static_cast<double>(unmeasured) / static_cast<double>(sample.files);
    usage.bytes += static_cast<int64_t>(static_cast<double>(sample.bytes) * per_file);
    usage.recent_bytes += static_cast<int64_t>(static_cast<double>(sample.recent_bytes) * per_file);
    usage.estimated = true;
  }
  return usage;
}

namespace {

// One model's shards into *survey.
void SurveyModel(const std::string& base, const std::string& model, double since, bool open_unnamed,
                 ShardSurvey* survey, NoteLimiter* limiter) {
  const std::string dir = pipeline::TdataDir(base, model);
  std::vector<std::string> names;
  try {
    for (std::string& name : ListPublished(dir))
      if (EndsWith(name, ".npz")) names.push_back(std::move(name));
  } catch (const std::exception& e) {
    limiter->Add(e.what());
    return;
  }
  if (names.empty()) return;
  ++survey->models;
  survey->usage.Add(MeasureFiles(dir, names, since));
  std::optional<int64_t> newest_time;
  const std::string* newest = nullptr;
  for (const std::string& name : names) {
    const std::optional<int64_t> time = pipeline::TimeInFileName(name);
    if (time && (!newest_time || *time >= *newest_time)) {
      newest_time = time;
      newest = &name;
    }
    std::optional<int64_t> rows = pipeline::RowsInShardName(name);
    if (!rows && open_unnamed) {
      try {
        rows = data::CountShardRows(dir + "/" + name);
      } catch (const std::exception& e) {
        ++survey->unreadable;
        limiter->Add(std::string("unreadable shard skipped: ") + e.what());
        continue;
      }
    }
    if (!rows) {
      survey->rows = -1;
      continue;
    }
    if (survey->rows >= 0) survey->rows += *rows;
    if (time && static_cast<double>(*time) >= since) survey->rows_since += *rows;
  }
  if (newest == nullptr) return;
  const std::string path = dir + "/" + *newest;
  const std::optional<FileStat> st = Lstat(path);
  const double time = st ? st->mtime : static_cast<double>(*newest_time);
  if (!survey->newest_time || time > *survey->newest_time) {
    survey->newest_time = time;
    survey->newest = path;
  }
}

}  // namespace

ShardSurvey SurveyShards(const std::string& base, double since, bool open_unnamed,
                         std::vector<std::string>* notes) {
  ShardSurvey survey;
  NoteLimiter limiter(notes, "unreadable shards");
  std::vector<std::string> models;
  try {
    models = ListPublished(pipeline::SelfplayDir(base));
  } catch (const std::exception& e) {
    limiter.Add(e.what());
  }
  for (const std::string& model : models)
    SurveyModel(base, model, since, open_unnamed, &survey, &limiter);
  return survey;
}

}  // namespace tengen::status
