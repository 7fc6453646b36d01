// Selfplay with a real (freshly initialised) net: tengen-new-model writes a model into
// models/, tengen-selfplay picks it up, and every row it writes is checked against its game.
// nn/torch/net.h is not included here, so doctest's CHECK is the one in force.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "frames.h"
#include "pipeline/base_dir.h"
#include "play/torch/torch_loader.h"
#include "selfplay_check.h"
#include "test_support.h"
#include "util/subprocess.h"
#include "util/text.h"

namespace tengen {
namespace {

using testing::FramedRows;
using testing::MaxAbsDiff;

// Selfplay's options for a few tiny games of 5x5 and 7x7 with the net in models_dir, one game
// at a time (so that no batch mixes games) and a fixed seed.
std::vector<std::string> OneGameAtATime(const std::string& base, const std::string& models_dir,
                                        int pos_len, int games) {
  std::vector<std::string> command = {TENGEN_BIN_DIR "/tengen-selfplay", "--output-dir", base,
                                      "--models-dir", models_dir};
  for (const std::string& setting :
       {std::string("board_sizes=5:1,7:1"), StrCat("pos_len=", pos_len), std::string("seed=11"),
        std::string("full_visits=8"), std::string("cheap_visits=4"),
        std::string("full_probability=0.5"), std::string("num_game_threads=1"),
        std::string("num_search_threads=1"), std::string("devices=cpu"),
        std::string("precision=fp32"), StrCat("max_games_total=", games)}) {
    command.push_back("--set");
    command.push_back(setting);
  }
  return command;
}

// Every row of a run's shards, in the order written.
std::vector<data::TrainingRow> ReadRows(const std::string& tdata) {
  std::vector<data::TrainingRow> rows;
  for (const std::string& file : testing::FilesWith(tdata, ".npz")) {
    data::Shard shard = data::ReadShard(file);
    rows.insert(rows.end(), shard.rows.begin(), shard.rows.end());
  }
  return rows;
}

TEST_CASE("selfplay with a fresh b1c16 net: rows under the model's name, all checked") {
  testing::TempDir base;
  const std::string models = base / "models";
  const std::string name = "run-fresh-s0-d0";
  const ProcessResult made =
      RunProcess({TENGEN_BIN_DIR "/tengen-new-model", "--models-dir", models, "--arch", "b1c16",
                  "--name", name, "--pos-len", "7", "--seed", "5"});
  REQUIRE_MESSAGE(made.exit_code == 0, made.output);

  const ProcessResult run = RunProcess({TENGEN_BIN_DIR "/tengen-selfplay",
                                        "--output-dir",
                                        base.path(),
                                        "--set",
                                        "board_sizes=5:1,7:1",
                                        "--set",
                                        "pos_len=7",
                                        "--set",
                                        "full_visits=8",
                                        "--set",
                                        "cheap_visits=4",
                                        "--set",
                                        "full_probability=0.5",
                                        "--set",
                                        "num_game_threads=4",
                                        "--set",
                                        "max_games_total=3",
                                        "--set",
                                        "precision=fp32",
                                        "--set",
                                        "max_rows_per_file=50"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  const std::string tdata = pipeline::TdataDir(base.path(), name);
  const std::string sgfs = pipeline::SgfsDir(base.path(), name);
  CHECK(testing::FilesWith(pipeline::TdataDir(base.path(), "random"), ".npz").empty());
  CHECK(testing::CheckRows(tdata, sgfs, 50, name, 7) > 0);
  CHECK_FALSE(testing::AnyTemporary(base.path()));
}

TEST_CASE("selfplay: one net in 7x7 and in 9x9 planes plays the same games, writes the same rows") {
  testing::TempDir base;
  const std::string name = "run-frames-s0-d0";
  const ProcessResult made =
      RunProcess({TENGEN_BIN_DIR "/tengen-new-model", "--models-dir", base / "models7", "--arch",
                  "b1c16", "--name", name, "--pos-len", "7", "--seed", "6"});
  REQUIRE_MESSAGE(made.exit_code == 0, made.output);
  // The same weights with pos_len 9: the net is convolutional, only the planes around grow.
  const ProcessResult moved = RunProcess(
      {TENGEN_BIN_DIR "/tengen-grow-model", "--from", base / "models7/" + name, "--arch", "b1c16",
       "--pos-len", "9", "--models-dir", base / "models9", "--name", name, "--seed", "1"});
  REQUIRE_MESSAGE(moved.exit_code == 0, moved.output);

  for (const int pos_len : {7, 9}) {
    const std::string out = base / StrCat("out", pos_len);
    const ProcessResult run =
        RunProcess(OneGameAtATime(out, base / StrCat("models", pos_len), pos_len, 3));
    REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  }
  const std::vector<data::TrainingRow> seven = ReadRows(pipeline::TdataDir(base / "out7", name));
  const std::vector<data::TrainingRow> nine = ReadRows(pipeline::TdataDir(base / "out9", name));
  REQUIRE(!seven.empty());
  REQUIRE(seven.size() == nine.size());
  for (size_t i = 0; i < seven.size(); ++i) {
    CAPTURE(i);
    const data::TrainingRow& a = seven[i];
    const data::TrainingRow& b = nine[i];
    CHECK(a.board_size == b.board_size);
    CHECK(a.turn == b.turn);
    CHECK(a.komi == b.komi);
    CHECK(FramedRows(a.spatial, 7, 9, nn::kNumSpatialFeatures, 0, 7) == b.spatial);
    CHECK(a.global == b.global);
    // Search targets: the same visits; the priors behind them equal to float noise.
    CHECK(MaxAbsDiff(FramedRows(a.policy, 7, 9, 1, 1, 7), b.policy) < 1e-5f);
    CHECK(MaxAbsDiff(FramedRows(a.opponent_policy, 7, 9, 1, 1, 7), b.opponent_policy) < 1e-5f);
    CHECK(FramedRows(a.ownership, 7, 9, 1, 0, 7) == FramedRows(b.ownership, 9, 9, 1, 0, 9));
    CHECK(a.value[0] == b.value[0]);
    CHECK(a.score == b.score);
    CHECK(a.weight == b.weight);
  }
}

TEST_CASE("torch loader: precision auto and the NHWC layout follow the CPU's flags") {
  const std::string avx2 = "flags\t\t: fpu sse2 avx avx2 fma vaes";
  const std::string avx512 = "flags\t\t: fpu avx2 avx512f avx512bw avx512_vnni";
  // fp32 on a CPU without AVX-512 runs NCHW; AVX-512, bf16 and CUDA run NHWC.
  CHECK_FALSE(play::InferenceChannelsLast("fp32", "cpu", avx2));
  CHECK_FALSE(play::InferenceChannelsLast("fp32", "cpu", ""));
  CHECK(play::InferenceChannelsLast("fp32", "cpu", avx512));
  CHECK(play::InferenceChannelsLast("bf16", "cpu", avx2));
  CHECK(play::InferenceChannelsLast("fp32", "cuda:0", avx2));
  // A flag's name inside another's (avx512f in avx512fp16) is not the flag.
  CHECK_FALSE(play::InferenceChannelsLast("fp32", "cpu", "flags : avx2 avx512fp16"));
  // auto is fp16 on CUDA; explicit precisions pass through.
  CHECK(play::ResolvePrecision("auto", "cuda") == "fp16");
  CHECK(play::ResolvePrecision("auto", "cuda:1") == "fp16");
  CHECK(play::ResolvePrecision("fp32", "cuda") == "fp32");
  CHECK(play::ResolvePrecision("auto", "cuda", /*training=*/true) == "fp32");
  CHECK(play::ResolvePrecision("bf16", "cpu") == "bf16");
}

}  // namespace
}  // namespace tengen
