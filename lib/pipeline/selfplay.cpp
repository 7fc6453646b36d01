#include "pipeline/selfplay.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <exception>
#include <future>
#include <map>
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
#include "nn/eval_cache.h"
#include "nn/features.h"
#include "pipeline/base_dir.h"
#include "pipeline/game_end_stats.h"
#include "pipeline/heartbeat.h"
#include "pipeline/service.h"
#include "pipeline/shard_sink.h"
#include "play/fiber_pool.h"
#include "play/game_options.h"
#include "play/net_leaf_evaluator.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

using Clock = std::chrono::steady_clock;

// Selfplay pauses play while the shards that could not be published hold more than this many
// times max_rows_per_file rows.
constexpr int64_t kMaxFailedShards = 4;
// Failed shards are retried at least this often (sooner when max_shard_age_seconds is less).
constexpr std::chrono::seconds kMaxRetryInterval{30};

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class SelfplayRunner {
 public:
  SelfplayRunner(const SelfplayOptions& options, Logger& logger, StopToken stop)
      : options_(options),
        logger_(logger),
        stop_(stop),
        seeds_(options.seed),
        heartbeat_(options.base_dir, "selfplay", options.heartbeat_interval, logger) {}

  SelfplayStats Run();

 private:
  // One model's stretch of play.
  struct Epoch {
    std::vector<std::unique_ptr<nn::BatchingServer>> servers;  // one per device
    std::unique_ptr<nn::EvalCache> cache;                      // null: nn_cache_entries 0
    std::unique_ptr<ShardSink> sink;
    std::atomic<bool> retire{false};  // a newer model is ready: start no more games
    std::atomic<int> running{0};      // search threads still running
    mutable std::mutex ends_mutex;
    GameEndStats ends;  // how this model's games ended
  };

  // No game starts any more.
  bool StopNow() const { return stop_.stop_requested() || failed_.load(); }
  // The games in flight are abandoned (see selfplay.h, "Stopping").
  bool DropGames() const { return failed_.load() || drop_games_.load(); }
  bool ClaimGame();
  // One game slot: plays games on its fiber until the epoch retires or selfplay stops.
  void GameSlot(Epoch& epoch, nn::BatchingServer& server, uint64_t slot_seed,
                play::FiberTask& fiber);
  // Past a stop request: drops the games in flight once they have had finish_games_seconds
  // (or at once on an urgent stop). Monitor thread.
  void WatchStop();
  // One evaluator per device for `model` (the random net when nullopt); throws ConfigError
  // when a net's pos_len is smaller than the largest board.
  std::vector<std::unique_ptr<nn::Evaluator>> MakeEvaluators(
      const std::optional<play::ModelInfo>& model);
  // Whether `model` failed to load and is not due for another try: same directory mtime and
  // less than model_retry_interval ago.
  bool RecentlyFailed(const play::ModelInfo& model) const;
  // Walks `models` (newest first) up to `current` (exclusive) and returns the evaluators of the
  // first that loads; empty when none does. Models that fail are logged and remembered
  // (RecentlyFailed skips them). At start-up (`startup`) a ConfigError is rethrown: a bad
  // device or a too small pos_len is the user's and would fail every model.
  std::vector<std::unique_ptr<nn::Evaluator>> LoadNewest(const std::vector<play::ModelInfo>& models,
                                                         const std::string& current, bool startup);
  // The evaluators to start with: the newest model that loads, else the random net.
  std::vector<std::unique_ptr<nn::Evaluator>> LoadAtStartup();
  // Loads the newest model newer than `current` (once per device); empty when there is nothing
  // new or nothing new loads.
  std::vector<std::unique_ptr<nn::Evaluator>> CheckForNewModel(const std::string& current);
  // Publishes partial shards that are too old and retries failed publications, for the
  // current sink and the sinks of past models that still hold unpublished shards; pauses or
  // resumes play (paused_) as the unpublished rows go over or back under the limit.
  void PublishOldShards(Epoch& epoch);
  // At the end: one last try for the past models' unpublished shards; returns what could not
  // be published ("N rows of <model>, ..."), empty when all went out.
  std::string FlushUnpublished();
  int64_t UnpublishedRows(const Epoch* epoch) const;
  void Report(const Epoch& epoch, const std::string& state, bool force_log);
  // Run's steps for one model's epoch (see their definitions).
  void BeginEpoch(Epoch& epoch, std::vector<std::unique_ptr<nn::Evaluator>> evaluators,
                  const data::RowShape& shape, int target);
  void StartGameThreads(Epoch& epoch, std::vector<std::thread>* threads);
  void Monitor(Epoch& epoch, std::future<std::vector<std::unique_ptr<nn::Evaluator>>>* loading,
               std::vector<std::unique_ptr<nn::Evaluator>>* next, Clock::time_point* switch_start);
  bool EndEpoch(Epoch& epoch, const std::exception_ptr& monitor_error, bool have_next, int* target);
  SelfplayStats Totals(const Epoch* epoch) const;

  const SelfplayOptions& options_;
  Logger& logger_;
  StopToken stop_;
  SeedSource seeds_;
  ServiceHeartbeat heartbeat_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_log_ = Clock::now();
  std::atomic<bool> failed_{false};
  std::atomic<bool> drop_games_{false};
  std::optional<Clock::time_point> stop_seen_;  // monitor thread only
  // Set by the monitor while the unpublished rows exceed the limit: no game starts.
  std::atomic<bool> paused_{false};
  std::mutex failure_mutex_;
  std::string failure_;
  std::atomic<int64_t> games_started_{0};
  std::atomic<int64_t> games_finished_{0};
  std::atomic<int64_t> games_dropped_{0};
  std::atomic<int64_t> rows_finished_{0};
  // Model changes, for the heartbeat: seconds the last model took to load (on the loading
  // thread) and from "newer model ready" until it played (games in flight finishing).
  std::atomic<double> model_load_seconds_{0};
  std::atomic<double> model_switch_seconds_{0};
  std::atomic<int64_t> model_switches_{0};
  // NN totals of the epochs already over.
  SelfplayStats past_;
  PublishCounters published_;
  // Sinks of past models whose shards could not all be published yet (monitor thread only).
  std::vector<std::unique_ptr<ShardSink>> unpublished_;
  std::string model_name_;
  struct FailedModel {
    std::time_t mtime = 0;   // of the model's directory when it failed
    Clock::time_point when;  // when it failed
  };
  std::map<std::string, FailedModel> failed_models_;  // by name (monitor thread only)
  int max_board_size_ = 0;
  bool simulated_ = false;  // devices = sim
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

void SelfplayRunner::GameSlot(Epoch& epoch, nn::BatchingServer& server, uint64_t slot_seed,
                              play::FiberTask& fiber) {
  try {
    Rng rng(slot_seed);
    play::NetLeafEvaluator leaf(server, rng, /*random_symmetry=*/true, &fiber, epoch.cache.get());
    server.AddClient();
    struct ClientGuard {
      nn::BatchingServer& server;
      ~ClientGuard() { server.RemoveClient(); }
    } client_guard{server};
    const play::Player player{&leaf, server.model_name()};
    const auto drop = [this] { return DropGames(); };
    while (!StopNow() && !epoch.retire.load()) {
      // Too many rows could not be published: wait for the monitor's retries to succeed.
      if (paused_.load()) {
        fiber.SleepFor(kMonitorTick);
        continue;
      }
      if (!ClaimGame()) break;
      play::FinishedGame game;
      if (!play::PlayGame(options_.game, player, player, seeds_.NextSeed(), drop, &game)) {
        ++games_dropped_;
        break;
      }
      epoch.sink->Add(game);
      {
        std::lock_guard<std::mutex> lock(epoch.ends_mutex);
        epoch.ends.Add(game);
      }
      rows_finished_ += static_cast<int64_t>(game.rows.size());
      ++games_finished_;
    }
  } catch (const std::exception& e) {
    logger_.Error(std::string("selfplay game failed, stopping: ") + e.what());
    std::lock_guard<std::mutex> lock(failure_mutex_);
    if (failure_.empty()) failure_ = e.what();
    failed_ = true;
  }
}

void SelfplayRunner::WatchStop() {
  if (!stop_.stop_requested() || drop_games_.load()) return;
  const auto now = Clock::now();
  if (!stop_seen_) {
    stop_seen_ = now;
    if (options_.finish_games_seconds > 0 && !stop_.urgent_requested())
      logger_.Info(StrCat("stop requested: finishing the games in flight (at most ",
                          FormatFixed(options_.finish_games_seconds, 0),
                          " s; a second SIGINT drops them), then publishing"));
  }
  const double waited = std::chrono::duration<double>(now - *stop_seen_).count();
  if (stop_.urgent_requested() || waited >= options_.finish_games_seconds) {
    logger_.Info(
        StrCat("stop requested: dropping the games in flight (",
               stop_.urgent_requested() ? "second stop request" : "finish_games_seconds passed",
               "), publishing finished rows"));
    drop_games_ = true;
  }
}

std::vector<std::unique_ptr<nn::Evaluator>> SelfplayRunner::MakeEvaluators(
    const std::optional<play::ModelInfo>& model) {
  std::vector<std::unique_ptr<nn::Evaluator>> evaluators;
  for (const std::string& device : options_.devices) {
    if (device == play::kSimulatedDevice) {
      evaluators.push_back(std::make_unique<nn::SimulatedDeviceEvaluator>(options_.game.pos_len,
                                                                          options_.sim_timing));
    } else {
      evaluators.push_back(
          play::MakeEvaluator(model, options_.game.pos_len, device, options_.load_model));
    }
  }
  for (const auto& evaluator : evaluators)
    if (evaluator->pos_len() < max_board_size_)
      throw ConfigError(StrCat("model ", evaluator->model_name(), " has pos_len ",
                               evaluator->pos_len(), ", smaller than board size ",
                               max_board_size_));
  return evaluators;
}

bool SelfplayRunner::RecentlyFailed(const play::ModelInfo& model) const {
  const auto it = failed_models_.find(model.name);
  return it != failed_models_.end() && it->second.mtime == model.mtime &&
         Clock::now() - it->second.when < options_.model_retry_interval;
}

std::vector<std::unique_ptr<nn::Evaluator>> SelfplayRunner::LoadNewest(
    const std::vector<play::ModelInfo>& models, const std::string& current, bool startup) {
  for (const play::ModelInfo& model : models) {
    if (model.name == current) break;  // nothing newer than the current model loads
    if (RecentlyFailed(model)) continue;
    logger_.Info("model " + model.name + ": loading");
    try {
      const auto load_start = Clock::now();
      std::vector<std::unique_ptr<nn::Evaluator>> evaluators = MakeEvaluators(model);
      model_load_seconds_ = std::chrono::duration<double>(Clock::now() - load_start).count();
      failed_models_.erase(model.name);
      return evaluators;
    } catch (const std::exception& e) {
      if (startup && dynamic_cast<const ConfigError*>(&e) != nullptr) throw;
      failed_models_[model.name] = FailedModel{model.mtime, Clock::now()};
      logger_.Error(StrCat(
          "cannot use model ", model.name, " (tried again when its directory changes or in ",
          std::chrono::duration_cast<std::chrono::seconds>(options_.model_retry_interval).count(),
          " s), ", (startup ? "trying an older one" : "playing on with " + current), ": ",
          e.what()));
    }
  }
  return {};
}

std::vector<std::unique_ptr<nn::Evaluator>> SelfplayRunner::LoadAtStartup() {
  const std::vector<play::ModelInfo> models = play::ListModelsNewestFirst(options_.models_dir);
  if (simulated_) {
    if (!models.empty())
      logger_.Warning("devices = sim: the stand-in GPU answers as the random net; the models in " +
                      options_.models_dir + " are not played");
    return MakeEvaluators(std::nullopt);
  }
  // A binary without libtorch cannot run any model: that is an error, not a broken model.
  if (!models.empty() && !options_.load_model) return MakeEvaluators(models.front());
  std::vector<std::unique_ptr<nn::Evaluator>> evaluators = LoadNewest(models, "", true);
  if (evaluators.empty()) {
    if (!models.empty()) logger_.Error("no model loads: playing with the random net");
    evaluators = MakeEvaluators(std::nullopt);
  }
  return evaluators;
}

std::vector<std::unique_ptr<nn::Evaluator>> SelfplayRunner::CheckForNewModel(
    const std::string& current) {
  if (simulated_) return {};
  std::vector<play::ModelInfo> models;
  try {
    models = play::ListModelsNewestFirst(options_.models_dir);
  } catch (const Error& e) {
    logger_.Warning(std::string("cannot look for new models: ") + e.what());
    return {};
  }
  return LoadNewest(models, current, false);
}

void SelfplayRunner::PublishOldShards(Epoch& epoch) {
  const auto max_age = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.max_shard_age_seconds));
  const auto retry_interval = std::min<Clock::duration>(max_age, kMaxRetryInterval);
  epoch.sink->PublishIfOld(max_age, retry_interval);
  for (const auto& sink : unpublished_) sink->PublishIfOld(max_age, retry_interval);
  unpublished_.erase(std::remove_if(unpublished_.begin(), unpublished_.end(),
                                    [](const auto& sink) { return !sink->has_failed(); }),
                     unpublished_.end());
  bool over = epoch.sink->over_limit();
  for (const auto& sink : unpublished_) over = over || sink->over_limit();
  if (over != paused_.load()) {
    const int64_t rows = UnpublishedRows(&epoch);
    if (over) {
      logger_.Warning("pausing play: " + std::to_string(rows) +
                      " rows could not be published (more than " +
                      std::to_string(kMaxFailedShards * options_.max_rows_per_file) +
                      ", see the warnings above); retrying every " +
                      FormatFixed(std::chrono::duration<double>(retry_interval).count(), 1) +
                      " s, play resumes once they are published");
    } else {
      logger_.Info("publishing works again: resuming play (" + std::to_string(rows) +
                   " rows still unpublished)");
    }
    paused_ = over;
  }
}

std::string SelfplayRunner::FlushUnpublished() {
  std::string lost;
  for (const auto& sink : unpublished_) {
    sink->Flush();
    if (sink->has_failed())
      lost += StrCat((lost.empty() ? "" : ", "), sink->failed_rows(), " rows of ", sink->model());
  }
  unpublished_.clear();
  return lost;
}

int64_t SelfplayRunner::UnpublishedRows(const Epoch* epoch) const {
  int64_t rows = epoch != nullptr ? epoch->sink->failed_rows() : 0;
  for (const auto& sink : unpublished_) rows += sink->failed_rows();
  return rows;
}

SelfplayStats SelfplayRunner::Totals(const Epoch* epoch) const {
  SelfplayStats stats = past_;
  stats.games = games_finished_.load();
  stats.dropped_games = games_dropped_.load();
  stats.seconds = SecondsSince(start_);
  stats.rows = published_.rows.load();
  stats.shards = published_.shards.load();
  if (epoch != nullptr) {
    for (const auto& server : epoch->servers) {
      const nn::BatchingStats nn_stats = server->stats();
      stats.nn_positions += nn_stats.positions;
      stats.nn_batches += nn_stats.batches;
    }
    if (epoch->cache) {
      stats.nn_cache_lookups += epoch->cache->lookups();
      stats.nn_cache_hits += epoch->cache->hits();
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
  const double cache_hit_rate =
      stats.nn_cache_lookups
          ? static_cast<double>(stats.nn_cache_hits) / static_cast<double>(stats.nn_cache_lookups)
          : 0.0;
  GameEndStats ends;
  {
    std::lock_guard<std::mutex> lock(epoch.ends_mutex);
    ends = epoch.ends;
  }
  const auto now = Clock::now();
  if (force_log || now - last_log_ >= options_.log_interval) {
    last_log_ = now;
    // With several servers, the mean batch of each (this model's batches only) follows.
    std::string per_server;
    if (epoch.servers.size() > 1) {
      for (const auto& server : epoch.servers)
        per_server += (per_server.empty() ? " (servers " : ", ") +
                      FormatFixed(server->stats().MeanBatchSize(), 1);
      per_server += ")";
    }
    const std::string cache_text =
        epoch.cache ? StrCat(", NN cache hits ", FormatFixed(100.0 * cache_hit_rate, 1), "%")
                    : std::string();
    // How this model's games end follows on the same line, so that one line says it all.
    const std::string ends_text = FormatGameEnds(ends);
    logger_.Info(StrCat(state, ": model ", model_name_, ", games ", stats.games, " (started ",
                        games_started_.load(), ", dropped ", stats.dropped_games, "), rows ",
                        rows_finished_.load(), " (published ", stats.rows, " in ", stats.shards,
                        " shards), ", FormatFixed(games_per_hour, 0), " games/hour, ",
                        FormatFixed(rows_per_second, 1), " rows/s, ",
                        FormatFixed(evals_per_second, 0), " NN evals/s, mean batch ",
                        FormatFixed(mean_batch, 1), per_server, cache_text,
                        (ends_text.empty() ? "" : "; " + ends_text)));
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
                   {"rows_unpublished", static_cast<double>(UnpublishedRows(&epoch))},
                   {"games_per_hour", games_per_hour},
                   {"rows_per_second", rows_per_second},
                   {"nn_evals_per_second", evals_per_second},
                   {"mean_batch_size", mean_batch},
                   {"nn_cache_hit_rate", cache_hit_rate},
                   {"nn_cache_lookups", static_cast<double>(stats.nn_cache_lookups)},
                   {"nn_cache_hits", static_cast<double>(stats.nn_cache_hits)},
                   {"uptime_seconds", stats.seconds},
                   {"model_load_seconds", model_load_seconds_.load()},
                   {"model_switch_seconds", model_switch_seconds_.load()},
                   {"model_switches", static_cast<double>(model_switches_.load())}};
  // How the current model's games end (pipeline/game_end_stats.h).
  for (auto& counter : GameEndCounters(ends)) info.counters.push_back(std::move(counter));
  heartbeat_.Beat(info, force_log);
}

// Starts the epoch of model_name_: one batching server per evaluator and the shard sink
// (its first shard cut at `target` rows).
void SelfplayRunner::BeginEpoch(Epoch& epoch,
                                std::vector<std::unique_ptr<nn::Evaluator>> evaluators,
                                const data::RowShape& shape, int target) {
  // Game slot i uses server i % n. A batch never holds more positions than its server has
  // slots (each waits for its own); capping it there lets a batch run as soon as every slot
  // has submitted instead of waiting out the straggler timeout.
  const int num_servers = static_cast<int>(evaluators.size());
  std::string servers_text;
  for (int s = 0; s < num_servers; ++s) {
    const int server_slots =
        options_.num_game_threads / num_servers + (s < options_.num_game_threads % num_servers);
    const int batch_size = std::min(options_.nn_max_batch_size, server_slots);
    epoch.servers.push_back(std::make_unique<nn::BatchingServer>(
        std::move(evaluators[s]),
        nn::BatchingOptions{batch_size, std::chrono::microseconds(options_.nn_max_wait_micros)}));
    servers_text += StrCat((s == 0 ? "" : ", "), options_.devices[s], " (", server_slots,
                           " games, batches up to ", batch_size, ")");
  }
  evaluators.clear();
  std::string cache_text;
  if (options_.nn_cache_entries > 0) {
    const int pos_len = epoch.servers.front()->pos_len();
    epoch.cache = std::make_unique<nn::EvalCache>(options_.nn_cache_entries, pos_len);
    cache_text = StrCat(
        ", an evaluation cache of ", options_.nn_cache_entries, " positions (",
        FormatFixed(nn::EvalCache::BytesFor(options_.nn_cache_entries, pos_len) / (1024.0 * 1024.0),
                    0),
        " MiB)");
  }
  epoch.sink = std::make_unique<ShardSink>(
      options_.base_dir, model_name_, shape, target, options_.max_rows_per_file,
      kMaxFailedShards * static_cast<int64_t>(options_.max_rows_per_file), logger_, published_);
  logger_.Info(StrCat("playing with model ", model_name_, ": ", options_.num_game_threads,
                      " games in flight on ", SearchThreads(options_), " search threads, ",
                      num_servers, " NN server", (num_servers > 1 ? "s " : " "), servers_text,
                      cache_text, ", data under ",
                      SelfplayModelDir(options_.base_dir, model_name_)));
}

void SelfplayRunner::StartGameThreads(Epoch& epoch, std::vector<std::thread>* threads) {
  const int num_servers = static_cast<int>(epoch.servers.size());
  const int num_slots = options_.num_game_threads;
  const int num_threads = SearchThreads(options_);
  // Slot i's seed is the i-th draw, whatever the thread count.
  std::vector<std::vector<std::function<void(play::FiberTask&)>>> bodies(
      static_cast<size_t>(num_threads));
  for (int i = 0; i < num_slots; ++i) {
    const uint64_t slot_seed = seeds_.NextSeed();
    nn::BatchingServer& server = *epoch.servers[static_cast<size_t>(i % num_servers)];
    bodies[static_cast<size_t>(i % num_threads)].push_back(
        [this, &epoch, &server, slot_seed](play::FiberTask& fiber) {
          GameSlot(epoch, server, slot_seed, fiber);
        });
  }
  for (auto& thread_bodies : bodies) {
    ++epoch.running;
    try {
      threads->emplace_back([this, &epoch, work = std::move(thread_bodies)]() mutable {
        try {
          play::RunFibers(std::move(work));
        } catch (const std::exception& e) {
          // Slots catch their own errors; this is the fibers' machinery failing (no memory
          // for a stack, say).
          logger_.Error(std::string("selfplay search thread failed, stopping: ") + e.what());
          std::lock_guard<std::mutex> lock(failure_mutex_);
          if (failure_.empty()) failure_ = e.what();
          failed_ = true;
        }
        --epoch.running;
      });
    } catch (...) {
      --epoch.running;
      throw;
    }
  }
}

// Watches the epoch until its search threads are done: reports, publishes old shards, and
// loads a newer model in the background (*loading); once one loaded, it is in *next and the
// epoch retires.
void SelfplayRunner::Monitor(Epoch& epoch,
                             std::future<std::vector<std::unique_ptr<nn::Evaluator>>>* loading,
                             std::vector<std::unique_ptr<nn::Evaluator>>* next,
                             Clock::time_point* switch_start) {
  auto last_check = Clock::now();
  while (epoch.running.load() > 0) {
    std::this_thread::sleep_for(kMonitorTick);
    WatchStop();
    if (DropGames()) continue;
    // While the games in flight finish after a stop request, the monitor goes on reporting
    // and publishing, but loads no model.
    const bool stopping = StopNow();
    Report(epoch,
           stopping              ? "finishing games"
           : paused_.load()      ? "paused: cannot publish"
           : epoch.retire.load() ? "switching model"
                                 : "playing",
           false);
    PublishOldShards(epoch);
    if (stopping) continue;
    if (loading->valid() &&
        loading->wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      *next = loading->get();
      if (!next->empty()) {
        logger_.Info("switching to model " + next->front()->model_name() +
                     " once the games in flight finish");
        epoch.retire = true;
        *switch_start = Clock::now();
      }
    } else if (!loading->valid() && next->empty() &&
               Clock::now() - last_check >= options_.model_check_interval) {
      last_check = Clock::now();
      const std::string current = model_name_;
      *loading =
          std::async(std::launch::async, [this, current] { return CheckForNewModel(current); });
    }
  }
}

// After the epoch's search threads are joined: flushes its shards, reports, and throws what went
// wrong (the monitor's error first). True when selfplay is over; false when the next model
// takes over, which continues with *target.
bool SelfplayRunner::EndEpoch(Epoch& epoch, const std::exception_ptr& monitor_error, bool have_next,
                              int* target) {
  // Flush throws only when too many rows are unpublished; a monitor or game thread error
  // takes precedence.
  std::string flush_error;
  try {
    epoch.sink->Flush();
  } catch (const Error& e) {
    flush_error = e.what();
  }
  if (monitor_error) std::rethrow_exception(monitor_error);
  *target = epoch.sink->target();
  const SelfplayStats totals = Totals(&epoch);
  const bool all_started =
      options_.max_games_total > 0 && games_started_.load() >= options_.max_games_total;
  const bool done = StopNow() || !have_next || all_started || !flush_error.empty();
  Report(epoch, done ? "stopped" : "switching model", true);
  past_ = totals;
  if (failed_) throw Error("selfplay stopped after a game thread failed: " + failure_);
  if (!flush_error.empty()) throw Error(flush_error);
  if (done) {
    // One last try for the shards of past models; the current model's just failed.
    std::string lost = FlushUnpublished();
    if (epoch.sink->has_failed())
      lost += StrCat((lost.empty() ? "" : ", "), epoch.sink->failed_rows(), " rows of ",
                     epoch.sink->model());
    if (!lost.empty()) throw Error("could not publish " + lost + " (see the warnings)");
    return true;
  }
  // Its failed shards are retried while the next model plays.
  if (epoch.sink->has_failed()) unpublished_.push_back(std::move(epoch.sink));
  return false;
}

SelfplayStats SelfplayRunner::Run() {
  const play::GameParams& game = options_.game;
  TENGEN_CHECK(options_.num_game_threads > 0, "num_game_threads must be positive");
  TENGEN_CHECK(options_.max_rows_per_file > 0, "max_rows_per_file must be positive");
  TENGEN_CHECK(options_.max_shard_age_seconds > 0, "max_shard_age_seconds must be positive");
  TENGEN_CHECK(!options_.devices.empty(), "devices must name at least one device");
  TENGEN_CHECK(static_cast<int>(options_.devices.size()) <= options_.num_game_threads,
               "devices must not outnumber num_game_threads");
  TENGEN_CHECK(options_.num_search_threads >= 0, "num_search_threads must not be negative");
  simulated_ = options_.devices.front() == play::kSimulatedDevice;
  for (const std::string& device : options_.devices)
    if ((device == play::kSimulatedDevice) != simulated_)
      throw ConfigError("devices: sim (the stand-in GPU) cannot be mixed with real devices");
  const int max_size = play::CheckBoardSizes(game);
  const data::RowShape shape{game.pos_len, nn::kNumSpatialFeatures, nn::kNumGlobalFeatures,
                             nn::kFeatureVersion};
  // The process's first shard is shorter by a uniform random amount (see selfplay.h).
  int target =
      1 + static_cast<int>(seeds_.Uniform(static_cast<uint32_t>(options_.max_rows_per_file)));

  max_board_size_ = max_size;
  std::vector<std::unique_ptr<nn::Evaluator>> evaluators = LoadAtStartup();
  Clock::time_point switch_start = Clock::now();  // when the next model was ready
  while (true) {
    model_name_ = evaluators.front()->model_name();
    Epoch epoch;
    BeginEpoch(epoch, std::move(evaluators), shape, target);

    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<nn::Evaluator>> next;
    // A newer model loads on its own thread (seconds for a real net) so that the monitor keeps
    // reporting, publishing and answering a stop meanwhile. Only one load is in flight, and
    // only it touches the failed-model bookkeeping. If the epoch ends during a load, leaving
    // this scope waits for it.
    std::future<std::vector<std::unique_ptr<nn::Evaluator>>> loading;
    // The search threads must be joined whatever happens here (a std::thread destroyed
    // unjoined ends the process), so a monitor error stops them first.
    std::exception_ptr monitor_error;
    try {
      StartGameThreads(epoch, &threads);
      Monitor(epoch, &loading, &next, &switch_start);
    } catch (...) {
      monitor_error = std::current_exception();
      failed_ = true;
    }
    for (std::thread& thread : threads) thread.join();
    // The monitor says it when it saw the stop; the games may all have ended before it did.
    if (stop_.stop_requested() && !stop_seen_)
      logger_.Info("stop requested: the games in flight finished, publishing");

    if (EndEpoch(epoch, monitor_error, !next.empty(), &target)) break;
    evaluators = std::move(next);
    model_switch_seconds_ = std::chrono::duration<double>(Clock::now() - switch_start).count();
    ++model_switches_;
  }
  return Totals(nullptr);
}

}  // namespace

int SearchThreads(const SelfplayOptions& options) {
  const int threads = options.num_search_threads > 0
                          ? options.num_search_threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min(threads, options.num_game_threads));
}

SelfplayStats RunSelfplay(const SelfplayOptions& options, Logger& logger, StopToken stop) {
  SelfplayRunner runner(options, logger, stop);
  return runner.Run();
}

}  // namespace tengen::pipeline
