// The trainer: learning, exact resume, micro-batches on out-of-memory, snapshots, the train
// bucket across restarts, and 2-rank data parallelism against one process.
// Debian's libtorch pulls in glog, whose CHECK macros would replace doctest's: torch first.
#include "nn/torch/net.h"
// clang-format off
#include <doctest/doctest.h>
// clang-format on
#include <signal.h>

#include <algorithm>
#include <boost/filesystem.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "frames.h"
#include "gpu_support.h"
#include "nn/torch/distributed.h"
#include "nn/torch/model.h"
#include "nn/torch/trainer.h"
#include "pipeline/base_dir.h"
#include "pipeline/torch/trainer_loop.h"
#include "pipeline/train_data.h"
#include "test_support.h"
#include "train_fixture.h"
#include "util/config.h"
#include "util/publish.h"
#include "util/subprocess.h"
#include "util/version.h"

namespace tengen {
namespace {

namespace fs = boost::filesystem;

nn::ModelConfig TinyConfig() {
  nn::ModelConfig config;
  config.blocks = 1;
  config.channels = 16;
  config.pos_len = testing::kTrainPosLen;
  config.name = "tiny";
  return config;
}

// Rows shared by the tests in this file (games are the slow part).
const std::vector<data::TrainingRow>& Rows() {
  static const std::vector<data::TrainingRow> rows = testing::PlayTrainingRows(8, 11);
  return rows;
}

nn::TrainBatch FirstRows(int n) {
  data::Shard shard;
  shard.shape = testing::TrainRowShape();
  shard.rows.assign(Rows().begin(), Rows().begin() + n);
  return pipeline::MakeBatch(shard, 0, static_cast<size_t>(n), 0);
}

// Every tensor of two models (optionally only parameters) is bit-identical.
bool SameWeights(const nn::TorchModel& a, const nn::TorchModel& b, bool parameters_only = false) {
  const auto sa = a.net()->NamedState();
  const auto sb = b.net()->NamedState();
  if (sa.size() != sb.size()) return false;
  for (size_t i = 0; i < sa.size(); ++i) {
    if (parameters_only && sa[i].first.find("running_") != std::string::npos) continue;
    if (sa[i].first != sb[i].first || !sa[i].second.equal(sb[i].second)) {
      MESSAGE("tensor differs: " << sa[i].first);
      return false;
    }
  }
  return true;
}

// n rows spread evenly over all the games (the first rows come from one or two games only).
nn::TrainBatch SpreadRows(int n) {
  data::Shard shard;
  shard.shape = testing::TrainRowShape();
  for (int i = 0; i < n; ++i) shard.rows.push_back(Rows()[i * Rows().size() / n]);
  return pipeline::MakeBatch(shard, 0, static_cast<size_t>(n), 0);
}

// The batch's rows in planes of pos_len >= the batch's own: each board stays in the top-left
// corner, the points around it are off the board.
nn::TrainBatch Reframe(const nn::TrainBatch& b, int pos_len) {
  const auto framed = [&](const std::vector<float>& from, int planes, int tail) {
    return testing::FramedRows(from, b.pos_len, pos_len, planes, tail, b.pos_len);
  };
  nn::TrainBatch out = b;
  out.pos_len = pos_len;
  out.spatial = framed(b.spatial, b.num_spatial, 0);
  out.policy = framed(b.policy, 1, 1);
  out.opponent_policy = framed(b.opponent_policy, 1, 1);
  out.ownership = framed(b.ownership, 1, 0);
  return out;
}

// Trains 60 steps at a per-sample rate of 2e-4, then 300 at rate 0, which leave the weights
// alone and let the batch norm running statistics (momentum 0.01) catch up with them, and
// returns the batch's losses in eval mode.
nn::LossSums TrainThenEvaluate(nn::NetTrainer& trainer, const nn::TrainBatch& batch) {
  for (int i = 0; i < 60; ++i) trainer.Step(batch, batch.size, 2e-4);
  for (int i = 0; i < 300; ++i) trainer.Step(batch, batch.size, 0);
  return trainer.Evaluate(batch);
}

TEST_CASE("trainer: the loss falls on a fixed small dataset") {
  REQUIRE(Rows().size() >= 64);
  const nn::TrainBatch batch = SpreadRows(64);
  auto model = nn::TorchModel::Create(TinyConfig(), 3);
  nn::TrainerOptions options;
  nn::NetTrainer trainer(*model, options, nullptr);
  const nn::LossSums before = trainer.Evaluate(batch);
  const nn::LossSums after = TrainThenEvaluate(trainer, batch);
  MESSAGE("loss per row " << before.total / before.weight << " -> " << after.total / after.weight);
  CHECK(std::isfinite(after.total));
  CHECK(after.total < 0.8 * before.total);
  CHECK(after.policy < before.policy);
  CHECK(after.value < before.value);
  CHECK(after.ownership < before.ownership);
  CHECK(before.rows == 64);
}

TEST_CASE("trainer: rows in larger planes train as in their own, in fp32 and bf16") {
  const nn::TrainBatch batch = SpreadRows(64);
  const nn::TrainBatch framed = Reframe(batch, testing::kTrainPosLen + 4);
  nn::ModelConfig large_config = TinyConfig();
  large_config.pos_len = framed.pos_len;
  for (const std::string precision : {"fp32", "bf16"}) {
    CAPTURE(precision);
    auto own = nn::TorchModel::Create(TinyConfig(), 4);
    auto large = nn::TorchModel::Create(large_config, 4);
    REQUIRE(SameWeights(*own, *large));
    nn::TrainerOptions options;
    options.precision = precision;
    nn::NetTrainer own_trainer(*own, options, nullptr);
    nn::NetTrainer large_trainer(*large, options, nullptr);
    for (int i = 0; i < 20; ++i) {
      own_trainer.Step(batch, batch.size, 2e-4);
      large_trainer.Step(framed, framed.size, 2e-4);
    }
    const nn::LossSums a = own_trainer.Evaluate(batch);
    const nn::LossSums b = large_trainer.Evaluate(framed);
    MESSAGE(precision << " loss per row " << a.total / a.weight << " and " << b.total / b.weight);
    // The same arithmetic on the same on-board values, summed in another order: 20 steps
    // apart by float noise in fp32; bf16 rounds every layer's inputs to 8 bits, so its two
    // runs may part by some bf16 steps, far less than a point or a target out of place.
    const double tolerance = precision == "fp32" ? 1e-4 : 1e-2;
    for (const auto field : {&nn::LossSums::policy, &nn::LossSums::value, &nn::LossSums::td_value,
                             &nn::LossSums::score, &nn::LossSums::ownership}) {
      CHECK(std::abs(a.*field - b.*field) <= tolerance * std::abs(a.*field));
    }
    CHECK(a.weight == b.weight);
  }
}

TEST_CASE("trainer: the opponent's reply head learns from the rows that know the reply") {
  nn::TrainBatch batch = SpreadRows(64);
  double known = 0;
  for (float w : batch.opponent_policy_weight) known += w;
  REQUIRE(known > 32);  // selfplay rows know the reply but for each game's last move
  auto model = nn::TorchModel::Create(TinyConfig(), 8);
  nn::TrainerOptions on;
  on.opponent_policy_weight = 1;
  nn::NetTrainer trainer(*model, on, nullptr);
  const nn::LossSums before = trainer.Evaluate(batch);
  CHECK(before.opponent_policy > 0);
  CHECK(nn::NetTrainer(*model, nn::TrainerOptions(), nullptr).Evaluate(batch).opponent_policy == 0);
  // Rows that do not know the reply add nothing.
  nn::TrainBatch unknown = batch;
  std::fill(unknown.opponent_policy_weight.begin(), unknown.opponent_policy_weight.end(), 0.0f);
  CHECK(trainer.Evaluate(unknown).opponent_policy == 0);
  const nn::LossSums after = TrainThenEvaluate(trainer, batch);
  MESSAGE("opponent policy loss per row " << before.opponent_policy / before.weight << " -> "
                                          << after.opponent_policy / after.weight);
  CHECK(after.opponent_policy < 0.8 * before.opponent_policy);
}

TEST_CASE("trainer: the short-term value head learns from the rows that know their values") {
  nn::TrainBatch batch = SpreadRows(64);
  double known = 0;
  for (float w : batch.td_value_weight) known += w;
  REQUIRE(known == 64);  // every selfplay row knows them
  auto model = nn::TorchModel::Create(TinyConfig(), 9);
  nn::TrainerOptions on;
  on.td_value_weight = 1;
  nn::NetTrainer trainer(*model, on, nullptr);
  const nn::LossSums before = trainer.Evaluate(batch);
  CHECK(before.td_value > 0);
  const nn::LossSums off = nn::NetTrainer(*model, nn::TrainerOptions(), nullptr).Evaluate(batch);
  CHECK(off.td_value == 0);
  CHECK(before.total == doctest::Approx(off.total + before.td_value));
  // Rows that do not know them (game records, older shards) add nothing.
  nn::TrainBatch unknown = batch;
  std::fill(unknown.td_value_weight.begin(), unknown.td_value_weight.end(), 0.0f);
  CHECK(trainer.Evaluate(unknown).td_value == 0);
  const nn::LossSums after = TrainThenEvaluate(trainer, batch);
  MESSAGE("short-term value loss per row " << before.td_value / before.weight << " -> "
                                           << after.td_value / after.weight);
  CHECK(after.td_value < 0.8 * before.td_value);
}

TEST_CASE("trainer: the soft policy head learns when weighted and costs nothing when not") {
  const nn::TrainBatch batch = SpreadRows(64);
  nn::TrainerOptions off;
  auto model = nn::TorchModel::Create(TinyConfig(), 7);
  nn::NetTrainer plain(*model, off, nullptr);
  const nn::LossSums unweighted = plain.Evaluate(batch);
  CHECK(unweighted.soft_policy == 0);
  CHECK(unweighted.opponent_policy == 0);
  CHECK(unweighted.total == doctest::Approx(unweighted.policy + unweighted.value +
                                            unweighted.score + unweighted.ownership));

  nn::TrainerOptions on;
  on.soft_policy_weight = 8;
  nn::NetTrainer trainer(*model, on, nullptr);
  const nn::LossSums before = trainer.Evaluate(batch);
  CHECK(before.soft_policy > 0);
  CHECK(before.policy == doctest::Approx(unweighted.policy));
  const nn::LossSums after = TrainThenEvaluate(trainer, batch);
  MESSAGE("soft policy loss per row " << before.soft_policy / before.weight << " -> "
                                      << after.soft_policy / after.weight);
  CHECK(after.soft_policy < 0.5 * before.soft_policy);
  CHECK(after.policy < before.policy);
}

TEST_CASE("trainer: rows with a score or ownership weight of 0 add nothing to that loss") {
  nn::TrainBatch batch = SpreadRows(32);
  auto model = nn::TorchModel::Create(TinyConfig(), 5);
  nn::NetTrainer trainer(*model, nn::TrainerOptions(), nullptr);
  const nn::LossSums all = trainer.Evaluate(batch);
  for (int i = 0; i < 16; ++i) batch.score_weight[static_cast<size_t>(i)] = 0;
  const nn::LossSums half = trainer.Evaluate(batch);
  for (int i = 16; i < 32; ++i) batch.score_weight[static_cast<size_t>(i)] = 0;
  const nn::LossSums no_score = trainer.Evaluate(batch);
  CHECK(all.score > 0);
  CHECK(all.ownership > 0);
  CHECK(half.score < all.score);
  CHECK(no_score.score == 0);
  CHECK(no_score.ownership == doctest::Approx(all.ownership));  // its own weight
  for (int i = 0; i < 32; ++i) batch.ownership_weight[static_cast<size_t>(i)] = i < 8 ? 1 : 0;
  const nn::LossSums quarter = trainer.Evaluate(batch);
  CHECK(quarter.ownership > 0);
  CHECK(quarter.ownership < all.ownership);
  for (int i = 0; i < 8; ++i) batch.ownership_weight[static_cast<size_t>(i)] = 0;
  const nn::LossSums none = trainer.Evaluate(batch);
  CHECK(none.score == 0);
  CHECK(none.ownership == 0);
  // Policy and value keep every row.
  CHECK(none.policy == doctest::Approx(all.policy));
  CHECK(none.value == doctest::Approx(all.value));
  CHECK(none.weight == doctest::Approx(all.weight));
}

TEST_CASE("trainer: an AdamW step moves each weight by about its step size, whatever the batch") {
  // Adam's first step moves every weight with a gradient by lr * g / (|g| + eps), about lr:
  // the summed loss must not scale it (it did: lr per sample x rows, 137x too large).
  for (int rows : {16, 64}) {
    CAPTURE(rows);
    const nn::TrainBatch batch = SpreadRows(rows);
    auto model = nn::TorchModel::Create(TinyConfig(), 6);
    nn::TrainerOptions options;
    options.optimizer = "adamw";
    options.weight_decay = 0;
    nn::NetTrainer trainer(*model, options, nullptr);
    const double lr_per_sample = 3e-5;
    trainer.Step(batch, rows, lr_per_sample);
    const double step = nn::AdamStepSize(lr_per_sample, rows);
    CHECK(step == doctest::Approx(3e-5 * 1.33 * std::sqrt(rows / 256.0)));
    const auto after = trainer.Snapshot("after");
    double largest = 0;
    const auto before_state = model->net()->NamedState();
    const auto after_state = after->net()->NamedState();
    for (size_t i = 0; i < before_state.size(); ++i) {
      if (before_state[i].first.find("running_") != std::string::npos) continue;
      largest = std::max(
          largest, (after_state[i].second - before_state[i].second).abs().max().item<double>());
    }
    CHECK(largest <= step * 1.01);
    CHECK(largest >= step * 0.5);
  }
}

TEST_CASE("trainer: a saved state continues bit for bit") {
  const nn::TrainBatch a = FirstRows(32);
  const nn::TrainBatch b = FirstRows(48).Slice(16, 48);
  auto model = nn::TorchModel::Create(TinyConfig(), 4);
  nn::TrainerOptions options;
  nn::NetTrainer first(*model, options, nullptr);
  first.Step(a, 32, 1e-4);
  first.Step(b, 32, 1e-4);
  const std::string saved = first.SaveState();
  first.Step(a, 32, 1e-4);
  first.Step(b, 32, 1e-4);

  nn::NetTrainer second(*nn::TorchModel::Create(TinyConfig(), 99), options, nullptr);
  second.LoadState(saved, "state");
  CHECK(second.steps() == 2);
  second.Step(a, 32, 1e-4);
  second.Step(b, 32, 1e-4);
  CHECK(SameWeights(*first.Snapshot("x"), *second.Snapshot("x")));
  // Garbage and a state of another architecture are clear errors.
  CHECK_THROWS_AS(second.LoadState("garbage", "f.pt"), FormatError);
  nn::ModelConfig other = TinyConfig();
  other.channels = 24;
  nn::NetTrainer wrong(*nn::TorchModel::Create(other, 1), options, nullptr);
  CHECK_THROWS_WITH_AS(wrong.LoadState(saved, "ckpt/trainer.pt"),
                       doctest::Contains("ckpt/trainer.pt"), FormatError);
}

TEST_CASE("trainer: snapshots give the moving average of the weights, kept across a reload") {
  const nn::TrainBatch a = FirstRows(32);
  const nn::TrainBatch b = FirstRows(48).Slice(16, 48);
  auto model = nn::TorchModel::Create(TinyConfig(), 5);
  nn::TrainerOptions plain;
  nn::TrainerOptions averaged;
  averaged.weight_average_samples = 100;
  nn::NetTrainer current(*model, plain, nullptr);
  nn::NetTrainer average(*model, averaged, nullptr);
  // Before any step the average is the start.
  CHECK(SameWeights(*average.Snapshot("x"), *model, true));
  std::vector<std::unique_ptr<nn::TorchModel>> weights;
  weights.push_back(current.Snapshot("w0"));
  for (const nn::TrainBatch* batch : {&a, &b}) {
    current.Step(*batch, 32, 1e-3);
    average.Step(*batch, 32, 1e-3);
    weights.push_back(current.Snapshot("w"));
  }
  // The same steps on the same weights: the averaging trainer's own weights are `current`'s;
  // its snapshot is w0 moved twice towards the weights of the step, by 1 - e^(-32/100).
  const double k = 1 - std::exp(-32.0 / 100);
  const auto p0 = weights[0]->net()->named_parameters();
  const auto p1 = weights[1]->net()->named_parameters();
  const auto p2 = weights[2]->net()->named_parameters();
  const auto got = average.Snapshot("x")->net()->named_parameters();
  double largest = 0, moved = 0;
  for (const auto& item : p0) {
    const std::string& name = item.key();
    const torch::Tensor once = p0[name] + k * (p1[name] - p0[name]);
    const torch::Tensor twice = once + k * (p2[name] - once);
    largest = std::max(largest, (got[name] - twice).abs().max().item<double>());
    moved = std::max(moved, (got[name] - p2[name]).abs().max().item<double>());
  }
  CHECK(largest < 1e-6);
  CHECK(moved > 1e-5);  // the average lags the weights
  // Saved and loaded, the average goes on where it was.
  const std::string saved = average.SaveState();
  nn::NetTrainer reloaded(*nn::TorchModel::Create(TinyConfig(), 99), averaged, nullptr);
  reloaded.LoadState(saved, "state");
  CHECK(SameWeights(*reloaded.Snapshot("x"), *average.Snapshot("x")));
  reloaded.Step(a, 32, 1e-3);
  average.Step(a, 32, 1e-3);
  CHECK(SameWeights(*reloaded.Snapshot("x"), *average.Snapshot("x")));
  // A state saved with the average off starts it at its weights.
  nn::NetTrainer turned_on(*nn::TorchModel::Create(TinyConfig(), 99), averaged, nullptr);
  turned_on.LoadState(current.SaveState(), "state");
  CHECK(SameWeights(*turned_on.Snapshot("x"), *current.Snapshot("x")));
}

// The largest difference between a parameter of a and the same one of b.
double LargestDifference(const nn::TorchModel& a, const nn::TorchModel& b) {
  const auto pa = a.net()->named_parameters();
  const auto pb = b.net()->named_parameters();
  double largest = 0;
  for (const auto& item : pa) {
    largest = std::max(largest, (item.value() - pb[item.key()]).abs().max().item<double>());
  }
  return largest;
}

// w0 moved `fraction` of the way to w1, parameter by parameter.
std::unique_ptr<nn::TorchModel> Between(const nn::TorchModel& w0, const nn::TorchModel& w1,
                                        double fraction) {
  auto out = nn::TorchModel::Create(w0.config(), 0);
  torch::NoGradGuard no_grad;
  auto po = out->net()->named_parameters();
  const auto p0 = w0.net()->named_parameters();
  const auto p1 = w1.net()->named_parameters();
  for (const auto& item : p0) {
    po[item.key()].copy_(item.value() + fraction * (p1[item.key()] - item.value()));
  }
  return out;
}

TEST_CASE("trainer: lookahead moves the slow weights alpha of the way every k steps") {
  const nn::TrainBatch a = FirstRows(32);
  const nn::TrainBatch b = FirstRows(48).Slice(16, 48);
  auto model = nn::TorchModel::Create(TinyConfig(), 5);
  nn::TrainerOptions look_options;
  look_options.lookahead_steps = 2;
  look_options.lookahead_alpha = 0.5;
  nn::TrainerOptions both_options = look_options;
  both_options.weight_average_samples = 100;
  nn::NetTrainer plain(*model, nn::TrainerOptions(), nullptr);
  nn::NetTrainer look(*model, look_options, nullptr);
  nn::NetTrainer both(*model, both_options, nullptr);
  // Between syncs the snapshot is the slow weights, still the start.
  plain.Step(a, 32, 2e-3);
  look.Step(a, 32, 1e-3);
  both.Step(a, 32, 1e-3);
  CHECK(SameWeights(*look.Snapshot("x"), *model, true));
  CHECK(SameWeights(*both.Snapshot("x"), *model, true));
  // At the second step the fast weights are plain SGD's at twice the rate (lr / alpha), and
  // the slow ones move half way to them.
  plain.Step(b, 32, 2e-3);
  look.Step(b, 32, 1e-3);
  both.Step(b, 32, 1e-3);
  const auto fast = plain.Snapshot("fast");
  const auto slow = look.Snapshot("slow");
  CHECK(LargestDifference(*slow, *Between(*model, *fast, 0.5)) < 1e-6);
  CHECK(LargestDifference(*slow, *fast) > 1e-5);
  // The average moves at the sync only, over the rows of both steps, towards the slow weights.
  CHECK(LargestDifference(*both.Snapshot("x"), *Between(*model, *slow, 1 - std::exp(-64.0 / 100))) <
        1e-6);
  // Saved between syncs, a reloaded trainer goes on bit for bit (slow weights, the fast ones,
  // momentum, the count of steps since the sync).
  look.Step(a, 32, 1e-3);
  nn::NetTrainer reloaded(*nn::TorchModel::Create(TinyConfig(), 99), look_options, nullptr);
  reloaded.LoadState(look.SaveState(), "state");
  CHECK(SameWeights(*reloaded.Snapshot("x"), *slow, true));
  reloaded.Step(b, 32, 1e-3);
  look.Step(b, 32, 1e-3);
  CHECK_FALSE(SameWeights(*look.Snapshot("x"), *slow, true));
  CHECK(SameWeights(*reloaded.Snapshot("x"), *look.Snapshot("x")));
  // A state saved with lookahead off starts the slow weights at its weights.
  nn::NetTrainer turned_on(*nn::TorchModel::Create(TinyConfig(), 99), look_options, nullptr);
  turned_on.LoadState(plain.SaveState(), "state");
  CHECK(SameWeights(*turned_on.Snapshot("x"), *fast));
  // An alpha outside (0, 1] is refused, naming the key.
  nn::TrainerOptions bad = look_options;
  bad.lookahead_alpha = 0;
  CHECK_THROWS_WITH_AS(nn::NetTrainer(*model, bad, nullptr), doctest::Contains("lookahead_alpha"),
                       ConfigError);
}

TEST_CASE("trainer: out of memory halves the micro-batch and the step still happens") {
  const nn::TrainBatch batch = FirstRows(32);
  auto model = nn::TorchModel::Create(TinyConfig(), 5);
  nn::TrainerOptions options;
  options.simulate_oom_above = 8;
  nn::NetTrainer trainer(*model, options, nullptr);
  const nn::LossSums sums = trainer.Step(batch, 32, 1e-4);
  CHECK(trainer.micro_batch() == 8);
  CHECK(sums.rows == 32);
  CHECK(trainer.steps() == 1);
  CHECK_FALSE(SameWeights(*model, *trainer.Snapshot("tiny")));
  // A micro-batch of one that still fails is an error, not a loop.
  options.simulate_oom_above = 0;
  options.micro_batch = 1;
  nn::TrainerOptions always = options;
  always.simulate_oom_above = 0;
  nn::NetTrainer fine(*model, always, nullptr);
  CHECK(fine.Step(batch, 32, 1e-4).rows == 32);
}

TEST_CASE("trainer: bf16 autocast trains with finite losses") {
  const nn::TrainBatch batch = FirstRows(32);
  auto model = nn::TorchModel::Create(TinyConfig(), 6);
  nn::TrainerOptions options;
  options.precision = "bf16";
  nn::NetTrainer trainer(*model, options, nullptr);
  const nn::LossSums before = trainer.Evaluate(batch);
  for (int i = 0; i < 30; ++i) trainer.Step(batch, 32, 2e-4);
  const nn::LossSums after = trainer.Evaluate(batch);
  CHECK(std::isfinite(after.total));
  CHECK(after.total < before.total);
  options.precision = "fp16";
  CHECK_THROWS_AS(nn::NetTrainer(*model, options, nullptr), ConfigError);
}

TEST_CASE("gpu: fp16 training on CUDA with loss scaling lowers the loss") {
  if (testing::SkipWithoutGpus(1)) return;
  const nn::TrainBatch batch = FirstRows(32);
  auto model = nn::TorchModel::Create(TinyConfig(), 7);
  nn::TrainerOptions options;
  options.device = "cuda";
  options.precision = "fp16";
  nn::NetTrainer trainer(*model, options, nullptr);
  CHECK(trainer.loss_scale() == 65536.0);
  const nn::LossSums before = trainer.Evaluate(batch);
  for (int i = 0; i < 30; ++i) trainer.Step(batch, 32, 2e-4);
  const nn::LossSums after = trainer.Evaluate(batch);
  CHECK(std::isfinite(after.total));
  CHECK(after.total < before.total);
  CHECK(trainer.loss_scale() >= 1.0);
}

TEST_CASE("nccl: a CUDA process group without the GPU it names is a clear error") {
  testing::TempDir dir;
  nn::DistributedConfig config;
  config.file_store = dir / "store";
  config.timeout_seconds = 10;
  const std::string device = "cuda:" + std::to_string(testing::CudaGpus());
  // The NCCL build checks the device before NCCL starts; a build without NCCL says it has none.
  CHECK_THROWS_WITH_AS(nn::ProcessGroup::Create(config, device), doctest::Contains(device.c_str()),
                       ConfigError);
  nn::TrainerOptions options;
  options.device = device;
  auto model = nn::TorchModel::Create(TinyConfig(), 8);
  CHECK_THROWS_WITH_AS(nn::NetTrainer(*model, options, nullptr), doctest::Contains(device.c_str()),
                       ConfigError);
}

// A base directory with one shuffle of 4 files of 32 rows (pos_len 7).
std::string MakeBase(const testing::TempDir& dir, const std::string& name = "base") {
  const std::string base = dir / name;
  std::vector<data::TrainingRow> rows(Rows().begin(), Rows().begin() + 128);
  testing::WriteShuffle(base, "20260101-000000-x", rows, 32, 5000);
  return base;
}

pipeline::TrainerProgramOptions SmallRun(const std::string& base) {
  pipeline::TrainerProgramOptions o;
  o.base_dir = base;
  o.training_name = "t";
  o.run_name = "r";
  o.model_kind = "b1c16";
  o.pos_len = testing::kTrainPosLen;
  o.batch_size = 8;
  o.samples_per_epoch = 64;  // 8 steps: 2 files
  o.config_values = {{"samples_per_epoch", "64"}};
  o.no_repeat_files = true;  // 4 files: exactly 2 epochs, then no data
  o.quit_if_no_data = true;
  o.seed = 42;
  o.warmup_samples = 0;
  o.lr_scale = 3;
  o.poll_interval = std::chrono::seconds(0);
  o.net.precision = "fp32";
  return o;
}

std::unique_ptr<nn::TorchModel> LoadSnapshot(const std::string& base, const std::string& name) {
  return nn::TorchModel::Load(pipeline::TorchModelsToExportDir(base) + "/" + name);
}

TEST_CASE("trainer program: the options keep every key of the effective configuration") {
  ConfigSpec spec("t", "t");
  pipeline::DeclareTrainerOptions(spec);
  Config config(spec);
  config.Set("output_dir", "/tmp/base", "test");
  config.Set("training_name", "t", "test");
  config.Set("samples_per_epoch", "640", "test");
  const pipeline::TrainerProgramOptions o = pipeline::TrainerOptionsFromConfig(config);
  CHECK(o.config_values == config.Values());
  CHECK(std::find(o.config_values.begin(), o.config_values.end(),
                  std::make_pair(std::string("samples_per_epoch"), std::string("640"))) !=
        o.config_values.end());
  CHECK(o.config_values.size() > 20);
  CHECK(o.lr_schedule.empty());
  config.Set("lr_schedule", "1000:0.5", "test");
  const pipeline::LrSchedule schedule = pipeline::TrainerOptionsFromConfig(config).lr_schedule;
  REQUIRE(schedule.size() == 1);
  CHECK(schedule[0].from_samples == 1000);
  CHECK(schedule[0].factor == 0.5);
  config.Set("lr_schedule", "1000:0.5,500:0.1", "test");
  CHECK_THROWS_WITH_AS(pipeline::TrainerOptionsFromConfig(config),
                       doctest::Contains("for lr_schedule: '500:0.1'"), ConfigError);
}

TEST_CASE("trainer program: 2 epochs equal 1 epoch, stop mid-epoch, resume, 1 epoch") {
  testing::TempDir dir;
  Logger logger(LogLevel::kError);
  std::atomic<bool> never{false};
  const StopToken no_stop(&never);

  const std::string straight = MakeBase(dir, "straight");
  const pipeline::TrainerResult whole = pipeline::RunTrainer(SmallRun(straight), logger, no_stop);
  CHECK(whole.epochs == 2);
  CHECK(whole.samples == 128);
  CHECK_FALSE(whole.stopped);
  // Snapshot names: <run>-<training>-s<samples>-d<rows>, one per epoch.
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(straight)) ==
        std::vector<std::string>{"r-t-s128-d5000", "r-t-s64-d5000"});
  const std::string meta =
      ReadFile(pipeline::TorchModelsToExportDir(straight) + "/r-t-s64-d5000/training.json");
  CHECK(meta.find("\"samples\": 64") != std::string::npos);
  // The code version and the trainer's effective configuration.
  CHECK(meta.find("\"code_version\": \"" + std::string(CodeVersion()) + "\"") != std::string::npos);
  CHECK(meta.find("\"samples_per_epoch\": \"64\"") != std::string::npos);
  CHECK(meta.find("checkpoints/ckpt-000000000000064-") != std::string::npos);

  const std::string resumed = MakeBase(dir, "resumed");
  pipeline::TrainerProgramOptions part = SmallRun(resumed);
  part.max_epochs_this_instance = 1;
  CHECK(pipeline::RunTrainer(part, logger, no_stop).epochs == 1);
  part.max_epochs_this_instance = 0;
  part.max_steps_this_instance = 3;  // stops inside epoch 2, as a SIGINT would
  const pipeline::TrainerResult cut = pipeline::RunTrainer(part, logger, no_stop);
  CHECK(cut.stopped);
  CHECK(cut.samples == 64 + 3 * 8);
  part.max_steps_this_instance = 0;
  const pipeline::TrainerResult rest = pipeline::RunTrainer(part, logger, no_stop);
  CHECK(rest.samples == 128);
  CHECK(rest.epochs == 1);
  CHECK(SameWeights(*LoadSnapshot(straight, "r-t-s128-d5000"),
                    *LoadSnapshot(resumed, "r-t-s128-d5000")));
  // Metrics: one line per epoch, with every loss term.
  std::ifstream metrics(pipeline::TrainDir(resumed, "t") + "/metrics.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(metrics, line)) {
    ++lines;
    for (const char* key :
         {"loss_policy", "loss_soft_policy", "loss_opponent_policy", "loss_value", "loss_td_value",
          "loss_score", "loss_ownership", "samples_per_second", "lr", "bucket"}) {
      CHECK(line.find(key) != std::string::npos);
    }
  }
  CHECK(lines == 2);
}

// Root of the summed squared differences of two models' parameters (running statistics left
// out).
double ParameterDistance(const nn::TorchModel& a, const nn::TorchModel& b) {
  const auto sa = a.net()->NamedState();
  const auto sb = b.net()->NamedState();
  REQUIRE(sa.size() == sb.size());
  double sum = 0;
  for (size_t i = 0; i < sa.size(); ++i) {
    if (sa[i].first.find("running_") != std::string::npos) continue;
    sum += (sa[i].second.to(torch::kDouble) - sb[i].second.to(torch::kDouble))
               .pow(2)
               .sum()
               .item<double>();
  }
  return std::sqrt(sum);
}

TEST_CASE("trainer program: init_from starts from a model's or a checkpoint's weights, afresh") {
  testing::TempDir dir;
  Logger logger(LogLevel::kError);
  std::atomic<bool> never{false};
  const StopToken no_stop(&never);
  // The source: two epochs on one base; its last snapshot and checkpoint.
  const std::string source_base = MakeBase(dir, "source");
  pipeline::RunTrainer(SmallRun(source_base), logger, no_stop);
  const std::string source_model =
      pipeline::TorchModelsToExportDir(source_base) + "/r-t-s128-d5000";
  const auto source = nn::TorchModel::Load(source_model);
  const std::string checkpoints = pipeline::TrainDir(source_base, "t") + "/checkpoints";
  const std::string source_checkpoint = checkpoints + "/" + ListPublished(checkpoints).back();

  // With a learning rate of 0 the first snapshot holds the source's parameters exactly; the
  // run counts its own samples from 0 (a fresh optimizer, a fresh warm-up), and its snapshot
  // names count on from the source's 128 samples. A model whose name has no s<samples> (a copy
  // named "plain") counts as 0.
  const std::string plain = dir / "plain";
  boost::filesystem::create_directories(plain);
  for (const char* file : {"model.json", "weights.pt"}) {
    boost::filesystem::copy_file(source_model + "/" + file, plain + "/" + file);
  }
  int still = 0;
  for (const auto& [from, name] :
       std::vector<std::pair<std::string, std::string>>{{source_model, "r-t-s192-d5000"},
                                                        {source_model + "/", "r-t-s192-d5000"},
                                                        {source_checkpoint, "r-t-s192-d5000"},
                                                        {plain, "r-t-s64-d5000"}}) {
    CAPTURE(from);
    const std::string base = MakeBase(dir, "still-" + std::to_string(++still));
    pipeline::TrainerProgramOptions o = SmallRun(base);
    o.init_from = from;
    o.lr_scale = 0;
    o.max_epochs_this_instance = 1;
    CHECK(pipeline::RunTrainer(o, logger, no_stop).samples == 64);
    CHECK(ListPublished(pipeline::TorchModelsToExportDir(base)) == std::vector<std::string>{name});
    CHECK(SameWeights(*LoadSnapshot(base, name), *source, /*parameters_only=*/true));
  }

  // Trained on: its first snapshot stays near the source; a fresh start's is far from it.
  const std::string tuned_base = MakeBase(dir, "tuned");
  pipeline::TrainerProgramOptions tuned = SmallRun(tuned_base);
  tuned.init_from = source_model;
  tuned.seed = 7;
  tuned.max_epochs_this_instance = 1;
  pipeline::RunTrainer(tuned, logger, no_stop);
  // Resumed, the run's names still count on from the source's samples; a run started from its
  // checkpoint counts on from both.
  pipeline::RunTrainer(tuned, logger, no_stop);
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(tuned_base)) ==
        std::vector<std::string>{"r-t-s192-d5000", "r-t-s256-d5000"});
  const std::string tuned_checkpoints = pipeline::TrainDir(tuned_base, "t") + "/checkpoints";
  pipeline::TrainerProgramOptions again = SmallRun(MakeBase(dir, "again"));
  again.init_from = tuned_checkpoints + "/" + ListPublished(tuned_checkpoints).back();
  again.max_epochs_this_instance = 1;
  pipeline::RunTrainer(again, logger, no_stop);
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(again.base_dir)) ==
        std::vector<std::string>{"r-t-s320-d5000"});
  const std::string fresh_base = MakeBase(dir, "fresh");
  pipeline::TrainerProgramOptions fresh = SmallRun(fresh_base);
  fresh.seed = 7;
  fresh.max_epochs_this_instance = 1;
  pipeline::RunTrainer(fresh, logger, no_stop);
  const double near = ParameterDistance(*LoadSnapshot(tuned_base, "r-t-s192-d5000"), *source);
  const double far = ParameterDistance(*LoadSnapshot(fresh_base, "r-t-s64-d5000"), *source);
  CHECK(near > 0);
  CHECK(near < far / 10);

  // A model of another pos_len: its weights, in this run's planes (snapshots say its pos_len).
  nn::ModelConfig larger = source->config();
  larger.pos_len = testing::kTrainPosLen + 6;
  const std::string larger_model = dir / "larger";
  nn::TorchModel::Grow(*source, larger, 0)->Save(larger_model);
  pipeline::TrainerProgramOptions framed = SmallRun(MakeBase(dir, "framed"));
  framed.init_from = larger_model;
  framed.lr_scale = 0;
  framed.max_epochs_this_instance = 1;
  pipeline::RunTrainer(framed, logger, no_stop);
  const auto framed_snapshot = LoadSnapshot(framed.base_dir, "r-t-s64-d5000");
  CHECK(framed_snapshot->config().pos_len == testing::kTrainPosLen);
  CHECK(SameWeights(*framed_snapshot, *source, /*parameters_only=*/true));

  // Another architecture, or a directory that is neither, is an error naming init_from.
  pipeline::TrainerProgramOptions wider = SmallRun(MakeBase(dir, "wider"));
  wider.model_kind = "b1c24";
  wider.init_from = source_model;
  const std::string other = "init_from: " + source_model + " is b1c16";
  CHECK_THROWS_WITH_AS(pipeline::RunTrainer(wider, logger, no_stop),
                       doctest::Contains(other.c_str()), ConfigError);
  pipeline::TrainerProgramOptions missing = SmallRun(MakeBase(dir, "missing"));
  missing.init_from = dir / "nothing";
  CHECK_THROWS_WITH_AS(pipeline::RunTrainer(missing, logger, no_stop),
                       doctest::Contains("neither a model nor a checkpoint"), ConfigError);
}

TEST_CASE("trainer program: lr_schedule steps the learning rate at the net's sample counts") {
  testing::TempDir dir;
  Logger logger(LogLevel::kError);
  std::atomic<bool> never{false};
  const StopToken no_stop(&never);
  // A factor of 0 from 64 samples on: the first epoch trains, the second leaves the
  // parameters where the first put them, and the metrics say so.
  const std::string base = MakeBase(dir, "stepped");
  pipeline::TrainerProgramOptions stepped = SmallRun(base);
  stepped.lr_schedule = {{64, 0.0}};
  CHECK(pipeline::RunTrainer(stepped, logger, no_stop).samples == 128);
  const auto first = LoadSnapshot(base, "r-t-s64-d5000");
  CHECK(SameWeights(*LoadSnapshot(base, "r-t-s128-d5000"), *first, /*parameters_only=*/true));
  const std::string straight = MakeBase(dir, "straight");
  pipeline::RunTrainer(SmallRun(straight), logger, no_stop);
  CHECK(SameWeights(*LoadSnapshot(straight, "r-t-s64-d5000"), *first));
  CHECK_FALSE(
      SameWeights(*LoadSnapshot(straight, "r-t-s128-d5000"), *first, /*parameters_only=*/true));
  std::ifstream metrics(pipeline::TrainDir(base, "t") + "/metrics.jsonl");
  std::vector<double> rates;
  for (std::string line; std::getline(metrics, line);)
    rates.push_back(nlohmann::json::parse(line).at("lr").get<double>());
  CHECK(rates == std::vector<double>{0.0, 0.0});  // the rate after each epoch

  // Started from that model (64 samples in its name), the schedule counts on from them: at 64
  // the factor is already 0, at 128 not yet.
  for (const int64_t stop_at : {64, 128}) {
    CAPTURE(stop_at);
    pipeline::TrainerProgramOptions tuned =
        SmallRun(MakeBase(dir, "tuned-" + std::to_string(stop_at)));
    tuned.init_from = pipeline::TorchModelsToExportDir(base) + "/r-t-s64-d5000";
    tuned.lr_schedule = {{stop_at, 0.0}};
    tuned.max_epochs_this_instance = 1;
    pipeline::RunTrainer(tuned, logger, no_stop);
    const auto snapshot = LoadSnapshot(tuned.base_dir, "r-t-s128-d5000");
    CHECK(SameWeights(*snapshot, *first, /*parameters_only=*/true) == (stop_at == 64));
  }
}

TEST_CASE("trainer program: a damaged newest checkpoint is set aside for the one before it") {
  testing::TempDir dir;
  Logger logger(LogLevel::kError);
  std::atomic<bool> never{false};
  const StopToken no_stop(&never);
  const std::string base = MakeBase(dir);
  const std::string checkpoints = pipeline::TrainDir(base, "t") + "/checkpoints";
  pipeline::TrainerProgramOptions o = SmallRun(base);
  o.max_epochs_this_instance = 1;
  CHECK(pipeline::RunTrainer(o, logger, no_stop).samples == 64);
  CHECK(pipeline::RunTrainer(o, logger, no_stop).samples == 128);
  const std::vector<std::string> written = ListPublished(checkpoints);
  REQUIRE(written.size() == 2);
  CHECK(ReadFile(checkpoints + "/" + written[1] + "/state.json").find("trainer_file_crc32") !=
        std::string::npos);
  // One byte of the newest trainer.pt changes (same size): the CRC-32 tells.
  const std::string damaged = checkpoints + "/" + written[1] + "/trainer.pt";
  std::string bytes = ReadFile(damaged);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  PublishFile(damaged, bytes);
  // The restart resumes from 64 samples and trains the second epoch again.
  o.max_epochs_this_instance = 1;
  const pipeline::TrainerResult again = pipeline::RunTrainer(o, logger, no_stop);
  CHECK(again.epochs == 1);
  CHECK(again.samples == 128);
  CHECK(fs::exists(checkpoints + "/broken-" + written[1] + "/trainer.pt"));
  // Every checkpoint damaged (truncated): a clear error, nothing moved, no fresh start.
  for (const std::string& name : ListPublished(checkpoints)) {
    if (name.rfind("ckpt-", 0) != 0) continue;
    const std::string file = checkpoints + "/" + name + "/trainer.pt";
    PublishFile(file, ReadFile(file).substr(0, 100));
  }
  const std::vector<std::string> before = ListPublished(checkpoints);
  CHECK_THROWS_WITH_AS(pipeline::RunTrainer(o, logger, no_stop),
                       doctest::Contains("no usable checkpoint"), Error);
  CHECK(ListPublished(checkpoints) == before);
}

TEST_CASE("trainer program: the bucket limits epochs and a restart credits nothing twice") {
  testing::TempDir dir;
  Logger logger(LogLevel::kError);
  std::atomic<bool> never{false};
  const StopToken no_stop(&never);
  const std::string base = MakeBase(dir);
  pipeline::TrainerProgramOptions o = SmallRun(base);
  o.no_repeat_files = false;
  o.quit_if_no_data = false;
  o.max_train_bucket_per_new_data = 0.1;  // 64 samples per 640 new rows
  o.stop_when_train_bucket_limited = true;
  o.export_mode = "trainonly";
  // Fresh: one epoch is free, the first shuffle only marks its rows.
  CHECK(pipeline::RunTrainer(o, logger, no_stop).epochs == 1);
  CHECK(pipeline::RunTrainer(o, logger, no_stop).epochs == 0);
  // 1280 new rows: two epochs' worth; a restart afterwards gets nothing more.
  std::vector<data::TrainingRow> rows(Rows().begin(), Rows().begin() + 64);
  testing::WriteShuffle(base, "20260102-000000-x", rows, 32, 5000 + 1280);
  CHECK(pipeline::RunTrainer(o, logger, no_stop).epochs == 2);
  CHECK(pipeline::RunTrainer(o, logger, no_stop).epochs == 0);
  CHECK_FALSE(fs::exists(pipeline::TorchModelsToExportDir(base)));  // trainonly
  o.export_mode = "extra";
  testing::WriteShuffle(base, "20260103-000000-x", rows, 32, 5000 + 1280 + 640);
  CHECK(pipeline::RunTrainer(o, logger, no_stop).epochs == 1);
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(base) + "_extra") ==
        std::vector<std::string>{"r-t-s256-d6920"});
}

TEST_CASE(
    "trainer program: an interrupted epoch whose shuffle was removed finishes on the newest") {
  testing::TempDir dir;
  Logger logger(LogLevel::kError);
  std::atomic<bool> never{false};
  const StopToken no_stop(&never);
  const std::string base = MakeBase(dir);
  pipeline::TrainerProgramOptions o = SmallRun(base);
  o.max_steps_this_instance = 3;  // 3 of the epoch's 8 steps, then checkpoint as on SIGINT
  CHECK(pipeline::RunTrainer(o, logger, no_stop).samples == 24);
  // The shuffler cleaned the old shuffle up and published a new one.
  fs::remove_all(pipeline::ShuffledDataDir(base) + "/20260101-000000-x");
  std::vector<data::TrainingRow> rows(Rows().begin(), Rows().begin() + 128);
  testing::WriteShuffle(base, "20260102-000000-x", rows, 32, 5000);
  o.max_steps_this_instance = 0;
  o.max_epochs_this_instance = 1;
  const pipeline::TrainerResult rest = pipeline::RunTrainer(o, logger, no_stop);
  CHECK(rest.epochs == 1);
  CHECK(rest.samples == 64);  // the 5 remaining steps, not a short or a whole new epoch
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(base)) ==
        std::vector<std::string>{"r-t-s64-d5000"});
}

TEST_CASE("trainer program: rows of another pos_len are a clear error") {
  testing::TempDir dir;
  Logger logger(LogLevel::kError);
  std::atomic<bool> never{false};
  const StopToken no_stop(&never);
  pipeline::TrainerProgramOptions o = SmallRun(MakeBase(dir));
  o.pos_len = 9;  // the data is pos_len 7
  CHECK_THROWS_WITH_AS(pipeline::RunTrainer(o, logger, no_stop),
                       doctest::Contains("set pos_len to the selfplay pos_len"), ConfigError);
}

std::vector<std::string> TrainerArgs(const std::string& base,
                                     const std::string& model_kind = "b1c16") {
  return {std::string(TENGEN_BIN_DIR) + "/tengen-trainer",
          "--output-dir",
          base,
          "--training-name",
          "t",
          "--run-name",
          "r",
          "--model-kind",
          model_kind,
          "--pos-len",
          std::to_string(testing::kTrainPosLen),
          "--batch-size",
          "8",
          "--samples-per-epoch",
          "64",
          "--no-repeat-files",
          "true",
          "--quit-if-no-data",
          "true",
          "--seed",
          "42",
          "--warmup-samples",
          "0",
          "--precision",
          "fp32",
          "--log-level",
          "warning",
          "--threads",
          "1"};
}

TEST_CASE("trainer program: SIGINT mid-run, restart, and the result is the uninterrupted one") {
  // A bigger net than elsewhere, so that the signal can land inside an epoch.
  const std::string kind = "b3c48";
  testing::TempDir dir;
  const std::string straight = MakeBase(dir, "straight");
  REQUIRE(RunProcess(TrainerArgs(straight, kind)).exit_code == 0);

  const std::string cut = MakeBase(dir, "cut");
  std::vector<std::string> first = TrainerArgs(cut, kind);
  first.insert(first.end(), {"--max-epochs-this-instance", "1"});
  REQUIRE(RunProcess(first).exit_code == 0);
  {
    std::vector<std::string> second = TrainerArgs(cut, kind);
    second.insert(second.end(), {"--log-level", "info"});
    Subprocess trainer(second, /*capture_stderr=*/true);
    std::string line;
    while (trainer.ReadLine(&line) && line.find("epoch 2:") == std::string::npos) {
    }
    trainer.Kill(SIGINT);
    const std::string output = trainer.ReadAll();
    CHECK(trainer.Wait() == 0);
    MESSAGE("after SIGINT:\n" << output);
  }
  REQUIRE(RunProcess(TrainerArgs(cut, kind)).exit_code == 0);
  const auto names = ListPublished(pipeline::TorchModelsToExportDir(cut));
  REQUIRE(std::find(names.begin(), names.end(), "r-t-s128-d5000") != names.end());
  CHECK(
      SameWeights(*LoadSnapshot(straight, "r-t-s128-d5000"), *LoadSnapshot(cut, "r-t-s128-d5000")));
}

TEST_CASE("trainer program: 2 ranks on localhost match one process on the same batches") {
  testing::TempDir dir;
  // One process; its micro-batch is each rank's share, so batch norm sees the same rows.
  const std::string single = MakeBase(dir, "single");
  std::vector<std::string> args = TrainerArgs(single);
  args.insert(args.end(), {"--micro-batch", "4", "--max-epochs-this-instance", "1"});
  const ProcessResult one = RunProcess(args);
  REQUIRE_MESSAGE(one.exit_code == 0, one.output);

  const std::string ranks = MakeBase(dir, "ranks");
  const std::string store = dir / "rendezvous";
  std::vector<std::unique_ptr<Subprocess>> procs;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> argv = {"/usr/bin/env", "RANK=" + std::to_string(rank), "WORLD_SIZE=2",
                                     "LOCAL_RANK=" + std::to_string(rank)};
    for (const std::string& a : TrainerArgs(ranks)) argv.push_back(a);
    argv.insert(argv.end(), {"--rendezvous-file", store, "--max-epochs-this-instance", "1"});
    procs.push_back(std::make_unique<Subprocess>(argv, /*capture_stderr=*/true));
  }
  for (auto& p : procs) {
    const std::string output = p->ReadAll();
    CHECK_MESSAGE(p->Wait() == 0, output);
  }
  // Only rank 0 wrote: one snapshot, one checkpoint.
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(ranks)) ==
        std::vector<std::string>{"r-t-s64-d5000"});
  CHECK(SameWeights(*LoadSnapshot(single, "r-t-s64-d5000"), *LoadSnapshot(ranks, "r-t-s64-d5000"),
                    /*parameters_only=*/true));
}

TEST_CASE("trainer program: device cuda on a machine without that GPU stops, naming it") {
  testing::TempDir dir;
  const std::string base = MakeBase(dir);
  const std::string device = "cuda:" + std::to_string(testing::CudaGpus());
  std::vector<std::string> args = TrainerArgs(base);
  args.insert(args.end(), {"--device", device});
  const ProcessResult run = RunProcess(args);
  CHECK(run.exit_code != 0);
  CHECK_MESSAGE(run.output.find(device) != std::string::npos, run.output);
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(base)).empty());
}

TEST_CASE("gpu: 2 NCCL ranks on 2 GPUs match one process on the same batches") {
  if (testing::SkipWithoutGpus(2)) return;
  testing::TempDir dir;
  const std::string single = MakeBase(dir, "single");
  std::vector<std::string> args = TrainerArgs(single);
  args.insert(args.end(),
              {"--micro-batch", "4", "--max-epochs-this-instance", "1", "--device", "cuda:0"});
  const ProcessResult one = RunProcess(args);
  REQUIRE_MESSAGE(one.exit_code == 0, one.output);
  const std::string ranks = MakeBase(dir, "ranks");
  std::vector<std::unique_ptr<Subprocess>> procs;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> argv = {"/usr/bin/env", "RANK=" + std::to_string(rank), "WORLD_SIZE=2",
                                     "LOCAL_RANK=" + std::to_string(rank)};
    for (const std::string& a : TrainerArgs(ranks)) argv.push_back(a);
    argv.insert(argv.end(), {"--rendezvous-file", dir / "rendezvous", "--max-epochs-this-instance",
                             "1", "--device", "cuda"});
    procs.push_back(std::make_unique<Subprocess>(argv, /*capture_stderr=*/true));
  }
  for (auto& p : procs) {
    const std::string output = p->ReadAll();
    CHECK_MESSAGE(p->Wait() == 0, output);
  }
  // Sums on GPUs are not bit-exact across reduction orders: close, not equal.
  const auto a = LoadSnapshot(single, "r-t-s64-d5000")->net()->NamedState();
  const auto b = LoadSnapshot(ranks, "r-t-s64-d5000")->net()->NamedState();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first.find("running_") != std::string::npos) continue;
    CHECK_MESSAGE(torch::allclose(a[i].second, b[i].second, 1e-3, 1e-4), a[i].first);
  }
}

TEST_CASE("trainer program: threads 0 shares the machine's cores among its ranks") {
  CHECK(pipeline::CpuTrainThreads(2, 1) == 2);
  CHECK(pipeline::CpuTrainThreads(8, 2) == 4);
  CHECK(pipeline::CpuTrainThreads(2, 2) == 1);
  CHECK(pipeline::CpuTrainThreads(2, 4) == 1);
  CHECK(pipeline::CpuTrainThreads(0, 1) == 1);
  // The ranks on this machine come from LOCAL_WORLD_SIZE (torchrun and train.sh set it).
  setenv("LOCAL_WORLD_SIZE", "3", 1);
  CHECK(nn::DistributedConfigFromEnvironment("").local_world_size == 3);
  setenv("LOCAL_WORLD_SIZE", "zero", 1);
  CHECK_THROWS_WITH_AS(nn::DistributedConfigFromEnvironment(""),
                       doctest::Contains("LOCAL_WORLD_SIZE=zero"), ConfigError);
  unsetenv("LOCAL_WORLD_SIZE");
  CHECK(nn::DistributedConfigFromEnvironment("").local_world_size == 1);
}

// scripts/train.sh with 2 CPU ranks on a random port, with the trainer's own options after "--".
std::vector<std::string> TrainShArgs(const std::string& batch_size,
                                     const std::vector<std::string>& trainer_options) {
  const int port = 20000 + static_cast<int>(std::random_device()() % 20000);
  std::vector<std::string> argv = {"/usr/bin/env",
                                   std::string("TENGEN_BIN=") + TENGEN_BIN_DIR,
                                   "bash",
                                   std::string(TENGEN_SOURCE_DIR) + "/scripts/train.sh",
                                   "--cpu-ranks",
                                   "2",
                                   "--master-port",
                                   std::to_string(port),
                                   "--batch-size",
                                   batch_size,
                                   "--precision",
                                   "fp32",
                                   "--"};
  argv.insert(argv.end(), trainer_options.begin(), trainer_options.end());
  return argv;
}

TEST_CASE("scripts/train.sh: two CPU ranks train one epoch and only rank 0 writes") {
  testing::TempDir dir;
  const std::string base = MakeBase(dir);
  const std::string pos_len = std::to_string(testing::kTrainPosLen);
  const ProcessResult run = RunProcess(TrainShArgs(
      "8", {"--output-dir", base, "--training-name", "t", "--run-name", "r", "--model-kind",
            "b1c16", "--pos-len", pos_len, "--samples-per-epoch", "64",
            "--max-epochs-this-instance", "1", "--log-level", "warning", "--threads", "1"}));
  REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  CHECK(ListPublished(pipeline::TorchModelsToExportDir(base)) ==
        std::vector<std::string>{"r-t-s64-d5000"});
  CHECK(ListPublished(pipeline::TrainDir(base, "t") + "/checkpoints").size() == 1);
  // A batch the ranks cannot split is refused by every rank, and train.sh says so.
  const ProcessResult bad = RunProcess(
      TrainShArgs("7", {"--output-dir", base, "--training-name", "t2", "--model-kind", "b1c16"}));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("cannot be split evenly over 2 ranks") != std::string::npos);
}

TEST_CASE("scripts/train.sh: Ctrl-C reaches every rank once, they checkpoint and exit 0") {
  testing::TempDir dir;
  const std::string base = MakeBase(dir);
  Subprocess script(TrainShArgs("8", {"--output-dir", base, "--training-name", "t", "--model-kind",
                                      "b3c48", "--pos-len", std::to_string(testing::kTrainPosLen),
                                      "--samples-per-epoch", "100000", "--threads", "1"}),
                    /*capture_stderr=*/true);
  std::string line;
  while (script.ReadLine(&line) && line.find("epoch 1:") == std::string::npos) {
  }
  // What a terminal does on Ctrl-C: SIGINT to the script's whole process group.
  ::kill(-script.pid(), SIGINT);
  const std::string output = script.ReadAll();
  CHECK_MESSAGE(script.Wait() == 0, output);
  CHECK_MESSAGE(output.find("epoch in progress") != std::string::npos, output);
  CHECK(ListPublished(pipeline::TrainDir(base, "t") + "/checkpoints").size() == 1);
}

}  // namespace
}  // namespace tengen
