// The selfplay program end to end (the real tengen-selfplay binary with the random net on a
// small board: every row checked against its game replayed from the SGFs, SIGINT, a bad
// option) and its library parts (heartbeat JSON, switching to a newer model in process).
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/filesystem.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "data/training_rows.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "nn/features.h"
#include "pipeline/base_dir.h"
#include "pipeline/game_end_stats.h"
#include "pipeline/heartbeat.h"
#include "pipeline/selfplay.h"
#include "pipeline/selfplay_options.h"
#include "selfplay_check.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/subprocess.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using Clock = std::chrono::steady_clock;
using testing::AnyTemporary;
using testing::CheckRows;
using testing::FilesWith;

const std::string kSelfplay = TENGEN_BIN_DIR "/tengen-selfplay";

// Tiny searches on 7x7 (a few seconds for a handful of games on one core).
std::vector<std::string> SmallRun(const std::string& base) {
  return {kSelfplay,
          "--output-dir",
          base,
          "--set",
          "board_sizes=5:1,7:1",
          "--set",
          "pos_len=7",
          "--set",
          "full_visits=12",
          "--set",
          "cheap_visits=4",
          "--set",
          "full_probability=0.5",
          "--set",
          "num_game_threads=4",
          "--set",
          "komis=6.5:1,7:1",
          "--set",
          "log_seconds=1"};
}

TEST_CASE("selfplay: random net, --max-games-total, every row checked against its SGF") {
  testing::TempDir base;
  std::vector<std::string> argv = SmallRun(base.path());
  for (const char* arg :
       {"--max-games-total", "6", "--set", "max_rows_per_file=40", "--set", "seed=12345"})
    argv.push_back(arg);
  const ProcessResult result = RunProcess(argv);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);

  const std::string tdata = TdataDir(base.path(), "random");
  const std::string sgfs = SgfsDir(base.path(), "random");
  CHECK(!FilesWith(tdata, ".npz").empty());
  CHECK(!AnyTemporary(base.path()));
  int sgf_games = 0;
  for (const std::string& file : FilesWith(sgfs, ".sgfs"))
    sgf_games += static_cast<int>(go::ReadSgfFile(file).size());
  CHECK(sgf_games == 6);
  const int64_t rows = CheckRows(tdata, sgfs, 40);
  CHECK(rows > 0);
  CHECK(result.output.find("games 6") != std::string::npos);

  const std::vector<std::string> status = ListPublished(StatusDir(base.path()));
  REQUIRE(status.size() == 1);
  const std::string json = ReadFile(StatusDir(base.path()) + "/" + status[0]);
  CHECK(json.find("\"games\": 6") != std::string::npos);
  CHECK(json.find("\"rows\": " + std::to_string(rows)) != std::string::npos);
  CHECK(json.front() == '{');
  CHECK(json.find("\"state\": \"stopped\"") != std::string::npos);
  CHECK(FilesWith(LogsDir(base.path(), "selfplay"), ".log").size() == 1);
  // How the games ended, in the heartbeat: the same as read back from their SGFs.
  GameEndStats ends;
  for (const std::string& file : FilesWith(sgfs, ".sgfs"))
    for (const go::SgfRecord& record : go::ReadSgfFile(file)) CHECK(ends.AddRecord(record));
  REQUIRE(ends.games() == 6);
  INFO(json);
  // Every counter as the SGFs give it (null where no game says anything yet), exactly: the
  // scores are whole or half points.
  const std::vector<std::pair<std::string, double>> expected = GameEndCounters(ends);
  REQUIRE(expected.size() == 8);
  for (const auto& [key, value] : expected)
    CHECK_MESSAGE(json.find("\"" + key + "\": " + JsonNumber(value)) != std::string::npos, key);
  CHECK(json.find("\"model_games\": 6") != std::string::npos);
  CHECK(json.find("\"games_end_resignation\": 0") != std::string::npos);
  // The progress line carries the same figures.
  CHECK(result.output.find("; " + FormatGameEnds(ends)) != std::string::npos);
}

// The child's output and exit code once it ends, with a watchdog so that a hung child fails
// the test (SIGKILL after `limit`) instead of hanging it.
std::pair<std::string, int> WaitWithWatchdog(Subprocess& child, std::chrono::seconds limit) {
  std::atomic<bool> exited{false};
  const pid_t pid = child.pid();
  std::thread watchdog([&] {
    const auto deadline = Clock::now() + limit;
    while (!exited && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!exited) kill(pid, SIGKILL);
  });
  std::string output = child.ReadAll();
  const int code = child.Wait();
  exited = true;
  watchdog.join();
  return {output, code};
}

TEST_CASE("selfplay: SIGINT publishes finished rows and exits 0 within seconds") {
  testing::TempDir base;
  std::vector<std::string> argv = SmallRun(base.path());
  argv.insert(argv.end(), {"--set", "max_rows_per_file=5"});
  Subprocess child(argv, /*capture_stderr=*/true);
  const std::string tdata = TdataDir(base.path(), "random");
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(5) && FilesWith(tdata, ".npz").empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto signalled = Clock::now();
  child.Kill(SIGINT);
  const auto [output, code] = WaitWithWatchdog(child, std::chrono::seconds(20));
  const double seconds = std::chrono::duration<double>(Clock::now() - signalled).count();
  INFO(output);
  CHECK(code == 0);
  CHECK(seconds < 10);
  CHECK(output.find("stop requested") != std::string::npos);
  CHECK(!AnyTemporary(base.path()));
  const std::vector<std::string> shards = FilesWith(tdata, ".npz");
  CHECK(!shards.empty());
  for (const std::string& file : shards) {
    const data::Shard shard = data::ReadShard(file);
    CHECK(static_cast<int64_t>(shard.rows.size()) == data::CountShardRows(file));
    CHECK(shard.rows.size() <= 5);
  }
}

TEST_CASE("selfplay: a first SIGINT finishes the games in flight, a second drops them") {
  // Long games (2,000-visit searches on 9x9): still in flight a second after the first SIGINT.
  testing::TempDir base;
  Subprocess child({kSelfplay, "--output-dir", base.path(), "--set", "full_visits=2000", "--set",
                    "cheap_visits=2000", "--set", "num_game_threads=4", "--set", "log_seconds=0.5"},
                   /*capture_stderr=*/true);
  // Running (its heartbeat is out, so its signal handlers are in) with games in flight; on a
  // loaded machine starting can take seconds.
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(60) &&
         FilesWith(base.path() + "/status", ".json").empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  child.Kill(SIGINT);
  // Past the window in which a repeated signal is the same request (util/signals.h).
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto second = Clock::now();
  child.Kill(SIGINT);
  const auto [output, code] = WaitWithWatchdog(child, std::chrono::seconds(30));
  INFO(output);
  CHECK(code == 0);
  CHECK(std::chrono::duration<double>(Clock::now() - second).count() < 10);
  const size_t finishing = output.find("finishing the games in flight");
  const size_t dropping = output.find("dropping the games in flight (second stop request)");
  CHECK(finishing != std::string::npos);
  CHECK(dropping != std::string::npos);
  CHECK(finishing < dropping);
  // While they finished, the heartbeat said so, and the games were then dropped, not lost.
  CHECK(output.find("finishing games: model random") != std::string::npos);
  // Dropped: the games still in flight at the second signal, at most one per slot.
  const size_t done = output.find("games dropped");
  REQUIRE(done != std::string::npos);
  const size_t number = output.rfind(' ', done - 2);
  const int dropped = std::stoi(output.substr(number + 1, done - number - 2));
  CHECK(dropped >= 1);
  CHECK(dropped <= 4);
}

TEST_CASE("selfplay: a bad option exits 2 naming the key") {
  testing::TempDir base;
  const ProcessResult bad_sizes =
      RunProcess({kSelfplay, "--output-dir", base.path(), "--set", "board_sizes=9:x"});
  CHECK(bad_sizes.exit_code == 2);
  CHECK(bad_sizes.output.find("board_sizes") != std::string::npos);
  const ProcessResult no_dir = RunProcess({kSelfplay});
  CHECK(no_dir.exit_code == 2);
  CHECK(no_dir.output.find("output_dir") != std::string::npos);
  const ProcessResult too_big = RunProcess(
      {kSelfplay, "--output-dir", base.path(), "--set", "board_sizes=13", "--set", "pos_len=9"});
  CHECK(too_big.exit_code == 2);
  CHECK(too_big.output.find("pos_len") != std::string::npos);
  CHECK(!fs::exists(SelfplayDir(base.path())));
}

TEST_CASE("selfplay: devices=cpu,cpu runs two servers, a bad devices list exits 2") {
  testing::TempDir base;
  std::vector<std::string> argv = SmallRun(base.path());
  for (const char* arg : {"--max-games-total", "4", "--set", "devices=cpu,cpu"})
    argv.push_back(arg);
  const ProcessResult result = RunProcess(argv);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(result.output.find("2 NN servers cpu (2 games") != std::string::npos);
  CHECK(result.output.find("games 4") != std::string::npos);
  CHECK(!FilesWith(TdataDir(base.path(), "random"), ".npz").empty());

  for (const char* bad : {"devices=cpu,,cpu", "devices=", "devices=cpu,", "devices=gpu"}) {
    const ProcessResult rejected =
        RunProcess({kSelfplay, "--output-dir", base.path(), "--set", bad});
    INFO(bad, rejected.output);
    CHECK(rejected.exit_code == 2);
    CHECK(rejected.output.find("devices") != std::string::npos);
  }
  const ProcessResult too_many = RunProcess({kSelfplay, "--output-dir", base.path(), "--set",
                                             "devices=cpu,cpu,cpu", "--set", "num_game_threads=2"});
  CHECK(too_many.exit_code == 2);
  CHECK(too_many.output.find("devices") != std::string::npos);
}

TEST_CASE("heartbeat: JSON escaping and numbers") {
  CHECK(JsonNumber(12) == "12");
  CHECK(JsonNumber(0.5) == "0.5");
  CHECK(JsonNumber(1.0 / 3) == "0.333333");
  CHECK(JsonNumber(std::nan("")) == "null");
  HeartbeatInfo info;
  info.state = "playing";
  info.texts = {{"model", "m\"1\\\n"}};
  info.counters = {{"games", 3}, {"rate", 1.25}};
  CHECK(HeartbeatJson("selfplay", "h", 7, "T", info) ==
        "{\"program\": \"selfplay\", \"host\": \"h\", \"pid\": 7, \"time_utc\": \"T\", "
        "\"state\": \"playing\", \"texts\": {\"model\": \"m\\\"1\\\\\\n\"}, \"counters\": "
        "{\"games\": 3, \"rate\": 1.25}}\n");

  testing::TempDir base;
  Heartbeat heartbeat(StatusDir(base.path()), "selfplay", std::chrono::hours(1));
  CHECK(heartbeat.Beat(info));
  CHECK_FALSE(heartbeat.Beat(info));  // within the interval
  CHECK(heartbeat.Beat(info, /*force=*/true));
  CHECK(ReadFile(heartbeat.path()).find("\"games\": 3") != std::string::npos);
  CHECK(ReadFile(heartbeat.path()).size() == kHeartbeatFileBytes);
}

TEST_CASE("heartbeat: every version of a heartbeat file has the same size") {
  // A reader with a stale attribute cache (sshfs) reads as many bytes as the old version had.
  const std::string short_json = "{\"state\": \"x\"}\n";
  const std::string long_json = "{\"state\": \"" + std::string(300, 'y') + "\"}\n";
  const std::string a = PadHeartbeat(short_json);
  const std::string b = PadHeartbeat(long_json);
  CHECK(a.size() == kHeartbeatFileBytes);
  CHECK(b.size() == kHeartbeatFileBytes);
  CHECK(a.substr(0, short_json.size() - 1) == short_json.substr(0, short_json.size() - 1));
  CHECK(a.back() == '\n');
  CHECK(a.find_first_not_of(' ', short_json.size() - 1) == a.size() - 1);  // spaces, then \n
  // Still one line of JSON, and a longer one takes the next multiple.
  CHECK(std::count(b.begin(), b.end(), '\n') == 1);
  const std::string huge = PadHeartbeat("{\"x\": \"" + std::string(5000, 'z') + "\"}\n");
  CHECK(huge.size() == 2 * kHeartbeatFileBytes);
  CHECK(PadHeartbeat(std::string(kHeartbeatFileBytes - 1, 'q') + "\n").size() ==
        kHeartbeatFileBytes);
}

TEST_CASE("heartbeat: the SLURM job from the environment, no key without it") {
  // Restores the three variables as they were (a test run inside a SLURM job has them).
  struct SavedVariable {
    std::string name;
    std::optional<std::string> value;
    explicit SavedVariable(std::string n) : name(std::move(n)) {
      if (const char* v = std::getenv(name.c_str())) value = v;
    }
    ~SavedVariable() {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  };
  const SavedVariable job("SLURM_JOB_ID"), array_job("SLURM_ARRAY_JOB_ID"),
      array_task("SLURM_ARRAY_TASK_ID");
  unsetenv("SLURM_JOB_ID");
  unsetenv("SLURM_ARRAY_JOB_ID");
  unsetenv("SLURM_ARRAY_TASK_ID");
  CHECK(SlurmJobFromEnvironment().empty());
  CHECK(SlurmJobName(SlurmJobFromEnvironment()) == "");
  HeartbeatInfo info;
  info.state = "training";
  const std::string plain = HeartbeatJson("trainer", "h", 7, "T", info);
  CHECK(plain ==
        "{\"program\": \"trainer\", \"host\": \"h\", \"pid\": 7, \"time_utc\": \"T\", "
        "\"state\": \"training\", \"texts\": {}, \"counters\": {}}\n");
  CHECK(HeartbeatJson("trainer", "h", 7, "T", info, SlurmJobFromEnvironment()) == plain);

  // A plain job: its id after the pid.
  setenv("SLURM_JOB_ID", "4711", 1);
  const SlurmJob plain_job = SlurmJobFromEnvironment();
  CHECK(plain_job.job_id == "4711");
  CHECK(plain_job.array_job_id.empty());
  CHECK(SlurmJobName(plain_job) == "4711");
  CHECK(HeartbeatJson("trainer", "h", 7, "T", info, plain_job) ==
        "{\"program\": \"trainer\", \"host\": \"h\", \"pid\": 7, \"slurm\": {\"job_id\": "
        "\"4711\"}, \"time_utc\": \"T\", \"state\": \"training\", \"texts\": {}, "
        "\"counters\": {}}\n");
  // An array variable without the other is not an array task.
  setenv("SLURM_ARRAY_JOB_ID", "4700", 1);
  CHECK(SlurmJobName(SlurmJobFromEnvironment()) == "4711");
  // A task of a job array: named <array job>_<task>, as squeue does.
  setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  const SlurmJob task = SlurmJobFromEnvironment();
  CHECK(SlurmJobName(task) == "4700_3");
  CHECK(HeartbeatJson("selfplay", "h", 8, "T", info, task)
            .find("\"pid\": 8, \"slurm\": {\"job_id\": \"4711\", \"array_job_id\": \"4700\", "
                  "\"array_task_id\": \"3\"}, \"time_utc\"") != std::string::npos);

  // The Heartbeat reads the environment when it is made, and writes the job into its file.
  testing::TempDir base;
  Heartbeat in_job(StatusDir(base.path()), "selfplay", std::chrono::hours(1));
  CHECK(in_job.Beat(info));
  CHECK(ReadFile(in_job.path()).find("\"array_task_id\": \"3\"") != std::string::npos);
  // SLURM_JOB_ID empty counts as unset.
  setenv("SLURM_JOB_ID", "", 1);
  CHECK(SlurmJobFromEnvironment().empty());
  unsetenv("SLURM_JOB_ID");
  Heartbeat outside(StatusDir(base.path()) + "/outside", "selfplay", std::chrono::hours(1));
  CHECK(outside.Beat(info));
  CHECK(ReadFile(outside.path()).find("slurm") == std::string::npos);
}

TEST_CASE("heartbeat: a failed write waits out the interval, a deleted directory is recreated") {
  testing::TempDir base;
  HeartbeatInfo info;
  info.state = "playing";
  const std::string status = StatusDir(base.path());
  // Deleted after the first beat: the next one creates it again.
  Heartbeat heartbeat(status, "selfplay", std::chrono::hours(1));
  CHECK(heartbeat.Beat(info));
  fs::remove_all(status);
  CHECK(heartbeat.Beat(info, /*force=*/true));
  CHECK(fs::is_regular_file(heartbeat.path()));

  // A file where the directory should be: the write fails, and the next unforced beat does not
  // try again (no warning every monitor tick) until the interval has passed.
  testing::TempDir other;
  const std::string blocked = other.Write("status", "not a directory");
  Heartbeat failing(blocked, "selfplay", std::chrono::hours(1));
  CHECK_THROWS_AS(failing.Beat(info), Error);
  CHECK_FALSE(failing.Beat(info));
  fs::remove(blocked);
  CHECK(failing.Beat(info, /*force=*/true));
  CHECK(fs::is_regular_file(failing.path()));
}

// The random net under another name: stands in for a loaded model.
class NamedUniform : public nn::Evaluator {
 public:
  NamedUniform(std::string name, int pos_len) : name_(std::move(name)), uniform_(pos_len) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    uniform_.Evaluate(batch, output);
  }
  std::string model_name() const override { return name_; }
  int pos_len() const override { return uniform_.pos_len(); }

 private:
  std::string name_;
  nn::RandomNetEvaluator uniform_;
};

// In-process selfplay on 5x5 with tiny searches, writing under `base`.
SelfplayOptions TinyGames(const std::string& base) {
  SelfplayOptions options;
  options.base_dir = base;
  options.models_dir = ModelsDir(base);
  options.game.board_sizes = {{5, 1.0}};
  options.game.pos_len = 5;
  options.game.playout_cap = {8, 4, 0.5};
  return options;
}

TEST_CASE("selfplay: switches to a newer model between games") {
  testing::TempDir base;
  SelfplayOptions options = TinyGames(base.path());
  options.num_game_threads = 3;
  options.max_rows_per_file = 3;
  options.seed = 7;
  options.model_check_interval = std::chrono::milliseconds(100);
  std::atomic<int> loads{0};
  options.load_model = [&loads](const play::ModelInfo& model, int pos_len, const std::string&) {
    ++loads;
    return std::make_unique<NamedUniform>(model.name, pos_len);
  };
  Logger logger(LogLevel::kWarning);
  std::atomic<bool> stop{false};
  SelfplayStats stats;
  std::thread runner([&] { stats = RunSelfplay(options, logger, StopToken(&stop)); });

  const std::string model = "run-t-s100-d1000";
  const std::string random_tdata = TdataDir(base.path(), "random");
  const std::string model_tdata = TdataDir(base.path(), model);
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline && FilesWith(random_tdata, ".npz").empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EnsureDirectory(options.models_dir + "/" + model);
  while (Clock::now() < deadline && FilesWith(model_tdata, ".npz").empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  runner.join();

  CHECK(loads == 1);
  CHECK(!FilesWith(random_tdata, ".npz").empty());
  const std::vector<std::string> shards = FilesWith(model_tdata, ".npz");
  REQUIRE(!shards.empty());
  CHECK(data::ReadShard(shards[0]).model_name == model);
  GameEndStats model_ends;  // the new model's games, from its SGFs
  for (const std::string& file : FilesWith(SgfsDir(base.path(), model), ".sgfs")) {
    for (const go::SgfRecord& record : go::ReadSgfFile(file)) {
      CHECK(record.black_player == model);
      CHECK(model_ends.AddRecord(record));
    }
  }
  CHECK(stats.games > 0);
  CHECK(stats.shards >= 2);
  // The final heartbeat reports the switch and how long the load and the switch took.
  const std::vector<std::string> beats = FilesWith(StatusDir(base.path()), ".json");
  REQUIRE(beats.size() == 1);
  const std::string beat = ReadFile(beats[0]);
  INFO(beat);
  CHECK(beat.find("\"model_switches\": 1") != std::string::npos);
  CHECK(beat.find("\"model_load_seconds\": ") != std::string::npos);
  CHECK(beat.find("\"model_switch_seconds\": ") != std::string::npos);
  // How games end started again with the new model: the counters cover its games only (the
  // random net's games are in `stats.games` but not in them).
  REQUIRE(model_ends.games() > 0);
  CHECK(model_ends.games() < stats.games);
  CHECK(beat.find("\"model\": \"" + model + "\"") != std::string::npos);
  for (const auto& [key, value] : GameEndCounters(model_ends))
    CHECK_MESSAGE(beat.find("\"" + key + "\": " + JsonNumber(value)) != std::string::npos, key);
}

TEST_CASE("selfplay: the monitor keeps publishing while a new model loads") {
  // The loader blocks until the test releases it. Shards are published only by age (huge
  // max_rows_per_file), which is the monitor's job: new shards while the load hangs show that
  // loading does not stall the monitor.
  testing::TempDir base;
  SelfplayOptions options = TinyGames(base.path());
  options.num_game_threads = 2;
  options.max_rows_per_file = 1000000;
  options.max_shard_age_seconds = 0.05;
  options.seed = 3;
  options.model_check_interval = std::chrono::milliseconds(50);
  std::atomic<bool> load_entered{false};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  options.load_model = [&](const play::ModelInfo& model, int pos_len, const std::string&) {
    load_entered = true;
    released.wait();
    return std::make_unique<NamedUniform>(model.name, pos_len);
  };
  Logger logger(LogLevel::kWarning);
  std::atomic<bool> stop{false};
  std::thread runner([&] { RunSelfplay(options, logger, StopToken(&stop)); });

  // The model appears only once the random net is playing, so it is loaded by the monitor's
  // check, not at start-up.
  const std::string tdata = TdataDir(base.path(), "random");
  auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline && FilesWith(tdata, ".npz").empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EnsureDirectory(options.models_dir + "/run-t-s100-d1000");
  while (Clock::now() < deadline && !load_entered)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(load_entered);
  const size_t shards_when_loading = FilesWith(tdata, ".npz").size();
  deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline && FilesWith(tdata, ".npz").size() <= shards_when_loading)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(FilesWith(tdata, ".npz").size() > shards_when_loading);
  release.set_value();
  stop = true;
  runner.join();
}

// Counts the positions it evaluates into `positions`.
class CountingUniform : public NamedUniform {
 public:
  CountingUniform(std::string name, int pos_len, std::atomic<int64_t>* positions)
      : NamedUniform(std::move(name), pos_len), positions_(positions) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    *positions_ += batch.size;
    NamedUniform::Evaluate(batch, output);
  }

 private:
  std::atomic<int64_t>* positions_;
};

TEST_CASE("selfplay: devices=cpu,cpu loads the model twice and feeds both servers") {
  testing::TempDir base;
  SelfplayOptions options = TinyGames(base.path());
  options.num_game_threads = 5;
  options.max_games_total = 6;
  options.seed = 11;
  options.devices = {"cpu", "cpu"};
  const std::string model = "run-t-s100-d1000";
  EnsureDirectory(options.models_dir + "/" + model);
  std::mutex mutex;
  std::vector<std::string> devices;
  std::array<std::atomic<int64_t>, 2> positions{};
  options.load_model = [&](const play::ModelInfo& info, int pos_len, const std::string& device) {
    std::lock_guard<std::mutex> lock(mutex);
    if (devices.size() >= positions.size()) throw Error("loaded more than twice");
    auto evaluator =
        std::make_unique<CountingUniform>(info.name, pos_len, &positions[devices.size()]);
    devices.push_back(device);
    return evaluator;
  };
  Logger logger(LogLevel::kWarning);
  std::atomic<bool> stop{false};
  const SelfplayStats stats = RunSelfplay(options, logger, StopToken(&stop));

  CHECK(devices == std::vector<std::string>{"cpu", "cpu"});
  CHECK(positions[0] > 0);
  CHECK(positions[1] > 0);
  CHECK(stats.games == 6);
  CHECK(stats.nn_positions == positions[0] + positions[1]);
  CHECK(!FilesWith(TdataDir(base.path(), model), ".npz").empty());
}

// Fails on its 50th batch, as a broken device would.
class FailingEvaluator : public nn::Evaluator {
 public:
  explicit FailingEvaluator(int pos_len) : uniform_(pos_len) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    if (++calls_ >= 50) throw IoError("device on fire");
    uniform_.Evaluate(batch, output);
  }
  std::string model_name() const override { return "run-t-s1-d1"; }
  int pos_len() const override { return uniform_.pos_len(); }

 private:
  int calls_ = 0;
  nn::RandomNetEvaluator uniform_;
};

TEST_CASE("selfplay: a failing net stops every game thread and RunSelfplay throws") {
  testing::TempDir base;
  SelfplayOptions options = TinyGames(base.path());
  options.num_game_threads = 4;
  EnsureDirectory(options.models_dir + "/run-t-s1-d1");
  Logger logger(LogLevel::kError, /*to_stderr=*/false);
  std::atomic<bool> stop{false};
  // No loader: a model that cannot be run is a clear error before any game starts.
  CHECK_THROWS_AS(RunSelfplay(options, logger, StopToken(&stop)), Error);
  options.load_model = [](const play::ModelInfo&, int pos_len, const std::string&) {
    return std::make_unique<FailingEvaluator>(pos_len);
  };
  try {
    RunSelfplay(options, logger, StopToken(&stop));
    FAIL("RunSelfplay returned");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("device on fire") != std::string::npos);
  }
}

// Small, fast in-process selfplay on 5x5 (the random net unless a loader is set).
SelfplayOptions SmallOptions(const std::string& base) {
  SelfplayOptions options = TinyGames(base);
  options.num_game_threads = 3;
  options.seed = 13;
  options.model_check_interval = std::chrono::milliseconds(20);
  return options;
}

// RunSelfplay on a thread of its own; stopped and joined on Stop() or destruction (so that a
// failed REQUIRE does not leave it running).
class BackgroundSelfplay {
 public:
  BackgroundSelfplay(const SelfplayOptions& options, Logger& logger)
      : thread_([this, &options, &logger] {
          try {
            stats_ = RunSelfplay(options, logger, StopToken(&stop_));
          } catch (const std::exception& e) {
            error_ = e.what();
          }
        }) {}
  ~BackgroundSelfplay() { Stop(); }
  BackgroundSelfplay(const BackgroundSelfplay&) = delete;
  BackgroundSelfplay& operator=(const BackgroundSelfplay&) = delete;

  // Stops it and returns its stats; error() says whether it threw.
  const SelfplayStats& Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return stats_;
  }
  const std::string& error() const { return error_; }

 private:
  std::atomic<bool> stop_{false};
  SelfplayStats stats_;
  std::string error_;
  std::thread thread_;
};

// Waits (up to 20 s) until `done` holds; returns whether it does.
template <typename Done>
bool WaitFor(Done done) {
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST_CASE("selfplay: a newest model that fails to load at start-up falls back to an older one") {
  testing::TempDir base;
  SelfplayOptions options = SmallOptions(base.path());
  options.max_games_total = 4;
  const std::string good = "run-t-s100-d10";
  const std::string broken = "run-t-s200-d10";
  EnsureDirectory(options.models_dir + "/" + good);
  EnsureDirectory(options.models_dir + "/" + broken);
  EnsureDirectory(options.models_dir + "/run-t-s300-d10.tmp.x");  // being published: skipped
  std::mutex mutex;
  std::map<std::string, int> loads;
  options.load_model = [&](const play::ModelInfo& model, int pos_len, const std::string&) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++loads[model.name];
    }
    if (model.name == broken) throw IoError("weights.pt: truncated");
    return std::make_unique<NamedUniform>(model.name, pos_len);
  };
  Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
  logger.OpenFile(base / "selfplay.log");
  std::atomic<bool> stop{false};
  SelfplayStats stats;
  REQUIRE_NOTHROW(stats = RunSelfplay(options, logger, StopToken(&stop)));
  CHECK(stats.games == 4);
  CHECK(!FilesWith(TdataDir(base.path(), good), ".npz").empty());
  CHECK_FALSE(fs::exists(SelfplayModelDir(base.path(), broken)));
  // Tried once: the monitor's checks do not load it again (same mtime, within the retry time).
  CHECK(loads[broken] == 1);
  CHECK(loads[good] == 1);
  const std::string log = ReadFile(base / "selfplay.log");
  CHECK(log.find("cannot use model " + broken) != std::string::npos);
  CHECK(log.find("truncated") != std::string::npos);

  // Nothing loads: the random net plays.
  fs::remove_all(options.models_dir + "/" + good);
  REQUIRE_NOTHROW(stats = RunSelfplay(options, logger, StopToken(&stop)));
  CHECK(stats.games == 4);
  CHECK(!FilesWith(TdataDir(base.path(), "random"), ".npz").empty());
  CHECK(ReadFile(base / "selfplay.log").find("no model loads") != std::string::npos);
}

TEST_CASE("selfplay: a model that failed to load is tried again when its directory changes") {
  testing::TempDir base;
  SelfplayOptions options = SmallOptions(base.path());
  options.max_rows_per_file = 3;
  const std::string model = "run-t-s100-d10";
  const std::string model_dir = options.models_dir + "/" + model;
  EnsureDirectory(model_dir);
  std::atomic<int> attempts{0};
  std::atomic<bool> complete{false};  // the model's files have all arrived
  options.load_model = [&](const play::ModelInfo& info, int pos_len, const std::string&) {
    ++attempts;
    if (!complete) throw IoError("weights.pt: unexpected end of file");
    return std::make_unique<NamedUniform>(info.name, pos_len);
  };
  Logger logger(LogLevel::kError, /*to_stderr=*/false);
  BackgroundSelfplay runner(options, logger);
  // Fails at start-up: the random net plays, and checks every 20 ms do not retry it.
  CHECK(WaitFor([&] { return !FilesWith(TdataDir(base.path(), "random"), ".npz").empty(); }));
  CHECK(attempts == 1);
  // The copy completes: a file arrives, the directory's mtime changes.
  complete = true;
  base.Write("models/" + model + "/weights.pt", "weights");
  fs::last_write_time(model_dir, fs::last_write_time(model_dir) + 10);
  const std::string model_tdata = TdataDir(base.path(), model);
  CHECK(WaitFor([&] { return !FilesWith(model_tdata, ".npz").empty(); }));
  const SelfplayStats stats = runner.Stop();
  REQUIRE(runner.error().empty());
  CHECK(attempts == 2);
  CHECK(stats.games > 0);
  CHECK(!FilesWith(model_tdata, ".npz").empty());
}

TEST_CASE("selfplay: a model that failed to load is tried again after model_retry_interval") {
  testing::TempDir base;
  SelfplayOptions options = SmallOptions(base.path());
  options.max_rows_per_file = 3;
  options.model_retry_interval = std::chrono::milliseconds(1);
  const std::string model = "run-t-s100-d10";
  EnsureDirectory(options.models_dir + "/" + model);
  std::atomic<int> attempts{0};
  options.load_model = [&](const play::ModelInfo& info, int pos_len, const std::string&) {
    // Its files are still arriving the first time (same directory mtime the second time).
    if (++attempts == 1) throw IoError("weights.pt: unexpected end of file");
    return std::make_unique<NamedUniform>(info.name, pos_len);
  };
  Logger logger(LogLevel::kError, /*to_stderr=*/false);
  BackgroundSelfplay runner(options, logger);
  const std::string model_tdata = TdataDir(base.path(), model);
  CHECK(WaitFor([&] { return !FilesWith(model_tdata, ".npz").empty(); }));
  const SelfplayStats stats = runner.Stop();
  REQUIRE(runner.error().empty());
  CHECK(attempts == 2);
  CHECK(stats.games > 0);
  CHECK(!FilesWith(model_tdata, ".npz").empty());
}

// The number after `key` in the last line of `log` that has it ("rows 12 (published 12").
int64_t LastNumberAfter(const std::string& log, const std::string& key) {
  const size_t at = log.rfind(key);
  REQUIRE(at != std::string::npos);
  return std::stoll(log.substr(at + key.size()));
}

TEST_CASE("selfplay: a shard that cannot be published is kept and published later") {
  testing::TempDir base;
  SelfplayOptions options = SmallOptions(base.path());
  options.max_rows_per_file = 100000;  // only the age publishes (bound: 400000 rows)
  options.max_shard_age_seconds = 0.02;
  // A file where tdata/ should be: every .npz fails (as root, chmod would not stop a write).
  const std::string tdata = TdataDir(base.path(), "random");
  const std::string sgfs = SgfsDir(base.path(), "random");
  EnsureDirectory(SelfplayModelDir(base.path(), "random"));
  std::ofstream(tdata) << "not a directory";
  Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
  const std::string log_path = base / "selfplay.log";
  logger.OpenFile(log_path);
  BackgroundSelfplay runner(options, logger);
  // The .sgfs of a shard goes out first; its .npz fails (logged just after the .sgfs appears,
  // so wait for the line too) and the run goes on.
  REQUIRE(WaitFor([&] { return !FilesWith(sgfs, ".sgfs").empty(); }));
  const std::string first_sgfs = FilesWith(sgfs, ".sgfs").front();
  CHECK(WaitFor(
      [&] { return ReadFile(log_path).find("cannot publish shard") != std::string::npos; }));
  fs::remove(tdata);
  CHECK(WaitFor([&] { return FilesWith(tdata, ".npz").size() >= 2; }));
  const SelfplayStats stats = runner.Stop();
  REQUIRE(runner.error().empty());

  CHECK(!AnyTemporary(base.path()));
  const int64_t rows = CheckRows(tdata, sgfs, options.max_rows_per_file, "random", 5);
  CHECK(rows == stats.rows);
  CHECK(static_cast<int64_t>(FilesWith(tdata, ".npz").size()) == stats.shards);
  // Every finished row was published, the ones that failed at first included.
  const std::string log = ReadFile(log_path);
  CHECK(LastNumberAfter(log, "), rows ") == rows);
  CHECK(LastNumberAfter(log, " (published ") == rows);
  // The shard that failed kept its stem: its .npz sits next to its .sgfs (unless its games
  // recorded no rows).
  const std::string stem = fs::path(first_sgfs).stem().string();
  bool has_rows = false;
  for (const go::SgfRecord& record : go::ReadSgfFile(first_sgfs))
    has_rows = has_rows || record.result.find('R') == std::string::npos;
  const std::vector<std::string> shards = FilesWith(tdata, ".npz");
  const bool found = std::any_of(shards.begin(), shards.end(), [&](const std::string& name) {
    return fs::path(name).filename().string().rfind(stem + "-r", 0) == 0;
  });
  if (has_rows) CHECK(found);
}

TEST_CASE("selfplay: too many unpublished rows pause play until publishing works again") {
  testing::TempDir base;
  SelfplayOptions options = SmallOptions(base.path());
  options.max_rows_per_file = 2;  // pauses beyond 8 unpublished rows
  options.max_shard_age_seconds = 0.02;
  options.heartbeat_interval = std::chrono::milliseconds(10);
  // A file where tdata/ should be: every .npz fails, as on a full disk or a lost server.
  const std::string tdata = TdataDir(base.path(), "random");
  const std::string sgfs = SgfsDir(base.path(), "random");
  EnsureDirectory(SelfplayModelDir(base.path(), "random"));
  std::ofstream(tdata) << "not a directory";
  Logger logger(LogLevel::kInfo, /*to_stderr=*/false);
  const std::string log_path = base / "selfplay.log";
  logger.OpenFile(log_path);
  BackgroundSelfplay runner(options, logger);
  REQUIRE(WaitFor([&] { return ReadFile(log_path).find("pausing play: ") != std::string::npos; }));
  // Paused: the heartbeat says so, and once the games in flight are over no game finishes.
  const std::string status_dir = StatusDir(base.path());
  const auto heartbeat = [&] {
    const std::vector<std::string> beats = FilesWith(status_dir, ".json");
    return beats.empty() ? std::string() : ReadFile(beats.front());
  };
  CHECK(
      WaitFor([&] { return heartbeat().find("\"paused: cannot publish\"") != std::string::npos; }));
  const auto finished_rows = [&] { return LastNumberAfter(ReadFile(log_path), "), rows "); };
  const auto rows_in = [](const std::string& beat) {
    const size_t at = beat.find("\"rows\": ");
    return at == std::string::npos ? int64_t{-1} : std::stoll(beat.substr(at + 8));
  };
  // The games in flight finish (how long that takes depends on the machine's load); then the
  // finished rows stay put: were play going on, they would grow until WaitFor gave up.
  int64_t settled = -1;
  REQUIRE(WaitFor([&] {
    const int64_t before = rows_in(heartbeat());
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    settled = rows_in(heartbeat());
    return before >= 0 && settled == before;
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  const std::string after = heartbeat();
  CHECK(rows_in(after) == settled);
  CHECK(runner.error().empty());  // still running, not given up
  // The directory is fixed: the kept shards go out and play resumes by itself.
  fs::remove(tdata);
  CHECK(WaitFor([&] {
    return ReadFile(log_path).find("publishing works again: resuming play") != std::string::npos;
  }));
  CHECK(WaitFor([&] { return rows_in(heartbeat()) > rows_in(after) + 10; }));
  const SelfplayStats stats = runner.Stop();
  REQUIRE(runner.error().empty());
  CHECK(!AnyTemporary(base.path()));
  // Every finished row was published, those kept while paused included.
  const int64_t rows = CheckRows(tdata, sgfs, options.max_rows_per_file, "random", 5);
  CHECK(rows == stats.rows);
  CHECK(finished_rows() == rows);
}

TEST_CASE("selfplay: a partial shard is published once older than max_shard_age_seconds") {
  testing::TempDir base;
  SelfplayOptions options = SmallOptions(base.path());
  options.max_rows_per_file = 1000000;  // never full here
  options.max_shard_age_seconds = 0.05;
  Logger logger(LogLevel::kWarning, /*to_stderr=*/false);
  BackgroundSelfplay runner(options, logger);
  const std::string tdata = TdataDir(base.path(), "random");
  // Published while playing, not only on the way out.
  CHECK(WaitFor([&] { return FilesWith(tdata, ".npz").size() >= 2; }));
  const SelfplayStats stats = runner.Stop();
  REQUIRE(runner.error().empty());
  const int64_t rows = CheckRows(tdata, SgfsDir(base.path(), "random"), 1000000, "random", 5);
  CHECK(rows == stats.rows);
  CHECK(stats.shards >= 2);
}

}  // namespace
}  // namespace tengen::pipeline

namespace tengen::pipeline {
namespace {

// seed -> (moves, result) of every game selfplay wrote under `base` (the SGF's SO says the seed).
std::map<std::string, std::string> GamesBySeed(const std::string& base) {
  std::map<std::string, std::string> games;
  for (const std::string& file : FilesWith(SgfsDir(base, "random"), ".sgfs")) {
    for (const go::SgfRecord& record : go::ReadSgfFile(file)) {
      std::string seed, moves = record.result;
      for (const auto& [key, value] : record.extra_properties)
        if (key == "SO") seed = value;
      for (const go::Move& move : record.moves) moves += " " + std::to_string(move.loc);
      games[seed] = moves;
    }
  }
  return games;
}

TEST_CASE("selfplay: the same games for one seed whatever the search threads and batch size") {
  std::vector<std::map<std::string, std::string>> runs;
  for (const auto& [threads, batch] : std::vector<std::pair<int, int>>{{1, 1}, {3, 6}, {2, 4}}) {
    testing::TempDir base;
    SelfplayOptions options = TinyGames(base.path());
    options.num_game_threads = 6;
    options.num_search_threads = threads;
    options.nn_max_batch_size = batch;
    options.devices = {"cpu", "cpu"};
    options.max_games_total = 10;
    options.seed = 99;
    Logger logger(LogLevel::kWarning);
    std::atomic<bool> stop{false};
    const SelfplayStats stats = RunSelfplay(options, logger, StopToken(&stop));
    CHECK(stats.games == 10);
    runs.push_back(GamesBySeed(base.path()));
    CHECK(runs.back().size() == 10);
  }
  // Games are drawn their seeds in the order they start, which the threads decide; the set of
  // seeds, and the game each seed gives, is the same.
  CHECK(runs[0] == runs[1]);
  CHECK(runs[0] == runs[2]);
}

// Plays until stopped; returns the stats and how long RunSelfplay took after `stop` was set.
std::pair<SelfplayStats, double> StopAfterGames(SelfplayOptions options, bool urgent) {
  Logger logger(LogLevel::kWarning);
  std::atomic<bool> stop{false}, urgent_flag{false};
  SelfplayStats stats;
  std::thread runner([&] { stats = RunSelfplay(options, logger, StopToken(&stop, &urgent_flag)); });
  const std::string tdata = TdataDir(options.base_dir, "random");
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  // Every slot has started a game (and one shard is out) before the stop.
  while (Clock::now() < deadline && FilesWith(tdata, ".npz").empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto stopped = Clock::now();
  stop = true;
  urgent_flag = urgent;
  runner.join();
  return {stats, std::chrono::duration<double>(Clock::now() - stopped).count()};
}

TEST_CASE("selfplay: a stop lets the games in flight finish, an urgent stop drops them") {
  // 9x9 games of 300-visit searches: a second or more each, so that games are in flight at
  // the stop.
  const auto options_for = [](const std::string& base) {
    SelfplayOptions options = TinyGames(base);
    options.game.board_sizes = {{9, 1.0}};
    options.game.pos_len = 9;
    options.game.playout_cap = {300, 300, 1.0};
    options.num_game_threads = 8;
    options.max_rows_per_file = 1;
    return options;
  };
  testing::TempDir finish_base;
  const auto [finished, finish_seconds] = StopAfterGames(options_for(finish_base.path()), false);
  CHECK(finished.dropped_games == 0);
  CHECK(finished.games >= 8);  // the ones in flight at the stop finished too
  // Every game that started finished and was published.
  CHECK(GamesBySeed(finish_base.path()).size() == static_cast<size_t>(finished.games));

  testing::TempDir drop_base;
  const auto [dropped, drop_seconds] = StopAfterGames(options_for(drop_base.path()), true);
  CHECK(dropped.dropped_games > 0);
  CHECK(drop_seconds < 5);
  MESSAGE("finishing took " << finish_seconds << " s, dropping " << drop_seconds << " s");

  // A stop with no time to finish drops them too.
  testing::TempDir zero_base;
  SelfplayOptions zero = options_for(zero_base.path());
  zero.finish_games_seconds = 0;
  CHECK(StopAfterGames(zero, false).first.dropped_games > 0);
}

TEST_CASE("selfplay: devices=sim plays the random net on the stand-in GPU, not mixed with cpu") {
  testing::TempDir base;
  SelfplayOptions options = TinyGames(base.path());
  options.num_game_threads = 8;
  options.devices = {"sim", "sim"};
  options.sim_timing = {2000, 1};  // 2 ms a batch: the games wait for it
  options.max_games_total = 8;
  EnsureDirectory(options.models_dir + "/run-t-s100-d1000");  // not played with sim
  Logger logger(LogLevel::kError);
  std::atomic<bool> stop{false};
  const auto start = Clock::now();
  const SelfplayStats stats = RunSelfplay(options, logger, StopToken(&stop));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  CHECK(stats.games == 8);
  CHECK(GamesBySeed(base.path()).size() == 8);
  // Every batch took its 2 ms on one of two servers.
  CHECK(seconds >= 0.002 * static_cast<double>(stats.nn_batches) / 2);

  options.devices = {"sim", "cpu"};
  CHECK_THROWS_WITH_AS(RunSelfplay(options, logger, StopToken(&stop)), doctest::Contains("sim"),
                       ConfigError);
}

}  // namespace
}  // namespace tengen::pipeline
