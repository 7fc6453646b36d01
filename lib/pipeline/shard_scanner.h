#pragma once
// The shuffler's view of selfplay's output: every published shard under
// <base>/selfplay/*/tdata/ with its rows, kept up to date across scans at a cost that grows with
// what changed, not with what exists, so that a base directory of a million shards from a
// thousand hosts is scanned in seconds (docs/OPERATIONS.md, "How far one directory goes").

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "util/log.h"

namespace tengen::pipeline {

// A published shard found by a scan.
struct ShardFile {
  std::string path;
  std::string model;  // the <model> directory it was found in
  int64_t rows = 0;
  int64_t mtime_ns = 0;  // the time in the name (to the second) when the name says the rows
};

struct ShardScanOptions {
  // A directory whose last change is at least this old when it is listed, and that holds no
  // temporaries, is settled: later scans list it again only once its modification time
  // changes. The margin covers coarse directory times and clocks that differ between hosts.
  std::chrono::seconds settle_age{600};
  // Temporaries (util/publish.h) older than this in a model's tdata/ and sgfs/ are left by
  // writers that died; a scan that lists the directory removes them. 0: never.
  std::chrono::seconds stale_temporary_age{3600};
};

// What the last scan did (for logs and benchmarks).
struct ShardScanCounts {
  int64_t directories = 0;   // tdata directories found
  int64_t listed = 0;        // of them listed (the others were settled and unchanged)
  int64_t stats = 0;         // shards stat'ed (names without rows or time)
  int64_t headers_read = 0;  // shards opened for their rows (names without a count)
  int64_t temporaries_removed = 0;
};

// Lists <base>/selfplay/*/tdata/*.npz (temporaries skipped) with their rows and times: from
// the name (pipeline/base_dir.h ShardFileName, UniqueFileStem), without looking at the file;
// for names of older versions from stat and the npy headers, cached per (path, size, mtime).
// Unreadable files are logged (once per version of the file) and skipped.
class ShardScanner {
 public:
  ShardScanner() = default;
  explicit ShardScanner(ShardScanOptions options) : options_(options) {}

  std::vector<ShardFile> Scan(const std::string& base_dir, Logger& logger);
  const ShardScanCounts& counts() const { return counts_; }

 private:
  struct Cached {
    int64_t size = 0;  // 0 for a shard whose name says its rows: its file is not looked at
    int64_t mtime_ns = 0;
    int64_t rows = -1;  // -1: unreadable
  };
  struct Directory {
    int64_t tdata_mtime_ns = 0;
    int64_t sgfs_mtime_ns = 0;
    bool settled = false;
    std::map<std::string, Cached> files;  // by name
  };

  Directory List(const std::string& base_dir, const std::string& model, const Directory& previous,
                 Logger& logger);
  int64_t CountRows(const std::string& path, Logger& logger);
  int64_t RemoveStale(const std::string& dir, int64_t found, Logger& logger);

  ShardScanOptions options_;
  std::map<std::string, Directory> dirs_;  // by model
  ShardScanCounts counts_;
};

}  // namespace tengen::pipeline
