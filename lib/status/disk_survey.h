#pragma once
// What tengen-status needs from the big directories (selfplay's tdata/ and sgfs/, a million
// files on a large run) without looking at every file: names come from one listing, rows and
// times from the names (pipeline/base_dir.h ShardFileName), and sizes from every file only in
// directories of at most kExactFiles; above that, from the recent files plus an even sample,
// marked as estimated.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tengen::status {

// Directories with more files than this are sized from the recent ones plus a sample of about
// kSampleFiles of the others.
constexpr int64_t kExactFiles = 1000;
constexpr int64_t kSampleFiles = 100;

struct DiskUsage {
  int64_t bytes = 0, files = 0, recent_bytes = 0;
  bool estimated = false;  // some sizes were inferred from a sample
  void Add(const DiskUsage& other);
};

struct FileStat {
  double mtime = 0;
  int64_t bytes = 0;
  bool regular = false;
  bool directory = false;
};
// lstat(2) of path; nullopt when it is gone (or cannot be looked at).
std::optional<FileStat> Lstat(const std::string& path);

// One entry of a directory listing: its name and whether readdir says it is a directory, a
// regular file, or cannot tell (then an lstat decides).
struct DirEntry {
  enum class Kind { kDirectory, kFile, kOther, kUnknown };
  std::string name;
  Kind kind = Kind::kUnknown;
};
// Every entry but "." and "..", temporaries included; nullopt when dir cannot be listed (*why
// says why).
std::optional<std::vector<DirEntry>> ReadEntries(const std::string& dir, std::string* why);

// Bytes of the regular files `names` in dir: lstat of each when there are at most kExactFiles;
// otherwise of each whose name's time (pipeline::TimeInFileName) is within an hour of `since`
// or later, and of an even sample of the rest, whose mean stands for the others. recent_bytes
// counts files modified at or after `since`.
DiskUsage MeasureFiles(const std::string& dir, const std::vector<std::string>& names, double since);

// The shards under <base>/selfplay/*/tdata.
struct ShardSurvey {
  DiskUsage usage;
  int64_t rows = 0;                   // -1: some shard's rows are unknown
  int64_t rows_since = 0;             // rows in shards whose name's time is at or after `since`
  int64_t unreadable = 0;             // shards opened for their rows that could not be read
  int models = 0;                     // model directories holding shards
  std::optional<double> newest_time;  // modification time of the newest shard (by name)
  std::string newest;                 // its path
};
// Rows come from the names; with open_unnamed, shards whose names carry no row count (older
// versions) are opened for their npy headers, otherwise their rows make `rows` -1. Unreadable
// shards add a note.
ShardSurvey SurveyShards(const std::string& base, double since, bool open_unnamed,
                         std::vector<std::string>* notes);

}  // namespace tengen::status
