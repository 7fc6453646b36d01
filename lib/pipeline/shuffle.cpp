#include "pipeline/shuffle.h"

#include <sys/stat.h>

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <sstream>
#include <thread>

#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "pipeline/service.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using Clock = std::chrono::steady_clock;

std::string UtcFromNs(int64_t ns) {
  const std::time_t seconds = static_cast<std::time_t>(ns / 1000000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return stamp;
}

bool SameShape(const data::RowShape& a, const data::RowShape& b) {
  return a.pos_len == b.pos_len && a.num_spatial == b.num_spatial && a.num_global == b.num_global &&
         a.feature_version == b.feature_version;
}

std::string OutputFileName(int64_t index) {
  char name[32];
  std::snprintf(name, sizeof(name), "data-%04lld.npz", static_cast<long long>(index));
  return name;
}

// Newest first: by mtime, ties by file name, then by path.
bool NewerFirst(const ShardFile& a, const ShardFile& b) {
  if (a.mtime_ns != b.mtime_ns) return a.mtime_ns > b.mtime_ns;
  const std::string name_a = fs::path(a.path).filename().string();
  const std::string name_b = fs::path(b.path).filename().string();
  if (name_a != name_b) return name_a > name_b;
  return a.path > b.path;
}

std::string SummaryJson(const ShuffleOptions& options, const ShuffleResult& result,
                        int64_t all_rows, const std::vector<const ShardFile*>& used,
                        uint64_t seed) {
  std::ostringstream out;
  out << "{\n";
  out << "  \"created_utc\": " << JsonString(UtcTimestamp()) << ",\n";
  out << "  \"total_rows\": " << result.total_rows << ",\n";
  out << "  \"total_rows_all_files\": " << all_rows << ",\n";
  out << "  \"desired_window_rows\": " << JsonNumber(result.desired_rows) << ",\n";
  out << "  \"window_rows\": " << result.window_rows << ",\n";
  out << "  \"output_rows\": " << result.output_rows << ",\n";
  out << "  \"output_files\": " << result.output_files << ",\n";
  out << "  \"rows_per_output_file\": " << options.rows_per_output_file << ",\n";
  out << "  \"keep_target_rows\": " << options.keep_target_rows << ",\n";
  out << "  \"min_rows\": " << options.min_rows << ",\n";
  out << "  \"buckets\": " << result.buckets << ",\n";
  out << "  \"seed\": " << JsonString(std::to_string(seed)) << ",\n";
  out << "  \"symmetry_applied\": false,\n";
  const ShardFile* oldest = used.empty() ? nullptr : used.back();
  if (oldest != nullptr) {
    out << "  \"window_start\": {\"file\": " << JsonString(oldest->path)
        << ", \"mtime_utc\": " << JsonString(UtcFromNs(oldest->mtime_ns))
        << ", \"mtime_ns\": " << oldest->mtime_ns << "},\n";
  } else {
    out << "  \"window_start\": null,\n";
  }
  out << "  \"files\": [";
  for (size_t i = 0; i < used.size(); ++i) {
    out << (i == 0 ? "\n" : ",\n") << "    {\"path\": " << JsonString(used[i]->path)
        << ", \"model\": " << JsonString(used[i]->model) << ", \"rows\": " << used[i]->rows << "}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

// Runs tasks on up to `limit` threads of their own (inline when limit <= 1); Run blocks while
// `limit` are pending. Wait (and Run, for the oldest) rethrows a task's exception. The
// destructor waits for what is still running.
class TaskQueue {
 public:
  explicit TaskQueue(int limit) : limit_(std::max(1, limit)) {}
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;
  ~TaskQueue() {
    for (std::future<void>& task : pending_)
      if (task.valid()) task.wait();
  }
  void Run(std::function<void()> task) {
    if (limit_ <= 1) {
      task();
      return;
    }
    while (static_cast<int>(pending_.size()) >= limit_) PopOldest();
    pending_.push_back(std::async(std::launch::async, std::move(task)));
  }
  void Wait() {
    while (!pending_.empty()) PopOldest();
  }

 private:
  void PopOldest() {
    std::future<void> task = std::move(pending_.front());
    pending_.pop_front();
    task.get();
  }
  int limit_;
  std::deque<std::future<void>> pending_;
};

// A shard read (or why it could not be).
struct ReadResult {
  data::PackedShard shard;
  std::string problem;
  std::exception_ptr error;  // what ReadShard threw, if anything
};

ReadResult ReadForShuffle(const std::string& path) {
  ReadResult result;
  try {
    result.shard = data::ReadPackedShard(path);
  } catch (const Error& e) {
    result.problem = e.what();
    result.error = std::current_exception();
  }
  return result;
}

// Reads `paths` in order with up to `threads` reads ahead of the consumer (inline for 1).
class ShardReader {
 public:
  ShardReader(std::vector<std::string> paths, int threads)
      : paths_(std::move(paths)), threads_(std::max(1, threads)) {}
  ShardReader(const ShardReader&) = delete;
  ShardReader& operator=(const ShardReader&) = delete;
  ~ShardReader() {
    for (std::future<ReadResult>& read : pending_)
      if (read.valid()) read.wait();
  }
  // The next shard in order; call at most paths.size() times.
  ReadResult Next() {
    if (threads_ <= 1) return ReadForShuffle(paths_[next_consumed_++]);
    while (next_started_ < paths_.size() && next_started_ < next_consumed_ + threads_)
      pending_.push_back(std::async(std::launch::async, ReadForShuffle, paths_[next_started_++]));
    std::future<ReadResult> read = std::move(pending_.front());
    pending_.pop_front();
    ++next_consumed_;
    return read.get();
  }

 private:
  std::vector<std::string> paths_;
  size_t threads_;
  size_t next_started_ = 0;
  size_t next_consumed_ = 0;
  std::deque<std::future<ReadResult>> pending_;
};

// Writes `rows` as one shard at `path` (a task for TaskQueue).
std::function<void()> WriteTask(const data::RowShape& shape, const std::string& model,
                                int compression_level, const std::string& path,
                                std::vector<data::PackedRow> rows) {
  auto shared = std::make_shared<std::vector<data::PackedRow>>(std::move(rows));
  return [shape, model, compression_level, path, shared] {
    data::WritePackedShard(shape, model, *shared, path, compression_level);
    shared->clear();
    shared->shrink_to_fit();
  };
}

}  // namespace

void DeclareShuffleOptions(ConfigSpec& spec) {
  const ShuffleOptions d;
  spec.String("output_dir", "",
              "base directory (required); reads <output_dir>/selfplay, "
              "writes <output_dir>/shuffleddata");
  spec.Int("min_rows", d.min_rows, 1, int64_t{1} << 50,
           "rows needed before anything is published (random-net rows count up to this)");
  spec.Double("taper_window_exponent", d.taper_window_exponent, 0.01, 1.0,
              "exponent of the power-law window taper");
  spec.Double("expand_window_per_row", d.expand_window_per_row, 0.0, 10.0,
              "window growth per new row at the start of the taper");
  spec.Double("taper_window_scale", d.taper_window_scale, 1.0, 1e15,
              "scale (rows) of the power-law taper");
  spec.Int("keep_target_rows", d.keep_target_rows, 1, int64_t{1} << 50,
           "uniformly subsample the window to at most this many rows");
  spec.Int("memory_budget_rows", d.memory_budget_rows, 1, int64_t{1} << 50,
           "rows held in memory at once; more are shuffled through temporary bucket files");
  spec.Int("rows_per_output_file", d.rows_per_output_file, 1, int64_t{1} << 40,
           "rows in each data-NNNN.npz of a shuffle (the last may hold fewer)");
  spec.Int("compression_level", d.compression_level, -1, 9,
           "zlib level of the output and bucket files: 1 fast (~1.8x faster writes than 6, "
           "~20% bigger), 9 small, -1 zlib's default (6), 0 stored");
  spec.Int("keep_shuffles", d.keep_shuffles, 1, 1000000, "newest shuffles never removed");
  spec.Int("cleanup_grace_seconds", d.cleanup_grace.count(), 0, int64_t{1} << 40,
           "older shuffles (and stale temporaries) are removed after this many seconds");
  spec.Int("interval_seconds", d.interval.count(), 0, int64_t{1} << 40,
           "seconds between shuffles when looping");
  spec.Bool("once", false, "publish one shuffle (or nothing, below min_rows) and exit");
  spec.Int("threads", 0, 0, 256,
           "threads reading input shards and writing output files; 0: one per core "
           "(the output depends on the seed only)");
  spec.Int("seed", 0, 0, kMaxSeed, "random seed; 0 draws a fresh one");
  spec.Double("heartbeat_seconds", 5.0, 0.1, 3600.0, "how often status/ is refreshed");
  DeclareLogLevelOption(spec);
}

ShuffleOptions ShuffleOptionsFromConfig(const Config& config) {
  ShuffleOptions o;
  o.base_dir = BaseDirFromConfig(config);
  o.min_rows = config.GetInt("min_rows");
  o.taper_window_exponent = config.GetDouble("taper_window_exponent");
  o.expand_window_per_row = config.GetDouble("expand_window_per_row");
  o.taper_window_scale = config.GetDouble("taper_window_scale");
  o.keep_target_rows = config.GetInt("keep_target_rows");
  o.memory_budget_rows = config.GetInt("memory_budget_rows");
  o.rows_per_output_file = config.GetInt("rows_per_output_file");
  o.compression_level = static_cast<int>(config.GetInt("compression_level"));
  o.keep_shuffles = static_cast<int>(config.GetInt("keep_shuffles"));
  o.cleanup_grace = std::chrono::seconds(config.GetInt("cleanup_grace_seconds"));
  o.interval = std::chrono::seconds(config.GetInt("interval_seconds"));
  o.once = config.GetBool("once");
  o.seed = static_cast<uint64_t>(config.GetInt("seed"));
  o.threads = static_cast<int>(config.GetInt("threads"));
  if (o.threads == 0)
    o.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.heartbeat_interval = std::chrono::milliseconds(
      static_cast<int64_t>(std::llround(config.GetDouble("heartbeat_seconds") * 1000)));
  return o;
}

double DesiredWindowRows(double total_rows, double min_rows, double exponent, double expand,
                         double scale) {
  if (total_rows <= min_rows) return min_rows;
  return min_rows +
         expand * (std::pow(total_rows - min_rows + scale, exponent) - std::pow(scale, exponent)) /
             (exponent * std::pow(scale, exponent - 1));
}

std::vector<ShardFile> ShardScanner::Scan(const std::string& base_dir, Logger& logger) {
  std::vector<ShardFile> files;
  std::map<std::string, Cached> seen;
  for (const std::string& model : ListPublished(SelfplayDir(base_dir))) {
    const std::string tdata = TdataDir(base_dir, model);
    for (const std::string& name : ListPublished(tdata)) {
      if (IsTemporaryName(name) || !EndsWith(name, ".npz")) continue;
      const std::string path = tdata + "/" + name;
      struct stat st {};
      if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // gone since listed
      Cached entry;
      entry.size = static_cast<int64_t>(st.st_size);
      entry.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
      const auto cached = cache_.find(path);
      if (cached != cache_.end() && cached->second.size == entry.size &&
          cached->second.mtime_ns == entry.mtime_ns) {
        entry.rows = cached->second.rows;
      } else {
        try {
          entry.rows = data::CountShardRows(path);
        } catch (const Error& e) {
          logger.Warning("skipping unreadable shard " + path + ": " + e.what());
          entry.rows = -1;
        }
      }
      seen[path] = entry;
      if (entry.rows < 0) continue;
      ShardFile file;
      file.path = path;
      file.model = model;
      file.rows = entry.rows;
      file.size = entry.size;
      file.mtime_ns = entry.mtime_ns;
      files.push_back(std::move(file));
    }
  }
  cache_ = std::move(seen);
  return files;
}

ShuffleResult ShuffleOnce(const ShuffleOptions& options, ShardScanner& scanner, Logger& logger,
                          Rng& rng, const StopToken& stop) {
  TENGEN_CHECK(options.rows_per_output_file > 0 && options.memory_budget_rows > 0 &&
                   options.keep_target_rows > 0,
               "row options must be positive");
  const auto start = Clock::now();
  ShuffleResult result;
  std::vector<ShardFile> files = scanner.Scan(options.base_dir, logger);
  std::sort(files.begin(), files.end(), NewerFirst);

  int64_t random_rows = 0;
  int64_t other_rows = 0;
  for (const ShardFile& file : files)
    (file.model == kRandomModelName ? random_rows : other_rows) += file.rows;
  result.total_rows = other_rows + std::min(random_rows, options.min_rows);
  if (result.total_rows < options.min_rows) {
    logger.Info(std::to_string(result.total_rows) + " rows, fewer than min-rows " +
                std::to_string(options.min_rows) + ": nothing to do");
    return result;
  }
  result.desired_rows = DesiredWindowRows(
      static_cast<double>(result.total_rows), static_cast<double>(options.min_rows),
      options.taper_window_exponent, options.expand_window_per_row, options.taper_window_scale);

  std::vector<const ShardFile*> window;
  int64_t window_rows = 0;
  for (const ShardFile& file : files) {
    if (static_cast<double>(window_rows) >= result.desired_rows) break;
    window.push_back(&file);
    window_rows += file.rows;
  }
  const int64_t kept_target = std::min(window_rows, options.keep_target_rows);
  const int64_t buckets =
      kept_target <= options.memory_budget_rows
          ? 1
          : (kept_target * 5 / 4 + options.memory_budget_rows - 1) / options.memory_budget_rows;
  const size_t flush_rows = static_cast<size_t>(
      std::max<int64_t>(1, options.memory_budget_rows / std::max<int64_t>(1, buckets)));
  result.buckets = static_cast<int>(buckets);
  logger.Info(std::to_string(result.total_rows) + " rows (" + std::to_string(random_rows) +
              " from the random net), desired window " + FormatFixed(result.desired_rows, 0) +
              ": " + std::to_string(window.size()) + " files with " + std::to_string(window_rows) +
              " rows, keeping " + std::to_string(kept_target) + " in " + std::to_string(buckets) +
              " buckets");

  const std::string shuffled_dir = ShuffledDataDir(options.base_dir);
  EnsureDirectory(shuffled_dir);
  const std::string stem = UniqueFileStem();

  // Deal the kept rows into buckets (selection sampling keeps exactly kept_target rows of the
  // files that can be read, each subset equally likely).
  std::vector<std::vector<data::PackedRow>> bucket_rows(static_cast<size_t>(buckets));
  std::vector<std::vector<std::string>> bucket_files(static_cast<size_t>(buckets));
  std::unique_ptr<AtomicDirectory> bucket_dir;
  if (buckets > 1)
    bucket_dir = std::make_unique<AtomicDirectory>(shuffled_dir + "/buckets-" + stem);
  // Threads read and write whole files only; every random draw happens on this thread in file
  // order, so the output depends on the seed alone. Declared after bucket_dir: destroyed first.
  const int threads = std::max(1, options.threads);
  TaskQueue bucket_writes(threads);
  bool have_shape = false;
  data::RowShape shape;
  int64_t chunks = 0;
  auto flush_bucket = [&](size_t b) {
    if (bucket_rows[b].empty()) return;
    const std::string path = bucket_dir->path() + "/bucket-" + std::to_string(b) + "-" +
                             std::to_string(chunks++) + ".npz";
    bucket_writes.Run(
        WriteTask(shape, "bucket", options.compression_level, path, std::move(bucket_rows[b])));
    bucket_files[b].push_back(path);
    bucket_rows[b].clear();
    bucket_rows[b].shrink_to_fit();
  };

  std::vector<const ShardFile*> used;
  int64_t needed = kept_target;
  int64_t remaining = window_rows;
  std::vector<std::string> window_paths;
  for (const ShardFile* file : window) window_paths.push_back(file->path);
  ShardReader reader(std::move(window_paths), threads);
  for (const ShardFile* file : window) {
    if (stop.stop_requested()) {
      logger.Info("stop requested: shuffle abandoned");
      return ShuffleResult{};
    }
    ReadResult read = reader.Next();
    data::PackedShard& shard = read.shard;
    std::string& problem = read.problem;
    if (problem.empty()) {
      if (static_cast<int64_t>(shard.rows.size()) != file->rows)
        problem = "it holds " + std::to_string(shard.rows.size()) + " rows, its headers said " +
                  std::to_string(file->rows);
      else if (have_shape && !SameShape(shape, shard.shape))
        problem = "its row shape differs from the newer files'";
    }
    if (!problem.empty()) {
      logger.Warning("skipping shard " + file->path + ": " + problem);
      remaining -= file->rows;
      needed = std::min(needed, remaining);
      continue;
    }
    if (!have_shape) {
      shape = shard.shape;
      have_shape = true;
    }
    used.push_back(file);
    result.window_rows += file->rows;
    for (data::PackedRow& row : shard.rows) {
      const bool keep = needed > 0 && rng.UniformDouble() * static_cast<double>(remaining) <
                                          static_cast<double>(needed);
      --remaining;
      if (!keep) continue;
      --needed;
      const size_t b = buckets == 1 ? 0 : rng.Uniform(static_cast<uint32_t>(buckets));
      bucket_rows[b].push_back(std::move(row));
      if (buckets > 1 && bucket_rows[b].size() >= flush_rows) flush_bucket(b);
    }
  }
  if (buckets > 1)
    for (size_t b = 0; b < bucket_rows.size(); ++b) flush_bucket(b);
  bucket_writes.Wait();
  result.files_used = static_cast<int>(used.size());

  int64_t kept = 0;
  for (size_t b = 0; b < bucket_rows.size(); ++b) kept += bucket_rows[b].size();
  if (used.empty() || (buckets == 1 && kept == 0)) {
    logger.Warning("no readable rows in the window: nothing published");
    return ShuffleResult{};
  }

  // Shuffle each bucket and append it to the output.
  AtomicDirectory out_dir(shuffled_dir + "/" + stem);
  TaskQueue output_writes(threads);  // declared after out_dir: destroyed first
  std::vector<data::PackedRow> pending;
  auto write_output = [&] {
    const std::string path = out_dir.path() + "/" + OutputFileName(result.output_files++);
    output_writes.Run(
        WriteTask(shape, "shuffled", options.compression_level, path, std::move(pending)));
    pending.clear();
  };
  for (size_t b = 0; b < bucket_rows.size(); ++b) {
    if (stop.stop_requested()) {
      logger.Info("stop requested: shuffle abandoned");
      return ShuffleResult{};
    }
    std::vector<data::PackedRow> rows = std::move(bucket_rows[b]);
    ShardReader chunks_reader(bucket_files[b], threads);
    for (const std::string& path : bucket_files[b]) {
      ReadResult chunk = chunks_reader.Next();
      if (chunk.error) std::rethrow_exception(chunk.error);
      for (data::PackedRow& row : chunk.shard.rows) rows.push_back(std::move(row));
      fs::remove(path);
    }
    std::shuffle(rows.begin(), rows.end(), rng);
    for (data::PackedRow& row : rows) {
      pending.push_back(std::move(row));
      ++result.output_rows;
      if (static_cast<int64_t>(pending.size()) >= options.rows_per_output_file) write_output();
    }
  }
  if (!pending.empty()) write_output();
  output_writes.Wait();
  if (result.output_rows == 0) {
    logger.Warning("no rows kept: nothing published");
    return ShuffleResult{};
  }
  PublishFile(out_dir.path() + "/summary.json",
              SummaryJson(options, result, random_rows + other_rows, used, rng.seed()));
  out_dir.Commit();
  result.published = true;
  result.dir = out_dir.final_path();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  logger.Info("published " + result.dir + ": " + std::to_string(result.output_rows) + " rows in " +
              std::to_string(result.output_files) + " files from " +
              std::to_string(result.files_used) + " shards in " + FormatFixed(seconds, 1) + " s (" +
              FormatFixed(static_cast<double>(result.output_rows) / std::max(seconds, 1e-9), 0) +
              " rows/s)");
  return result;
}

int CleanupShuffles(const std::string& base_dir, int keep, std::chrono::seconds grace,
                    Logger& logger) {
  const std::string dir = ShuffledDataDir(base_dir);
  std::vector<std::string> names;
  for (const std::string& name : ListPublished(dir)) {
    boost::system::error_code error;
    if (fs::is_directory(dir + "/" + name, error)) names.push_back(name);
  }
  // Names start with a UTC stamp, so sorted order is creation order.
  std::sort(names.begin(), names.end());
  const std::time_t now = std::time(nullptr);
  int removed = 0;
  const int64_t old_count = static_cast<int64_t>(names.size()) - keep;
  for (int64_t i = 0; i < old_count; ++i) {
    const std::string path = dir + "/" + names[static_cast<size_t>(i)];
    boost::system::error_code error;
    const std::time_t mtime = fs::last_write_time(path, error);
    if (error || now - mtime < grace.count()) continue;
    try {
      if (!RemovePublished(path)) continue;  // another shuffler removed it
      logger.Info("removed old shuffle " + path);
      ++removed;
    } catch (const IoError& e) {
      logger.Warning(std::string("cannot remove old shuffle: ") + e.what());
    }
  }
  const int temporaries = RemoveStaleTemporaries(dir, grace);
  if (temporaries > 0)
    logger.Info("removed " + std::to_string(temporaries) + " stale temporaries in " + dir);
  return removed;
}

int RunShuffler(const ShuffleOptions& options, Logger& logger, const StopToken& stop) {
  Rng rng(MasterSeed(options.seed));
  logger.Info("shuffler seed " + std::to_string(rng.seed()));
  ShardScanner scanner;
  ServiceHeartbeat heartbeat(options.base_dir, "shuffler", options.heartbeat_interval, logger);
  int published = 0;
  ShuffleResult last;
  const auto beat = [&](const std::string& state, bool force) {
    HeartbeatInfo info;
    info.state = state;
    info.texts = {{"last_shuffle", last.dir}};
    info.counters = {{"shuffles_published", static_cast<double>(published)},
                     {"total_rows", static_cast<double>(last.total_rows)},
                     {"desired_window_rows", last.desired_rows},
                     {"output_rows", static_cast<double>(last.output_rows)}};
    heartbeat.Beat(info, force);
  };
  const auto pass = [&] {
    const ShuffleResult result = ShuffleOnce(options, scanner, logger, rng, stop);
    if (result.published) {
      ++published;
      last = result;
    } else {
      last.total_rows = result.total_rows;
    }
    CleanupShuffles(options.base_dir, options.keep_shuffles, options.cleanup_grace, logger);
  };
  const PassLoop loop{"shuffling", "shuffle failed", options.once, options.interval};
  RunPasses(loop, stop, logger, pass, beat);
  return published;
}

}  // namespace tengen::pipeline
