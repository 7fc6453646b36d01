#include "pipeline/shard_scanner.h"

#include <sys/stat.h>

#include <optional>
#include <utility>

#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// A directory's modification time (ns); 0 when it is not there.
int64_t DirectoryMtimeNs(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
  return MtimeNs(st);
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::vector<ShardFile> ShardScanner::Scan(const std::string& base_dir, Logger& logger) {
  counts_ = ShardScanCounts{};
  const int64_t now_ns = NowNs();
  std::map<std::string, Directory> next;
  std::vector<ShardFile> files;
  for (const std::string& model : ListPublished(SelfplayDir(base_dir))) {
    // Times are taken before listing: a change while listing shows as a change next time.
    const int64_t tdata_mtime = DirectoryMtimeNs(TdataDir(base_dir, model));
    if (tdata_mtime == 0) continue;  // no shard yet, or gone since listed
    ++counts_.directories;
    const int64_t sgfs_mtime = DirectoryMtimeNs(SgfsDir(base_dir, model));
    Directory dir;
    const auto old = dirs_.find(model);
    if (old != dirs_.end()) dir = std::move(old->second);
    if (!dir.settled || dir.tdata_mtime_ns != tdata_mtime || dir.sgfs_mtime_ns != sgfs_mtime) {
      dir = List(base_dir, model, dir, logger);
      dir.tdata_mtime_ns = tdata_mtime;
      dir.sgfs_mtime_ns = sgfs_mtime;
      const int64_t settle_ns = options_.settle_age.count() * int64_t{1000000000};
      dir.settled = dir.settled && now_ns - tdata_mtime >= settle_ns &&
                    (sgfs_mtime == 0 || now_ns - sgfs_mtime >= settle_ns);
      ++counts_.listed;
    }
    const std::string tdata = TdataDir(base_dir, model);
    for (const auto& [name, entry] : dir.files) {
      if (entry.rows < 0) continue;
      files.push_back(ShardFile{tdata + "/" + name, model, entry.rows, entry.mtime_ns});
    }
    next[model] = std::move(dir);
  }
  dirs_ = std::move(next);
  return files;
}

// Lists one model's tdata/ (and cleans its sgfs/); `settled` says only whether no temporary
// is left, Scan adds the age test.
ShardScanner::Directory ShardScanner::List(const std::string& base_dir, const std::string& model,
                                           const Directory& previous, Logger& logger) {
  const std::string tdata = TdataDir(base_dir, model);
  int64_t temporaries = 0;
  Directory dir;
  for (const std::string& name : ListPublished(tdata, &temporaries)) {
    if (!EndsWith(name, ".npz")) continue;
    const std::optional<int64_t> rows = RowsInShardName(name);
    const std::optional<int64_t> time = TimeInFileName(name);
    if (rows && time) {  // the name says all: nothing to look at (the time to the second)
      dir.files[name] = Cached{0, *time * int64_t{1000000000}, *rows};
      continue;
    }
    const std::string path = tdata + "/" + name;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // gone since listed
    ++counts_.stats;
    Cached entry{static_cast<int64_t>(st.st_size), MtimeNs(st), rows.value_or(-1)};
    if (!rows) {
      const auto cached = previous.files.find(name);
      const bool unchanged = cached != previous.files.end() && cached->second.size == entry.size &&
                             cached->second.mtime_ns == entry.mtime_ns;
      entry.rows = unchanged ? cached->second.rows : CountRows(path, logger);
    }
    dir.files[name] = entry;
  }
  const int64_t young =
      RemoveStale(tdata, temporaries, logger) + RemoveStale(SgfsDir(base_dir, model), 1, logger);
  dir.settled = young == 0;
  return dir;
}

// The rows an older shard's npy headers say; -1 (logged) when it cannot be read.
int64_t ShardScanner::CountRows(const std::string& path, Logger& logger) {
  ++counts_.headers_read;
  try {
    return data::CountShardRows(path);
  } catch (const Error& e) {
    logger.Warning("skipping unreadable shard " + path + ": " + e.what());
    return -1;
  }
}

// Removes dir's stale temporaries when `found` says it has any; returns how many are left.
int64_t ShardScanner::RemoveStale(const std::string& dir, int64_t found, Logger& logger) {
  if (found == 0) return 0;
  if (options_.stale_temporary_age.count() == 0) return found;
  int64_t young = 0;
  try {
    const int removed = RemoveStaleTemporaries(dir, options_.stale_temporary_age, &young);
    counts_.temporaries_removed += removed;
    if (removed > 0)
      logger.Info(StrCat("removed ", removed, " temporaries left by writers that died in ", dir));
  } catch (const IoError& e) {
    logger.Warning(std::string("cannot remove stale temporaries: ") + e.what());
    return found;
  }
  return young;
}

}  // namespace tengen::pipeline
