#pragma once
// The net itself, as a libtorch module: a KataGo-style pre-activation residual net
// b{blocks}c{channels}. Only code inside nn/torch (the model file, the evaluator, the trainer)
// includes this header; everything else uses nn/torch/model.h, which has no torch types.
//
// Input: spatial [N][kNumSpatialFeatures][H][W] and global [N][kNumGlobalFeatures] float as
// nn/features.h lays them out; spatial plane 0 is the on-board mask, so boards smaller than
// H = W = pos_len mix in one batch. Every activation is multiplied by the mask before a
// convolution or pooling reads it, so points off the board never influence the board (the
// zero padding of a 3x3 convolution then looks exactly like the board edge), and pooling and
// training-mode batch statistics count on-board points only (KataGo does the same).
//
//   trunk:  conv5x5(spatial) + linear(global) as channel biases
//           blocks: BN-ReLU-conv3x3-BN-ReLU-conv3x3 + skip; every third block is a "gpool"
//           block whose first convolution also feeds global pooling (mean, size-scaled
//           mean, max) of gpool_channels channels back as channel biases
//           final BN-ReLU
//   policy: conv1x1 -> p, conv1x1-BN-ReLU -> g, pool(g) -> linear as biases of p,
//           BN-ReLU(p) -> conv1x1 -> one logit per point; pass logit = linear(pool(g));
//           logits of points off the board are kOffBoardLogit. Two more conv1x1 and linear
//           pairs on the same p and pool(g) give KataGo's auxiliary policies, which never play
//           and shape the trunk: the soft policy (trained towards the policy target to the
//           power 1/4; policy_soft_out, pass_soft_linear) and the opponent's reply (trained
//           towards the policy of the next turn's search; policy_opp_out, pass_opp_linear).
//           A model file written before they existed loads with them 0.
//   value:  conv1x1-BN-ReLU -> v, value pool(v) -> linear-ReLU -> linear 3 (win, loss, draw)
//           and linear 1 (score lead); ownership = tanh(conv1x1(v)), 0 off the board. One more
//           linear on the same hidden layer gives KataGo's short-term values (td_value_out:
//           win, loss, draw logits for each of kTdHorizons horizons), which never play and
//           shape the trunk; a model file written before it existed loads with it 0.
//
// For inference FoldBatchNorm() merges every BN that follows a convolution into that
// convolution's weights and bias (the BN that opens each block acts on the residual stream
// and stays, as an affine map).

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/model_config.h"
#include "nn/train_batch.h"

namespace tengen::nn {

// Logit given to points off the board: exp() of it is 0 in fp32, bf16 and fp16 alike, and
// it is far below any logit a trained net produces.
constexpr float kOffBoardLogit = -5000.0f;

// Channel counts derived from b{blocks}c{channels}. The ratios are KataGo's b6c96 config
// (gpool 32, p1 32, g1 32, v1 32 for 96 trunk channels; v2 64).
struct NetShape {
  int blocks = 0;
  int channels = 0;
  int gpool_channels = 0;   // channels / 3
  int head_channels = 0;    // p1 = g1 = v1 = channels / 3
  int value_hidden = 0;     // v2 = 2 * head_channels
  std::vector<bool> gpool;  // per block: is it a gpool block

  static NetShape For(const ModelConfig& config);
};

// Batch norm whose batch statistics (training mode) are taken over on-board points only.
// In eval mode it is the affine map x * scale + shift of its running statistics.
class MaskedBatchNormImpl : public torch::nn::Module {
 public:
  explicit MaskedBatchNormImpl(int channels);
  // x [N][C][H][W], mask [N][1][H][W], mask_count: sum of mask (scalar tensor).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask,
                        const torch::Tensor& mask_count);
  // Eval-mode scale and shift, each [C].
  std::pair<torch::Tensor, torch::Tensor> ScaleShift() const;

  torch::Tensor weight, bias, running_mean, running_var;
};
TORCH_MODULE(MaskedBatchNorm);

// A convolution followed by a batch norm (pre-activation value, no ReLU). After Fold() the
// norm lives in the convolution's weight and a bias.
class ConvBnImpl : public torch::nn::Module {
 public:
  ConvBnImpl(int in, int out, int kernel);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask,
                        const torch::Tensor& mask_count);
  void Fold();

  torch::nn::Conv2d conv{nullptr};
  MaskedBatchNorm bn{nullptr};
  torch::Tensor folded_bias;  // defined once folded
};
TORCH_MODULE(ConvBn);

// The per-forward mask data shared by every layer.
struct MaskInfo {
  torch::Tensor mask;   // [N][1][H][W], in the activations' dtype
  torch::Tensor count;  // [N][1] float32: on-board points per position
  torch::Tensor total;  // scalar: on-board points in the batch (for batch norm)
};

class ResBlockImpl : public torch::nn::Module {
 public:
  ResBlockImpl(int channels, int gpool_channels);  // gpool_channels 0: a regular block
  torch::Tensor forward(const torch::Tensor& x, const MaskInfo& mask);
  void Fold();

  MaskedBatchNorm bn1{nullptr};
  torch::nn::Conv2d conv1{nullptr};  // to channels - gpool_channels
  ConvBn conv_g{nullptr};            // gpool blocks: to gpool_channels
  torch::nn::Linear linear_g{nullptr};
  MaskedBatchNorm bn2{nullptr};
  torch::nn::Conv2d conv2{nullptr};
  torch::Tensor conv1_folded_bias;  // regular blocks, once folded
  bool folded = false;
};
TORCH_MODULE(ResBlock);

struct NetOutput {
  torch::Tensor policy_logits;           // [N][H*W + 1], pass last
  torch::Tensor soft_policy_logits;      // the same for the soft policy head
  torch::Tensor opponent_policy_logits;  // and for the opponent's reply
  torch::Tensor value_logits;            // [N][3]: win, loss, draw
  torch::Tensor td_value_logits;         // [N][kTdHorizons * 3]: the same per horizon
  torch::Tensor score;                   // [N]
  torch::Tensor ownership;               // [N][H*W] in [-1, 1]
  torch::Tensor ownership_pretanh;       // [N][H*W]: ownership = tanh of it (0 off the board), for
                                         // a numerically stable ownership loss in training
};

class NetImpl : public torch::nn::Module {
 public:
  explicit NetImpl(const ModelConfig& config);
  NetOutput forward(const torch::Tensor& spatial, const torch::Tensor& global);

  // Deterministic initialisation from seed (He-normal weights, zero biases, identity norms);
  // the last convolution of each block is scaled by kResidualInitGain so that a fresh deep
  // net starts close to its skip path.
  void Initialize(uint64_t seed);
  // Merges eval-mode batch norms into the preceding convolutions (inference only; the
  // module can no longer be trained). Idempotent.
  void FoldBatchNorm();
  bool folded() const { return folded_; }
  const ModelConfig& config() const { return config_; }
  const NetShape& shape() const { return shape_; }

  // Every parameter and buffer by its dotted name: what a weights file holds.
  std::vector<std::pair<std::string, torch::Tensor>> NamedState() const;

 private:
  ModelConfig config_;
  NetShape shape_;
  bool folded_ = false;

  torch::nn::Conv2d conv_spatial{nullptr};
  torch::nn::Linear linear_global{nullptr};
  torch::nn::ModuleList blocks{nullptr};
  MaskedBatchNorm bn_trunk{nullptr};

  torch::nn::Conv2d policy_conv{nullptr};
  ConvBn policy_gconv{nullptr};
  torch::nn::Linear policy_glinear{nullptr};
  MaskedBatchNorm policy_bn{nullptr};
  torch::nn::Conv2d policy_out{nullptr};
  torch::nn::Linear pass_linear{nullptr};
  torch::nn::Conv2d policy_soft_out{nullptr};
  torch::nn::Linear pass_soft_linear{nullptr};
  torch::nn::Conv2d policy_opp_out{nullptr};
  torch::nn::Linear pass_opp_linear{nullptr};

  ConvBn value_conv{nullptr};
  torch::nn::Linear value_hidden{nullptr};
  torch::nn::Linear value_out{nullptr};
  torch::nn::Linear score_out{nullptr};
  torch::nn::Linear td_value_out{nullptr};
  torch::nn::Conv2d ownership_out{nullptr};
  bool policy_folded_ = false;
};
TORCH_MODULE(Net);

// "cpu", "cuda" or "cuda:N" as a torch device; ConfigError naming the text when it is malformed
// or the device is not available (nn/torch/model.cpp).
torch::Device ParseDevice(const std::string& text);

// The auxiliary heads' tensors (the soft and opponent policies, the short-term values; see the
// header comment): a model file may lack them.
bool IsAuxiliaryTensor(const std::string& name);

// Copies every parameter and buffer of `from` into `to` (same architecture, any device and
// dtype of `to`).
void CopyNetState(const NetImpl& from, NetImpl* to);

// Net2Net-style deepening: `to` (same channels and pos_len, at least as many blocks, the same
// blocks pooling globally among the first `from` has) takes every tensor of `from`, and each
// block beyond them gets a zero last convolution, so that it adds nothing to the residual
// stream and `to` computes what `from` computes. Throws ConfigError naming what does not fit.
void GrowNetState(const NetImpl& from, NetImpl* to);

// Net2Net-style widening: `to` (same blocks and pos_len, at least as many channels) takes
// `from`'s units, each added unit a copy of a random unit of its layer, and every layer that
// reads a copied unit weighs the copies by shares that sum to 1 (random, so that training can
// tell the copies apart): `to` computes what `from` computes. The trunk, the blocks' inner
// layers, the global pooling and the heads all widen with the channels (NetShape). Throws
// ConfigError naming what does not fit.
void WidenNetState(const NetImpl& from, NetImpl* to, uint64_t seed);

}  // namespace tengen::nn
