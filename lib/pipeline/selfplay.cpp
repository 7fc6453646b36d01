#include "pipeline/selfplay.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "data/training_rows.h"
#include "go/sgf.h"
#include "nn/batching.h"
#include "nn/features.h"
#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "pipeline/net_leaf_evaluator.h"
#include "util/error.h"
#include "util/publish.h"

namespace tengen::pipeline {
namespace {

using Clock = std::chrono::steady_clock;

// How often the monitor wakes to see whether the game threads are done.
constexpr std::chrono::milliseconds kMonitorTick(50);

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

// The rows and SGFs of one model's finished games, cut into shards (see selfplay.h). Add is
// called by the game threads; the slow part (compressing and writing) runs outside the lock.
class ShardSink {
 public:
  ShardSink(const std::string& base_dir, std::string model, data::RowShape shape, int first_target,
            int max_rows)
      : tdata_dir_(TdataDir(base_dir, model)),
        sgfs_dir_(SgfsDir(base_dir, model)),
        model_(std::move(model)),
        shape_(shape),
        target_(first_target),
        max_rows_(max_rows),
        writer_(shape_, model_) {
    EnsureDirectory(tdata_dir_);
    EnsureDirectory(sgfs_dir_);
  }

  void Add(const FinishedGame& game) {
    std::vector<Ready> ready;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sgf_text_ += go::WriteSgf(game.sgf) + "\n";
      for (const data::TrainingRow& row : game.rows) {
        writer_.Add(row);
        if (writer_.rows() >= target_) {
          ready.push_back(TakeLocked());
          target_ = max_rows_;
        }
      }
    }
    for (Ready& shard : ready) Publish(shard);
  }

  // Publishes what is pending (an .sgfs alone when there are games but no rows).
  void Flush() {
    Ready shard;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (writer_.rows() == 0 && sgf_text_.empty()) return;
      shard = TakeLocked();
    }
    Publish(shard);
  }

  int64_t rows_published() const { return rows_published_.load(); }
  int64_t shards_published() const { return shards_published_.load(); }
  // The target of the shard being filled (the next sink continues with it).
  int target() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return target_;
  }

 private:
  struct Ready {
    std::unique_ptr<data::ShardWriter> writer;
    std::string sgf_text;
  };

  Ready TakeLocked() {
    Ready shard;
    shard.writer = std::make_unique<data::ShardWriter>(std::move(writer_));
    shard.sgf_text = std::move(sgf_text_);
    writer_ = data::ShardWriter(shape_, model_);
    sgf_text_.clear();
    return shard;
  }

  // SGFs first, so that every published shard's games can be looked up.
  void Publish(Ready& shard) {
    const std::string stem = UniqueFileStem();
    if (!shard.sgf_text.empty()) PublishFile(sgfs_dir_ + "/" + stem + ".sgfs", shard.sgf_text);
    const int rows = shard.writer->rows();
    if (rows > 0) {
      shard.writer->WriteAndClear(tdata_dir_ + "/" + stem + ".npz");
      rows_published_ += rows;
      ++shards_published_;
    }
  }

  const std::string tdata_dir_;
  const std::string sgfs_dir_;
  const std::string model_;
  const data::RowShape shape_;
  mutable std::mutex mutex_;
  int target_;
  const int max_rows_;
  data::ShardWriter writer_;
  std::string sgf_text_;
  std::atomic<int64_t> rows_published_{0};
  std::atomic<int64_t> shards_published_{0};
};

class SelfplayRunner {
 public:
  SelfplayRunner(const SelfplayOptions& options, Logger& logger, StopToken stop)
      : options_(options),
        logger_(logger),
        stop_(stop),
        master_rng_(options.seed != 0 ? Rng(options.seed) : Rng()),
        heartbeat_(StatusDir(options.base_dir), "selfplay", options.heartbeat_interval) {}

  SelfplayStats Run();

 private:
  // One model's stretch of play.
  struct Epoch {
    std::vector<std::unique_ptr<nn::BatchingServer>> servers;  // one per device
    std::unique_ptr<ShardSink> sink;
    std::atomic<bool> retire{false};  // a newer model is ready: start no more games
    std::atomic<int> running{0};      // game threads still running
  };

  bool StopNow() const { return stop_.stop_requested() || failed_.load(); }
  bool ClaimGame();
  uint64_t NextSeed();
  void GameThread(Epoch& epoch, nn::BatchingServer& server, uint64_t thread_seed);
  // One evaluator per device for `model` (the random net when nullopt).
  std::vector<std::unique_ptr<nn::Evaluator>> MakeEvaluators(const std::optional<ModelInfo>& model);
  // Loads the newest model (once per device) if it differs from `current`; empty when there
  // is nothing new or it failed to load.
  std::vector<std::unique_ptr<nn::Evaluator>> CheckForNewModel(const std::string& current);
  void Report(const Epoch& epoch, const std::string& state, bool force_log);
  SelfplayStats Totals(const Epoch* epoch) const;

  const SelfplayOptions& options_;
  Logger& logger_;
  StopToken stop_;
  std::mutex rng_mutex_;
  Rng master_rng_;
  Heartbeat heartbeat_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_log_ = Clock::now();
  std::atomic<bool> failed_{false};
  std::mutex failure_mutex_;
  std::string failure_;
  std::atomic<int64_t> games_started_{0};
  std::atomic<int64_t> games_finished_{0};
  std::atomic<int64_t> games_dropped_{0};
  std::atomic<int64_t> rows_finished_{0};
  // Totals of the epochs already over.
  SelfplayStats past_;
  std::string model_name_;
  std::string failed_model_;  // the newest model that failed to load, not retried
};

bool SelfplayRunner::ClaimGame() {
  if (options_.max_games_total <= 0) {
    ++games_started_;
    return true;
  }
  int64_t started = games_started_.load();
  while (started < options_.max_games_total) {
    if (games_started_.compare_exchange_weak(started, started + 1)) return true;
  }
  return false;
}

uint64_t SelfplayRunner::NextSeed() {
  std::lock_guard<std::mutex> lock(rng_mutex_);
  // Non-zero and below 2^53 so that it survives being written and read back anywhere.
  return (master_rng_.Next() >> 11) | 1;
}

void SelfplayRunner::GameThread(Epoch& epoch, nn::BatchingServer& server, uint64_t thread_seed) {
  try {
    Rng rng(thread_seed);
    NetLeafEvaluator leaf(server, rng);
    server.AddClient();
    struct ClientGuard {
      nn::BatchingServer& server;
      ~ClientGuard() { server.RemoveClient(); }
    } client_guard{server};
    const Player player{&leaf, server.model_name()};
    const auto stop = [this] { return StopNow(); };
    while (!StopNow() && !epoch.retire.load() && ClaimGame()) {
      FinishedGame game;
      if (!PlayGame(options_.game, player, player, NextSeed(), stop, &game)) {
        ++games_dropped_;
        break;
      }
      epoch.sink->Add(game);
      rows_finished_ += static_cast<int64_t>(game.rows.size());
      ++games_finished_;
    }
  } catch (const std::exception& e) {
    logger_.Error(std::string("selfplay game thread failed, stopping: ") + e.what());
    std::lock_guard<std::mutex> lock(failure_mutex_);
    if (failure_.empty()) failure_ = e.what();
    failed_ = true;
  }
  --epoch.running;
}

std::vector<std::unique_ptr<nn::Evaluator>> SelfplayRunner::MakeEvaluators(
    const std::optional<ModelInfo>& model) {
  std::vector<std::unique_ptr<nn::Evaluator>> evaluators;
  for (const std::string& device : options_.devices)
    evaluators.push_back(MakeEvaluator(model, options_.game.pos_len, device, options_.load_model));
  return evaluators;
}

std::vector<std::unique_ptr<nn::Evaluator>> SelfplayRunner::CheckForNewModel(
    const std::string& current) {
  std::optional<ModelInfo> newest;
  try {
    newest = FindNewestModel(options_.models_dir);
  } catch (const Error& e) {
    logger_.Warning(std::string("cannot look for new models: ") + e.what());
    return {};
  }
  if (!newest || newest->name == current || newest->name == failed_model_) return {};
  logger_.Info("new model " + newest->name + ": loading");
  try {
    return MakeEvaluators(newest);
  } catch (const std::exception& e) {
    logger_.Error(std::string("cannot use new model, playing on with ") + current + ": " +
                  e.what());
    failed_model_ = newest->name;
    return {};
  }
}

SelfplayStats SelfplayRunner::Totals(const Epoch* epoch) const {
  SelfplayStats stats = past_;
  stats.games = games_finished_.load();
  stats.dropped_games = games_dropped_.load();
  stats.seconds = SecondsSince(start_);
  if (epoch != nullptr) {
    stats.rows += epoch->sink->rows_published();
    stats.shards += epoch->sink->shards_published();
    for (const auto& server : epoch->servers) {
      const nn::BatchingStats nn_stats = server->stats();
      stats.nn_positions += nn_stats.positions;
      stats.nn_batches += nn_stats.batches;
    }
  }
  return stats;
}

void SelfplayRunner::Report(const Epoch& epoch, const std::string& state, bool force_log) {
  const SelfplayStats stats = Totals(&epoch);
  const double seconds = std::max(stats.seconds, 1e-3);
  const double games_per_hour = static_cast<double>(stats.games) * 3600.0 / seconds;
  const double rows_per_second = static_cast<double>(rows_finished_.load()) / seconds;
  const double evals_per_second = static_cast<double>(stats.nn_positions) / seconds;
  const double mean_batch =
      stats.nn_batches ? static_cast<double>(stats.nn_positions) / stats.nn_batches : 0.0;
  const auto now = Clock::now();
  if (force_log || now - last_log_ >= options_.log_interval) {
    last_log_ = now;
    // With several servers, the mean batch of each (this model's batches only) follows.
    std::string per_server;
    if (epoch.servers.size() > 1) {
      for (const auto& server : epoch.servers)
        per_server +=
            (per_server.empty() ? " (servers " : ", ") + Fixed(server->stats().MeanBatchSize(), 1);
      per_server += ")";
    }
    logger_.Info(state + ": model " + model_name_ + ", games " + std::to_string(stats.games) +
                 " (started " + std::to_string(games_started_.load()) + ", dropped " +
                 std::to_string(stats.dropped_games) + "), rows " +
                 std::to_string(rows_finished_.load()) + " (published " +
                 std::to_string(stats.rows) + " in " + std::to_string(stats.shards) + " shards), " +
                 Fixed(games_per_hour, 0) + " games/hour, " + Fixed(rows_per_second, 1) +
                 " rows/s, " + Fixed(evals_per_second, 0) + " NN evals/s, mean batch " +
                 Fixed(mean_batch, 1) + per_server);
  }
  HeartbeatInfo info;
  info.state = state;
  info.texts = {{"model", model_name_}};
  info.counters = {{"games", static_cast<double>(stats.games)},
                   {"games_started", static_cast<double>(games_started_.load())},
                   {"games_dropped", static_cast<double>(stats.dropped_games)},
                   {"rows", static_cast<double>(rows_finished_.load())},
                   {"rows_published", static_cast<double>(stats.rows)},
                   {"shards", static_cast<double>(stats.shards)},
                   {"games_per_hour", games_per_hour},
                   {"rows_per_second", rows_per_second},
                   {"nn_evals_per_second", evals_per_second},
                   {"mean_batch_size", mean_batch},
                   {"uptime_seconds", stats.seconds}};
  try {
    heartbeat_.Beat(info, force_log);
  } catch (const Error& e) {
    logger_.Warning(std::string("cannot write the heartbeat: ") + e.what());
  }
}

SelfplayStats SelfplayRunner::Run() {
  const GameParams& game = options_.game;
  TENGEN_CHECK(options_.num_game_threads > 0, "num_game_threads must be positive");
  TENGEN_CHECK(options_.max_rows_per_file > 0, "max_rows_per_file must be positive");
  TENGEN_CHECK(!options_.devices.empty(), "devices must name at least one device");
  TENGEN_CHECK(static_cast<int>(options_.devices.size()) <= options_.num_game_threads,
               "devices must not outnumber num_game_threads");
  int max_size = 0;
  for (const auto& size : game.board_sizes) max_size = std::max(max_size, size.first);
  if (max_size > game.pos_len)
    throw ConfigError("board size " + std::to_string(max_size) + " exceeds pos_len " +
                      std::to_string(game.pos_len));
  const data::RowShape shape{game.pos_len, nn::kNumSpatialFeatures, nn::kNumGlobalFeatures,
                             nn::kFeatureVersion};
  // The process's first shard is shorter by a uniform random amount (see selfplay.h).
  int target;
  {
    std::lock_guard<std::mutex> lock(rng_mutex_);
    target = 1 + static_cast<int>(
                     master_rng_.Uniform(static_cast<uint32_t>(options_.max_rows_per_file)));
  }

  std::vector<std::unique_ptr<nn::Evaluator>> evaluators =
      MakeEvaluators(FindNewestModel(options_.models_dir));
  while (true) {
    model_name_ = evaluators.front()->model_name();
    for (const auto& evaluator : evaluators)
      if (evaluator->pos_len() < max_size)
        throw Error("model " + model_name_ + " has pos_len " +
                    std::to_string(evaluator->pos_len()) + ", smaller than board size " +
                    std::to_string(max_size));
    Epoch epoch;
    // Game thread i uses server i % n. A batch never holds more positions than its server has
    // game threads (each waits for its own); capping it there lets a batch run as soon as
    // every thread has submitted instead of waiting out the straggler timeout.
    const int num_servers = static_cast<int>(evaluators.size());
    std::string servers_text;
    for (int s = 0; s < num_servers; ++s) {
      const int server_threads =
          options_.num_game_threads / num_servers + (s < options_.num_game_threads % num_servers);
      const int batch_size = std::min(options_.nn_max_batch_size, server_threads);
      epoch.servers.push_back(std::make_unique<nn::BatchingServer>(
          std::move(evaluators[s]), nn::BatchingOptions{batch_size}));
      servers_text += (s == 0 ? "" : ", ") + options_.devices[s] + " (" +
                      std::to_string(server_threads) + " threads, batches up to " +
                      std::to_string(batch_size) + ")";
    }
    evaluators.clear();
    epoch.sink = std::make_unique<ShardSink>(options_.base_dir, model_name_, shape, target,
                                             options_.max_rows_per_file);
    logger_.Info("playing with model " + model_name_ + ": " +
                 std::to_string(options_.num_game_threads) + " game threads, " +
                 std::to_string(num_servers) + " NN server" + (num_servers > 1 ? "s " : " ") +
                 servers_text + ", data under " + SelfplayModelDir(options_.base_dir, model_name_));

    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<nn::Evaluator>> next;
    // The game threads must be joined whatever happens here (a std::thread destroyed
    // unjoined ends the process), so a monitor error stops them first.
    std::exception_ptr monitor_error;
    try {
      for (int i = 0; i < options_.num_game_threads; ++i) {
        const uint64_t thread_seed = NextSeed();
        ++epoch.running;
        nn::BatchingServer& server = *epoch.servers[i % num_servers];
        try {
          threads.emplace_back(
              [this, &epoch, &server, thread_seed] { GameThread(epoch, server, thread_seed); });
        } catch (...) {
          --epoch.running;
          throw;
        }
      }
      auto last_check = Clock::now();
      bool stop_logged = false;
      while (epoch.running.load() > 0) {
        std::this_thread::sleep_for(kMonitorTick);
        if (StopNow()) {
          if (!stop_logged && stop_.stop_requested())
            logger_.Info("stop requested: dropping games in flight, publishing finished rows");
          stop_logged = true;
          continue;
        }
        Report(epoch, epoch.retire ? "switching model" : "playing", false);
        if (next.empty() && Clock::now() - last_check >= options_.model_check_interval) {
          last_check = Clock::now();
          next = CheckForNewModel(model_name_);
          if (!next.empty()) {
            logger_.Info("switching to model " + next.front()->model_name() +
                         " once the games in flight finish");
            epoch.retire = true;
          }
        }
      }
    } catch (...) {
      monitor_error = std::current_exception();
      failed_ = true;
    }
    for (std::thread& thread : threads) thread.join();

    epoch.sink->Flush();
    if (monitor_error) std::rethrow_exception(monitor_error);
    target = epoch.sink->target();
    const SelfplayStats totals = Totals(&epoch);
    const bool all_started =
        options_.max_games_total > 0 && games_started_.load() >= options_.max_games_total;
    const bool done = StopNow() || next.empty() || all_started;
    Report(epoch, done ? "stopped" : "switching model", true);
    past_ = totals;
    if (failed_) throw Error("selfplay stopped after a game thread failed: " + failure_);
    if (done) break;
    evaluators = std::move(next);
  }
  return Totals(nullptr);
}

}  // namespace

SelfplayStats RunSelfplay(const SelfplayOptions& options, Logger& logger, StopToken stop) {
  SelfplayRunner runner(options, logger, stop);
  return runner.Run();
}

}  // namespace tengen::pipeline
