// tengen-bench-nn: forward evaluations per second of a fresh net through TorchEvaluator, by
// batch size and precision, as a table (median of --runs runs). Inputs are random positions
// on a full pos_len board; a fresh net costs the same as a trained one.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "nn/evaluator.h"
#include "nn/features.h"
#include "nn/model_config.h"
#include "nn/torch/model.h"
#include "util/config.h"
#include "util/error.h"
#include "util/program.h"
#include "util/rng.h"

namespace tengen {
namespace {

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-bench-nn", "Net forward evaluations/s by batch size and precision.");
  spec.String("arch", "b6c96", "architecture b{blocks}c{channels}");
  spec.Int("pos_len", 9, 5, 19, "board edge (the whole board is on)");
  spec.String("batch_sizes", "1,8,32,128", "comma-separated batch sizes");
  spec.String("precisions", "fp32,bf16", "comma-separated precisions (fp32, bf16, fp16)");
  spec.String("device", "cpu", "cpu, cuda or cuda:N");
  spec.Int("threads", 1, 0, 256, "torch intra-op threads (0: torch's default)");
  spec.Bool("channels_last", true, "NHWC convolutions");
  spec.Bool("fold_batchnorm", true, "fold batch norms into convolutions");
  spec.Bool("cuda_async_copies", true,
            "CUDA: own stream, pinned buffers, one wait per batch (false: blocking copies)");
  spec.Int("runs", 5, 1, 100, "timed runs per cell; the median is shown");
  spec.Double("seconds", 1.0, 0.01, 60, "minimum length of one timed run");
  return spec;
}

nn::EvalBatch RandomBatch(int n, int pos_len, Rng& rng) {
  nn::EvalBatch batch;
  batch.Resize(n, pos_len);
  std::fill(batch.spatial.begin(), batch.spatial.end(), 0.0f);
  std::fill(batch.global.begin(), batch.global.end(), 0.0f);
  const int area = pos_len * pos_len;
  for (int i = 0; i < n; ++i) {
    float* planes = batch.SpatialRow(i);
    for (int p = 0; p < area; ++p) {
      planes[p] = 1.0f;
      const uint32_t r = rng.Uniform(3);
      if (r > 0) planes[r * area + p] = 1.0f;
    }
  }
  return batch;
}

// Evaluations per second of one run: whole batches until `seconds` have passed.
double TimedRun(nn::Evaluator& evaluator, const nn::EvalBatch& batch, double seconds) {
  nn::EvalOutput out;
  return bench::TimedRate(
      [&] {
        evaluator.Evaluate(batch, &out);
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
  std::vector<int> batch_sizes;
  for (const auto& text : bench::SplitCommas(config.GetString("batch_sizes"))) {
    const int size = std::atoi(text.c_str());
    if (size < 1) throw ConfigError("bad batch size '" + text + "' in --batch-sizes");
    batch_sizes.push_back(size);
  }
  const auto precisions = bench::SplitCommas(config.GetString("precisions"));
  const int runs = static_cast<int>(config.GetInt("runs"));
  const double seconds = config.GetDouble("seconds");

  auto model = nn::TorchModel::Create(model_config, 1);
  Rng rng(1);
  std::printf("%s pos_len %d, device %s, %d intra-op thread(s), median of %d runs of >= %.2f s\n",
              model_config.Architecture().c_str(), model_config.pos_len,
              config.GetString("device").c_str(), static_cast<int>(config.GetInt("threads")), runs,
              seconds);
  std::printf("%-9s %7s %12s %12s\n", "precision", "batch", "evals/s", "ms/batch");
  for (const auto& precision : precisions) {
    nn::TorchEvaluatorOptions options;
    options.device = config.GetString("device");
    options.precision = precision;
    options.intra_op_threads = static_cast<int>(config.GetInt("threads"));
    options.channels_last = config.GetBool("channels_last");
    options.fold_batchnorm = config.GetBool("fold_batchnorm");
    options.cuda_async_copies = config.GetBool("cuda_async_copies");
    options.max_batch_size = *std::max_element(batch_sizes.begin(), batch_sizes.end());
    nn::TorchEvaluator evaluator(*model, options);
    for (const int batch_size : batch_sizes) {
      const nn::EvalBatch batch = RandomBatch(batch_size, model_config.pos_len, rng);
      TimedRun(evaluator, batch, seconds / 4);  // warm-up: kernel selection, allocations
      std::vector<double> rates;
      for (int r = 0; r < runs; ++r) rates.push_back(TimedRun(evaluator, batch, seconds));
      const double median = tengen::bench::Median(rates);
      std::printf("%-9s %7d %12.0f %12.2f\n", precision.c_str(), batch_size, median,
                  1000.0 * batch_size / median);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-bench-nn", [&] { return tengen::Main(argc, argv); });
}
