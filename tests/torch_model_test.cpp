// Tests of nn/torch: the net's outputs, the model file format and its checks, the evaluator's
// inference transforms (batch-norm folding, bf16) and tengen-new-model.

// Debian's libtorch pulls in glog, whose CHECK macros would replace doctest's: torch comes
// first so that doctest's definitions win.
#include "nn/torch/net.h"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "frames.h"
#include "gpu_support.h"
#include "nn/features.h"
#include "nn/torch/model.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/rng.h"

namespace tengen::nn {
namespace {

using testing::MaxAbsDiff;
using testing::TempDir;

ModelConfig SmallConfig(int pos_len, const std::string& arch = "b2c32") {
  ModelConfig config;
  ParseArchitecture(arch, &config);
  config.pos_len = pos_len;
  config.name = "test-" + arch;
  return config;
}

// Plausible random inputs: a board_size board in the top-left corner of pos_len, random
// stones and liberty planes, random komi.
EvalBatch RandomBatch(int n, int pos_len, int board_size, uint64_t seed) {
  Rng rng(seed);
  EvalBatch batch;
  batch.Resize(n, pos_len);
  std::fill(batch.spatial.begin(), batch.spatial.end(), 0.0f);
  std::fill(batch.global.begin(), batch.global.end(), 0.0f);
  const int area = pos_len * pos_len;
  for (int i = 0; i < n; ++i) {
    float* planes = batch.SpatialRow(i);
    for (int y = 0; y < board_size; ++y) {
      for (int x = 0; x < board_size; ++x) {
        const int p = y * pos_len + x;
        planes[p] = 1.0f;
        const uint32_t r = rng.Uniform(10);
        if (r < 4) {
          planes[(r < 2 ? 1 : 2) * area + p] = 1.0f;
          planes[(3 + static_cast<int>(rng.Uniform(3))) * area + p] = 1.0f;
        }
      }
    }
    batch.GlobalRow(i)[0] = static_cast<float>(rng.UniformDouble() - 0.5);
    batch.GlobalRow(i)[1] = 1.0f;
  }
  return batch;
}

bool AllFinite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

// The batch's board_size boards (in the top-left corner) in planes of pos_len: the same
// positions in a smaller or larger frame.
EvalBatch Reframe(const EvalBatch& from, int board_size, int pos_len) {
  EvalBatch to;
  to.Resize(from.size, pos_len);
  to.spatial =
      testing::FramedRows(from.spatial, from.pos_len, pos_len, kNumSpatialFeatures, 0, board_size);
  to.global = from.global;
  return to;
}

// The values of the board_size board's points of each row of [rows][pos_len * pos_len (+1
// for the pass)], in board order (the pass last): comparable between frames.
std::vector<float> OnBoard(const std::vector<float>& v, int pos_len, int board_size,
                           bool with_pass) {
  return testing::FramedRows(v, pos_len, board_size, 1, with_pass ? 1 : 0, board_size);
}

std::vector<float> BoardLogits(const EvalOutput& out, int board_size) {
  return OnBoard(out.policy_logits, out.pos_len, board_size, /*with_pass=*/true);
}

EvalOutput Run(Evaluator& evaluator, const EvalBatch& batch) {
  EvalOutput out;
  evaluator.Evaluate(batch, &out);
  return out;
}

TorchEvaluatorOptions Options(const std::string& precision = "fp32", bool fold = true) {
  TorchEvaluatorOptions options;
  options.precision = precision;
  options.fold_batchnorm = fold;
  return options;
}

// Gives every batch norm non-trivial statistics and affine parameters, so that folding
// has something to fold.
void PerturbBatchNorms(NetImpl* net, uint64_t seed) {
  Rng rng(seed);
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : net->NamedState()) {
    const bool norm = name.find("bn") != std::string::npos;
    if (!norm || tensor.dim() != 1) continue;
    auto* data = tensor.data_ptr<float>();
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      const float u = static_cast<float>(rng.UniformDouble());
      if (name.find("running_var") != std::string::npos) {
        data[i] = 0.5f + u;
      } else if (name.find("weight") != std::string::npos) {
        data[i] = 0.7f + 0.6f * u;
      } else {
        data[i] = 0.4f * (u - 0.5f);
      }
    }
  }
}

void RewriteMetadata(const std::string& dir, const std::string& key, const nlohmann::json& v) {
  const std::string path = dir + "/" + kModelMetadataFile;
  auto meta = nlohmann::json::parse(ReadFile(path));
  meta[key] = v;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << meta.dump(2);
}

// The message of the FormatError that Load throws, or "" if it throws none.
std::string LoadFormatError(const std::string& dir) {
  try {
    TorchModel::Load(dir);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

int RunCommand(const std::string& command) {
  const int status = std::system((command + " 2>/dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("torch net: output shapes and finite values for pos_len 9 and 19, batch 1 and 8") {
  for (const int pos_len : {9, 19}) {
    auto model = TorchModel::Create(SmallConfig(pos_len), 1);
    TorchEvaluator evaluator(*model, Options());
    CHECK(evaluator.pos_len() == pos_len);
    CHECK(evaluator.model_name() == "test-b2c32");
    for (const int n : {1, 8}) {
      const EvalOutput out = Run(evaluator, RandomBatch(n, pos_len, pos_len, 7));
      const size_t area = static_cast<size_t>(pos_len) * pos_len;
      CHECK(out.size == n);
      CHECK(out.policy_logits.size() == n * (area + 1));
      CHECK(out.value_logits.size() == static_cast<size_t>(n) * 3);
      CHECK(out.score.size() == static_cast<size_t>(n));
      CHECK(out.ownership.size() == n * area);
      CHECK(AllFinite(out.policy_logits));
      CHECK(AllFinite(out.value_logits));
      CHECK(AllFinite(out.score));
      CHECK(AllFinite(out.ownership));
      for (float o : out.ownership) CHECK(std::abs(o) <= 1.0f);
    }
  }
}

TEST_CASE("torch net: rows are independent and batches beyond max_batch_size are chunked") {
  auto model = TorchModel::Create(SmallConfig(9), 2);
  TorchEvaluatorOptions options = Options();
  options.max_batch_size = 3;
  TorchEvaluator chunked(*model, options);
  TorchEvaluator whole(*model, Options());
  const EvalBatch batch = RandomBatch(8, 9, 9, 3);
  const EvalOutput a = Run(chunked, batch);
  const EvalOutput b = Run(whole, batch);
  CHECK(MaxAbsDiff(a.policy_logits, b.policy_logits) < 1e-4f);
  CHECK(MaxAbsDiff(a.value_logits, b.value_logits) < 1e-4f);
  CHECK(MaxAbsDiff(a.score, b.score) < 1e-4f);
}

TEST_CASE("torch net: the same seed gives the same net, another seed another net") {
  const EvalBatch batch = RandomBatch(2, 9, 9, 4);
  auto a = TorchModel::Create(SmallConfig(9), 11);
  auto b = TorchModel::Create(SmallConfig(9), 11);
  auto c = TorchModel::Create(SmallConfig(9), 12);
  TorchEvaluator ea(*a, Options()), eb(*b, Options()), ec(*c, Options());
  CHECK(MaxAbsDiff(Run(ea, batch).policy_logits, Run(eb, batch).policy_logits) == 0.0f);
  CHECK(MaxAbsDiff(Run(ea, batch).policy_logits, Run(ec, batch).policy_logits) > 1e-3f);
}

TEST_CASE("torch net: points off the board are masked") {
  auto model = TorchModel::Create(SmallConfig(9), 5);
  PerturbBatchNorms(model->net().get(), 6);  // off-board garbage would now show
  TorchEvaluator evaluator(*model, Options());
  const EvalBatch small = RandomBatch(2, 9, 5, 8);
  const EvalOutput out = Run(evaluator, small);
  for (int i = 0; i < 2; ++i) {
    for (int y = 0; y < 9; ++y) {
      for (int x = 0; x < 9; ++x) {
        const float logit = out.policy_logits[i * 82 + y * 9 + x];
        const float own = out.ownership[i * 81 + y * 9 + x];
        if (y < 5 && x < 5) {
          CHECK(logit > -100.0f);
        } else {
          CHECK(logit <= kOffBoardLogit / 2);
          CHECK(own == 0.0f);
        }
      }
    }
  }

  // The same 5x5 positions inside a 7x7 frame: the padding must change nothing.
  const EvalBatch padded = Reframe(small, 5, 7);
  const EvalOutput other = Run(evaluator, padded);
  CHECK(MaxAbsDiff(out.value_logits, other.value_logits) < 1e-4f);
  CHECK(MaxAbsDiff(out.score, other.score) < 1e-4f);
  CHECK(MaxAbsDiff(BoardLogits(out, 5), BoardLogits(other, 5)) < 1e-4f);

  // Training-mode batch statistics count on-board points only, so padding changes nothing
  // there either.
  auto net = model->net();
  net->train();
  const auto to_tensors = [](const EvalBatch& b) {
    auto spatial = torch::from_blob(const_cast<float*>(b.spatial.data()),
                                    {b.size, kNumSpatialFeatures, b.pos_len, b.pos_len})
                       .clone();
    auto global =
        torch::from_blob(const_cast<float*>(b.global.data()), {b.size, kNumGlobalFeatures}).clone();
    return std::make_pair(spatial, global);
  };
  const auto [s9, g9] = to_tensors(small);
  const auto [s7, g7] = to_tensors(padded);
  const auto v9 = net->forward(s9, g9).value_logits;
  const auto v7 = net->forward(s7, g7).value_logits;
  CHECK((v9 - v7).abs().max().item<float>() < 1e-4f);
  net->eval();
}

TEST_CASE("torch evaluator: a 9x9 board in 13x13 planes, in bf16 too, gives its 9x9 outputs") {
  auto model = TorchModel::Create(SmallConfig(9), 53);
  PerturbBatchNorms(model->net().get(), 54);
  const EvalBatch nine = RandomBatch(8, 9, 9, 55);
  const EvalBatch thirteen = Reframe(nine, 9, 13);
  for (const std::string precision : {"fp32", "bf16"}) {
    CAPTURE(precision);
    std::unique_ptr<TorchEvaluator> evaluator;
    try {
      evaluator = std::make_unique<TorchEvaluator>(*model, Options(precision));
    } catch (const ConfigError& e) {
      MESSAGE("bf16 not supported here, skipped: " << e.what());
      continue;
    }
    const EvalOutput a = Run(*evaluator, nine), b = Run(*evaluator, thirteen);
    // The same arithmetic on the same on-board values: in fp32 equal to float noise; bf16
    // rounds each layer's inputs to 8 bits, so a kernel that sums in another order for
    // another frame moves the outputs by at most a few bf16 steps, far from a point misplaced.
    const float tolerance = precision == "fp32" ? 1e-4f : 0.05f;
    CHECK(MaxAbsDiff(BoardLogits(a, 9), BoardLogits(b, 9)) < tolerance);
    CHECK(MaxAbsDiff(a.value_logits, b.value_logits) < tolerance);
    CHECK(MaxAbsDiff(a.score, b.score) < tolerance);
    CHECK(MaxAbsDiff(OnBoard(a.ownership, 9, 9, false), OnBoard(b.ownership, 13, 9, false)) <
          tolerance);
  }
}

TEST_CASE("torch model: save then load gives identical outputs") {
  TempDir tmp;
  auto model = TorchModel::Create(SmallConfig(9), 21);
  PerturbBatchNorms(model->net().get(), 22);  // buffers must round-trip too
  model->Save(tmp / "m");
  auto loaded = TorchModel::Load(tmp / "m");
  CHECK(loaded->config().name == "test-b2c32");
  CHECK(loaded->config().Architecture() == "b2c32");
  CHECK(loaded->config().pos_len == 9);
  CHECK(TorchModel::ReadConfig(tmp / "m").Architecture() == "b2c32");
  TorchEvaluator a(*model, Options()), b(*loaded, Options());
  const EvalBatch batch = RandomBatch(4, 9, 9, 23);
  const EvalOutput oa = Run(a, batch), ob = Run(b, batch);
  CHECK(MaxAbsDiff(oa.policy_logits, ob.policy_logits) == 0.0f);
  CHECK(MaxAbsDiff(oa.value_logits, ob.value_logits) == 0.0f);
  CHECK(MaxAbsDiff(oa.score, ob.score) == 0.0f);
  CHECK(MaxAbsDiff(oa.ownership, ob.ownership) == 0.0f);
  // A published model is never replaced.
  CHECK_THROWS_AS(model->Save(tmp / "m"), IoError);
  CHECK(ListPublished(tmp.path()) == std::vector<std::string>{"m"});
}

TEST_CASE("torch model: corrupt or mismatched files are FormatErrors naming the file") {
  TempDir tmp;
  const auto fresh = [&](const std::string& name, const std::string& arch = "b2c32") {
    auto model = TorchModel::Create(SmallConfig(9, arch), 31);
    model->Save(tmp / name);
    return tmp / name;
  };
  const std::string weights_name = kModelWeightsFile;
  const std::string meta_name = kModelMetadataFile;

  SUBCASE("truncated weights") {
    const std::string dir = fresh("t");
    const std::string bytes = ReadFile(dir + "/" + weights_name);
    std::ofstream(dir + "/" + weights_name, std::ios::binary | std::ios::trunc)
        << bytes.substr(0, bytes.size() / 2);
    const std::string error = LoadFormatError(dir);
    CHECK(error.find(dir + "/" + weights_name) != std::string::npos);
    CHECK(error.find("truncated") != std::string::npos);
  }
  SUBCASE("a flipped byte in the weights") {
    const std::string dir = fresh("c");
    std::string bytes = ReadFile(dir + "/" + weights_name);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
    std::ofstream(dir + "/" + weights_name, std::ios::binary | std::ios::trunc) << bytes;
    const std::string error = LoadFormatError(dir);
    CHECK(error.find(dir + "/" + weights_name) != std::string::npos);
    CHECK(error.find("CRC") != std::string::npos);
  }
  SUBCASE("metadata with more channels than the weights") {
    const std::string dir = fresh("w");
    RewriteMetadata(dir, "architecture", "b2c48");
    const std::string error = LoadFormatError(dir);
    CHECK(error.find(dir + "/" + weights_name) != std::string::npos);
    CHECK(error.find("b2c48") != std::string::npos);
  }
  SUBCASE("metadata with more blocks than the weights") {
    const std::string dir = fresh("d");
    RewriteMetadata(dir, "architecture", "b3c32");
    CHECK(LoadFormatError(dir).find(dir + "/" + weights_name) != std::string::npos);
  }
  SUBCASE("metadata with fewer blocks than the weights") {
    const std::string dir = fresh("s", "b4c32");
    RewriteMetadata(dir, "architecture", "b3c32");
    const std::string error = LoadFormatError(dir);
    INFO(error);
    CHECK(error.find(dir + "/" + weights_name) != std::string::npos);
    CHECK(error.find("'blocks.3.bn1.weight' is not part of a b3c32 net") != std::string::npos);
  }
  SUBCASE("bad metadata") {
    const std::string dir = fresh("j");
    RewriteMetadata(dir, "architecture", "resnet");
    CHECK(LoadFormatError(dir).find(dir + "/" + meta_name) != std::string::npos);
    RewriteMetadata(dir, "architecture", "b2c32");
    RewriteMetadata(dir, "feature_version", kFeatureVersion + 1);
    CHECK(LoadFormatError(dir).find("feature_version") != std::string::npos);
    std::ofstream(dir + "/" + meta_name, std::ios::trunc) << "{\"format\": ";
    CHECK(LoadFormatError(dir).find(dir + "/" + meta_name) != std::string::npos);
  }
  SUBCASE("missing files are IoErrors") {
    CHECK_THROWS_AS(TorchModel::Load(tmp / "nothing"), IoError);
  }
}

// Spatial inputs of n positions of a whole side x side board (plane 0, the mask, all 1), the
// other planes random 0/1, and random global inputs, as tensors for NetImpl::forward.
std::pair<torch::Tensor, torch::Tensor> RandomInputs(int n, int side, uint64_t seed) {
  torch::manual_seed(seed);
  auto spatial = torch::randint(0, 2, {n, kNumSpatialFeatures, side, side}).to(torch::kFloat32);
  spatial.select(1, 0).fill_(1);
  return {spatial, torch::randn({n, kNumGlobalFeatures})};
}

TEST_CASE("torch model: a model written before the auxiliary heads loads with them at 0") {
  // The shipped net predates them: its file has no policy_soft_out, pass_soft_linear,
  // policy_opp_out, pass_opp_linear or td_value_out.
  const std::string shipped = std::string(TENGEN_SOURCE_DIR) + "/nets/run-b4c64-s1857024-d234352";
  auto model = TorchModel::Load(shipped);
  int auxiliary = 0;
  for (const auto& [name, tensor] : model->net()->NamedState()) {
    if (!IsAuxiliaryTensor(name)) continue;
    ++auxiliary;
    CAPTURE(name);
    CHECK(tensor.abs().max().item<float>() == 0.0f);
  }
  // Per policy head: the convolution's weight, the linear's weight and bias; the short-term
  // values' linear: weight and bias.
  CHECK(auxiliary == 8);
  // Its auxiliary policies are uniform over the board's points and the pass, its short-term
  // values even.
  model->net()->eval();
  const auto [spatial, global] = RandomInputs(2, 9, 51);
  torch::NoGradGuard no_grad;
  const NetOutput out = model->net()->forward(spatial, global);
  CHECK(out.soft_policy_logits.abs().max().item<float>() == 0.0f);
  CHECK(out.opponent_policy_logits.abs().max().item<float>() == 0.0f);
  CHECK(out.td_value_logits.abs().max().item<float>() == 0.0f);

  // A model saved now keeps its heads.
  TempDir tmp;
  auto fresh = TorchModel::Create(SmallConfig(9), 52);
  fresh->Save(tmp / "m");
  auto loaded = TorchModel::Load(tmp / "m");
  const auto a = fresh->net()->NamedState(), b = loaded->net()->NamedState();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!IsAuxiliaryTensor(a[i].first)) continue;
    CAPTURE(a[i].first);
    const bool bias = a[i].first.find(".bias") != std::string::npos;  // biases start at 0
    if (!bias) CHECK(a[i].second.abs().max().item<float>() > 0.0f);
    CHECK(a[i].second.equal(b[i].second));
  }
}

TEST_CASE("torch model: NaN weights are FormatErrors at load and at evaluator warm-up") {
  TempDir tmp;
  auto model = TorchModel::Create(SmallConfig(9), 33);
  std::string poisoned;
  {
    torch::NoGradGuard no_grad;
    for (auto& [name, tensor] : model->net()->NamedState()) {
      if (name.find("weight") == std::string::npos || tensor.numel() == 0) continue;
      tensor.view(-1)[0] = std::nanf("");
      poisoned = name;
      break;
    }
  }
  REQUIRE(!poisoned.empty());
  // Save writes a fresh CRC, so only the value check can catch it.
  model->Save(tmp / "nan");
  const std::string error = LoadFormatError(tmp / "nan");
  INFO(error);
  CHECK(error.find(tmp / "nan" + "/" + kModelWeightsFile) != std::string::npos);
  CHECK(error.find("'" + poisoned + "'") != std::string::npos);
  // A model that never went through Load is caught by the evaluator's warm-up instead.
  CHECK_THROWS_AS(TorchEvaluator(*model, Options()), FormatError);
}

TEST_CASE("torch evaluator: folded batch norms give the unfolded outputs") {
  auto model = TorchModel::Create(SmallConfig(9, "b3c32"), 41);
  PerturbBatchNorms(model->net().get(), 42);
  const EvalBatch batch = RandomBatch(5, 9, 7, 43);
  TorchEvaluatorOptions plain = Options("fp32", /*fold=*/false);
  plain.channels_last = false;
  TorchEvaluator unfolded(*model, plain);
  TorchEvaluator folded(*model, Options("fp32", /*fold=*/true));
  const EvalOutput a = Run(unfolded, batch), b = Run(folded, batch);
  CHECK(MaxAbsDiff(a.policy_logits, b.policy_logits) < 1e-4f);
  CHECK(MaxAbsDiff(a.value_logits, b.value_logits) < 1e-4f);
  CHECK(MaxAbsDiff(a.score, b.score) < 1e-4f);
  CHECK(MaxAbsDiff(a.ownership, b.ownership) < 1e-4f);
  // The evaluator folded its own copy: the model still trains and saves.
  CHECK_FALSE(model->net()->folded());
}

TEST_CASE("torch evaluator: bf16 is close to fp32, fp16 and bad devices are ConfigErrors") {
  auto model = TorchModel::Create(SmallConfig(9), 51);
  const EvalBatch batch = RandomBatch(8, 9, 9, 52);
  TorchEvaluator fp32(*model, Options("fp32"));
  std::unique_ptr<TorchEvaluator> bf16;
  try {
    bf16 = std::make_unique<TorchEvaluator>(*model, Options("bf16"));
  } catch (const ConfigError& e) {
    MESSAGE("bf16 not supported here, skipped: " << e.what());
  }
  if (bf16) {
    const EvalOutput a = Run(fp32, batch), b = Run(*bf16, batch);
    // bf16 keeps 8 significant bits; on random weights outputs differ by ~1% of their range.
    const auto range = [](const std::vector<float>& v, int stride, int width) {
      float lo = 1e30f, hi = -1e30f;
      for (size_t i = 0; i < v.size(); ++i) {
        if (static_cast<int>(i % stride) >= width) continue;
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
      return hi - lo;
    };
    // On-board logits only (81 of every 82): off-board ones are a constant.
    std::vector<float> pa, pb;
    for (size_t i = 0; i < a.policy_logits.size(); ++i) {
      pa.push_back(a.policy_logits[i]);
      pb.push_back(b.policy_logits[i]);
    }
    CHECK(MaxAbsDiff(pa, pb) < 0.05f * range(pa, 82, 81) + 0.05f);
    CHECK(MaxAbsDiff(a.value_logits, b.value_logits) < 0.05f * range(a.value_logits, 3, 3) + 0.05f);
    CHECK(MaxAbsDiff(a.ownership, b.ownership) < 0.05f);
  }
  CHECK_THROWS_AS(TorchEvaluator(*model, Options("fp16")), ConfigError);
  CHECK_THROWS_AS(TorchEvaluator(*model, Options("fp64")), ConfigError);
  TorchEvaluatorOptions bad_device = Options();
  bad_device.device = "tpu:3";
  CHECK_THROWS_AS(TorchEvaluator(*model, bad_device), ConfigError);
  if (!torch::cuda::is_available()) {
    bad_device.device = "cuda:0";
    CHECK_THROWS_AS(TorchEvaluator(*model, bad_device), ConfigError);
  }
}

TEST_CASE(
    "torch model: a grown net, in its planes or larger ones, computes what it grew from, and what "
    "cannot grow is refused") {
  auto small = TorchModel::Create(SmallConfig(9, "b4c32"), 31);
  PerturbBatchNorms(small->net().get(), 32);  // trained-looking norms, copied with the rest
  auto grown = TorchModel::Grow(*small, SmallConfig(9, "b7c32"), 33);
  CHECK(grown->config().Architecture() == "b7c32");
  const EvalBatch batch = RandomBatch(6, 9, 9, 34);
  for (const bool fold : {false, true}) {
    CAPTURE(fold);
    TorchEvaluator a(*small, Options("fp32", fold)), b(*grown, Options("fp32", fold));
    const EvalOutput oa = Run(a, batch), ob = Run(b, batch);
    CHECK(MaxAbsDiff(oa.policy_logits, ob.policy_logits) < 1e-5f);
    CHECK(MaxAbsDiff(oa.value_logits, ob.value_logits) < 1e-5f);
    CHECK(MaxAbsDiff(oa.score, ob.score) < 1e-5f);
    CHECK(MaxAbsDiff(oa.ownership, ob.ownership) < 1e-5f);
  }
  // Into larger planes, deeper or not: the same outputs for the board inside them.
  for (const char* arch : {"b4c32", "b7c32"}) {
    CAPTURE(arch);
    auto framed = TorchModel::Grow(*small, SmallConfig(13, arch), 33);
    CHECK(framed->config().pos_len == 13);
    TorchEvaluator a(*small, Options()), b(*framed, Options());
    const EvalOutput oa = Run(a, batch), ob = Run(b, Reframe(batch, 9, 13));
    CHECK(MaxAbsDiff(BoardLogits(oa, 9), BoardLogits(ob, 9)) < 1e-5f);
    CHECK(MaxAbsDiff(oa.value_logits, ob.value_logits) < 1e-5f);
  }
  // The added blocks are not dead: only their last convolution starts at zero.
  auto another = TorchModel::Grow(*small, SmallConfig(9, "b7c32"), 35);
  CHECK_FALSE(another->net()->NamedState().empty());
  bool some_differ = false;
  const auto ga = grown->net()->NamedState(), gb = another->net()->NamedState();
  for (size_t i = 0; i < ga.size(); ++i) some_differ |= !ga[i].second.equal(gb[i].second);
  CHECK(some_differ);

  CHECK_THROWS_WITH_AS(TorchModel::Grow(*small, SmallConfig(9, "b6c16"), 1),
                       doctest::Contains("fewer channels"), ConfigError);
  CHECK_THROWS_WITH_AS(TorchModel::Grow(*small, SmallConfig(9, "b3c32"), 1),
                       doctest::Contains("fewer blocks"), ConfigError);
  auto two = TorchModel::Create(SmallConfig(9, "b2c32"), 36);
  CHECK_THROWS_WITH_AS(TorchModel::Grow(*two, SmallConfig(9, "b4c32"), 1),
                       doctest::Contains("block 2 pools globally"), ConfigError);
}

TEST_CASE("torch model: a widened net computes what it grew from, whatever the seed") {
  auto small = TorchModel::Create(SmallConfig(9, "b4c32"), 41);
  PerturbBatchNorms(small->net().get(), 42);
  const EvalBatch batch = RandomBatch(6, 9, 9, 43);
  TorchEvaluator reference(*small, Options("fp32", false));
  const EvalOutput expected = Run(reference, batch);
  std::vector<std::unique_ptr<TorchModel>> wide;
  for (const auto& [arch, seed] :
       {std::pair<const char*, uint64_t>{"b4c48", 44}, {"b4c48", 45}, {"b6c64", 46}}) {
    CAPTURE(arch);
    wide.push_back(TorchModel::Grow(*small, SmallConfig(9, arch), seed));
    CHECK(wide.back()->config().Architecture() == arch);
    for (const bool fold : {false, true}) {
      CAPTURE(fold);
      TorchEvaluator evaluator(*wide.back(), Options("fp32", fold));
      const EvalOutput out = Run(evaluator, batch);
      CHECK(MaxAbsDiff(expected.policy_logits, out.policy_logits) < 1e-4f);
      CHECK(MaxAbsDiff(expected.value_logits, out.value_logits) < 1e-4f);
      CHECK(MaxAbsDiff(expected.score, out.score) < 1e-4f);
      CHECK(MaxAbsDiff(expected.ownership, out.ownership) < 1e-4f);
    }
  }
  // The auxiliary policy heads widen with the policy head, the short-term values with the
  // value head.
  const auto [spatial, global] = RandomInputs(6, 9, 47);
  small->net()->eval();
  wide[2]->net()->eval();
  {
    torch::NoGradGuard no_grad;
    const NetOutput narrow_out = small->net()->forward(spatial, global);
    const NetOutput wide_out = wide[2]->net()->forward(spatial, global);
    CHECK((narrow_out.soft_policy_logits - wide_out.soft_policy_logits).abs().max().item<float>() <
          1e-4f);
    CHECK((narrow_out.opponent_policy_logits - wide_out.opponent_policy_logits)
              .abs()
              .max()
              .item<float>() < 1e-4f);
    CHECK((narrow_out.td_value_logits - wide_out.td_value_logits).abs().max().item<float>() <
          1e-4f);
  }
  // The seed chooses which units are copied and how their readers share them out.
  bool some_differ = false;
  const auto a = wide[0]->net()->NamedState(), b = wide[1]->net()->NamedState();
  for (size_t i = 0; i < a.size(); ++i) some_differ |= !a[i].second.equal(b[i].second);
  CHECK(some_differ);
}

TEST_CASE("tengen-grow-model writes the grown model, and refuses bad arguments") {
  TempDir tmp;
  const std::string program = std::string(TENGEN_BIN_DIR) + "/tengen-grow-model";
  const std::string models = tmp / "models";
  TorchModel::Create(SmallConfig(9, "b3c16"), 3)->Save(tmp / "small");
  const std::string args = " --from " + (tmp / "small") + " --models-dir " + models + " --seed 4";
  CHECK(RunCommand(program + args + " --arch b5c16 --name deeper") == 0);
  auto model = TorchModel::Load(models + "/deeper");
  CHECK(model->config().Architecture() == "b5c16");
  CHECK(model->config().name == "deeper");
  CHECK(model->config().pos_len == 9);
  CHECK(RunCommand(program + args + " --arch b5c16 --name deeper") == 1);  // never replaced
  CHECK(RunCommand(program + args + " --arch b5c24 --name wider") == 0);
  CHECK(TorchModel::Load(models + "/wider")->config().Architecture() == "b5c24");
  CHECK(RunCommand(program + args + " --arch b3c16 --pos-len 13 --name planes") == 0);
  CHECK(TorchModel::Load(models + "/planes")->config().pos_len == 13);
  CHECK(TorchModel::Load(models + "/planes")->config().Architecture() == "b3c16");
  CHECK(RunCommand(program + args + " --arch b3c16 --pos-len 20 --name big") == 2);
  CHECK(RunCommand(program + args + " --arch b5c8 --name narrower") == 2);
  CHECK(RunCommand(program + args + " --arch b5c16 --name a/b") == 2);
  CHECK(RunCommand(program + " --arch b5c16 --name x --models-dir " + models) == 2);
  CHECK(ListPublished(models) == std::vector<std::string>{"deeper", "planes", "wider"});
}

TEST_CASE("tengen-new-model writes a model that loads, and refuses bad arguments") {
  TempDir tmp;
  const std::string program = std::string(TENGEN_BIN_DIR) + "/tengen-new-model";
  const std::string models = tmp / "models";
  const std::string args = " --models-dir " + models + " --pos-len 9 --seed 3";
  CHECK(RunCommand(program + args + " --name first --arch b1c16") == 0);
  auto model = TorchModel::Load(models + "/first");
  CHECK(model->config().Architecture() == "b1c16");
  CHECK(model->config().name == "first");
  CHECK(model->config().pos_len == 9);
  // Existing names are never overwritten.
  CHECK(RunCommand(program + args + " --name first --arch b1c16") == 1);
  CHECK(RunCommand(program + args + " --name second --arch b1x16") == 2);
  CHECK(RunCommand(program + args + " --name a/b --arch b1c16") == 2);
  CHECK(RunCommand(program + " --name third") == 2);
  CHECK(ListPublished(models) == std::vector<std::string>{"first"});
}

TEST_CASE("cuda without a GPU: the device, the evaluator and a model load refuse it by name") {
  // With GPUs, the first index past them stands in for a device that is not there.
  const std::string missing = "cuda:" + std::to_string(testing::CudaGpus());
  std::vector<std::string> devices = {missing};
  if (testing::CudaGpus() == 0) devices = {"cuda", "cuda:0", "cuda:1"};
  auto model = TorchModel::Create(SmallConfig(9), 71);
  for (const std::string& device : devices) {
    CAPTURE(device);
    CHECK_THROWS_WITH_AS(ParseDevice(device), doctest::Contains(("'" + device + "'").c_str()),
                         ConfigError);
    TorchEvaluatorOptions options = Options();
    options.device = device;
    CHECK_THROWS_WITH_AS(TorchEvaluator(*model, options), doctest::Contains(device.c_str()),
                         ConfigError);
  }
  CHECK_THROWS_WITH_AS(ParseDevice("cuda:x"), doctest::Contains("'cuda:x'"), ConfigError);
  CHECK_THROWS_WITH_AS(ParseDevice("gpu"), doctest::Contains("'gpu'"), ConfigError);
  CHECK(ParseDevice("cpu").is_cpu());
}

TEST_CASE("gpu: a net on CUDA gives the CPU's outputs in fp32, and close ones in fp16 and bf16") {
  if (testing::SkipWithoutGpus(1)) return;
  auto model = TorchModel::Create(SmallConfig(9), 81);
  const EvalBatch batch = RandomBatch(16, 9, 9, 82);
  TorchEvaluator cpu(*model, Options("fp32"));
  const EvalOutput expected = Run(cpu, batch);
  for (const std::string precision : {"fp32", "fp16", "bf16"}) {
    CAPTURE(precision);
    TorchEvaluatorOptions options = Options(precision);
    options.device = "cuda";
    TorchEvaluator gpu(*model, options);
    const EvalOutput got = Run(gpu, batch);
    // fp32 on CUDA is IEEE fp32 (TF32 off, ParseDevice): only the order of the sums differs
    // from the CPU's, ~1e-5 on these logits, so 5e-4 still catches TF32 (0.0015 seen). fp16
    // and bf16 keep 11 and 8 bits of mantissa: within 0.1 on logits of a few units.
    const float tolerance = precision == "fp32" ? 5e-4f : 0.1f;
    CHECK(AllFinite(got.policy_logits));
    CHECK(MaxAbsDiff(expected.policy_logits, got.policy_logits) < tolerance);
    CHECK(MaxAbsDiff(expected.value_logits, got.value_logits) < tolerance);
    CHECK(MaxAbsDiff(expected.ownership, got.ownership) < tolerance);
  }
}

TEST_CASE(
    "gpu: pinned asynchronous copies give the blocking copies' outputs, in chunks and sizes") {
  if (testing::SkipWithoutGpus(1)) return;
  auto model = TorchModel::Create(SmallConfig(9), 83);
  // 40 rows in chunks of 16 (the last one partial), then a smaller board: the pinned buffers
  // are reused and grown, and every row lands in its own place.
  const std::vector<EvalBatch> batches = {RandomBatch(40, 9, 9, 84), RandomBatch(5, 7, 7, 85),
                                          RandomBatch(40, 11, 9, 86)};
  for (const std::string precision : {"fp32", "fp16", "bf16"}) {
    CAPTURE(precision);
    TorchEvaluatorOptions options = Options(precision);
    options.device = "cuda";
    options.max_batch_size = 16;
    options.cuda_async_copies = false;
    TorchEvaluator blocking(*model, options);
    options.cuda_async_copies = true;
    TorchEvaluator async(*model, options);
    for (const EvalBatch& batch : batches) {
      CAPTURE(batch.pos_len);
      const EvalOutput expected = Run(blocking, batch);
      const EvalOutput got = Run(async, batch);
      // The same kernels on the same inputs (the conversion to fp16/bf16 moves from the CPU to
      // the GPU, both rounding to nearest); the fp16/bf16 margin allows a kernel that sums in
      // another order and is still far below a row out of place.
      const float tolerance = precision == "fp32" ? 1e-5f : 2e-3f;
      CHECK(MaxAbsDiff(expected.policy_logits, got.policy_logits) < tolerance);
      CHECK(MaxAbsDiff(expected.value_logits, got.value_logits) < tolerance);
      CHECK(MaxAbsDiff(expected.score, got.score) < tolerance);
      CHECK(MaxAbsDiff(expected.ownership, got.ownership) < tolerance);
    }
  }
}

}  // namespace
}  // namespace tengen::nn
