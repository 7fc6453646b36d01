#pragma once
// A base directory as a run leaves it, for the status tool and report tests: real selfplay
// shards and SGFs (tengen-selfplay with the random net, their modification times spread over
// three hours) plus heartbeats, trainer metrics, shuffle summaries, model directories and
// gatekeeper records written in the programs' formats, with the odd cases a status tool must
// survive: a stale heartbeat, a dead process, garbage files, a rising loss.

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
#include <chrono>
#include <cmath>
#include <ctime>
#include <string>
#include <vector>

#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "status/run_status.h"
#include "status/scan.h"
#include "test_support.h"
#include "util/publish.h"
#include "util/subprocess.h"

namespace tengen::testing {

inline void WriteText(const std::string& path, const std::string& text) {
  EnsureDirectory(boost::filesystem::path(path).parent_path().string());
  PublishFile(path, text);
}

inline void SetMtime(const std::string& path, double seconds) {
  boost::filesystem::last_write_time(path, static_cast<std::time_t>(seconds));
}

// A heartbeat in the real format (pipeline/heartbeat.h) written `age` seconds ago.
inline void WriteHeartbeat(const std::string& base, const std::string& program,
                           const std::string& host, long pid, double age, const std::string& state,
                           const std::vector<std::pair<std::string, double>>& counters,
                           const std::vector<std::pair<std::string, std::string>>& texts = {}) {
  pipeline::HeartbeatInfo info;
  info.state = state;
  info.texts = texts;
  info.counters = counters;
  const std::string file = program + "-" + host + "-" + std::to_string(pid) + ".json";
  WriteText(pipeline::StatusDir(base) + "/" + file,
            pipeline::HeartbeatJson(program, host, pid,
                                    status::FormatUtc(status::NowSeconds() - age), info));
}

inline std::string MetricsLine(int epoch, double samples, double loss_total, double age) {
  const double policy = loss_total * 0.6;
  return "{\"time_utc\": \"" + status::FormatUtc(status::NowSeconds() - age) +
         "\", \"epoch\": " + std::to_string(epoch) + ", \"samples\": " + std::to_string(samples) +
         ", \"rows\": " + std::to_string(samples / 4) +
         ", \"steps\": 10, \"lr\": 0.001, \"bucket\": 1200.5, \"samples_per_second\": 350.25, "
         "\"micro_batch\": 16, \"loss_policy\": " +
         std::to_string(policy) + ", \"loss_value\": " + std::to_string(loss_total * 0.25) +
         ", \"loss_score\": " + std::to_string(loss_total * 0.1) +
         ", \"loss_ownership\": " + std::to_string(loss_total * 0.05) +
         ", \"loss_total\": " + std::to_string(loss_total) + "}\n";
}

inline std::string GatingJson(const std::string& candidate, const std::string& baseline,
                              bool accepted, int wins, int losses, double elo, double age) {
  return std::string("{\"format\": \"tengen-gating\", \"format_version\": 1, \"candidate\": \"") +
         candidate + "\", \"baseline\": \"" + baseline +
         "\", \"games_planned\": 20, \"games\": " + std::to_string(wins + losses) +
         ", \"candidate_wins\": " + std::to_string(wins) +
         ", \"candidate_losses\": " + std::to_string(losses) +
         ", \"draws\": 0, \"score\": " + std::to_string(wins) +
         ", \"score_fraction\": " + std::to_string(static_cast<double>(wins) / (wins + losses)) +
         ", \"elo\": " + std::to_string(elo) + ", \"elo_low\": " + std::to_string(elo - 80) +
         ", \"elo_high\": " + std::to_string(elo + 80) +
         ", \"mode\": \"fixed\", \"sprt\": null, \"decision\": \"" +
         (accepted ? "accepted" : "rejected") + "\", \"reason\": \"test\", \"finished_utc\": \"" +
         status::FormatUtc(status::NowSeconds() - age) + "\"}\n";
}

inline void WriteModel(const std::string& dir, const std::string& name, double age) {
  WriteText(dir + "/" + name + "/export.json", "{\"name\": \"" + name + "\", \"exported_utc\": \"" +
                                                   status::FormatUtc(status::NowSeconds() - age) +
                                                   "\"}\n");
  WriteText(dir + "/" + name + "/model.json", "{\"name\": \"" + name + "\"}\n");
}

struct Fixture {
  std::string base;
  std::string dead_host;  // this machine's host name, used for the dead heartbeat
  long dead_pid = 0;
  int64_t rows = 0;  // rows in the selfplay shards
};

// Builds the fixture in base (an empty directory). The newest shard is 40 minutes old.
inline Fixture BuildFixture(const std::string& base) {
  Fixture f;
  f.base = base;
  const double now = status::NowSeconds();
  // Real shards and SGFs from the random net.
  const ProcessResult selfplay = RunProcess({TENGEN_BIN_DIR "/tengen-selfplay",
                                             "--output-dir",
                                             base,
                                             "--set",
                                             "board_sizes=5:1",
                                             "--set",
                                             "pos_len=5",
                                             "--set",
                                             "full_visits=6",
                                             "--set",
                                             "cheap_visits=3",
                                             "--set",
                                             "num_game_threads=2",
                                             "--set",
                                             "max_rows_per_file=20",
                                             "--set",
                                             "seed=7",
                                             "--set",
                                             "log_level=warning",
                                             "--max-games-total",
                                             "6"});
  REQUIRE_MESSAGE(selfplay.exit_code == 0, selfplay.output);
  const std::string tdata = pipeline::TdataDir(base, pipeline::kRandomModelName);
  const std::string sgfs = pipeline::SgfsDir(base, pipeline::kRandomModelName);
  std::vector<std::string> shards = ListPublished(tdata);
  REQUIRE(shards.size() >= 2);
  for (size_t i = 0; i < shards.size(); ++i) {
    // From 3 h ago to 40 min ago, oldest first: names (their leading UTC time) and files.
    const double t =
        now - 3 * 3600 +
        (3 * 3600 - 2400) * static_cast<double>(i) / static_cast<double>(shards.size() - 1);
    const std::time_t whole = static_cast<std::time_t>(t);
    std::tm utc{};
    gmtime_r(&whole, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
    const std::string old_name = shards[i];
    REQUIRE(old_name.size() > 15);
    shards[i] = stamp + old_name.substr(15);
    boost::filesystem::rename(tdata + "/" + old_name, tdata + "/" + shards[i]);
    SetMtime(tdata + "/" + shards[i], t);
    f.rows += data::CountShardRows(tdata + "/" + shards[i]);
    const std::string old_stem = old_name.substr(0, old_name.rfind("-r"));
    const std::string sgf = sgfs + "/" + stamp + old_stem.substr(15) + ".sgfs";
    if (boost::filesystem::exists(sgfs + "/" + old_stem + ".sgfs")) {
      boost::filesystem::rename(sgfs + "/" + old_stem + ".sgfs", sgf);
      SetMtime(sgf, t);
    }
  }

  // Heartbeats: three alive selfplay processes on two hosts, a stale trainer, an ended
  // shuffler, a forgotten exporter, a dead gatekeeper on this machine, garbage files.
  WriteHeartbeat(base, "selfplay", "hostA", 100, 10, "playing",
                 {{"games", 50},
                  {"rows", 1000},
                  {"rows_unpublished", 0},
                  {"games_per_hour", 1800},
                  {"rows_per_second", 10},
                  {"nn_evals_per_second", 900},
                  {"mean_batch_size", 12.5},
                  {"model_load_seconds", 2.5},
                  {"model_games", 40},
                  {"games_end_passes", 38},
                  {"games_end_move_cap", 2},
                  {"games_end_resignation", 0},
                  {"moves_after_first_pass_median", 3},
                  {"moves_after_first_pass_p90", 9},
                  {"mean_abs_final_score", 6.25}},
                 {{"model", "run-b6c96-s3000-d900"}});
  // Its model's games were all resigned so far: no pass, no score (null in the heartbeat).
  WriteHeartbeat(base, "selfplay", "hostA", 101, 20, "playing",
                 {{"games", 30},
                  {"games_per_hour", 1200},
                  {"rows_per_second", 5},
                  {"model_games", 3},
                  {"games_end_passes", 0},
                  {"games_end_move_cap", 0},
                  {"games_end_resignation", 3},
                  {"moves_after_first_pass_median", std::nan("")},
                  {"moves_after_first_pass_p90", std::nan("")},
                  {"mean_abs_final_score", std::nan("")}},
                 {{"model", "run-b6c96-s1000-d500"}});
  WriteHeartbeat(base, "selfplay", "hostB", 200, 5, "switching model",
                 {{"games", 20}, {"games_per_hour", 600}, {"rows_per_second", 2}});
  WriteHeartbeat(base, "trainer", "hostC", 300, 3600, "training",
                 {{"samples", 4000}, {"bucket", 1200}, {"policy_loss", 1.2}},
                 {{"training_name", "b6c96"}});
  WriteHeartbeat(base, "shuffler", "hostD", 2, 100, "stopped", {{"shuffles_published", 3}});
  WriteHeartbeat(base, "exporter", "hostE", 5, 3 * 86400, "polling", {{"exported", 1}});
  {
    Subprocess finished({"true"});
    f.dead_pid = finished.pid();
    finished.Wait();
  }
  f.dead_host = pipeline::HostName();
  WriteHeartbeat(base, "gatekeeper", f.dead_host, f.dead_pid, 30, "testing", {{"accepted", 1}});
  WriteText(pipeline::StatusDir(base) + "/shuffler-hostD-1.json", "{\"program\": \"shuf");
  WriteText(pipeline::StatusDir(base) + "/empty-host-1.json", "");
  WriteText(pipeline::StatusDir(base) + "/noprogram-host-1.json", "{\"pid\": 3}");
  WriteText(pipeline::StatusDir(base) + "/synchronous_loop-hostF.json",
            "{\"program\": \"synchronous_loop\", \"host\": \"hostF\", \"pid\": 77, \"time_utc\": "
            "\"" +
                status::FormatUtc(now - 600) +
                "\", \"state\": \"selfplay\", \"texts\": {\"run\": \"run\", \"training_name\": "
                "\"b6c96\"}, \"counters\": {\"cycle\": 3, \"seconds\": 5000}}\n");

  // Trainer metrics: b6c96's loss_total rises over its last 3 epochs; "small" falls. A
  // half-written line is skipped.
  WriteText(base + "/train/b6c96/metrics.jsonl",
            MetricsLine(1, 1000, 3.0, 4000) + MetricsLine(2, 2000, 2.5, 3000) +
                MetricsLine(3, 3000, 2.6, 2000) + MetricsLine(4, 4000, 2.7, 1000) +
                "{\"time_utc\": \"2026-");
  WriteText(base + "/train/small/metrics.jsonl", MetricsLine(1, 500, 4.0, 3500) +
                                                     MetricsLine(2, 1000, 3.5, 2500) +
                                                     MetricsLine(3, 1500, 3.2, 1500));

  // Two shuffles (the newer one named second) and one with a garbage summary.
  const std::string shuffled = pipeline::ShuffledDataDir(base);
  const auto summary = [&](double total, double window, double age) {
    return "{\"created_utc\": \"" + status::FormatUtc(now - age) +
           "\", \"total_rows\": " + std::to_string(total) +
           ", \"desired_window_rows\": " + std::to_string(window + 10) +
           ", \"window_rows\": " + std::to_string(window) +
           ", \"output_rows\": " + std::to_string(window) + ", \"window_start\": {\"file\": \"" +
           tdata + "/" + shards[0] +
           "\", \"mtime_utc\": \"2026-01-01T00:00:00Z\"}, \"files\": [{\"path\": \"x\", "
           "\"rows\": 5}]}\n";
  };
  WriteText(shuffled + "/20260101-000000-h-1-a/summary.json", summary(5000, 3000, 7200));
  WriteText(shuffled + "/20260101-010000-h-1-b/summary.json", summary(9000, 4321, 1800));
  WriteText(shuffled + "/20260101-020000-h-1-c/summary.json", "garbage{");

  // Models: two accepted, one rejected, one waiting; gatekeeper records for three of them.
  const std::string models = pipeline::ModelsDir(base);
  WriteModel(models, "run-b6c96-s1000-d500", 3 * 3600);
  WriteModel(models, "run-b6c96-s3000-d900", 3600);
  WriteModel(pipeline::RejectedModelsDir(base), "run-b6c96-s2000-d700", 2 * 3600);
  WriteModel(pipeline::ModelsToBeTestedDir(base), "run-b6c96-s4000-d1000", 600);
  const std::string gk = pipeline::GatekeeperSgfDir(base);
  WriteText(gk + "/run-b6c96-s1000-d500/a.json",
            GatingJson("run-b6c96-s1000-d500", "random", true, 15, 5, 190, 3 * 3600));
  WriteText(gk + "/run-b6c96-s2000-d700/b.json",
            GatingJson("run-b6c96-s2000-d700", "run-b6c96-s1000-d500", false, 6, 14, -147, 7200));
  WriteText(gk + "/run-b6c96-s3000-d900/c.json",
            GatingJson("run-b6c96-s3000-d900", "run-b6c96-s1000-d500", true, 12, 8, 70, 3600));
  WriteText(gk + "/run-b6c96-s3000-d900/d.json", "{\"format\": \"something-else\"}");
  return f;
}

}  // namespace tengen::testing
