// The exporter's queue handling with a fake snapshot check (no libtorch): where a good snapshot
// goes, export.json, skipping names that exist downstream, moving broken snapshots aside,
// oldest first, a failed publication, --once and stopping. tests/torch_export_test.cpp runs
// the real check on real nets.
#include <doctest/doctest.h>

#include <atomic>
#include <boost/filesystem.hpp>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/base_dir.h"
#include "pipeline/exporter.h"
#include "pipeline/exporter_options.h"
#include "play/model_registry.h"
#include "selfplay_check.h"
#include "test_support.h"
#include "util/config.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/version.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;

// A snapshot for the fake check: fake.txt holds "<samples> <rows>", or "broken".
void AddSnapshot(const std::string& queue, const std::string& name, const std::string& fake) {
  EnsureDirectory(queue);
  AtomicDirectory dir(queue + "/" + name);
  PublishFile(dir.path() + "/fake.txt", fake);
  dir.Commit();
}

// Reads fake.txt; `save` copies it and writes the extra files. Names checked, in order, go to
// *order when given.
CheckSnapshot FakeCheck(std::vector<std::string>* order = nullptr, bool fail_save = false) {
  return [order, fail_save](const std::string& dir, const std::string& name,
                            const SnapshotCheckOptions&) {
    if (order != nullptr) order->push_back(name);
    const std::string fake = ReadFile(dir + "/fake.txt");
    if (fake == "broken") throw FormatError(dir + "/weights.pt: truncated");
    if (fake == "config") throw ConfigError("bad device 'tpu'");
    CheckedSnapshot checked;
    std::istringstream(fake) >> checked.training.samples >> checked.training.rows;
    checked.model_name = name;
    checked.architecture = "b1c16";
    checked.feature_version = 1;
    checked.pos_len = 9;
    checked.weights_crc32 = "0badc0de";
    checked.weights_bytes = 1234;
    checked.training.checkpoint = "train/t1/checkpoint-7";
    checked.training_json = "{\"format\": \"tengen-snapshot\"}\n";
    checked.fold_max_difference = 1e-6;
    checked.save = [fake, fail_save](const std::string& dest,
                                     const std::map<std::string, std::string>& extra) {
      if (fail_save) throw IoError(dest + ": No space left on device");
      AtomicDirectory out(dest);
      PublishFile(out.path() + "/fake.txt", fake);
      for (const auto& [file, contents] : extra) PublishFile(out.path() + "/" + file, contents);
      out.Commit();
    };
    return checked;
  };
}

ExporterOptions Options(const std::string& base, CheckSnapshot check) {
  ExporterOptions o;
  o.base_dir = base;
  o.once = true;
  o.poll_interval = std::chrono::milliseconds(50);
  o.check_snapshot = std::move(check);
  return o;
}

ExporterStats Pass(const ExporterOptions& options) {
  static const std::atomic<bool> never{false};
  Logger logger(LogLevel::kError, false);
  return ExportPending(options, logger, StopToken(&never));
}

bool IsDir(const std::string& path) { return fs::is_directory(path); }

TEST_CASE("exporter: a good snapshot goes to modelstobetested/ with export.json") {
  testing::TempDir base;
  const std::string queue = TorchModelsToExportDir(base.path());
  AddSnapshot(queue, "run1-t1-s100-d50", "100 50");
  const ExporterStats stats = Pass(Options(base.path(), FakeCheck()));
  CHECK(stats.exported == 1);
  const std::string model = ModelsToBeTestedDir(base.path()) + "/run1-t1-s100-d50";
  REQUIRE(IsDir(model));
  CHECK(ReadFile(model + "/fake.txt") == "100 50");
  CHECK(ReadFile(model + "/training.json") == "{\"format\": \"tengen-snapshot\"}\n");
  const std::string json = ReadFile(model + "/export.json");
  INFO(json);
  for (const char* field :
       {"\"format\": \"tengen-export\"", "\"name\": \"run1-t1-s100-d50\"",
        "\"architecture\": \"b1c16\"", "\"feature_version\": 1", "\"samples\": 100", "\"rows\": 50",
        "\"parent_checkpoint\": \"train/t1/checkpoint-7\"", "\"weights_crc32\": \"0badc0de\"",
        "\"batchnorm\": \"unfolded\"", "\"destination\": \"modelstobetested\"",
        "\"exported_utc\": \"20"})
    CHECK(json.find(field) != std::string::npos);
  CHECK(json.find("\"exporter_code_version\": \"" + std::string(CodeVersion()) + "\"") !=
        std::string::npos);
  CHECK(json.front() == '{');
  CHECK(json.find("{,") == std::string::npos);
  CHECK(ListPublished(queue).empty());
  CHECK_FALSE(testing::AnyTemporary(base.path()));
  CHECK_FALSE(fs::exists(ModelsDir(base.path())));
}

TEST_CASE("exporter: with gating off models go straight into models/") {
  testing::TempDir base;
  AddSnapshot(TorchModelsToExportExtraDir(base.path()), "run1-t1-s100-d50", "100 50");
  ExporterOptions options = Options(base.path(), FakeCheck());
  options.gating = false;
  CHECK(Pass(options).exported == 1);
  CHECK(IsDir(ModelsDir(base.path()) + "/run1-t1-s100-d50"));
  CHECK(ReadFile(ModelsDir(base.path()) + "/run1-t1-s100-d50/export.json")
            .find("\"destination\": \"models\"") != std::string::npos);
  CHECK(ListPublished(TorchModelsToExportExtraDir(base.path())).empty());
}

TEST_CASE("exporter: names already downstream are not exported twice") {
  testing::TempDir base;
  const std::string queue = TorchModelsToExportDir(base.path());
  for (const std::string& dir :
       {ModelsDir(base.path()), RejectedModelsDir(base.path()), ModelsToBeTestedDir(base.path())})
    EnsureDirectory(dir);
  EnsureDirectory(ModelsDir(base.path()) + "/run1-t1-s100-d50");
  EnsureDirectory(RejectedModelsDir(base.path()) + "/run1-t1-s200-d60");
  EnsureDirectory(ModelsToBeTestedDir(base.path()) + "/run1-t1-s300-d70");
  AddSnapshot(queue, "run1-t1-s100-d50", "100 50");
  AddSnapshot(queue, "run1-t1-s200-d60", "200 60");
  AddSnapshot(queue, "run1-t1-s300-d70", "300 70");
  // The same name in both queues: exported once.
  AddSnapshot(queue, "run1-t1-s400-d80", "400 80");
  AddSnapshot(TorchModelsToExportExtraDir(base.path()), "run1-t1-s400-d80", "400 80");
  std::vector<std::string> order;
  const ExporterStats stats = Pass(Options(base.path(), FakeCheck(&order)));
  CHECK(stats.skipped == 4);
  CHECK(stats.exported == 1);
  CHECK(order == std::vector<std::string>{"run1-t1-s400-d80"});
  CHECK(ListPublished(queue).empty());
  CHECK(ListPublished(TorchModelsToExportExtraDir(base.path())).empty());
  CHECK_FALSE(fs::exists(ModelsDir(base.path()) + "/run1-t1-s100-d50/export.json"));
}

TEST_CASE("exporter: broken snapshots are moved aside with a reason, never fatal") {
  testing::TempDir base;
  const std::string queue = TorchModelsToExportDir(base.path());
  AddSnapshot(queue, "run1-t1-s100-d50", "broken");
  AddSnapshot(queue, "garbage", "100 50");             // not <run>-<training>-s<N>-d<N>
  AddSnapshot(queue, "run1-t1-s200-d60", "200 61");    // training.json disagrees with the name
  AddSnapshot(queue, "run1-t1-s300-d70", "300 70");    // good
  PublishFile(queue + "/run1-t1-s400-d80", "a file");  // not a directory
  EnsureDirectory(TorchModelsBrokenDir(base.path()) + "/run1-t1-s100-d50");  // taken before
  std::vector<std::string> order;
  const ExporterStats stats = Pass(Options(base.path(), FakeCheck(&order)));
  CHECK(stats.broken == 4);
  CHECK(stats.exported == 1);
  CHECK(ListPublished(queue).empty());
  const std::string broken = TorchModelsBrokenDir(base.path());
  CHECK(IsDir(broken + "/garbage"));
  CHECK(IsDir(broken + "/run1-t1-s200-d60"));
  CHECK(fs::is_regular_file(broken + "/run1-t1-s400-d80"));
  CHECK(ReadFile(broken + "/run1-t1-s200-d60.reason.txt").find("training.json says") !=
        std::string::npos);
  // The name was taken in the broken directory: a unique suffix.
  int truncated = 0;
  for (const std::string& name : ListPublished(broken))
    if (name.rfind("run1-t1-s100-d50-", 0) == 0 && name.find(".reason.txt") != std::string::npos)
      truncated += ReadFile(broken + "/" + name).find("truncated") != std::string::npos;
  CHECK(truncated == 1);
  CHECK(IsDir(ModelsToBeTestedDir(base.path()) + "/run1-t1-s300-d70"));
  // A second pass finds nothing: broken snapshots are never retried.
  order.clear();
  const ExporterStats again = Pass(Options(base.path(), FakeCheck(&order)));
  CHECK(again.broken + again.exported + again.skipped == 0);
  CHECK(order.empty());
}

TEST_CASE("exporter: oldest first across both queues") {
  testing::TempDir base;
  AddSnapshot(TorchModelsToExportDir(base.path()), "run1-t1-s300-d70", "300 70");
  AddSnapshot(TorchModelsToExportExtraDir(base.path()), "run1-t1-s100-d50", "100 50");
  AddSnapshot(TorchModelsToExportDir(base.path()), "run1-t1-s200-d60", "200 60");
  std::vector<std::string> order;
  CHECK(Pass(Options(base.path(), FakeCheck(&order))).exported == 3);
  CHECK(order ==
        std::vector<std::string>{"run1-t1-s100-d50", "run1-t1-s200-d60", "run1-t1-s300-d70"});
}

TEST_CASE("exporter: a failed publication keeps the snapshot, a bad option is fatal") {
  testing::TempDir base;
  const std::string queue = TorchModelsToExportDir(base.path());
  AddSnapshot(queue, "run1-t1-s100-d50", "100 50");
  CHECK_THROWS_WITH_AS(Pass(Options(base.path(), FakeCheck(nullptr, true))),
                       doctest::Contains("No space left"), Error);
  CHECK(ListPublished(queue) == std::vector<std::string>{"run1-t1-s100-d50"});
  CHECK_FALSE(fs::exists(TorchModelsBrokenDir(base.path())));
  // Outside --once the pass is logged and retried later; this run is stopped right away.
  {
    ExporterOptions options = Options(base.path(), FakeCheck(nullptr, true));
    options.once = false;
    std::atomic<bool> stop{false};
    Logger logger(LogLevel::kError, false);
    std::thread stopper([&stop] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      stop = true;
    });
    CHECK(RunExporter(options, logger, StopToken(&stop)).exported == 0);
    stopper.join();
  }
  CHECK(ListPublished(queue) == std::vector<std::string>{"run1-t1-s100-d50"});
  AddSnapshot(queue, "run1-t1-s50-d10", "config");
  CHECK_THROWS_AS(Pass(Options(base.path(), FakeCheck())), ConfigError);
}

TEST_CASE("exporter: --once exports everything, writes its heartbeat and returns") {
  testing::TempDir base;
  AddSnapshot(TorchModelsToExportDir(base.path()), "run1-t1-s100-d50", "100 50");
  AddSnapshot(TorchModelsToExportDir(base.path()), "run1-t1-s200-d60", "200 60");
  const std::atomic<bool> never{false};
  Logger logger(LogLevel::kError, false);
  const ExporterStats stats =
      RunExporter(Options(base.path(), FakeCheck()), logger, StopToken(&never));
  CHECK(stats.exported == 2);
  const std::vector<std::string> beats = testing::FilesWith(StatusDir(base.path()), ".json");
  REQUIRE(beats.size() == 1);
  CHECK(ReadFile(beats.front()).find("\"state\": \"stopped\"") != std::string::npos);
  CHECK(ReadFile(beats.front()).find("\"exported\": 2") != std::string::npos);
}

TEST_CASE("exporter: options from the command line") {
  ConfigSpec spec("tengen-exporter");
  DeclareExporterOptions(spec);
  const auto parse = [&spec](std::vector<std::string> args) {
    Config config(spec);
    args.insert(args.begin(), {"tengen-exporter", "--output-dir", "/tmp/unused"});
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    ParseCommandLine(spec, static_cast<int>(argv.size()), argv.data(), config);
    return ExporterOptionsFromConfig(config);
  };
  const ExporterOptions defaults = parse({});
  CHECK(defaults.gating);
  CHECK_FALSE(defaults.once);
  CHECK(defaults.check.device == "cpu");
  const ExporterOptions o = parse({"--once", "--gating", "false", "--poll-seconds", "2"});
  CHECK(o.once);
  CHECK_FALSE(o.gating);
  CHECK(o.poll_interval == std::chrono::milliseconds(2000));
  CHECK_THROWS_WITH_AS(parse({"--device", "tpu"}), doctest::Contains("device"), ConfigError);
  CHECK_THROWS_WITH_AS(parse({"--fold-tolerance", "0"}), doctest::Contains("fold_tolerance"),
                       ConfigError);
}

}  // namespace
}  // namespace tengen::pipeline
