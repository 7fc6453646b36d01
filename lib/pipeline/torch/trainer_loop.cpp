#include "pipeline/torch/trainer_loop.h"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "nn/features.h"
#include "nn/model_config.h"
#include "nn/torch/distributed.h"
#include "nn/torch/model.h"
#include "pipeline/base_dir.h"
#include "pipeline/checkpoints.h"
#include "pipeline/heartbeat.h"
#include "pipeline/service.h"
#include "pipeline/torch/trainer_outputs.h"
#include "pipeline/train_data.h"
#include "play/model_registry.h"
#include "play/torch/torch_loader.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/publish.h"
#include "util/rng.h"
#include "util/text.h"
#include "util/version.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Marks the shuffles an epoch reads as in use: the shuffler removes old shuffles by their
// directory's age (CleanupShuffles), so the trainer keeps refreshing the mtime of the ones it
// reads.
void KeepShufflesAlive(const std::vector<std::string>& files) {
  std::set<std::string> dirs;
  for (const std::string& file : files) dirs.insert(fs::path(file).parent_path().string());
  const std::time_t now = std::time(nullptr);
  for (const std::string& dir : dirs) {
    boost::system::error_code error;
    fs::last_write_time(dir, now, error);
  }
}

// What the trainer does next.
enum class Action { kTrain, kWait, kStop };

const char* ActionName(Action action) {
  switch (action) {
    case Action::kTrain:
      return "train";
    case Action::kWait:
      return "wait";
    case Action::kStop:
      return "stop";
  }
  return "stop";
}

Action ActionFromName(const std::string& name) {
  for (const Action action : {Action::kTrain, Action::kWait, Action::kStop}) {
    if (name == ActionName(action)) return action;
  }
  throw FormatError("trainer decision from rank 0: unknown action '" + name + "'");
}

// Why no epoch could be planned (PlanNewEpoch).
enum class Shortage { kNoShuffle, kBucketLimited, kNoUsableFile };

// What rank 0 decided for the next round, as every rank receives it.
struct Decision {
  Action action = Action::kWait;
  bool stop_requested = false;  // kStop because of a stop request (not a stop condition)
  std::string reason;           // for the log
  std::vector<std::string> files;
  int64_t epoch = 0;
  int64_t steps = 0;
  int64_t skip = 0;
  uint64_t seed = 0;

  std::string ToJson() const {
    return json{{"action", ActionName(action)},
                {"stop_requested", stop_requested},
                {"reason", reason},
                {"files", files},
                {"epoch", epoch},
                {"steps", steps},
                {"skip", skip},
                {"seed", std::to_string(seed)}}
        .dump();
  }
  static Decision FromJson(const std::string& text) {
    const json j = json::parse(text);
    Decision d;
    d.action = ActionFromName(j.at("action").get<std::string>());
    d.stop_requested = j.at("stop_requested").get<bool>();
    d.reason = j.at("reason").get<std::string>();
    d.files = j.at("files").get<std::vector<std::string>>();
    d.epoch = j.at("epoch").get<int64_t>();
    d.steps = j.at("steps").get<int64_t>();
    d.skip = j.at("skip").get<int64_t>();
    d.seed = std::stoull(j.at("seed").get<std::string>());
    return d;
  }
};

// Content keys of files, computed once per (path, size, mtime).
class KeyCache {
 public:
  std::string Key(const std::string& path) {
    boost::system::error_code error;
    const auto size = fs::file_size(path, error);
    const auto mtime = fs::last_write_time(path, error);
    auto& entry = cache_[path];
    if (entry.key.empty() || entry.size != size || entry.mtime != mtime) {
      entry = {FileContentKey(path), size, mtime};
    }
    return entry.key;
  }

 private:
  struct Entry {
    std::string key;
    uintmax_t size = 0;
    std::time_t mtime = 0;
  };
  std::map<std::string, Entry> cache_;
};

class TrainerLoop {
 public:
  TrainerLoop(const TrainerProgramOptions& options, Logger& logger, const StopToken& stop)
      : o_(options),
        logger_(logger),
        stop_(stop),
        train_dir_(TrainDir(options.base_dir, options.training_name)),
        heartbeat_(options.base_dir, "trainer", options.heartbeat_interval, logger) {
    bucket_.per_new_data = o_.max_train_bucket_per_new_data;
    bucket_.max_size = o_.max_train_bucket_size;
    bucket_.samples_per_epoch = o_.samples_per_epoch;
  }

  TrainerResult Run();

 private:
  bool rank0() const { return group_ == nullptr || group_->rank() == 0; }
  int rank() const { return group_ == nullptr ? 0 : group_->rank(); }
  int world() const { return group_ == nullptr ? 1 : group_->world_size(); }
  bool AnyStop() {
    const bool local = stop_.stop_requested();
    return group_ == nullptr ? local : group_->AnyTrue(local);
  }
  void Start();
  // The weights of init_from (a model or a checkpoint directory); ConfigError when it is
  // neither or holds another architecture.
  std::unique_ptr<nn::TorchModel> InitialWeights(const nn::ModelConfig& config,
                                                 const nn::TrainerOptions& net_options);
  Decision Decide();
  // Plans `steps` steps from the newest shuffle into state_, paying one epoch from the bucket
  // when `spend`; otherwise says what is short (and *reason why, for the log).
  std::optional<Shortage> PlanNewEpoch(std::string* reason, int64_t steps, bool spend);
  // Waits for more data, or stops when the options say that this shortage ends the run.
  Decision WaitOrStop(Shortage shortage, const std::string& reason) const;
  // Fails with a ConfigError when the shuffle's rows do not fit the net (pos_len, features).
  void CheckDataShape(const ShuffleDir& shuffle);
  // Trains the decided epoch; false when a stop request interrupted it.
  bool TrainEpoch(const Decision& d);
  void FinishEpoch(const nn::LossSums& epoch_sums, int64_t steps_this_run);
  void Beat(const std::string& what, bool force = false);
  void WaitPoll();
  // Rank 0 at the end of an epoch: checkpoint, metrics line, snapshot; retried until written.
  void WriteEpochEnd(const json& line);

  const TrainerProgramOptions& o_;
  Logger& logger_;
  const StopToken& stop_;
  std::string train_dir_;
  BucketOptions bucket_;
  ServiceHeartbeat heartbeat_;
  std::unique_ptr<nn::ProcessGroup> group_;
  std::unique_ptr<nn::NetTrainer> trainer_;
  TrainState state_;
  KeyCache keys_;
  std::string last_checkpoint_;
  std::string last_shuffle_;
  double samples_per_second_ = 0;
  int64_t steps_total_ = 0;  // optimizer steps of this instance
  nn::LossSums last_epoch_;
};

void TrainerLoop::Start() {
  const nn::DistributedConfig dist = nn::DistributedConfigFromEnvironment(o_.rendezvous_file);
  nn::TrainerOptions net_options = o_.net;
  net_options.device = nn::RankDevice(o_.net.device, dist);
  net_options.precision =
      play::ResolvePrecision(o_.net.precision, net_options.device, /*training=*/true);
  if (net_options.intra_op_threads == 0 && net_options.device == "cpu") {
    net_options.intra_op_threads =
        CpuTrainThreads(std::thread::hardware_concurrency(), dist.local_world_size);
  }
  if (dist.world_size > 1) {
    if (o_.batch_size % dist.world_size != 0) {
      throw ConfigError(StrCat("batch_size ", o_.batch_size, " cannot be split evenly over ",
                               dist.world_size, " ranks"));
    }
    logger_.Info(StrCat("joining rank ", dist.rank, " of ", dist.world_size));
    group_ = nn::ProcessGroup::Create(dist, net_options.device);
    logger_.Info("process group up (" + group_->backend() + ")");
  }
  if (rank0()) EnsureDirectory(train_dir_);

  nn::ModelConfig config;
  nn::ParseArchitecture(o_.model_kind, &config);
  config.pos_len = o_.pos_len;
  config.name = o_.run_name + "-" + o_.training_name;
  // Rank 0 chooses between its newest checkpoint and a fresh start (with the seed) and every
  // rank follows, so that all of them take the same path (and the same collectives) even when
  // one sees a stale view of the shared directory.
  StartChoice choice;
  std::optional<CheckpointFiles> resume;  // rank 0's, read while choosing
  if (rank0()) choice = ChooseStart(train_dir_, static_cast<int64_t>(o_.seed), &resume, logger_);
  if (group_ != nullptr) choice = StartChoice::FromText(group_->BroadcastString(choice.ToText()));
  if (choice.kind == StartChoice::Kind::kError) throw Error(choice.error);
  if (choice.kind == StartChoice::Kind::kResume) {
    const std::string dir = CheckpointsDir(train_dir_) + "/" + choice.checkpoint;
    if (!resume) resume = ReadCheckpoint(dir);
    state_ = resume->state;
    trainer_ = std::make_unique<nn::NetTrainer>(*nn::TorchModel::Create(config, 0), net_options,
                                                group_.get());
    trainer_->LoadState(resume->trainer_bytes, dir + "/" + kTrainerStateFile);
    last_checkpoint_ = dir;
    logger_.Info(StrCat("resuming from ", dir, ": ", state_.samples, " samples, ", state_.epochs,
                        " epochs, bucket ", FormatFixed(state_.bucket_level, 0),
                        (state_.in_epoch ? StrCat(", finishing an epoch at step ",
                                                  state_.epoch_steps_done, "/", state_.epoch_steps)
                                         : "")));
    return;
  }
  const uint64_t seed = choice.seed;
  state_ = FreshTrainState(bucket_, seed);
  std::unique_ptr<nn::TorchModel> start;
  if (!o_.init_from.empty()) {
    start = InitialWeights(config, net_options);
  } else {
    start = nn::TorchModel::Create(config, seed);
    logger_.Info(StrCat("starting from fresh ", o_.model_kind, " weights (seed ", seed, ")"));
  }
  trainer_ = std::make_unique<nn::NetTrainer>(*start, net_options, group_.get());
}

std::unique_ptr<nn::TorchModel> TrainerLoop::InitialWeights(const nn::ModelConfig& config,
                                                            const nn::TrainerOptions& net_options) {
  const std::string& from = o_.init_from;
  std::unique_ptr<nn::TorchModel> start;
  if (boost::filesystem::exists(from + "/" + kTrainerStateFile)) {
    // A checkpoint: its weights through a trainer of this architecture (the average, when
    // weight_average_samples keeps one).
    const CheckpointFiles checkpoint = ReadCheckpoint(from);
    nn::TrainerOptions cpu = net_options;
    cpu.device = "cpu";
    nn::NetTrainer reader(*nn::TorchModel::Create(config, 0), cpu, nullptr);
    reader.LoadState(checkpoint.trainer_bytes, from + "/" + kTrainerStateFile);
    start = reader.Snapshot("init");
    state_.samples_before = checkpoint.state.samples_before + checkpoint.state.samples;
    logger_.Info(StrCat("starting from the weights of checkpoint ", from, " (",
                        state_.samples_before, " samples), a fresh optimizer"));
  } else {
    if (!boost::filesystem::is_directory(from)) {
      throw ConfigError("init_from: '" + from + "' is neither a model nor a checkpoint directory");
    }
    start = nn::TorchModel::Load(from);
    if (start->config().Architecture() != config.Architecture()) {
      throw ConfigError("init_from: " + from + " is " + start->config().Architecture() +
                        ", not model_kind " + o_.model_kind);
    }
    if (start->config().pos_len != config.pos_len) {
      // The same weights in this run's planes, so that its snapshots say its pos_len.
      logger_.Info(StrCat("init_from: ", from, " has pos_len ", start->config().pos_len,
                          ", its weights serve this run's ", config.pos_len, " unchanged"));
      start = nn::TorchModel::Grow(*start, config, /*seed=*/0);
    }
    std::string name = from;
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    int64_t rows = 0;
    if (!play::ParseModelName(fs::path(name).filename().string(), &state_.samples_before, &rows))
      state_.samples_before = 0;
    logger_.Info(StrCat("starting from the weights of model ", from, " (", state_.samples_before,
                        " samples), a fresh optimizer"));
  }
  return start;
}

void TrainerLoop::CheckDataShape(const ShuffleDir& shuffle) {
  for (const std::string& file : shuffle.files) {
    data::RowShape shape;
    try {
      shape = data::ReadShardShape(file);
    } catch (const std::exception&) {
      continue;  // unreadable files are logged and skipped when the epoch is planned
    }
    if (shape.pos_len != o_.pos_len || shape.num_spatial != nn::kNumSpatialFeatures ||
        shape.num_global != nn::kNumGlobalFeatures ||
        shape.feature_version != nn::kFeatureVersion) {
      throw ConfigError(
          StrCat(file, ": rows of pos_len ", shape.pos_len, " with ", shape.num_spatial,
                 " spatial and ", shape.num_global, " global features (version ",
                 shape.feature_version, "), but this trainer's net takes pos_len ", o_.pos_len,
                 " with ", nn::kNumSpatialFeatures, " and ", nn::kNumGlobalFeatures, " (version ",
                 nn::kFeatureVersion, "): set pos_len to the selfplay pos_len"));
    }
    return;
  }
}

std::optional<Shortage> TrainerLoop::PlanNewEpoch(std::string* reason, int64_t steps, bool spend) {
  const std::optional<ShuffleDir> shuffle = FindNewestShuffle(o_.base_dir, logger_);
  if (!shuffle) {
    *reason = "no shuffled data yet in " + ShuffledDataDir(o_.base_dir);
    return Shortage::kNoShuffle;
  }
  if (shuffle->name != last_shuffle_) {
    const double credit = CreditNewRows(state_, shuffle->total_rows, bucket_, logger_);
    logger_.Info(StrCat("shuffle ", shuffle->name, ": ", shuffle->total_rows, " rows in total, ",
                        shuffle->files.size(), " files; bucket +", FormatFixed(credit, 0), " = ",
                        FormatFixed(state_.bucket_level, 0)));
    last_shuffle_ = shuffle->name;
    CheckDataShape(*shuffle);
  }
  std::vector<int64_t> rows;
  std::vector<std::string> keys;
  std::set<std::string> used(state_.used_files.begin(), state_.used_files.end());
  for (const std::string& file : shuffle->files) {
    try {
      rows.push_back(data::CountShardRows(file));
      keys.push_back(o_.no_repeat_files ? keys_.Key(file) : file);
    } catch (const std::exception& e) {
      logger_.Warning("skipping training file " + file + ": " + e.what());
      rows.push_back(0);
      keys.push_back(file);
    }
  }
  TrainState trial = state_;
  if (spend && !TrySpendEpoch(trial, bucket_)) {
    *reason = StrCat("train bucket limited (", FormatFixed(state_.bucket_level, 0), " < ",
                     o_.samples_per_epoch, " samples)");
    return Shortage::kBucketLimited;
  }
  const std::vector<std::string> files =
      PlanEpochFiles(shuffle->files, rows, used, keys, o_.no_repeat_files, o_.batch_size,
                     state_.seed, state_.epochs, &steps);
  if (steps == 0) {
    *reason = o_.no_repeat_files ? "every file of " + shuffle->name + " has been used"
                                 : "no file of " + shuffle->name + " holds a whole batch";
    return Shortage::kNoUsableFile;
  }
  state_ = trial;
  if (o_.no_repeat_files) {
    // Keys of older shuffles can never match again: keep only this shuffle's.
    std::set<std::string> current(keys.begin(), keys.end());
    std::vector<std::string> kept;
    for (const std::string& key : state_.used_files) {
      if (current.count(key) > 0) kept.push_back(key);
    }
    for (const std::string& file : files) {
      const size_t i = static_cast<size_t>(
          std::find(shuffle->files.begin(), shuffle->files.end(), file) - shuffle->files.begin());
      kept.push_back(keys[i]);
    }
    state_.used_files = kept;
  }
  state_.in_epoch = true;
  state_.epoch_files = files;
  state_.epoch_steps = steps;
  state_.epoch_steps_done = 0;
  return std::nullopt;
}

Decision TrainerLoop::WaitOrStop(Shortage shortage, const std::string& reason) const {
  Decision d;
  d.reason = reason;
  const bool stop =
      shortage == Shortage::kBucketLimited ? o_.stop_when_train_bucket_limited : o_.quit_if_no_data;
  d.action = stop ? Action::kStop : Action::kWait;
  return d;
}

Decision TrainerLoop::Decide() {
  Decision d;
  if (stop_.stop_requested()) {
    d.action = Action::kStop;
    d.stop_requested = true;
    d.reason = "stop requested";
    return d;
  }
  if (state_.in_epoch) {
    // The shuffler may have removed the interrupted epoch's files (old shuffles are cleaned
    // up): its remaining steps are planned again from the newest shuffle, already paid for.
    const auto missing = std::find_if(state_.epoch_files.begin(), state_.epoch_files.end(),
                                      [](const std::string& file) {
                                        boost::system::error_code error;
                                        return !fs::exists(file, error);
                                      });
    if (missing != state_.epoch_files.end()) {
      const int64_t remaining = state_.epoch_steps - state_.epoch_steps_done;
      logger_.Warning(StrCat("the interrupted epoch's file ", *missing, " is gone: planning its ",
                             remaining, " remaining steps from the newest shuffle"));
      state_.in_epoch = false;
      std::string reason;
      if (const auto shortage = PlanNewEpoch(&reason, remaining, false)) {
        state_.in_epoch = true;  // still owed; try again later
        return WaitOrStop(*shortage, reason);
      }
    }
  }
  if (!state_.in_epoch) {
    const int64_t steps = std::max<int64_t>(1, o_.samples_per_epoch / o_.batch_size);
    std::string reason;
    if (const auto shortage = PlanNewEpoch(&reason, steps, true)) {
      return WaitOrStop(*shortage, reason);
    }
  }
  d.action = Action::kTrain;
  d.files = state_.epoch_files;
  d.epoch = state_.epochs;
  d.steps = state_.epoch_steps;
  d.skip = state_.epoch_steps_done;
  d.seed = state_.seed;
  return d;
}

void TrainerLoop::Beat(const std::string& what, bool force) {
  if (!rank0()) return;
  HeartbeatInfo info;
  info.state = what;
  info.texts = {{"training_name", o_.training_name}, {"last_checkpoint", last_checkpoint_}};
  info.counters = {{"samples", static_cast<double>(state_.samples)},
                   {"epochs", static_cast<double>(state_.epochs)},
                   {"bucket", state_.bucket_level},
                   {"rows", static_cast<double>(state_.total_rows)},
                   {"samples_per_second", samples_per_second_},
                   {"ranks", static_cast<double>(world())}};
  if (last_epoch_.weight > 0) {
    info.counters.emplace_back("policy_loss", last_epoch_.policy / last_epoch_.weight);
    info.counters.emplace_back("value_loss", last_epoch_.value / last_epoch_.weight);
  }
  heartbeat_.Beat(info, force);
}

void TrainerLoop::WaitPoll() {
  Beat("waiting");
  WaitUnlessStopped(stop_, o_.poll_interval, [this] { Beat("waiting"); });
}

// The end of a whole epoch: its state and losses kept, then on rank 0 the checkpoint, the
// metrics line and the snapshot.
void TrainerLoop::FinishEpoch(const nn::LossSums& epoch_sums, int64_t steps_this_run) {
  state_.in_epoch = false;
  state_.epoch_files.clear();
  state_.epoch_steps_done = 0;
  state_.epoch_steps = 0;
  ++state_.epochs;
  last_epoch_ = epoch_sums;
  trainer_->SyncRunningStats();
  if (rank0()) {
    const double w = std::max(epoch_sums.weight, 1e-9);
    json line{{"time_utc", UtcTimestampSeconds()},
              {"epoch", state_.epochs},
              {"samples", state_.samples},
              {"rows", state_.total_rows},
              {"steps", steps_this_run},
              {"lr", LearningRate(o_, state_.samples, state_.samples_before)},
              {"bucket", state_.bucket_level},
              {"samples_per_second", samples_per_second_},
              {"micro_batch", trainer_->micro_batch()},
              {"loss_policy", epoch_sums.policy / w},
              {"loss_soft_policy", epoch_sums.soft_policy / w},
              {"loss_opponent_policy", epoch_sums.opponent_policy / w},
              {"loss_value", epoch_sums.value / w},
              {"loss_td_value", epoch_sums.td_value / w},
              {"loss_score", epoch_sums.score / w},
              {"loss_ownership", epoch_sums.ownership / w},
              {"loss_total", epoch_sums.total / w}};
    // The checkpoint first: a crash between the two loses a metrics line, never writes one
    // twice for the same epoch.
    WriteEpochEnd(line);
  }
}

bool TrainerLoop::TrainEpoch(const Decision& d) {
  EpochBatches batches(d.files, o_.batch_size, rank(), world(), d.seed, d.epoch);
  batches.Skip(d.skip, logger_);
  if (rank0()) {
    logger_.Info(StrCat("epoch ", d.epoch + 1, ": ", d.steps, " steps of ", o_.batch_size, " from ",
                        d.files.size(), " files, learning rate ",
                        LearningRate(o_, state_.samples, state_.samples_before), " per sample",
                        (d.skip > 0 ? StrCat(", resuming at step ", d.skip) : "")));
  }
  nn::LossSums epoch_sums;
  const auto start = Clock::now();
  auto last_progress = start;
  auto last_keep_alive = start;
  if (rank0()) KeepShufflesAlive(d.files);
  int64_t steps_this_run = 0;
  int64_t step = d.skip;
  nn::TrainBatch batch;
  while (step < d.steps) {
    const bool step_limit =
        o_.max_steps_this_instance > 0 && steps_total_ >= o_.max_steps_this_instance;
    if (step_limit || AnyStop()) {
      if (step_limit && rank0()) logger_.Info("max_steps_this_instance reached");
      state_.in_epoch = true;
      trainer_->SyncRunningStats();
      if (rank0()) WriteCheckpoint(train_dir_, trainer_->SaveState(), state_, logger_);
      return false;
    }
    const bool have = batches.Next(&batch, logger_);
    if (group_ != nullptr ? group_->AnyTrue(!have) : !have) {
      logger_.Warning(
          StrCat("epoch plan ran out of readable rows at step ", step, " of ", d.steps));
      break;
    }
    const int micro_before = trainer_->micro_batch();
    const nn::LossSums sums = trainer_->Step(
        batch, o_.batch_size, LearningRate(o_, state_.samples, state_.samples_before));
    if (trainer_->micro_batch() < micro_before) {
      logger_.Warning(StrCat("out of memory: micro-batch halved to ", trainer_->micro_batch()));
    }
    epoch_sums.Add(sums);
    state_.samples += o_.batch_size;
    state_.epoch_steps_done = ++step;
    ++steps_this_run;
    ++steps_total_;
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - start).count();
    samples_per_second_ = static_cast<double>(steps_this_run * o_.batch_size) / seconds;
    if (rank0() && now - last_progress >= o_.progress_interval) {
      last_progress = now;
      const double eta =
          static_cast<double>(d.steps - step) * o_.batch_size / std::max(samples_per_second_, 1e-9);
      logger_.Info(StrCat("step ", step, "/", d.steps, ", ", FormatFixed(samples_per_second_, 0),
                          " samples/s, ETA ", FormatFixed(eta, 0), " s, loss ",
                          FormatFixed(epoch_sums.total / std::max(epoch_sums.weight, 1e-9), 4)));
    }
    Beat("training");
    if (rank0() && now - last_keep_alive >= std::chrono::seconds(60)) {
      last_keep_alive = now;
      KeepShufflesAlive(d.files);
    }
  }
  FinishEpoch(epoch_sums, steps_this_run);
  return true;
}

void TrainerLoop::WriteEpochEnd(const json& line) {
  // A full disk or a network filesystem that lost its server: the epoch's results stay in
  // memory and each step that has not gone out yet is tried again every poll interval, so
  // nothing is written twice and training goes on once files can be written. A stop while it
  // fails ends the trainer with the error (the epoch since the last checkpoint is lost).
  bool checkpoint_done = false;
  bool metrics_done = false;
  while (true) {
    try {
      if (!checkpoint_done) {
        last_checkpoint_ = WriteCheckpoint(train_dir_, trainer_->SaveState(), state_, logger_);
        checkpoint_done = true;
      }
      if (!metrics_done) {
        AppendMetrics(train_dir_, line);
        metrics_done = true;
        logger_.Info(StrCat("epoch ", state_.epochs, " done: ", line.dump()));
      }
      WriteSnapshot(o_, *trainer_, state_, last_checkpoint_, logger_);
      return;
    } catch (const IoError& e) {
      // Only rank 0 is here: its own stop flag, not the collective AnyStop().
      if (stop_.stop_requested()) throw;
      logger_.Error(StrCat("cannot write the end of epoch ", state_.epochs, ": ", e.what(),
                           "; trying again in ", o_.poll_interval.count(), " s"));
      Beat("cannot write: retrying", true);
      WaitUnlessStopped(stop_, o_.poll_interval, [this] { Beat("cannot write: retrying"); });
    }
  }
}

TrainerResult TrainerLoop::Run() {
  Start();
  TrainerResult result;
  Beat("starting", true);
  while (true) {
    Decision d;
    if (rank0()) d = Decide();
    if (group_ != nullptr) d = Decision::FromJson(group_->BroadcastString(d.ToJson()));
    if (d.action == Action::kStop) {
      logger_.Info("stopping: " + d.reason);
      result.stopped = d.stop_requested;
      break;
    }
    if (d.action == Action::kWait) {
      if (rank0()) {
        logger_.Info(StrCat("waiting ", o_.poll_interval.count(), " s: ", d.reason));
      }
      WaitPoll();
      if (AnyStop()) {
        result.stopped = true;
        break;
      }
      continue;
    }
    if (!TrainEpoch(d)) {
      result.stopped = true;
      break;
    }
    ++result.epochs;
    if (o_.max_epochs_this_instance > 0 && result.epochs >= o_.max_epochs_this_instance) {
      if (rank0()) logger_.Info("max_epochs_this_instance reached");
      break;
    }
  }
  result.samples = state_.samples;
  Beat(result.stopped ? "stopped" : "done", true);
  return result;
}

}  // namespace

TrainerResult RunTrainer(const TrainerProgramOptions& options, Logger& logger,
                         const StopToken& stop) {
  TrainerLoop loop(options, logger, stop);
  return loop.Run();
}

}  // namespace tengen::pipeline
