#include "pipeline/shuffle.h"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "data/shard_reader.h"
#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "pipeline/json_text.h"
#include "pipeline/service.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/rng.h"
#include "util/task_queue.h"
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
  using Json = nlohmann::ordered_json;
  Json window_start = nullptr;
  if (!used.empty()) {
    const ShardFile& oldest = *used.back();
    window_start = {{"file", oldest.path},
                    {"mtime_utc", UtcFromNs(oldest.mtime_ns)},
                    {"mtime_ns", oldest.mtime_ns}};
  }
  Json files = Json::array();
  for (const ShardFile* file : used)
    files.push_back({{"path", file->path}, {"model", file->model}, {"rows", file->rows}});
  const Json json = {{"created_utc", UtcTimestamp()},
                     {"total_rows", result.total_rows},
                     {"total_rows_all_files", all_rows},
                     {"desired_window_rows", result.desired_rows},
                     {"window_rows", result.window_rows},
                     {"output_rows", result.output_rows},
                     {"output_files", result.output_files},
                     {"rows_per_output_file", options.rows_per_output_file},
                     {"keep_target_rows", options.keep_target_rows},
                     {"min_rows", options.min_rows},
                     {"buckets", result.buckets},
                     {"seed", std::to_string(seed)},
                     {"symmetry_applied", false},
                     {"window_start", window_start},
                     {"files", files}};
  return JsonFileText(json);
}

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

// The window of one shuffle (see shuffle.h): every shard found, newest first, and the newest of
// them that cover the taper's desired rows. `chosen` points into `files`.
struct Window {
  std::vector<ShardFile> files;
  std::vector<const ShardFile*> chosen;
  int64_t random_rows = 0;  // rows of the random net's files (uncapped)
  int64_t all_rows = 0;     // rows of every file (uncapped)
  int64_t rows = 0;         // rows of the chosen files
  int64_t kept_target = 0;  // rows to keep: at most keep_target_rows
  int64_t buckets = 1;      // buckets the kept rows are dealt into
};

// Scans the shards and chooses the window; sets result->total_rows, desired_rows and buckets.
// Returns false (and logs why) when there are fewer than min_rows rows.
bool ChooseWindow(const ShuffleOptions& options, ShardScanner& scanner, Logger& logger,
                  Window* window, ShuffleResult* result) {
  const auto scan_start = Clock::now();
  window->files = scanner.Scan(options.base_dir, logger);
  const ShardScanCounts& scan = scanner.counts();
  logger.Info(
      StrCat("scanned ", window->files.size(), " shards in ", scan.directories,
             " model directories (", scan.listed, " listed, the others settled and unchanged) in ",
             FormatFixed(std::chrono::duration<double>(Clock::now() - scan_start).count(), 2),
             " s: ", scan.stats, " shards stat'ed, ", scan.headers_read, " opened for their rows"));
  std::sort(window->files.begin(), window->files.end(), NewerFirst);
  int64_t other_rows = 0;
  for (const ShardFile& file : window->files)
    (file.model == kRandomModelName ? window->random_rows : other_rows) += file.rows;
  window->all_rows = window->random_rows + other_rows;
  result->total_rows = other_rows + std::min(window->random_rows, options.min_rows);
  if (result->total_rows < options.min_rows) {
    logger.Info(StrCat(result->total_rows, " rows, fewer than min-rows ", options.min_rows,
                       ": nothing to do"));
    return false;
  }
  result->desired_rows = DesiredWindowRows(
      static_cast<double>(result->total_rows), static_cast<double>(options.min_rows),
      options.taper_window_exponent, options.expand_window_per_row, options.taper_window_scale);
  for (const ShardFile& file : window->files) {
    if (static_cast<double>(window->rows) >= result->desired_rows) break;
    window->chosen.push_back(&file);
    window->rows += file.rows;
  }
  const int64_t budget = options.memory_budget_rows;
  window->kept_target = std::min(window->rows, options.keep_target_rows);
  window->buckets =
      window->kept_target <= budget ? 1 : (window->kept_target * 5 / 4 + budget - 1) / budget;
  result->buckets = static_cast<int>(window->buckets);
  logger.Info(StrCat(result->total_rows, " rows (", window->random_rows,
                     " from the random net), desired window ", FormatFixed(result->desired_rows, 0),
                     ": ", window->chosen.size(), " files with ", window->rows, " rows, keeping ",
                     window->kept_target, " in ", window->buckets, " buckets"));
  return true;
}

// Selection sampling (Knuth's algorithm S): of `remaining` rows met one at a time, keeps each
// with probability needed / remaining, which keeps exactly `needed` rows (fewer when rows are
// skipped), each subset equally likely.
struct Selection {
  int64_t needed = 0;
  int64_t remaining = 0;

  bool Keep(Rng& rng) {
    const bool keep = needed > 0 && rng.UniformDouble() * static_cast<double>(remaining) <
                                        static_cast<double>(needed);
    --remaining;
    if (keep) --needed;
    return keep;
  }
  // Rows that will not be met (a shard that cannot be read).
  void Skip(int64_t rows) {
    remaining -= rows;
    needed = std::min(needed, remaining);
  }
};

// The rows kept from a window, dealt into buckets: per bucket, the rows in memory and the
// temporary files it was flushed to (in `dir`, when there is more than one bucket).
struct Buckets {
  std::unique_ptr<AtomicDirectory> dir;
  data::RowShape shape;  // of the newest readable file; the others must match it
  std::vector<std::vector<data::PackedRow>> rows;
  std::vector<std::vector<std::string>> files;
  std::vector<const ShardFile*> used;  // the files read, newest first
};

// Why a shard that was read cannot be used (empty when it can).
std::string ShardProblem(const data::ShardRead& read, const ShardFile& file, bool have_shape,
                         const data::RowShape& shape) {
  if (!read.problem.empty()) return read.problem;
  if (static_cast<int64_t>(read.shard.rows.size()) != file.rows)
    return StrCat("it holds ", read.shard.rows.size(), " rows, its headers said ", file.rows);
  if (have_shape && !SameShape(shape, read.shard.shape))
    return "its row shape differs from the newer files'";
  return "";
}

// Reads the window's files (up to options.threads ahead) and deals the kept rows into buckets
// at random; a bucket that outgrows its share of memory_budget_rows is written to a file in
// `bucket_dir` by up to options.threads writers. Every random draw happens on this thread in
// file order, so the buckets depend on the seed alone. Unreadable files are logged and skipped.
// Returns false when a stop request abandoned the shuffle.
bool DealIntoBuckets(const ShuffleOptions& options, const Window& window,
                     const std::string& bucket_dir, Rng& rng, const StopToken& stop, Logger& logger,
                     Buckets* buckets, ShuffleResult* result) {
  const size_t count = static_cast<size_t>(window.buckets);
  buckets->rows.resize(count);
  buckets->files.resize(count);
  if (count > 1) buckets->dir = std::make_unique<AtomicDirectory>(bucket_dir);
  const size_t flush_rows = static_cast<size_t>(
      std::max<int64_t>(1, options.memory_budget_rows / std::max<int64_t>(1, window.buckets)));
  const int threads = std::max(1, options.threads);
  TaskQueue writes(threads);
  int64_t chunks = 0;
  const auto flush = [&](size_t b) {
    if (buckets->rows[b].empty()) return;
    const std::string path = StrCat(buckets->dir->path(), "/bucket-", b, "-", chunks++, ".npz");
    writes.Run(WriteTask(buckets->shape, "bucket", options.compression_level, path,
                         std::move(buckets->rows[b])));
    buckets->files[b].push_back(path);
    buckets->rows[b].clear();
    buckets->rows[b].shrink_to_fit();
  };
  Selection selection{window.kept_target, window.rows};
  std::vector<std::string> paths;
  for (const ShardFile* file : window.chosen) paths.push_back(file->path);
  data::ShardReader reader(std::move(paths), threads);
  for (const ShardFile* file : window.chosen) {
    if (stop.stop_requested()) return false;
    data::ShardRead read = reader.Next();
    const std::string problem = ShardProblem(read, *file, !buckets->used.empty(), buckets->shape);
    if (!problem.empty()) {
      logger.Warning("skipping shard " + file->path + ": " + problem);
      selection.Skip(file->rows);
      continue;
    }
    if (buckets->used.empty()) buckets->shape = read.shard.shape;
    buckets->used.push_back(file);
    result->window_rows += file->rows;
    for (data::PackedRow& row : read.shard.rows) {
      if (!selection.Keep(rng)) continue;
      const size_t b = count == 1 ? 0 : rng.Uniform(static_cast<uint32_t>(count));
      buckets->rows[b].push_back(std::move(row));
      if (count > 1 && buckets->rows[b].size() >= flush_rows) flush(b);
    }
  }
  if (count > 1)
    for (size_t b = 0; b < count; ++b) flush(b);
  writes.Wait();
  return true;
}

// Shuffles each bucket (its files read back and deleted) and appends it to the output files
// data-NNNN.npz in `out_dir`, written by up to options.threads writers; counts them in
// result. Returns false when a stop request abandoned the shuffle.
bool WriteShuffled(const ShuffleOptions& options, Buckets& buckets, const std::string& out_dir,
                   Rng& rng, const StopToken& stop, ShuffleResult* result) {
  const int threads = std::max(1, options.threads);
  TaskQueue writes(threads);
  std::vector<data::PackedRow> pending;
  const auto write_output = [&] {
    const std::string path = out_dir + "/" + OutputFileName(result->output_files++);
    writes.Run(
        WriteTask(buckets.shape, "shuffled", options.compression_level, path, std::move(pending)));
    pending.clear();
  };
  for (size_t b = 0; b < buckets.rows.size(); ++b) {
    if (stop.stop_requested()) return false;
    std::vector<data::PackedRow> rows = std::move(buckets.rows[b]);
    data::ShardReader chunks(buckets.files[b], threads);
    for (const std::string& path : buckets.files[b]) {
      data::ShardRead chunk = chunks.Next();
      if (chunk.error) std::rethrow_exception(chunk.error);
      for (data::PackedRow& row : chunk.shard.rows) rows.push_back(std::move(row));
      fs::remove(path);
    }
    std::shuffle(rows.begin(), rows.end(), rng);
    for (data::PackedRow& row : rows) {
      pending.push_back(std::move(row));
      ++result->output_rows;
      if (static_cast<int64_t>(pending.size()) >= options.rows_per_output_file) write_output();
    }
  }
  if (!pending.empty()) write_output();
  writes.Wait();
  return true;
}

}  // namespace

double DesiredWindowRows(double total_rows, double min_rows, double exponent, double expand,
                         double scale) {
  if (total_rows <= min_rows) return min_rows;
  return min_rows +
         expand * (std::pow(total_rows - min_rows + scale, exponent) - std::pow(scale, exponent)) /
             (exponent * std::pow(scale, exponent - 1));
}

ShuffleResult ShuffleOnce(const ShuffleOptions& options, ShardScanner& scanner, Logger& logger,
                          Rng& rng, const StopToken& stop) {
  TENGEN_CHECK(options.rows_per_output_file > 0 && options.memory_budget_rows > 0 &&
                   options.keep_target_rows > 0,
               "row options must be positive");
  const auto start = Clock::now();
  ShuffleResult result;
  Window window;
  if (!ChooseWindow(options, scanner, logger, &window, &result) || options.dry_run) return result;

  const std::string shuffled_dir = ShuffledDataDir(options.base_dir);
  EnsureDirectory(shuffled_dir);
  const std::string stem = UniqueFileStem();
  Buckets buckets;
  if (!DealIntoBuckets(options, window, shuffled_dir + "/buckets-" + stem, rng, stop, logger,
                       &buckets, &result)) {
    logger.Info("stop requested: shuffle abandoned");
    return ShuffleResult{};
  }
  result.files_used = static_cast<int>(buckets.used.size());
  if (buckets.used.empty() || (window.buckets == 1 && buckets.rows.front().empty())) {
    logger.Warning("no readable rows in the window: nothing published");
    return ShuffleResult{};
  }

  AtomicDirectory out_dir(shuffled_dir + "/" + stem);
  if (!WriteShuffled(options, buckets, out_dir.path(), rng, stop, &result)) {
    logger.Info("stop requested: shuffle abandoned");
    return ShuffleResult{};
  }
  if (result.output_rows == 0) {
    logger.Warning("no rows kept: nothing published");
    return ShuffleResult{};
  }
  PublishFile(out_dir.path() + "/summary.json",
              SummaryJson(options, result, window.all_rows, buckets.used, rng.seed()));
  out_dir.Commit();
  result.published = true;
  result.dir = out_dir.final_path();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  logger.Info(
      StrCat("published ", result.dir, ": ", result.output_rows, " rows in ", result.output_files,
             " files from ", result.files_used, " shards in ", FormatFixed(seconds, 1), " s (",
             FormatFixed(static_cast<double>(result.output_rows) / std::max(seconds, 1e-9), 0),
             " rows/s)"));
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
  if (temporaries > 0) logger.Info(StrCat("removed ", temporaries, " stale temporaries in ", dir));
  return removed;
}

int RunShuffler(const ShuffleOptions& options, Logger& logger, const StopToken& stop) {
  Rng rng(MasterSeed(options.seed));
  logger.Info(StrCat("shuffler seed ", rng.seed()));
  ShardScanOptions scan_options;
  // A selfplay host that lost the filesystem for a while may hold a temporary for minutes.
  scan_options.stale_temporary_age = std::max(options.cleanup_grace, std::chrono::seconds(3600));
  ShardScanner scanner(scan_options);
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
    if (!options.dry_run)
      CleanupShuffles(options.base_dir, options.keep_shuffles, options.cleanup_grace, logger);
  };
  const PassLoop loop{"shuffling", "shuffle failed", options.once, options.interval};
  RunPasses(loop, stop, logger, pass, beat);
  return published;
}

}  // namespace tengen::pipeline
