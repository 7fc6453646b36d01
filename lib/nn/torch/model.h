#pragma once
// A model on disk and in memory, and the Evaluator that runs it, with no libtorch types here
// (pimpl): programs that include this header compile in a second, not in the ~12 s a torch
// header costs. Code inside nn/torch that needs the module itself includes nn/torch/net.h
// and calls TorchModel::net().
//
// Model directory format (format_version 1), published atomically as one directory whose
// name is normally the model's name:
//   <dir>/model.json   metadata, a JSON object:
//       format          "tengen-model"
//       format_version  1
//       name            model name (string)
//       architecture    "b{blocks}c{channels}" (see nn/torch/net.h for what it builds)
//       feature_version nn::kFeatureVersion the net was trained for (int)
//       num_spatial_features, num_global_features   input sizes (ints, 12 and 8 in v1)
//       pos_len         board edge the net was made for (int; the net is fully convolutional
//                       and accepts other pos_len too)
//       weights_file    "weights.pt"
//       weights_bytes   size of weights_file in bytes (int)
//       weights_crc32   zlib CRC-32 of weights_file's bytes, 8 lower-case hex digits
//       num_tensors     number of tensors in weights_file (int)
//       created_utc     "YYYY-MM-DDTHH:MM:SSZ"
//   <dir>/weights.pt   torch::pickle_save of a dict {dotted tensor name: float32 CPU tensor}
//                      holding every parameter and buffer of the unfolded net (batch-norm
//                      running statistics included). Python reads it with torch.load().
// Load verifies the size and CRC before parsing the weights, then that the file holds
// exactly the tensors the metadata's architecture has, each of the right shape and with
// finite values only; any mismatch is a FormatError naming the file (and the tensor) (libtorch
// itself would accept a wrong shape).

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "nn/evaluator.h"
#include "nn/model_config.h"

namespace tengen::nn {

class NetImpl;  // nn/torch/net.h

constexpr char kModelMetadataFile[] = "model.json";
constexpr char kModelWeightsFile[] = "weights.pt";

class TorchModel {
 public:
  // A freshly initialised net; the same config and seed give the same weights.
  static std::unique_ptr<TorchModel> Create(const ModelConfig& config, uint64_t seed);
  // Reads a model directory onto `device` ("cpu", "cuda", "cuda:N"). Throws IoError when a
  // file cannot be read, FormatError when the model is corrupt or inconsistent, ConfigError
  // for a bad device.
  static std::unique_ptr<TorchModel> Load(const std::string& dir,
                                          const std::string& device = "cpu");
  // Reads only the metadata (no weights, no checksum); throws as Load does.
  static ModelConfig ReadConfig(const std::string& dir);
  // `from` widened to `config`'s channels (WidenNetState in nn/torch/net.h: each added unit a
  // copy of one of its layer's, their readers sharing the weight out) and deepened to its
  // blocks (GrowNetState there: the added blocks start as the identity), so the outputs are
  // `from`'s; the added blocks' other weights as Create would give them with `seed`. The
  // pos_len may change as well: the net is convolutional and counts on-board points only, so
  // the same weights give the same outputs for a board in planes of any size that holds it.
  // ConfigError when the shapes do not allow it.
  static std::unique_ptr<TorchModel> Grow(const TorchModel& from, const ModelConfig& config,
                                          uint64_t seed);

  ~TorchModel();
  TorchModel(const TorchModel&) = delete;
  TorchModel& operator=(const TorchModel&) = delete;

  // Publishes the model as a new directory `dir` atomically; throws IoError if it exists.
  // `extra_files` (file name -> contents) are written into the same directory before it is
  // published: the trainer's training.json, the exporter's export.json.
  void Save(const std::string& dir,
            const std::map<std::string, std::string>& extra_files = {}) const;

  const ModelConfig& config() const { return config_; }
  void set_name(const std::string& name) { config_.name = name; }
  // The module, for code inside nn/torch (evaluator, trainer).
  std::shared_ptr<NetImpl> net() const { return net_; }

 private:
  TorchModel(const ModelConfig& config, std::shared_ptr<NetImpl> net);
  ModelConfig config_;
  std::shared_ptr<NetImpl> net_;
};

struct TorchEvaluatorOptions {
  std::string device = "cpu";      // "cpu", "cuda", "cuda:N"
  std::string precision = "fp32";  // "fp32", "bf16", "fp16" (fp16: CUDA only)
  int max_batch_size = 256;        // larger batches are evaluated in chunks of this size
  // torch's intra-op threads (process-wide); 0 leaves torch's setting alone. 1 is best on
  // CPU: two evaluators with one thread each scale ~2x, one with two threads ~1.3x
  // (docs/reference libtorch facts).
  int intra_op_threads = 1;
  bool fold_batchnorm = true;  // merge batch norms into convolutions (+5-15%)
  bool channels_last = true;   // NHWC memory format for convolutions (+5-15%)
  // CUDA only: the evaluator runs on a stream of its own (two evaluators on one GPU overlap),
  // copies a batch in and out through pinned host buffers without blocking, converts to the
  // precision on the GPU, and waits once per batch. false: blocking copies on the device's
  // current stream, converted on the CPU (libtorch's default; kept to measure against).
  bool cuda_async_copies = true;
};

// Runs a TorchModel for inference: its own copy of the net in eval mode, batch norms folded,
// cast to the precision, under torch::InferenceMode. Accepts batches of any pos_len (the net
// is fully convolutional). One thread at a time per object; use one object per thread.
class TorchEvaluator : public Evaluator {
 public:
  // Throws ConfigError for an unknown or unavailable device or precision (checked with a
  // warm-up evaluation), FormatError when the warm-up gives NaN or infinite outputs.
  TorchEvaluator(const TorchModel& model, const TorchEvaluatorOptions& options);
  ~TorchEvaluator() override;

  void Evaluate(const EvalBatch& batch, EvalOutput* output) override;
  std::string model_name() const override;
  int pos_len() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// CUDA GPUs this process can use: 0 when libtorch has no CUDA or the machine has no GPU.
int CudaDeviceCount();

// Throws ConfigError naming `device` when this process cannot run a net there: not cpu, cuda or
// cuda:N, or a CUDA device this build or machine does not have. Programs call it at startup, so
// that a wrong device stops them before they wait for work.
void CheckDevice(const std::string& device);

}  // namespace tengen::nn
