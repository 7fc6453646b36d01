// The status tool (status/run_status.h, tengen-status) on a base directory built by
// status_fixture.h: every heartbeat's condition (alive, stale, dead, ended, forgotten, garbage
// skipped), selfplay rates per host, data totals, shuffle, training, models, gating, and each
// warning; the JSON output parses and says the same; the program's options.

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/training_rows.h"
#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "status/run_status.h"
#include "status/scan.h"
#include "status/status_format.h"
#include "status_fixture.h"
#include "test_support.h"
#include "util/error.h"
#include "util/subprocess.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;
using tengen::testing::BuildFixture;
using tengen::testing::Fixture;
using tengen::testing::TempDir;

const std::string kStatus = TENGEN_BIN_DIR "/tengen-status";

// Options under which the disk never warns (the test machine's free space is not ours).
StatusOptions Quiet() {
  StatusOptions o;
  o.min_free_gb = 0;
  o.min_free_percent = 0;
  return o;
}

const ProcessStatus* FindProcess(const RunStatus& s, const std::string& program,
                                 const std::string& host) {
  for (const ProcessStatus& p : s.processes) {
    if (p.heartbeat.program == program && p.heartbeat.host == host) return &p;
  }
  return nullptr;
}

int CountWarnings(const RunStatus& s, const std::string& prefix) {
  return static_cast<int>(std::count_if(s.warnings.begin(), s.warnings.end(),
                                        [&](const auto& w) { return w.rfind(prefix, 0) == 0; }));
}

bool AnyContains(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

int64_t CountRowsDirectly(const std::string& base) {
  int64_t rows = 0;
  const std::string dir = base + "/selfplay/random/tdata";
  for (const std::string& name : ListPublished(dir)) rows += data::CountShardRows(dir + "/" + name);
  return rows;
}

TEST_CASE("status: heartbeats alive, stale, dead, ended, forgotten, and garbage skipped") {
  TempDir dir;
  const Fixture f = BuildFixture(dir.path());
  const RunStatus s = CollectStatus(dir.path(), Quiet(), NowSeconds());

  const ProcessStatus* trainer = FindProcess(s, "trainer", "hostC");
  REQUIRE(trainer != nullptr);
  CHECK(trainer->condition == "stale");
  CHECK(trainer->age_seconds > 3000);
  const ProcessStatus* selfplay_b = FindProcess(s, "selfplay", "hostB");
  REQUIRE(selfplay_b != nullptr);
  CHECK(selfplay_b->condition == "alive");
  CHECK(selfplay_b->heartbeat.state == "switching model");
  const ProcessStatus* shuffler = FindProcess(s, "shuffler", "hostD");
  REQUIRE(shuffler != nullptr);
  CHECK(shuffler->condition == "ended");
  const ProcessStatus* gatekeeper = FindProcess(s, "gatekeeper", f.dead_host);
  REQUIRE(gatekeeper != nullptr);
  CHECK(gatekeeper->condition == "dead");
  // The real selfplay run ended cleanly on this machine.
  const ProcessStatus* real = FindProcess(s, "selfplay", f.dead_host);
  REQUIRE(real != nullptr);
  CHECK(real->condition == "ended");
  // The exporter's heartbeat is 3 days old: counted, not listed.
  CHECK(FindProcess(s, "exporter", "hostE") == nullptr);
  CHECK(s.forgotten_heartbeats == 1);
  // Garbage: not JSON, empty, no program. Each is a note, none a process.
  CHECK(AnyContains(s.notes, "shuffler-hostD-1.json skipped: not JSON"));
  CHECK(AnyContains(s.notes, "empty-host-1.json skipped"));
  CHECK(AnyContains(s.notes, "noprogram-host-1.json skipped: no program"));
  CHECK(s.processes.size() == 7);  // 3 + 1 selfplay, trainer, shuffler, gatekeeper

  // The loop's phase record is not a process.
  REQUIRE(s.loops.size() == 1);
  CHECK(s.loops[0].phase == "selfplay");
  CHECK(s.loops[0].cycle == 3);
  CHECK_FALSE(s.loops[0].running.has_value());  // another host: cannot tell

  CHECK(CountWarnings(s, "stale: trainer on hostC (pid 300)") == 1);
  CHECK(CountWarnings(s, "dead: gatekeeper on " + f.dead_host) == 1);
  CHECK(CountWarnings(s, "stale:") == 1);
  // With a threshold above the trainer's age it is alive again.
  StatusOptions lenient = Quiet();
  lenient.stale_seconds = 7200;
  const RunStatus l = CollectStatus(dir.path(), lenient, NowSeconds());
  CHECK(FindProcess(l, "trainer", "hostC")->condition == "alive");
  CHECK(CountWarnings(l, "stale:") == 0);
}

TEST_CASE("status: selfplay rates per host, data totals, shuffle, training, models, gating") {
  TempDir dir;
  BuildFixture(dir.path());
  const RunStatus s = CollectStatus(dir.path(), Quiet(), NowSeconds());

  REQUIRE(s.selfplay_hosts.size() == 2);
  CHECK(s.selfplay_hosts[0].host == "hostA");
  CHECK(s.selfplay_hosts[0].processes == 2);
  CHECK(s.selfplay_hosts[0].games_per_hour == doctest::Approx(3000));
  CHECK(s.selfplay_hosts[0].rows_per_hour == doctest::Approx(15 * 3600));
  CHECK(s.selfplay_hosts[1].host == "hostB");
  CHECK(s.selfplay_active == 3);
  CHECK(s.games_per_hour == doctest::Approx(3600));
  CHECK(s.games_heartbeats == doctest::Approx(50 + 30 + 20 + 6));  // the real run played 6

  CHECK(s.shard_files >= 2);
  CHECK(s.shard_rows == CountRowsDirectly(dir.path()));
  CHECK(s.shard_rows > 0);
  CHECK(s.rows_last_hour >= 0);
  CHECK(s.rows_last_hour < s.shard_rows);  // the older shards are back-dated
  CHECK(s.unreadable_shards == 0);
  CHECK(s.models_with_data == 1);
  REQUIRE(s.newest_shard_time.has_value());
  CHECK(NowSeconds() - *s.newest_shard_time > 2000);

  CHECK(s.shuffles.count == 2);
  REQUIRE(s.shuffles.newest.has_value());
  CHECK(s.shuffles.newest->name == "20260101-010000-h-1-b");
  CHECK(s.shuffles.newest->total_rows == 9000);
  CHECK(s.shuffles.newest->window_rows == 4321);
  CHECK(AnyContains(s.notes, "20260101-020000-h-1-c/summary.json skipped"));

  REQUIRE(s.trainings.size() == 2);
  CHECK(s.trainings[0].name == "b6c96");
  CHECK(s.trainings[0].epochs_logged == 4);  // the half-written line is skipped
  CHECK(s.trainings[0].last.samples == 4000);
  CHECK(s.trainings[0].last.loss_total == doctest::Approx(2.7));
  CHECK(s.trainings[0].last.bucket == doctest::Approx(1200.5));
  CHECK(s.trainings[0].loss_rising);
  CHECK_FALSE(s.trainings[1].loss_rising);
  CHECK(AnyContains(s.notes, "b6c96/metrics.jsonl: 1 lines skipped"));

  CHECK(s.models.accepted == 2);
  REQUIRE(s.models.newest_accepted.has_value());
  CHECK(s.models.newest_accepted->name == "run-b6c96-s3000-d900");
  CHECK(s.models.rejected == 1);
  CHECK(s.models.queue == std::vector<std::string>{"run-b6c96-s4000-d1000"});
  CHECK(s.gating.accepted == 2);
  CHECK(s.gating.rejected == 1);
  REQUIRE(s.gating.last.has_value());
  CHECK(s.gating.last->candidate == "run-b6c96-s3000-d900");
  CHECK(s.gating.last->elo == doctest::Approx(70));
  CHECK(AnyContains(s.notes, "format is not tengen-gating"));
  CHECK_FALSE(s.ladder.present);

  CHECK(s.base_bytes > s.shard_bytes);
  CHECK(s.selfplay_bytes_last_hour > 0);  // the real run's logs and heartbeats are new
  CHECK(s.train_bytes_last_hour > 0);
  REQUIRE(s.space.has_value());
  CHECK(s.space->capacity > 0);

  const std::string text = FormatStatus(s);
  for (const char* part :
       {"selfplay on hostA pid 100: alive, 'playing'", "trainer on hostC pid 300: STALE",
        "hostA: 2 processes, 3000 games/h, 54000 rows/h", "model model_load_seconds: 2.5",
        "newest 20260101-010000-h-1-b", "window 4321 of desired 4331 rows",
        "b6c96: epoch 4, samples 4000", "waiting for the gatekeeper 1: run-b6c96-s4000-d1000",
        "last run-b6c96-s3000-d900: accepted 12-8-0 in 20 games, Elo +70 [-10, +150]",
        "synchronous loop on hostF pid 77: phase 'selfplay', cycle 3", "Warnings: "}) {
    CHECK_MESSAGE(text.find(part) != std::string::npos, part, "\n", text);
  }
  CHECK(text.find("... and") == std::string::npos);  // fewer than max_listed of everything

  // A thousand hosts' worth, cut to max_listed of each kind: 3 alive selfplay processes on 2
  // hosts listed 1 each.
  RunStatus few = s;
  few.options.max_listed = 1;
  const std::string cut = FormatStatus(few);
  for (const char* part :
       {"selfplay on hostA pid 100: alive", "... and 2 more selfplay processes alive",
        "    hostA: 2 processes", "    ... and 1 more hosts"}) {
    CHECK_MESSAGE(cut.find(part) != std::string::npos, part, "\n", cut);
  }
  CHECK(cut.find("    hostB:") == std::string::npos);
  // Warnings: max_listed of each kind, so a rarer kind is never hidden behind a common one.
  few.warnings = {"stale: selfplay a", "stale: selfplay b", "disk nearly full: 1 GB free"};
  const std::string warned = FormatStatus(few);
  for (const char* part : {"! stale: selfplay a", "! ... and 1 more 'stale' warnings",
                           "! disk nearly full: 1 GB free"}) {
    CHECK_MESSAGE(warned.find(part) != std::string::npos, part, "\n", warned);
  }
  CHECK(warned.find("selfplay b") == std::string::npos);
}

TEST_CASE("status: warnings for no new data, full disk, rising loss and broken checkpoints") {
  TempDir dir;
  BuildFixture(dir.path());
  StatusOptions o = Quiet();
  RunStatus s = CollectStatus(dir.path(), o, NowSeconds());
  // The newest shard is 40 min old, the default threshold 30 min.
  CHECK(CountWarnings(s, "no data: no new selfplay shard for") == 1);
  CHECK(CountWarnings(s, "rising loss: training b6c96: loss_total rose over the last 3 epochs") ==
        1);
  CHECK(CountWarnings(s, "rising loss: training small") == 0);
  CHECK(CountWarnings(s, "disk nearly full") == 0);
  CHECK(CountWarnings(s, "broken checkpoints") == 0);
  // A checkpoint the trainer set aside as damaged.
  testing::WriteText(dir / "train/b6c96/checkpoints/broken-ckpt-000000000000064-x/state.json",
                     "{}");
  testing::WriteText(dir / "train/b6c96/checkpoints/ckpt-000000000000128-y/state.json", "{}");
  s = CollectStatus(dir.path(), o, NowSeconds());
  CHECK(CountWarnings(s, "broken checkpoints: training b6c96: 1 damaged") == 1);

  o.no_data_minutes = 60;
  o.rising_loss_epochs = 4;  // 3.0, 2.5, 2.6, 2.7 is not rising over 4
  o.min_free_gb = 1e9;       // more than any disk
  s = CollectStatus(dir.path(), o, NowSeconds());
  CHECK(CountWarnings(s, "no data") == 0);
  CHECK(CountWarnings(s, "rising loss") == 0);
  CHECK(CountWarnings(s, "disk nearly full") == 1);

  o = Quiet();
  o.min_free_percent = 100;
  s = CollectStatus(dir.path(), o, NowSeconds());
  CHECK(CountWarnings(s, "disk nearly full") == 1);

  // While the synchronous loop trains, no selfplay data is expected.
  testing::WriteText(dir / "status/synchronous_loop-hostF.json",
                     "{\"program\": \"synchronous_loop\", \"host\": \"hostF\", \"pid\": 77, "
                     "\"time_utc\": \"" +
                         FormatUtc(NowSeconds()) +
                         "\", \"state\": \"train\", \"counters\": {\"cycle\": 3}}");
  s = CollectStatus(dir.path(), Quiet(), NowSeconds());
  CHECK(CountWarnings(s, "no data") == 0);
  // A failed loop is a warning.
  testing::WriteText(dir / "status/synchronous_loop-hostF.json",
                     "{\"program\": \"synchronous_loop\", \"host\": \"hostF\", \"pid\": 77, "
                     "\"time_utc\": \"" +
                         FormatUtc(NowSeconds()) + "\", \"state\": \"failed:train\"}");
  s = CollectStatus(dir.path(), Quiet(), NowSeconds());
  CHECK(CountWarnings(s, "synchronous loop on hostF failed:train") == 1);
}

TEST_CASE("status: an empty or missing base directory and odd files do not crash it") {
  TempDir dir;
  RunStatus s = CollectStatus(dir / "missing", Quiet(), NowSeconds());
  CHECK(CountWarnings(s, "base directory") == 1);
  CHECK_NOTHROW(FormatStatus(s));
  CHECK(json::parse(StatusJson(s))["warnings"].size() == 1);

  s = CollectStatus(dir.path(), Quiet(), NowSeconds());
  CHECK(s.processes.empty());
  CHECK(CountWarnings(s, "no data: no selfplay shard") == 1);

  // A truncated shard, a directory where a heartbeat should be, binary garbage.
  testing::WriteText(dir / "selfplay/m/tdata/x.npz", "PK\x03\x04 not really");
  testing::WriteText(dir / "status/dir.json/inner", "x");
  testing::WriteText(dir / "status/bin-h-1.json", std::string("\0\xff\x01{", 4));
  testing::WriteText(dir / "status/name-\xff\xfe.json", "not json");  // not UTF-8
  testing::WriteText(dir / "train/t/metrics.jsonl", "[1,2]\nnull\n{\"epoch\": \"three\"}\n");
  testing::WriteText(dir / "models/not-a-model", "plain file");
  testing::WriteText(dir / "ladder/ladder.json", "{\"format\": 3}");
  s = CollectStatus(dir.path(), Quiet(), NowSeconds());
  CHECK(s.unreadable_shards == 1);
  CHECK(CountWarnings(s, "unreadable data: 1") == 1);
  CHECK(s.processes.empty());
  REQUIRE(s.trainings.size() == 1);
  CHECK(s.trainings[0].epochs_logged == 1);  // the object with a non-number epoch
  CHECK(s.models.accepted == 0);
  CHECK(AnyContains(s.notes, "ladder"));
  CHECK(AnyContains(s.notes, "name-\xff\xfe.json skipped"));
  CHECK_NOTHROW(json::parse(StatusJson(s)));
}

TEST_CASE("status: SLURM job ids beside hosts and pids, only for processes that have one") {
  TempDir dir;
  const std::string base = dir.path();
  pipeline::HeartbeatInfo info;
  info.state = "playing";
  const auto write = [&](const std::string& program, long pid, double age, const std::string& state,
                         const pipeline::SlurmJob& job) {
    info.state = state;
    testing::WriteText(
        pipeline::StatusDir(base) + "/" + program + "-hostS-" + std::to_string(pid) + ".json",
        pipeline::HeartbeatJson(program, "hostS", pid, FormatUtc(NowSeconds() - age), info, job));
  };
  write("selfplay", 11, 5, "playing", {"4711", "4700", "3"});
  write("trainer", 12, 4000, "training", {"4712", "", ""});  // stale: named in the warning
  write("shuffler", 13, 5, "shuffling", {});
  const RunStatus s = CollectStatus(base, Quiet(), NowSeconds());
  REQUIRE(s.processes.size() == 3);
  const ProcessStatus* selfplay = FindProcess(s, "selfplay", "hostS");
  REQUIRE(selfplay != nullptr);
  CHECK(selfplay->heartbeat.slurm.job_id == "4711");
  CHECK(selfplay->heartbeat.slurm.array_job_id == "4700");
  CHECK(selfplay->heartbeat.slurm.array_task_id == "3");
  CHECK(FindProcess(s, "shuffler", "hostS")->heartbeat.slurm.empty());
  CHECK(CountWarnings(s, "stale: trainer on hostS (pid 12, SLURM job 4712)") == 1);

  const std::string text = FormatStatus(s);
  CHECK(text.find("  selfplay on hostS pid 11 (SLURM job 4700_3): alive, 'playing'") !=
        std::string::npos);
  CHECK(text.find("  trainer on hostS pid 12 (SLURM job 4712): STALE") != std::string::npos);
  CHECK(text.find("  shuffler on hostS pid 13: alive, 'shuffling'") != std::string::npos);

  const json j = json::parse(StatusJson(s));
  int checked = 0;
  for (const json& p : j["processes"]) {
    if (p["program"] == "selfplay") {
      CHECK(p["slurm"] == json{{"job_id", "4711"},
                               {"name", "4700_3"},
                               {"array_job_id", "4700"},
                               {"array_task_id", "3"}});
      ++checked;
    } else if (p["program"] == "trainer") {
      CHECK(p["slurm"] == json{{"job_id", "4712"}, {"name", "4712"}});
      ++checked;
    } else if (p["program"] == "shuffler") {
      CHECK_FALSE(p.contains("slurm"));
      ++checked;
    }
  }
  CHECK(checked == 3);

  // A "slurm" object that is not one (a string, no job_id) is ignored, not fatal.
  testing::WriteText(pipeline::StatusDir(base) + "/exporter-hostS-14.json",
                     "{\"program\": \"exporter\", \"host\": \"hostS\", \"pid\": 14, "
                     "\"slurm\": \"4713\", \"time_utc\": \"" +
                         FormatUtc(NowSeconds()) + "\", \"state\": \"waiting\"}\n");
  testing::WriteText(pipeline::StatusDir(base) + "/gatekeeper-hostS-15.json",
                     "{\"program\": \"gatekeeper\", \"host\": \"hostS\", \"pid\": 15, "
                     "\"slurm\": {\"array_job_id\": \"1\"}, \"time_utc\": \"" +
                         FormatUtc(NowSeconds()) + "\", \"state\": \"waiting\"}\n");
  const RunStatus odd = CollectStatus(base, Quiet(), NowSeconds());
  REQUIRE(odd.processes.size() == 5);
  CHECK(FindProcess(odd, "exporter", "hostS")->heartbeat.slurm.empty());
  CHECK(FindProcess(odd, "gatekeeper", "hostS")->heartbeat.slurm.empty());
  CHECK(FormatStatus(odd).find("  exporter on hostS pid 14: alive") != std::string::npos);
}

TEST_CASE("status: ParseUtc and FormatUtc") {
  CHECK(ParseUtc("1970-01-01T00:00:00Z") == 0.0);
  CHECK(*ParseUtc("2026-11-21T10:04:05.250Z") == doctest::Approx(1795255445.25));
  CHECK(FormatUtc(1795255445.25) == "2026-11-21T10:04:05Z");
  CHECK_FALSE(ParseUtc("2026-11-21 10:04:05").has_value());
  CHECK_FALSE(ParseUtc("2026-13-21T10:04:05Z").has_value());
  CHECK_FALSE(ParseUtc("").has_value());
  CHECK_FALSE(ParseUtc("2026-11-21T10:04:05Zjunk").has_value());
  CHECK(FormatDuration(45) == "45 s");
  CHECK(FormatDuration(720) == "12 min");
  CHECK(FormatDuration(3.5 * 3600) == "3.5 h");
  CHECK(FormatBytes(12.3e6) == "12.3 MB");
}

TEST_CASE("status: tengen-status prints text and JSON and checks its options") {
  TempDir dir;
  BuildFixture(dir.path());
  const ProcessResult text =
      RunProcess({kStatus, dir.path(), "--min-free-gb", "0", "--min-free-percent", "0"});
  REQUIRE_MESSAGE(text.exit_code == 0, text.output);
  CHECK(text.output.find("trainer on hostC pid 300: STALE") != std::string::npos);
  CHECK(text.output.find("! stale: trainer on hostC") != std::string::npos);
  CHECK(text.output.find("! rising loss: training b6c96") != std::string::npos);
  // How the current model's games end, for the selfplay process that reports it.
  CHECK(text.output.find("games of this model 40: ended by passes 38, move cap 2, resignation 0; "
                         "moves after the first pass: median 3, 90th percentile 9; mean |final "
                         "score| 6.25") != std::string::npos);
  // A model whose games were all resigned: no figures for passes or scores, in the entry of
  // that process (after its own heading, before the next process's).
  const size_t p101 = text.output.find("selfplay on hostA pid 101");
  const size_t p200 = text.output.find("selfplay on hostB pid 200");
  const size_t resigned =
      text.output.find("games of this model 3: ended by passes 0, move cap 0, resignation 3\n");
  REQUIRE(p101 != std::string::npos);
  CHECK(resigned > p101);
  CHECK(resigned < p200);

  const ProcessResult js = RunProcess({kStatus, "--json", "--set", "min_free_gb=0", "--set",
                                       "min_free_percent=0", "--base-dir", dir.path()});
  REQUIRE_MESSAGE(js.exit_code == 0, js.output);
  const json j = json::parse(js.output);  // throws (fails the test) when it does not parse
  CHECK(j["format"] == "tengen-status");
  CHECK(j["selfplay"]["active_processes"] == 3);
  bool ends_in_json = false, no_pass_in_json = false;
  for (const json& p : j["processes"]) {
    if (p["pid"] == 100) ends_in_json = p["counters"]["moves_after_first_pass_p90"] == 9;
    if (p["pid"] == 101) {
      no_pass_in_json = p["counters"]["games_end_resignation"] == 3 &&
                        p["counters"]["moves_after_first_pass_median"].is_null() &&
                        p["counters"]["mean_abs_final_score"].is_null();
    }
  }
  CHECK(ends_in_json);
  CHECK(no_pass_in_json);
  CHECK(j["selfplay"]["shard_rows"].get<int64_t>() == CountRowsDirectly(dir.path()));
  CHECK(j["shuffle"]["newest"]["window_rows"] == 4321);
  CHECK(j["models"]["queue"].size() == 1);
  CHECK(j["training"][0]["loss_rising"] == true);
  bool stale_trainer = false;
  for (const json& p : j["processes"]) {
    if (p["program"] == "trainer") stale_trainer = p["condition"] == "stale";
  }
  CHECK(stale_trainer);
  CHECK(j["warnings"].size() >= 3);
  CHECK(j["disk"]["free_bytes"].is_number());

  CHECK(RunProcess({kStatus}).exit_code == 2);  // no base directory
  const ProcessResult missing = RunProcess({kStatus, dir / "no-such-run"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find(dir / "no-such-run") != std::string::npos);
  CHECK(RunProcess({kStatus, dir.path(), "--stale-seconds", "0"}).exit_code == 2);
  CHECK(RunProcess({kStatus, dir.path(), "--no-such-key", "1"}).exit_code == 2);
  CHECK(RunProcess({kStatus, dir.path(), dir / "other"}).exit_code == 2);
  CHECK(RunProcess({kStatus, dir.path(), "--base-dir", dir / "other"}).exit_code == 2);
  const ProcessResult help = RunProcess({kStatus, "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("stale_seconds") != std::string::npos);
}

}  // namespace
}  // namespace tengen::status
