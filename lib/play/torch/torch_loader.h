#pragma once
// The model loader that programs running a real net hand to the model registry
// (play/model_registry.h): TorchModel::Load plus a TorchEvaluator. It lives in its own
// library (tengen_play_torch) so that play itself never links libtorch; this header
// includes no libtorch either (nn/torch/model.h is a pimpl).

#include <string>

#include "nn/torch/model.h"
#include "play/model_registry.h"
#include "util/config.h"

namespace tengen::play {

// "auto" picks bf16 on a CPU that reports native bf16 (avx512_bf16 or amx_bf16 in
// /proc/cpuinfo: several times faster than fp32 there) and fp32 on other CPUs; on CUDA, fp16
// for playing (tensor cores on every GPU since Volta; bf16 is not on every GPU) and fp32 for
// training (on the one H100 measured, fp16 and bf16 training steps of b6c96 at batch 256 were
// slower than fp32's: docs/GPU.md). Any other value is returned as it is.
std::string ResolvePrecision(const std::string& precision, const std::string& device,
                             bool training = false);

// Whether an evaluator of this (resolved) precision on `device` should run convolutions in
// NHWC (channels_last): always on CUDA and in bf16, and in fp32 only on a CPU whose flags (the
// "flags" line of /proc/cpuinfo) include avx512f. On an AVX2-only AMD EPYC (Zen 3) selfplay
// with a b4c64 net ran ~7% more NN evals/s in NCHW (docs/BENCHMARKS.md, "Memory layout"); on
// AVX-512 CPUs NHWC is 5-15% faster.
bool InferenceChannelsLast(const std::string& precision, const std::string& device,
                           const std::string& cpu_flags);

// Loads a model directory and wraps it in a TorchEvaluator with these options; the evaluator
// reports the caller's pos_len (the net is fully convolutional, so it runs any pos_len).
// options.device is replaced by the device of each call (one call per selfplay device), a
// precision of "auto" is resolved for that device (ResolvePrecision), and so is the layout.
// `channels_last` is "auto" (InferenceChannelsLast), "true" or "false"; it replaces
// options.channels_last.
LoadModel TorchModelLoader(const nn::TorchEvaluatorOptions& options,
                           const std::string& channels_last = "auto");

// The loader for the options of play/play_net.h (precision, channels_last, torch_threads),
// for batches of up to max_batch_size.
LoadModel PlayNetLoader(const Config& config, int max_batch_size);

}  // namespace tengen::play
