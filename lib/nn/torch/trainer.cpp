#include "nn/torch/trainer.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <sstream>
#include <utility>
#include <vector>

#include "nn/loss_scaler.h"
#include "nn/torch/compat.h"
#include "nn/torch/distributed.h"
#include "nn/torch/distributed_impl.h"
#include "nn/torch/net.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::nn {
namespace {

// Loss coefficients (see trainer.h). KataGo's value and ownership weights are of this size;
// the score term is small because score errors are in points.
constexpr double kValueLossScale = 1.5;
constexpr double kScoreLossScale = 0.02;
constexpr double kScoreHuberDelta = 12.0;
constexpr double kOwnershipLossScale = 1.5;
// KataGo's soft policy target: the policy target to this power.
constexpr double kSoftPolicyPower = 0.25;

// KataGo's AdamW learning rate relative to its SGD per-sample rate, at a batch of 256.
constexpr double kAdamLearningRateFactor = 1.33;
constexpr double kAdamReferenceBatch = 256.0;

bool IsOutOfMemory(const std::exception& e) {
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos ||
         what.find("can't allocate memory") != std::string::npos;
}

// The losses of one micro-batch, each summed over its rows (weighted), as fp32 scalars.
struct LossTensors {
  torch::Tensor policy, soft_policy, opponent_policy, value, td_value, score, ownership, total,
      weight;
};

struct BatchTensors {
  torch::Tensor spatial, global, policy, value, score, ownership, weight, score_weight,
      ownership_weight, opponent_policy, opponent_policy_weight, td_value, td_value_weight;
};

// The weights of the auxiliary terms (TrainerOptions).
struct AuxiliaryWeights {
  double soft_policy = 0;
  double opponent_policy = 0;
  double td_value = 0;
};

AuxiliaryWeights Auxiliary(const TrainerOptions& options) {
  return {options.soft_policy_weight, options.opponent_policy_weight, options.td_value_weight};
}

torch::Tensor FromVector(const std::vector<float>& v, std::vector<int64_t> sizes,
                         const torch::Device& device) {
  auto cpu = torch::from_blob(const_cast<float*>(v.data()), sizes, torch::kFloat32);
  return device.is_cpu() ? cpu.clone() : cpu.to(device);
}

BatchTensors ToTensors(const TrainBatch& b, const torch::Device& device, bool channels_last) {
  const int64_t n = b.size;
  const int64_t l = b.pos_len;
  TENGEN_CHECK(b.spatial.size() == static_cast<size_t>(n * b.num_spatial * l * l) &&
                   b.policy.size() == static_cast<size_t>(n * (l * l + 1)) &&
                   b.ownership.size() == static_cast<size_t>(n * l * l) &&
                   b.weight.size() == static_cast<size_t>(n) &&
                   b.score_weight.size() == static_cast<size_t>(n) &&
                   b.ownership_weight.size() == static_cast<size_t>(n) &&
                   b.td_value.size() == static_cast<size_t>(n * kTdHorizons * 3) &&
                   b.td_value_weight.size() == static_cast<size_t>(n),
               "train batch arrays do not match its shape");
  BatchTensors t;
  t.spatial = FromVector(b.spatial, {n, b.num_spatial, l, l}, device);
  if (channels_last) t.spatial = t.spatial.contiguous(torch::MemoryFormat::ChannelsLast);
  t.global = FromVector(b.global, {n, b.num_global}, device);
  t.policy = FromVector(b.policy, {n, l * l + 1}, device);
  t.value = FromVector(b.value, {n, 3}, device);
  t.score = FromVector(b.score, {n}, device);
  t.ownership = FromVector(b.ownership, {n, l * l}, device);
  t.weight = FromVector(b.weight, {n}, device);
  t.score_weight = FromVector(b.score_weight, {n}, device);
  t.ownership_weight = FromVector(b.ownership_weight, {n}, device);
  t.opponent_policy = FromVector(b.opponent_policy, {n, l * l + 1}, device);
  t.opponent_policy_weight = FromVector(b.opponent_policy_weight, {n}, device);
  t.td_value = FromVector(b.td_value, {n, kTdHorizons, 3}, device);
  t.td_value_weight = FromVector(b.td_value_weight, {n}, device);
  return t;
}

// Cross-entropy of each row's logits against a target that sums to 1.
torch::Tensor PolicyRows(const torch::Tensor& target, const torch::Tensor& logits) {
  return -(target * torch::log_softmax(logits.to(torch::kFloat32), 1)).sum(1);
}

LossTensors ComputeLosses(const NetOutput& out, const BatchTensors& t,
                          const AuxiliaryWeights& weights) {
  const int64_t n = t.weight.size(0);
  LossTensors loss;
  const auto policy_target = t.policy / t.policy.sum(1, true).clamp_min(1e-12);
  const auto policy_rows = PolicyRows(policy_target, out.policy_logits);
  // The soft target: the policy target to the power 1/4, renormalised; moves the target leaves
  // at 0 (illegal ones, points off the board) stay at 0.
  const auto soft = policy_target.pow(kSoftPolicyPower);
  const auto soft_rows =
      PolicyRows(soft / soft.sum(1, true).clamp_min(1e-12), out.soft_policy_logits);
  // The opponent's reply, on the rows that know it (an unknown one is all 0: no loss either).
  const auto reply_target = t.opponent_policy / t.opponent_policy.sum(1, true).clamp_min(1e-12);
  const auto reply_rows = PolicyRows(reply_target, out.opponent_policy_logits);
  const auto value_rows =
      -(t.value * torch::log_softmax(out.value_logits.to(torch::kFloat32), 1)).sum(1) *
      kValueLossScale;
  // The short-term values, per horizon, on the rows that know them (others are all 0).
  const auto td_log =
      torch::log_softmax(out.td_value_logits.to(torch::kFloat32).view({n, kTdHorizons, 3}), 2);
  const auto td_rows = -(t.td_value * td_log).sum({1, 2}) * kValueLossScale;
  const auto error = (out.score.to(torch::kFloat32) - t.score).abs();
  const auto huber = torch::where(error < kScoreHuberDelta, 0.5 * error * error,
                                  kScoreHuberDelta * (error - 0.5 * kScoreHuberDelta));
  const auto score_rows = huber * (kScoreLossScale / kScoreHuberDelta);
  // Ownership: sigmoid(2z) = (1 + tanh z) / 2, on-board points only (plane 0 is the mask).
  const auto mask = t.spatial.select(1, 0).reshape({n, -1});
  const auto own_logits = 2.0 * out.ownership_pretanh.to(torch::kFloat32);
  const auto own_target = (t.ownership + 1.0) * 0.5;
  const auto bce =
      torch::binary_cross_entropy_with_logits(own_logits, own_target, {}, {}, at::Reduction::None);
  const auto ownership_rows =
      (bce * mask).sum(1) / mask.sum(1).clamp_min(1.0) * kOwnershipLossScale;
  loss.policy = (policy_rows * t.weight).sum();
  loss.soft_policy = (soft_rows * t.weight).sum() * weights.soft_policy;
  loss.opponent_policy =
      (reply_rows * t.weight * t.opponent_policy_weight).sum() * weights.opponent_policy;
  loss.value = (value_rows * t.weight).sum();
  loss.td_value = (td_rows * t.weight * t.td_value_weight).sum() * weights.td_value;
  loss.score = (score_rows * t.weight * t.score_weight).sum();
  loss.ownership = (ownership_rows * t.weight * t.ownership_weight).sum();
  loss.total = loss.policy + loss.soft_policy + loss.opponent_policy + loss.value + loss.td_value +
               loss.score + loss.ownership;
  loss.weight = t.weight.sum();
  return loss;
}

// [policy, soft policy, opponent policy, value, short-term values, score, ownership, total,
// weight, rows] as a float64 tensor to sum.
constexpr int64_t kPackedLosses = 10;
torch::Tensor PackLosses(const LossTensors& l, int64_t rows) {
  return torch::stack({l.policy.detach(), l.soft_policy.detach(), l.opponent_policy.detach(),
                       l.value.detach(), l.td_value.detach(), l.score.detach(),
                       l.ownership.detach(), l.total.detach(), l.weight.detach(),
                       torch::full({}, static_cast<double>(rows), l.total.options())})
      .to(torch::kFloat64);
}

LossSums UnpackLosses(const torch::Tensor& packed) {
  const torch::Tensor cpu = packed.to(torch::kCPU).contiguous();
  const double* v = cpu.data_ptr<double>();
  LossSums s;
  s.policy = v[0];
  s.soft_policy = v[1];
  s.opponent_policy = v[2];
  s.value = v[3];
  s.td_value = v[4];
  s.score = v[5];
  s.ownership = v[6];
  s.total = v[7];
  s.weight = v[8];
  s.rows = static_cast<int64_t>(std::llround(v[9]));
  return s;
}

// A copy of each parameter of `net`, by name.
std::vector<std::pair<std::string, torch::Tensor>> NamedCopies(NetImpl& net) {
  torch::NoGradGuard no_grad;
  std::vector<std::pair<std::string, torch::Tensor>> copies;
  for (auto& item : net.named_parameters()) {
    copies.emplace_back(item.key(), item.value().detach().clone());
  }
  return copies;
}

void WriteNamed(torch::serialize::OutputArchive& archive, const std::string& prefix,
                const std::vector<std::pair<std::string, torch::Tensor>>& tensors) {
  for (const auto& [name, tensor] : tensors) {
    archive.write(prefix + name, tensor.detach().to(torch::kCPU).contiguous());
  }
}

// Overwrites each of `tensors` that the archive holds under prefix + name with that shape.
void ReadNamed(torch::serialize::InputArchive& archive, const std::string& prefix,
               std::vector<std::pair<std::string, torch::Tensor>>* tensors) {
  for (auto& [name, tensor] : *tensors) {
    torch::Tensor saved;
    if (archive.try_read(prefix + name, saved) && saved.sizes() == tensor.sizes()) {
      tensor.copy_(saved);
    }
  }
}

torch::ScalarType PrecisionType(const std::string& precision, const torch::Device& device) {
  if (precision == "fp32") return torch::kFloat32;
  if (precision == "bf16") return torch::kBFloat16;
  if (precision == "fp16") {
    if (device.is_cpu()) {
      throw ConfigError("precision fp16 needs a CUDA device (CPU autocast supports bf16 only)");
    }
    return torch::kFloat16;
  }
  throw ConfigError("bad precision '" + precision + "': expected fp32, bf16 or fp16");
}

}  // namespace

double AdamStepSize(double lr_per_sample, int64_t global_rows) {
  return lr_per_sample * kAdamLearningRateFactor *
         std::sqrt(static_cast<double>(global_rows) / kAdamReferenceBatch);
}

void LossSums::Add(const LossSums& other) {
  policy += other.policy;
  soft_policy += other.soft_policy;
  opponent_policy += other.opponent_policy;
  value += other.value;
  td_value += other.td_value;
  score += other.score;
  ownership += other.ownership;
  total += other.total;
  weight += other.weight;
  rows += other.rows;
}

struct NetTrainer::Impl {
  ModelConfig config;
  TrainerOptions options;
  torch::Device device{torch::kCPU};
  torch::ScalarType autocast_dtype = torch::kFloat32;
  ProcessGroup* group = nullptr;
  std::shared_ptr<NetImpl> net;
  std::vector<torch::Tensor> decay_params;     // convolution and linear weights
  std::vector<torch::Tensor> no_decay_params;  // biases, norms
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  int micro_batch = 0;
  int64_t steps = 0;
  LossScaler scaler{false};
  // options.weight_average_samples > 0: the average of each parameter, by name.
  std::vector<std::pair<std::string, torch::Tensor>> average;
  // options.lookahead_steps > 0: the slow weights, by name; steps and rows since they last
  // moved.
  std::vector<std::pair<std::string, torch::Tensor>> slow;
  int64_t lookahead_counter = 0;
  int64_t lookahead_rows = 0;

  bool distributed() const { return group != nullptr && group->world_size() > 1; }
  std::vector<torch::Tensor> AllParams() const {
    std::vector<torch::Tensor> all = decay_params;
    all.insert(all.end(), no_decay_params.begin(), no_decay_params.end());
    return all;
  }
  std::vector<torch::Tensor> Buffers() const { return net->buffers(); }

  void BuildOptimizer();
  void SetStepHyperparameters(double lr_per_sample, int64_t global_rows);
  torch::Tensor AccumulateGradients(const TrainBatch& batch, int micro);
  bool FinishGradients();
  void UpdateAverage(int64_t global_rows);
  // After a step over `global_rows` rows: the lookahead's sync every lookahead_steps steps,
  // and the average's update (each step, or at each sync with lookahead).
  void AfterStep(int64_t global_rows);
  // The learning rate the optimizer gets: divided by lookahead_alpha with lookahead.
  double OptimizerRate(double lr_per_sample) const;
};

void NetTrainer::Impl::UpdateAverage(int64_t global_rows) {
  const double weight =
      1 - std::exp(-static_cast<double>(global_rows) / options.weight_average_samples);
  torch::NoGradGuard no_grad;
  const auto params = net->named_parameters();
  for (auto& [name, tensor] : average) tensor.lerp_(params[name].detach(), weight);
}

void NetTrainer::Impl::AfterStep(int64_t global_rows) {
  if (slow.empty()) {
    if (!average.empty()) UpdateAverage(global_rows);
    return;
  }
  lookahead_rows += global_rows;
  if (++lookahead_counter < options.lookahead_steps) return;
  {
    torch::NoGradGuard no_grad;
    auto params = net->named_parameters();
    for (auto& [name, tensor] : slow) {
      torch::Tensor fast = params[name];
      tensor.lerp_(fast.detach(), options.lookahead_alpha);
      fast.copy_(tensor);
    }
  }
  if (!average.empty()) UpdateAverage(lookahead_rows);
  lookahead_counter = 0;
  lookahead_rows = 0;
}

double NetTrainer::Impl::OptimizerRate(double lr_per_sample) const {
  return slow.empty() ? lr_per_sample : lr_per_sample / options.lookahead_alpha;
}

void NetTrainer::Impl::BuildOptimizer() {
  using torch::optim::OptimizerParamGroup;
  std::vector<OptimizerParamGroup> groups;
  if (options.optimizer == "sgd") {
    groups.emplace_back(decay_params, std::make_unique<torch::optim::SGDOptions>(
                                          torch::optim::SGDOptions(0).momentum(options.momentum)));
    groups.emplace_back(no_decay_params,
                        std::make_unique<torch::optim::SGDOptions>(
                            torch::optim::SGDOptions(0).momentum(options.momentum)));
    optimizer = std::make_unique<torch::optim::SGD>(std::move(groups), torch::optim::SGDOptions(0));
  } else if (options.optimizer == "adamw") {
    groups.emplace_back(decay_params,
                        std::make_unique<torch::optim::AdamWOptions>(
                            torch::optim::AdamWOptions(0).weight_decay(options.weight_decay)));
    groups.emplace_back(no_decay_params, std::make_unique<torch::optim::AdamWOptions>(
                                             torch::optim::AdamWOptions(0).weight_decay(0)));
    optimizer =
        std::make_unique<torch::optim::AdamW>(std::move(groups), torch::optim::AdamWOptions(0));
  } else {
    throw ConfigError("bad optimizer '" + options.optimizer + "': expected sgd or adamw");
  }
}

// SGD: lr per sample on a summed gradient; L2 per sample, so scaled by the rows summed.
// AdamW normalises the gradient's scale away, so the summed loss does not enter its step: as
// KataGo does, its step is the per-sample rate x 1.33 x sqrt(rows / 256) (2.8e-5 at batch 128
// and lr_scale 1), not the per-sample rate x rows (which was 137 times larger).
void NetTrainer::Impl::SetStepHyperparameters(double lr_per_sample, int64_t global_rows) {
  auto& groups = optimizer->param_groups();
  const double rows = static_cast<double>(global_rows);
  if (options.optimizer == "sgd") {
    for (size_t i = 0; i < groups.size(); ++i) {
      auto& o = static_cast<torch::optim::SGDOptions&>(groups[i].options());
      o.lr(lr_per_sample);
      o.weight_decay(i == 0 ? options.weight_decay * rows : 0.0);
    }
  } else {
    for (auto& param_group : groups) {
      static_cast<torch::optim::AdamWOptions&>(param_group.options())
          .lr(AdamStepSize(lr_per_sample, global_rows));
    }
  }
}

// Forward and backward over `batch` in micro-batches of `micro` rows; returns the packed loss
// sums. Throws (the caller halves) on out-of-memory.
torch::Tensor NetTrainer::Impl::AccumulateGradients(const TrainBatch& batch, int micro) {
  optimizer->zero_grad();
  torch::Tensor sums = torch::zeros({kPackedLosses}, torch::kFloat64);
  for (int begin = 0; begin < batch.size; begin += micro) {
    const int end = std::min(batch.size, begin + micro);
    if (options.simulate_oom_above > 0 && end - begin > options.simulate_oom_above) {
      throw std::runtime_error(
          StrCat("simulated out of memory for a micro-batch of ", end - begin, " rows"));
    }
    const TrainBatch part = batch.Slice(begin, end);
    const BatchTensors t = ToTensors(part, device, options.channels_last);
    LossTensors loss;
    {
      AutocastScope autocast(autocast_dtype, device.is_cuda());
      const NetOutput out = net->forward(t.spatial, t.global);
      loss = ComputeLosses(out, t, Auxiliary(options));
    }
    (scaler.enabled() ? loss.total * scaler.scale() : loss.total).backward();
    sums += PackLosses(loss, part.size).to(torch::kCPU);
  }
  return sums;
}

// All-reduces the gradients, unscales fp16 ones, and clips. False when they are not finite
// (fp16 overflow): the step is skipped and the loss scale halved.
bool NetTrainer::Impl::FinishGradients() {
  std::vector<torch::Tensor> grads;
  for (torch::Tensor& p : AllParams()) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    grads.push_back(p.grad());
  }
  if (distributed()) AllReduceSumFlat(*group, grads);
  if (scaler.enabled()) {
    torch::NoGradGuard no_grad;
    bool finite = true;
    for (torch::Tensor& g : grads) {
      g.mul_(1.0 / scaler.scale());
      finite = finite && torch::isfinite(g).all().item<bool>();
    }
    if (!scaler.Update(finite)) return false;
  }
  if (options.grad_clip_norm > 0) {
    torch::nn::utils::clip_grad_norm_(AllParams(), options.grad_clip_norm);
  }
  return true;
}

NetTrainer::NetTrainer(const TorchModel& start, const TrainerOptions& options, ProcessGroup* group)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.config = start.config();
  m.options = options;
  m.device = ParseDevice(options.device);
  m.autocast_dtype = PrecisionType(options.precision, m.device);
  m.scaler = LossScaler(options.precision == "fp16");
  if (options.micro_batch < 0) throw ConfigError("micro batch must be >= 0");
  m.micro_batch = options.micro_batch;
  if (options.intra_op_threads > 0) torch::set_num_threads(options.intra_op_threads);
  m.group = group;
  m.net = std::make_shared<NetImpl>(m.config);
  CopyNetState(*start.net(), m.net.get());
  m.net->to(m.device);
  {
    torch::NoGradGuard no_grad;
    for (auto& param : m.net->parameters()) {
      if (options.channels_last && param.dim() == 4) {
        param.set_data(param.contiguous(torch::MemoryFormat::ChannelsLast));
      }
    }
  }
  for (auto& item : m.net->named_parameters()) {
    (item.value().dim() >= 2 ? m.decay_params : m.no_decay_params).push_back(item.value());
  }
  m.net->train();
  if (m.distributed()) {
    BroadcastFlat(*group, m.AllParams());
    BroadcastFlat(*group, m.Buffers());
  }
  m.BuildOptimizer();
  if (options.weight_average_samples < 0) {
    throw ConfigError("weight_average_samples must be >= 0");
  }
  if (options.weight_average_samples > 0) m.average = NamedCopies(*m.net);
  if (options.lookahead_steps < 0) throw ConfigError("lookahead_steps must be >= 0");
  if (options.lookahead_steps > 0) {
    if (!(options.lookahead_alpha > 0 && options.lookahead_alpha <= 1)) {
      throw ConfigError(StrCat("lookahead_alpha must be in (0, 1], got ", options.lookahead_alpha));
    }
    m.slow = NamedCopies(*m.net);
  }
}

NetTrainer::~NetTrainer() = default;

LossSums NetTrainer::Step(const TrainBatch& batch, int64_t global_rows, double lr_per_sample) {
  Impl& m = *impl_;
  TENGEN_CHECK(batch.size > 0, "empty training batch");
  if (m.micro_batch <= 0 || m.micro_batch > batch.size) m.micro_batch = batch.size;
  torch::Tensor sums;
  while (true) {
    try {
      sums = m.AccumulateGradients(batch, m.micro_batch);
      break;
    } catch (const std::exception& e) {
      if (!IsOutOfMemory(e) && dynamic_cast<const std::bad_alloc*>(&e) == nullptr) throw;
      if (m.micro_batch <= 1) {
        throw Error(std::string("out of memory with a micro-batch of 1 row: ") + e.what());
      }
      m.optimizer->zero_grad();
      m.micro_batch = std::max(1, m.micro_batch / 2);
    }
  }
  if (m.distributed()) AllReduceSum(*m.group, sums);
  if (m.FinishGradients()) {
    m.SetStepHyperparameters(m.OptimizerRate(lr_per_sample), global_rows);
    m.optimizer->step();
  }
  m.AfterStep(global_rows);
  ++m.steps;
  return UnpackLosses(sums);
}

LossSums NetTrainer::Evaluate(const TrainBatch& batch) {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  m.net->eval();
  LossSums sums;
  const int micro = m.micro_batch > 0 ? m.micro_batch : batch.size;
  for (int begin = 0; begin < batch.size; begin += micro) {
    const TrainBatch part = batch.Slice(begin, std::min(batch.size, begin + micro));
    const BatchTensors t = ToTensors(part, m.device, m.options.channels_last);
    AutocastScope autocast(m.autocast_dtype, m.device.is_cuda());
    const NetOutput out = m.net->forward(t.spatial, t.global);
    sums.Add(UnpackLosses(PackLosses(ComputeLosses(out, t, Auxiliary(m.options)), part.size)));
  }
  m.net->train();
  return sums;
}

int NetTrainer::micro_batch() const { return impl_->micro_batch; }
int64_t NetTrainer::steps() const { return impl_->steps; }
double NetTrainer::loss_scale() const { return impl_->scaler.scale(); }
int64_t NetTrainer::skipped_steps() const { return impl_->scaler.skipped_steps(); }

void NetTrainer::SyncRunningStats() {
  Impl& m = *impl_;
  if (!m.distributed()) return;
  std::vector<torch::Tensor> stats;
  for (auto& item : m.net->named_buffers()) {
    if (item.value().is_floating_point()) stats.push_back(item.value());
  }
  AllReduceSumFlat(*m.group, stats);
  torch::NoGradGuard no_grad;
  for (torch::Tensor& t : stats) t.div_(m.group->world_size());
}

std::string NetTrainer::SaveState() const {
  const Impl& m = *impl_;
  torch::serialize::OutputArchive archive;
  for (const auto& [name, tensor] : m.net->NamedState()) {
    archive.write("net/" + name, tensor.detach().to(torch::kCPU).contiguous());
  }
  torch::serialize::OutputArchive optimizer;
  m.optimizer->save(optimizer);
  archive.write("optimizer", optimizer);
  const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  archive.write("steps", torch::full({1}, m.steps, i64));
  archive.write("micro_batch", torch::full({1}, static_cast<int64_t>(m.micro_batch), i64));
  archive.write("skipped_steps", torch::full({1}, m.scaler.skipped_steps(), i64));
  archive.write("good_steps_since_growth",
                torch::full({1}, m.scaler.good_steps_since_growth(), i64));
  archive.write("loss_scale",
                torch::full({1}, m.scaler.scale(), torch::TensorOptions().dtype(torch::kFloat64)));
  WriteNamed(archive, "average/", m.average);
  WriteNamed(archive, "lookahead/", m.slow);
  archive.write("lookahead_counter", torch::full({1}, m.lookahead_counter, i64));
  archive.write("lookahead_rows", torch::full({1}, m.lookahead_rows, i64));
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

void NetTrainer::LoadState(const std::string& bytes, const std::string& what) {
  Impl& m = *impl_;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size());
    torch::NoGradGuard no_grad;
    for (auto& [name, tensor] : m.net->NamedState()) {
      torch::Tensor saved;
      archive.read("net/" + name, saved);
      if (saved.sizes() != tensor.sizes()) {
        throw FormatError(what + ": tensor " + name + " has the wrong shape for " +
                          m.config.Architecture());
      }
      tensor.copy_(saved);
    }
    torch::serialize::InputArchive optimizer;
    archive.read("optimizer", optimizer);
    m.optimizer->load(optimizer);
    const auto read_scalar = [&](const char* key) {
      torch::Tensor t;
      archive.read(key, t);
      return t;
    };
    m.steps = read_scalar("steps").item<int64_t>();
    m.micro_batch = static_cast<int>(read_scalar("micro_batch").item<int64_t>());
    const int64_t skipped_steps = read_scalar("skipped_steps").item<int64_t>();
    const int64_t good_steps = read_scalar("good_steps_since_growth").item<int64_t>();
    m.scaler.Restore(read_scalar("loss_scale").item<double>(), good_steps, skipped_steps);
    // A state saved without the average or the slow weights (they were off then) starts them
    // from these weights.
    if (!m.average.empty()) m.average = NamedCopies(*m.net);
    ReadNamed(archive, "average/", &m.average);
    m.lookahead_counter = 0;
    m.lookahead_rows = 0;
    if (!m.slow.empty()) {
      m.slow = NamedCopies(*m.net);
      torch::Tensor counter, rows;
      if (archive.try_read("lookahead_counter", counter) &&
          archive.try_read("lookahead_rows", rows)) {
        ReadNamed(archive, "lookahead/", &m.slow);
        m.lookahead_counter = counter.item<int64_t>();
        m.lookahead_rows = rows.item<int64_t>();
      }
    }
  } catch (const c10::Error& e) {
    throw FormatError(what + ": not a trainer state of " + m.config.Architecture() + ": " +
                      e.what_without_backtrace());
  }
}

std::unique_ptr<TorchModel> NetTrainer::Snapshot(const std::string& name) const {
  ModelConfig config = impl_->config;
  config.name = name;
  auto model = TorchModel::Create(config, 0);
  CopyNetState(*impl_->net, model->net().get());
  const auto& exported = impl_->average.empty() ? impl_->slow : impl_->average;
  torch::NoGradGuard no_grad;
  auto params = model->net()->named_parameters();
  for (const auto& [param, tensor] : exported) {
    params[param].copy_(tensor.to(torch::kCPU, torch::kFloat32));
  }
  return model;
}

}  // namespace tengen::nn
