// tengen-bench-train: training samples per second of NetTrainer (forward, losses, backward, SGD
// step) for a fresh net on random positions, by precision, as a table (median of --runs runs).
// Precisions are timed in turn within each run, so their ratio is measured under the same
// machine load.

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "nn/features.h"
#include "nn/model_config.h"
#include "nn/torch/model.h"
#include "nn/torch/trainer.h"
#include "nn/train_batch.h"
#include "util/config.h"
#include "util/program.h"
#include "util/rng.h"

namespace tengen {
namespace {

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-bench-train", "Trainer samples/s by precision.");
  spec.String("arch", "b6c96", "architecture b{blocks}c{channels}");
  spec.Int("pos_len", 9, 5, 19, "board edge (the whole board is on)");
  spec.Int("batch_size", 128, 1, 4096, "rows per step");
  spec.String("precisions", "fp32,bf16", "comma-separated precisions (fp32, bf16, fp16)");
  spec.String("device", "cpu", "cpu, cuda or cuda:N");
  spec.Int("threads", 0, 0, 256, "torch intra-op threads (0: torch's default)");
  spec.Bool("channels_last", true, "NHWC convolutions");
  spec.Int("runs", 5, 1, 100, "timed runs per precision; the median is shown");
  spec.Double("seconds", 3.0, 0.01, 600, "minimum length of one timed run");
  return spec;
}

// Random stones on a full board with a random policy target and outcome.
nn::TrainBatch RandomBatch(int n, int pos_len, Rng& rng) {
  nn::TrainBatch b;
  b.Reset(n, pos_len, nn::kNumSpatialFeatures, nn::kNumGlobalFeatures);
  const int area = pos_len * pos_len;
  for (int i = 0; i < n; ++i) {
    float* planes = &b.spatial[static_cast<size_t>(i) * nn::kNumSpatialFeatures * area];
    for (int p = 0; p < area; ++p) {
      planes[p] = 1.0f;
      const uint32_t r = rng.Uniform(3);
      if (r > 0) planes[r * area + p] = 1.0f;
      b.ownership[static_cast<size_t>(i * area + p)] = static_cast<float>(rng.Uniform(3)) - 1;
    }
    b.policy[static_cast<size_t>(i * (area + 1)) + rng.Uniform(area + 1)] = 1.0f;
    b.value[static_cast<size_t>(i * 3) + rng.Uniform(3)] = 1.0f;
    b.score[static_cast<size_t>(i)] = static_cast<float>(rng.Uniform(41)) - 20;
    b.weight[static_cast<size_t>(i)] = 1.0f;
  }
  return b;
}

double TimedRun(nn::NetTrainer& trainer, const nn::TrainBatch& batch, double seconds) {
  return bench::TimedRate(
      [&] {
        trainer.Step(batch, batch.size, 1e-6);
        return static_cast<int64_t>(batch.size);
      },
      seconds);
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  nn::ModelConfig model_config;
  nn::ParseArchitecture(config.GetString("arch"), &model_config);
  model_config.pos_len = static_cast<int>(config.GetInt("pos_len"));
  model_config.name = "bench";
  const std::vector<std::string> precisions = bench::SplitCommas(config.GetString("precisions"));
  const int runs = static_cast<int>(config.GetInt("runs"));
  const double seconds = config.GetDouble("seconds");
  Rng rng(1);
  const nn::TrainBatch batch =
      RandomBatch(static_cast<int>(config.GetInt("batch_size")), model_config.pos_len, rng);
  auto model = nn::TorchModel::Create(model_config, 1);
  std::map<std::string, std::unique_ptr<nn::NetTrainer>> trainers;
  for (const std::string& precision : precisions) {
    nn::TrainerOptions options;
    options.device = config.GetString("device");
    options.precision = precision;
    options.channels_last = config.GetBool("channels_last");
    options.intra_op_threads = static_cast<int>(config.GetInt("threads"));
    trainers[precision] = std::make_unique<nn::NetTrainer>(*model, options, nullptr);
    TimedRun(*trainers[precision], batch, seconds / 4);  // warm-up
  }
  std::map<std::string, std::vector<double>> rates;
  for (int run = 0; run < runs; ++run) {
    for (const std::string& precision : precisions) {
      rates[precision].push_back(TimedRun(*trainers[precision], batch, seconds));
    }
  }
  std::printf("%s pos_len %d, batch %d, device %s, threads %d, median of %d runs of >= %.1f s\n",
              model_config.Architecture().c_str(), model_config.pos_len, batch.size,
              config.GetString("device").c_str(), static_cast<int>(config.GetInt("threads")), runs,
              seconds);
  std::printf("%-9s %12s %14s\n", "precision", "samples/s", "vs first");
  const double base = bench::Median(rates[precisions.front()]);
  for (const std::string& precision : precisions) {
    const double median = bench::Median(rates[precision]);
    std::printf("%-9s %12.0f %13.2fx\n", precision.c_str(), median, median / base);
  }
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-bench-train", [&] { return tengen::Main(argc, argv); });
}
