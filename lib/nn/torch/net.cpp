#include "nn/torch/net.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "nn/features.h"
#include "util/error.h"
#include "util/rng.h"

namespace tengen::nn {
namespace {

namespace F = torch::nn::functional;

// Batch norm constants. eps is KataGo's (bnorm_epsilon 1e-4). Momentum: KataGo used 0.001
// for runs of many millions of samples; our models are exported after a few thousand steps,
// and with 0.001 their running statistics would still be near the initial (0, 1).
constexpr double kBatchNormEps = 1e-4;
constexpr double kBatchNormMomentum = 0.01;
// Initial conv5x5 as in KataGo's older nets (newer ones use 3x3 with more blocks).
constexpr int kInitialKernel = 5;
// Pooling features use (sqrt(area) - 14) / 10 and its square, KataGo's board-size terms
// (14 ~ the middle of sqrt(area) for 9x9 .. 19x19).
constexpr double kPoolSizeCenter = 14.0;
constexpr double kPoolSizeScale = 10.0;
// Fresh nets: the last convolution of each residual block starts scaled down so that the
// stacked blocks start close to the identity (the idea behind KataGo's fixup init).
constexpr double kResidualInitGain = 0.5;

torch::nn::Conv2d MakeConv(int in, int out, int kernel, bool bias) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(bias));
}

// A bias-free convolution (stride 1, "same" padding) with the bias of a folded norm. The
// bias lives in the enclosing module: torch's Conv2d has already registered an empty "bias".
torch::Tensor FoldedConv(const torch::nn::Conv2d& conv, const torch::Tensor& bias,
                         const torch::Tensor& x) {
  const int64_t padding = conv->weight.size(2) / 2;
  return torch::conv2d(x, conv->weight, bias, /*stride=*/1, /*padding=*/padding);
}

torch::Tensor AsChannelBias(const torch::Tensor& t) { return t.unsqueeze(2).unsqueeze(3); }

// [N][3C]: mean, mean * size term, max over on-board points. x is masked and >= 0.
torch::Tensor GlobalPool(const torch::Tensor& x, const MaskInfo& m) {
  const auto count = m.count.to(x.scalar_type());
  const auto size_term = ((m.count.sqrt() - kPoolSizeCenter) / kPoolSizeScale).to(x.scalar_type());
  const auto mean = x.sum({2, 3}) / count;
  const auto max = (x + (m.mask - 1)).amax({2, 3});
  return torch::cat({mean, mean * size_term, max}, 1);
}

// [N][3C]: KataGo's value-head pooling (mean, mean * size term, mean * quadratic term).
torch::Tensor ValuePool(const torch::Tensor& x, const MaskInfo& m) {
  const auto count = m.count.to(x.scalar_type());
  const auto centered = (m.count.sqrt() - kPoolSizeCenter) / kPoolSizeScale;
  const auto linear_term = centered.to(x.scalar_type());
  const auto quadratic_term = (centered * centered - 0.1).to(x.scalar_type());
  const auto mean = x.sum({2, 3}) / count;
  return torch::cat({mean, mean * linear_term, mean * quadratic_term}, 1);
}

// Folds bn(conv(x) + linear(p)) into conv and linear: both scaled per output channel, the
// shift added to the linear bias.
void FoldConvLinearBn(torch::nn::Conv2d& conv, torch::nn::Linear& linear,
                      const MaskedBatchNorm& bn) {
  const auto [scale, shift] = bn->ScaleShift();
  conv->weight.mul_(scale.view({-1, 1, 1, 1}));
  linear->weight.mul_(scale.unsqueeze(1));
  linear->bias.mul_(scale).add_(shift);
}

void InitWeight(torch::Tensor& weight, double gain, at::Generator& gen) {
  const int64_t fan_in = weight.numel() / weight.size(0);
  weight.normal_(0.0, gain / std::sqrt(static_cast<double>(fan_in)), gen);
}

}  // namespace

NetShape NetShape::For(const ModelConfig& config) {
  NetShape shape;
  shape.blocks = config.blocks;
  shape.channels = config.channels;
  shape.gpool_channels = std::max(1, config.channels / 3);
  shape.head_channels = std::max(1, config.channels / 3);
  shape.value_hidden = 2 * shape.head_channels;
  // KataGo's b6c96 has gpool blocks at 3 and 5 (1-based); we take every third block, and
  // the last one in nets too short to have a third, so that every net pools in its trunk.
  for (int i = 0; i < config.blocks; ++i) {
    shape.gpool.push_back(i % 3 == 2 || (config.blocks < 3 && i == config.blocks - 1));
  }
  return shape;
}

MaskedBatchNormImpl::MaskedBatchNormImpl(int channels) {
  weight = register_parameter("weight", torch::ones({channels}));
  bias = register_parameter("bias", torch::zeros({channels}));
  running_mean = register_buffer("running_mean", torch::zeros({channels}));
  running_var = register_buffer("running_var", torch::ones({channels}));
}

torch::Tensor MaskedBatchNormImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                           const torch::Tensor& mask_count) {
  if (!is_training()) {
    return torch::batch_norm(x, weight, bias, running_mean, running_var, /*training=*/false,
                             kBatchNormMomentum, kBatchNormEps, /*cudnn_enabled=*/true);
  }
  const auto mean = (x * mask).sum({0, 2, 3}) / mask_count;
  const auto centered = (x - mean.view({1, -1, 1, 1})) * mask;
  const auto var = (centered * centered).sum({0, 2, 3}) / mask_count;
  {
    torch::NoGradGuard no_grad;
    running_mean.mul_(1 - kBatchNormMomentum).add_(mean.detach() * kBatchNormMomentum);
    running_var.mul_(1 - kBatchNormMomentum).add_(var.detach() * kBatchNormMomentum);
  }
  const auto inv_std = torch::rsqrt(var + kBatchNormEps);
  return centered * (inv_std * weight).view({1, -1, 1, 1}) + bias.view({1, -1, 1, 1});
}

std::pair<torch::Tensor, torch::Tensor> MaskedBatchNormImpl::ScaleShift() const {
  const auto scale = weight * torch::rsqrt(running_var + kBatchNormEps);
  return {scale, bias - running_mean * scale};
}

ConvBnImpl::ConvBnImpl(int in, int out, int kernel) {
  conv = register_module("conv", MakeConv(in, out, kernel, /*bias=*/false));
  bn = register_module("bn", MaskedBatchNorm(out));
}

torch::Tensor ConvBnImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                  const torch::Tensor& mask_count) {
  if (folded_bias.defined()) return FoldedConv(conv, folded_bias, x);
  return bn(conv(x), mask, mask_count);
}

void ConvBnImpl::Fold() {
  if (folded_bias.defined()) return;
  const auto [scale, shift] = bn->ScaleShift();
  conv->weight.mul_(scale.view({-1, 1, 1, 1}));
  folded_bias = register_parameter("folded_bias", shift.clone(), /*requires_grad=*/false);
}

ResBlockImpl::ResBlockImpl(int channels, int gpool_channels) {
  const int mid = channels - gpool_channels;
  bn1 = register_module("bn1", MaskedBatchNorm(channels));
  conv1 = register_module("conv1", MakeConv(channels, mid, 3, /*bias=*/false));
  if (gpool_channels > 0) {
    conv_g = register_module("conv_g", ConvBn(channels, gpool_channels, 3));
    linear_g = register_module("linear_g", torch::nn::Linear(3 * gpool_channels, mid));
  }
  bn2 = register_module("bn2", MaskedBatchNorm(mid));
  conv2 = register_module("conv2", MakeConv(mid, channels, 3, /*bias=*/false));
}

torch::Tensor ResBlockImpl::forward(const torch::Tensor& x, const MaskInfo& m) {
  const auto h = torch::relu(bn1(x, m.mask, m.total)) * m.mask;
  auto r = conv1_folded_bias.defined() ? FoldedConv(conv1, conv1_folded_bias, h) : conv1(h);
  if (!conv_g.is_empty()) {
    const auto g = torch::relu(conv_g(h, m.mask, m.total)) * m.mask;
    r = r + AsChannelBias(linear_g(GlobalPool(g, m)));
  }
  if (!folded) r = bn2(r, m.mask, m.total);
  r = torch::relu(r) * m.mask;
  return x + conv2(r);
}

void ResBlockImpl::Fold() {
  if (folded) return;
  if (!conv_g.is_empty()) {
    conv_g->Fold();
    FoldConvLinearBn(conv1, linear_g, bn2);
  } else {
    const auto [scale, shift] = bn2->ScaleShift();
    conv1->weight.mul_(scale.view({-1, 1, 1, 1}));
    conv1_folded_bias =
        register_parameter("conv1_folded_bias", shift.clone(), /*requires_grad=*/false);
  }
  folded = true;
}

NetImpl::NetImpl(const ModelConfig& config) : config_(config), shape_(NetShape::For(config)) {
  const int c = shape_.channels;
  const int h = shape_.head_channels;
  conv_spatial = register_module("conv_spatial",
                                 MakeConv(kNumSpatialFeatures, c, kInitialKernel, /*bias=*/false));
  linear_global = register_module(
      "linear_global",
      torch::nn::Linear(torch::nn::LinearOptions(kNumGlobalFeatures, c).bias(false)));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int i = 0; i < shape_.blocks; ++i) {
    blocks->push_back(ResBlock(c, shape_.gpool[i] ? shape_.gpool_channels : 0));
  }
  bn_trunk = register_module("bn_trunk", MaskedBatchNorm(c));

  policy_conv = register_module("policy_conv", MakeConv(c, h, 1, /*bias=*/false));
  policy_gconv = register_module("policy_gconv", ConvBn(c, h, 1));
  policy_glinear = register_module("policy_glinear", torch::nn::Linear(3 * h, h));
  policy_bn = register_module("policy_bn", MaskedBatchNorm(h));
  policy_out = register_module("policy_out", MakeConv(h, 1, 1, /*bias=*/false));
  pass_linear = register_module("pass_linear", torch::nn::Linear(3 * h, 1));
  policy_soft_out = register_module("policy_soft_out", MakeConv(h, 1, 1, /*bias=*/false));
  pass_soft_linear = register_module("pass_soft_linear", torch::nn::Linear(3 * h, 1));
  policy_opp_out = register_module("policy_opp_out", MakeConv(h, 1, 1, /*bias=*/false));
  pass_opp_linear = register_module("pass_opp_linear", torch::nn::Linear(3 * h, 1));

  value_conv = register_module("value_conv", ConvBn(c, h, 1));
  value_hidden = register_module("value_hidden", torch::nn::Linear(3 * h, shape_.value_hidden));
  value_out = register_module("value_out", torch::nn::Linear(shape_.value_hidden, 3));
  score_out = register_module("score_out", torch::nn::Linear(shape_.value_hidden, 1));
  td_value_out =
      register_module("td_value_out", torch::nn::Linear(shape_.value_hidden, kTdHorizons * 3));
  ownership_out = register_module("ownership_out", MakeConv(h, 1, 1, /*bias=*/false));
}

NetOutput NetImpl::forward(const torch::Tensor& spatial, const torch::Tensor& global) {
  TENGEN_CHECK(spatial.dim() == 4 && spatial.size(1) == kNumSpatialFeatures,
               "spatial input must be [N][kNumSpatialFeatures][H][W]");
  TENGEN_CHECK(global.dim() == 2 && global.size(1) == kNumGlobalFeatures,
               "global input must be [N][kNumGlobalFeatures]");
  const int64_t n = spatial.size(0);
  MaskInfo m;
  m.mask = spatial.narrow(1, 0, 1);
  m.count = m.mask.to(torch::kFloat32).sum({2, 3});
  // A position with no on-board point would divide by zero; it is a caller bug.
  m.total = m.count.sum().to(spatial.scalar_type());

  auto x = conv_spatial(spatial) + AsChannelBias(linear_global(global));
  for (const auto& block : *blocks) x = block->as<ResBlockImpl>()->forward(x, m);
  x = torch::relu(bn_trunk(x, m.mask, m.total)) * m.mask;

  NetOutput out;
  // Policy head.
  const auto g = torch::relu(policy_gconv(x, m.mask, m.total)) * m.mask;
  const auto pooled = GlobalPool(g, m);
  auto p = policy_conv(x) + AsChannelBias(policy_glinear(pooled));
  if (!policy_folded_) p = policy_bn(p, m.mask, m.total);
  p = torch::relu(p) * m.mask;
  const auto off_board = (1 - m.mask).reshape({n, -1}) * kOffBoardLogit;
  const auto logits = [&](torch::nn::Conv2d& board, torch::nn::Linear& pass) {
    return torch::cat({board(p).view({n, -1}) * m.mask.reshape({n, -1}) + off_board, pass(pooled)},
                      1);
  };
  out.policy_logits = logits(policy_out, pass_linear);
  out.soft_policy_logits = logits(policy_soft_out, pass_soft_linear);
  out.opponent_policy_logits = logits(policy_opp_out, pass_opp_linear);
  // Value, score and ownership heads.
  const auto v = torch::relu(value_conv(x, m.mask, m.total)) * m.mask;
  const auto hidden = torch::relu(value_hidden(ValuePool(v, m)));
  out.value_logits = value_out(hidden);
  out.score = score_out(hidden).view({n});
  out.td_value_logits = td_value_out(hidden);
  out.ownership_pretanh = (ownership_out(v) * m.mask).view({n, -1});
  out.ownership = torch::tanh(out.ownership_pretanh);
  return out;
}

void NetImpl::Initialize(uint64_t seed) {
  torch::NoGradGuard no_grad;
  at::Generator gen = at::detail::createCPUGenerator(seed);
  for (auto& item : named_parameters(/*recurse=*/true)) {
    const std::string& name = item.key();
    torch::Tensor& param = item.value();
    if (param.dim() <= 1) {
      // Norm weights stay 1 and norm biases 0; linear biases start at 0 too.
      if (name.size() >= 5 && name.compare(name.size() - 5, 5, ".bias") == 0) param.zero_();
      continue;
    }
    const bool residual_out = name.find(".conv2.") != std::string::npos;
    // He-normal (gain sqrt 2) before ReLUs; the heads' outputs use gain 1.
    const bool head_out = name.rfind("policy_out", 0) == 0 || IsAuxiliaryTensor(name) ||
                          name.rfind("pass_", 0) == 0 || name.rfind("value_out", 0) == 0 ||
                          name.rfind("score_", 0) == 0 || name.rfind("ownership_", 0) == 0;
    double gain = head_out ? 1.0 : std::sqrt(2.0);
    if (residual_out) gain *= kResidualInitGain;
    InitWeight(param, gain, gen);
  }
}

void NetImpl::FoldBatchNorm() {
  if (folded_) return;
  torch::NoGradGuard no_grad;
  for (const auto& block : *blocks) block->as<ResBlockImpl>()->Fold();
  policy_gconv->Fold();
  FoldConvLinearBn(policy_conv, policy_glinear, policy_bn);
  policy_folded_ = true;
  value_conv->Fold();
  folded_ = true;
}

std::vector<std::pair<std::string, torch::Tensor>> NetImpl::NamedState() const {
  std::vector<std::pair<std::string, torch::Tensor>> state;
  for (const auto& item : named_parameters(/*recurse=*/true)) {
    state.emplace_back(item.key(), item.value());
  }
  for (const auto& item : named_buffers(/*recurse=*/true)) {
    state.emplace_back(item.key(), item.value());
  }
  return state;
}

bool IsAuxiliaryTensor(const std::string& name) {
  for (const char* prefix : {"policy_soft_out.", "pass_soft_linear.", "policy_opp_out.",
                             "pass_opp_linear.", "td_value_out."}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

void CopyNetState(const NetImpl& from, NetImpl* to) {
  TENGEN_CHECK(from.folded() == to->folded(), "copying between folded and unfolded nets");
  std::map<std::string, torch::Tensor> target;
  for (auto& [name, tensor] : to->NamedState()) target.emplace(name, tensor);
  const auto source = from.NamedState();
  TENGEN_CHECK(source.size() == target.size(), "nets differ in their tensors");
  torch::NoGradGuard no_grad;
  for (const auto& [name, tensor] : source) {
    const auto it = target.find(name);
    TENGEN_CHECK(it != target.end(), "no tensor " + name + " in the target net");
    it->second.copy_(tensor);
  }
}

void GrowNetState(const NetImpl& from, NetImpl* to) {
  const NetShape& small = from.shape();
  const NetShape& big = to->shape();
  const std::string what = from.config().Architecture() + " to " + to->config().Architecture();
  if (big.channels != small.channels) {
    throw ConfigError("growing " + what + ": the channels must stay " +
                      std::to_string(small.channels) + " (only blocks can be added)");
  }
  if (big.blocks < small.blocks) throw ConfigError("growing " + what + ": fewer blocks");
  for (int i = 0; i < small.blocks; ++i) {
    if (big.gpool[i] != small.gpool[i]) {
      throw ConfigError("growing " + what + ": block " + std::to_string(i + 1) +
                        " pools globally in one and not in the other (nets of fewer than 3 "
                        "blocks pool in their last block; grow from 3 or more)");
    }
  }
  TENGEN_CHECK(!from.folded() && !to->folded(), "growing a folded net");
  std::map<std::string, torch::Tensor> source;
  for (auto& [name, tensor] : from.NamedState()) source.emplace(name, tensor);
  torch::NoGradGuard no_grad;
  std::set<std::string> new_block_outputs;
  for (int i = small.blocks; i < big.blocks; ++i) {
    new_block_outputs.insert("blocks." + std::to_string(i) + ".conv2.weight");
  }
  size_t copied = 0;
  for (auto& [name, tensor] : to->NamedState()) {
    const auto it = source.find(name);
    if (it != source.end()) {
      TENGEN_CHECK(it->second.sizes() == tensor.sizes(), "tensor " + name + " changed shape");
      tensor.copy_(it->second);
      ++copied;
    } else if (new_block_outputs.count(name)) {
      tensor.zero_();
    }
  }
  TENGEN_CHECK(copied == source.size(), "growing " + what + " left tensors behind");
}

namespace {

// Net2Net's "wider" for one group of units of old width `from` widened to `to`: unit j of the
// wide layer copies unit source[j] of the narrow one (j itself for j < from, a random unit
// beyond), and a reader of the group weighs copy j by share[j], the shares of one unit's
// copies summing to 1. Unequal shares keep the copies' gradients apart, so that training can
// tell them apart (Net2Net adds noise for that, which changes the outputs).
struct WidthMap {
  torch::Tensor source;  // [to] int64
  torch::Tensor share;   // [to] float32
};

WidthMap MakeWidthMap(int64_t from, int64_t to, Rng& rng) {
  std::vector<int64_t> source(to);
  std::vector<double> weight(to, 1.0);
  std::vector<double> total(from, 0.0);
  for (int64_t j = 0; j < to; ++j) {
    source[j] = j < from ? j : rng.Uniform(static_cast<uint32_t>(from));
    if (to > from) weight[j] = 0.25 + 0.5 * rng.UniformDouble();
    total[source[j]] += weight[j];
  }
  std::vector<float> share(to);
  for (int64_t j = 0; j < to; ++j) share[j] = static_cast<float>(weight[j] / total[source[j]]);
  return {torch::tensor(source, torch::kInt64), torch::tensor(share, torch::kFloat32)};
}

// Dimension 0 widened: each row copies its source.
torch::Tensor WidenRows(const torch::Tensor& t, const WidthMap& map) {
  return t.index_select(0, map.source.to(t.device()));
}

// Dimension 1 widened, in `segments` equal parts (a pooled input [mean, mean * size, max] of
// one group): each column is its source weighed by its share.
torch::Tensor WidenColumns(const torch::Tensor& t, const WidthMap& map, int segments) {
  const int64_t from = t.size(1) / segments;
  std::vector<int64_t> shape(static_cast<size_t>(t.dim()), 1);
  shape[1] = map.source.size(0);
  const auto share = map.share.to(t.device(), t.scalar_type()).view(shape);
  std::vector<torch::Tensor> parts;
  for (int s = 0; s < segments; ++s) {
    parts.push_back(t.narrow(1, s * from, from).index_select(1, map.source.to(t.device())) * share);
  }
  return torch::cat(parts, 1);
}

// The width group of a tensor's rows and of its columns ("" for none) and the segments of its
// columns, from the tensor's name (NetImpl's module names).
struct TensorWidths {
  std::string rows, columns;
  int segments = 1;
};

TensorWidths WidthsOf(const std::string& name) {
  const auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  const auto module = name.substr(0, name.rfind('.'));
  const bool weight = name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
  const bool matrix = weight && module.find("bn") == std::string::npos;
  if (starts("blocks.")) {
    const std::string block = name.substr(0, name.find('.', 7));
    const std::string part = module.substr(block.size() + 1);
    if (part == "bn1") return {"stream", ""};
    if (part == "conv1") return {block + ".mid", "stream"};
    if (part == "conv_g.conv") return {block + ".gpool", "stream"};
    if (part == "conv_g.bn") return {block + ".gpool", ""};
    if (part == "linear_g") return {block + ".mid", matrix ? block + ".gpool" : "", 3};
    if (part == "bn2") return {block + ".mid", ""};
    if (part == "conv2") return {"stream", block + ".mid"};
  }
  if (starts("conv_spatial") || starts("linear_global") || starts("bn_trunk")) {
    return {"stream", ""};
  }
  if (starts("policy_conv")) return {"policy_p", "stream"};
  if (starts("policy_gconv.conv")) return {"policy_g", "stream"};
  if (starts("policy_gconv.bn")) return {"policy_g", ""};
  if (starts("policy_glinear")) return {"policy_p", matrix ? "policy_g" : "", 3};
  if (starts("policy_bn")) return {"policy_p", ""};
  if (starts("policy_out") || starts("policy_soft_out") || starts("policy_opp_out")) {
    return {"", "policy_p"};
  }
  if (starts("pass_linear") || starts("pass_soft_linear") || starts("pass_opp_linear")) {
    return {"", matrix ? "policy_g" : "", 3};
  }
  if (starts("value_conv.conv")) return {"value", "stream"};
  if (starts("value_conv.bn")) return {"value", ""};
  if (starts("value_hidden")) return {"value_hidden", matrix ? "value" : "", 3};
  if (starts("value_out") || starts("score_out") || starts("td_value_out")) {
    return {"", matrix ? "value_hidden" : ""};
  }
  if (starts("ownership_out")) return {"", "value"};
  throw Error("widening: no rule for tensor " + name);
}

}  // namespace

void WidenNetState(const NetImpl& from, NetImpl* to, uint64_t seed) {
  const NetShape& narrow = from.shape();
  const NetShape& wide = to->shape();
  const std::string what = from.config().Architecture() + " to " + to->config().Architecture();
  if (wide.blocks != narrow.blocks) {
    throw ConfigError("widening " + what + ": the blocks must stay " +
                      std::to_string(narrow.blocks));
  }
  if (wide.channels < narrow.channels) throw ConfigError("widening " + what + ": fewer channels");
  TENGEN_CHECK(!from.folded() && !to->folded(), "widening a folded net");
  std::map<std::string, torch::Tensor> source;
  for (auto& [name, tensor] : from.NamedState()) source.emplace(name, tensor);
  Rng rng(seed);
  std::map<std::string, WidthMap> maps;
  // The map of a group, made the first time a tensor names it (as its rows or its columns).
  const auto map_for = [&](const std::string& group, int64_t narrow_width, int64_t wide_width) {
    auto it = maps.find(group);
    if (it == maps.end()) {
      it = maps.emplace(group, MakeWidthMap(narrow_width, wide_width, rng)).first;
    }
    return it->second;
  };
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : to->NamedState()) {
    const auto it = source.find(name);
    TENGEN_CHECK(it != source.end(), "widening " + what + ": no tensor " + name + " in the source");
    const TensorWidths widths = WidthsOf(name);
    torch::Tensor value = it->second.to(tensor.device());
    if (!widths.rows.empty()) {
      value = WidenRows(value, map_for(widths.rows, value.size(0), tensor.size(0)));
    }
    if (!widths.columns.empty()) {
      const int64_t per_segment = tensor.size(1) / widths.segments;
      value =
          WidenColumns(value, map_for(widths.columns, value.size(1) / widths.segments, per_segment),
                       widths.segments);
    }
    TENGEN_CHECK(value.sizes() == tensor.sizes(),
                 "widening " + what + ": tensor " + name + " does not fit its rule");
    tensor.copy_(value);
  }
}

}  // namespace tengen::nn
