// The trainer's checkpoints without libtorch: writing (only the newest kept), reading back with
// the recorded size and CRC-32, the choice between resuming and a fresh start, and the text that
// carries that choice to every rank.
#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
#include <fstream>

#include "pipeline/checkpoints.h"
#include "test_support.h"
#include "util/error.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;

Logger QuietLogger() { return Logger(LogLevel::kError); }

TrainState StateAt(int64_t samples) {
  TrainState state;
  state.samples = samples;
  state.seed = 7;
  return state;
}

TEST_CASE("checkpoints: the newest two are kept, and read back with their trainer bytes") {
  testing::TempDir dir;
  Logger logger = QuietLogger();
  const std::string train = dir / "train";
  std::vector<std::string> written;
  for (int64_t samples : {128, 256, 384}) {
    written.push_back(
        WriteCheckpoint(train, "weights@" + std::to_string(samples), StateAt(samples), logger));
  }
  const std::vector<std::string> names = ListCheckpoints(train);
  REQUIRE(names.size() == 2);
  CHECK(CheckpointsDir(train) + "/" + names.back() == written.back());
  CHECK(!fs::exists(written.front()));
  const CheckpointFiles newest = ReadCheckpoint(written.back());
  CHECK(newest.state.samples == 384);
  CHECK(newest.trainer_bytes == "weights@384");
}

TEST_CASE("checkpoints: a damaged newest is moved aside for the one before; all damaged throws") {
  testing::TempDir dir;
  Logger logger = QuietLogger();
  const std::string train = dir / "train";
  const std::string older = WriteCheckpoint(train, "older", StateAt(128), logger);
  const std::string newer = WriteCheckpoint(train, "newer", StateAt(256), logger);
  std::ofstream(newer + "/" + kTrainerStateFile, std::ios::binary) << "newer, but cut";
  CHECK_THROWS_WITH_AS(ReadCheckpoint(newer), doctest::Contains(kTrainerStateFile), Error);

  std::optional<CheckpointFiles> resume;
  const StartChoice choice = ChooseStart(train, 0, &resume, logger);
  REQUIRE(choice.kind == StartChoice::Kind::kResume);
  CHECK(CheckpointsDir(train) + "/" + choice.checkpoint == older);
  REQUIRE(resume.has_value());
  CHECK(resume->trainer_bytes == "older");
  const std::string aside =
      CheckpointsDir(train) + "/broken-" + fs::path(newer).filename().string();
  CHECK(fs::exists(aside));

  std::ofstream(older + "/" + kTrainerStateFile, std::ios::binary) << "damaged too";
  const StartChoice none = ChooseStart(train, 0, &resume, logger);
  CHECK(none.kind == StartChoice::Kind::kError);
  CHECK(none.error.find("no usable checkpoint in " + CheckpointsDir(train)) != std::string::npos);
  CHECK(fs::exists(older));  // nothing moved when none is usable
}

TEST_CASE("checkpoints: no checkpoint is a fresh start with the given seed, or a drawn one") {
  testing::TempDir dir;
  Logger logger = QuietLogger();
  std::optional<CheckpointFiles> resume;
  const StartChoice given = ChooseStart(dir / "train", 42, &resume, logger);
  CHECK(given.kind == StartChoice::Kind::kFresh);
  CHECK(given.seed == 42);
  CHECK_FALSE(resume.has_value());
  CHECK(ChooseStart(dir / "train", 0, &resume, logger).seed != 0);
}

TEST_CASE("checkpoints: the start choice survives its text, and bad text names itself") {
  StartChoice resume;
  resume.kind = StartChoice::Kind::kResume;
  resume.checkpoint = "ckpt-000000000000128-x";
  const StartChoice back = StartChoice::FromText(resume.ToText());
  CHECK(back.kind == StartChoice::Kind::kResume);
  CHECK(back.checkpoint == resume.checkpoint);
  StartChoice fresh;
  fresh.seed = 18446744073709551557ull;  // does not fit a JSON double
  CHECK(StartChoice::FromText(fresh.ToText()).seed == fresh.seed);
  StartChoice error;
  error.kind = StartChoice::Kind::kError;
  error.error = "no usable checkpoint";
  CHECK(StartChoice::FromText(error.ToText()).error == "no usable checkpoint");
  CHECK_THROWS_WITH_AS(StartChoice::FromText(R"({"kind": "restart"})"),
                       doctest::Contains("unknown kind 'restart'"), FormatError);
  CHECK_THROWS_AS(StartChoice::FromText("resume ckpt"), FormatError);
}

}  // namespace
}  // namespace tengen::pipeline
