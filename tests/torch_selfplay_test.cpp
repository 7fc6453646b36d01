// Selfplay with a real (freshly initialised) net: tengen-new-model writes a model into
// models/, tengen-selfplay picks it up, and every row it writes is checked against its game.
// nn/torch/net.h is not included here, so doctest's CHECK is the one in force.
#include <doctest/doctest.h>

#include <string>

#include "pipeline/base_dir.h"
#include "play/torch/torch_loader.h"
#include "selfplay_check.h"
#include "test_support.h"
#include "util/subprocess.h"

namespace tengen {
namespace {

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
