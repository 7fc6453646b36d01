#include "nn/torch/model.h"

#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "nn/features.h"
#include "nn/torch/compat.h"
#include "nn/torch/net.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::nn {
namespace {

using nlohmann::json;

constexpr char kFormatName[] = "tengen-model";
constexpr int kFormatVersion = 1;

// ATen runs an fp32 CPU convolution of batch 1 (3x3 kernel, small board) on its native path,
// which Debian links to the reference BLAS: ~16 evals/s for b6c96 on 9x9. From batch 2 on it
// uses oneDNN, so evaluating a single row twice is ~10x faster than evaluating it once.
constexpr int kMinCpuFp32Batch = 2;

std::string JoinPath(const std::string& dir, const std::string& name) { return dir + "/" + name; }

std::string ShapeText(const torch::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

// Metadata fields, each a FormatError naming the file when missing or of the wrong type.
template <typename T>
T Field(const json& meta, const char* key, const std::string& path) {
  const auto it = meta.find(key);
  if (it == meta.end()) throw FormatError(path + ": missing field '" + key + "'");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw FormatError(path + ": field '" + key + "' has the wrong type");
  }
}

ModelConfig ParseMetadata(const json& meta, const std::string& path) {
  if (!meta.is_object()) throw FormatError(path + ": not a JSON object");
  if (Field<std::string>(meta, "format", path) != kFormatName) {
    throw FormatError(path + ": not a tengen model (format is not '" + kFormatName + "')");
  }
  const int version = Field<int>(meta, "format_version", path);
  if (version != kFormatVersion) {
    throw FormatError(StrCat(path, ": format_version ", version, " is not supported (expected ",
                             kFormatVersion, ")"));
  }
  ModelConfig config;
  config.name = Field<std::string>(meta, "name", path);
  try {
    ParseArchitecture(Field<std::string>(meta, "architecture", path), &config);
  } catch (const ConfigError& e) {
    throw FormatError(path + ": " + e.what());
  }
  config.feature_version = Field<int>(meta, "feature_version", path);
  if (config.feature_version != kFeatureVersion) {
    throw FormatError(StrCat(path, ": feature_version ", config.feature_version,
                             " differs from this program's ", kFeatureVersion));
  }
  if (Field<int>(meta, "num_spatial_features", path) != kNumSpatialFeatures ||
      Field<int>(meta, "num_global_features", path) != kNumGlobalFeatures) {
    throw FormatError(path + ": input feature counts differ from this program's");
  }
  config.pos_len = Field<int>(meta, "pos_len", path);
  if (config.pos_len < 1 || config.pos_len > 64) {
    throw FormatError(StrCat(path, ": pos_len ", config.pos_len, " out of range"));
  }
  return config;
}

json ReadMetadata(const std::string& dir) {
  const std::string path = JoinPath(dir, kModelMetadataFile);
  const std::string text = ReadFile(path);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw FormatError(path + ": bad JSON: " + e.what());
  }
}

// Checks that `weights` (the bytes of `path`) hold exactly the tensors of `net` with the
// same shapes, then copies them in.
void LoadWeights(const std::string& weights, const std::string& path, NetImpl* net) {
  c10::IValue value;
  try {
    value = torch::pickle_load(std::vector<char>(weights.begin(), weights.end()));
  } catch (const std::exception& e) {
    throw FormatError(path + ": cannot read the weights: " + e.what());
  }
  if (!value.isGenericDict()) throw FormatError(path + ": weights are not a dict of tensors");
  std::map<std::string, torch::Tensor> expected;
  for (auto& [name, tensor] : net->NamedState()) expected.emplace(name, tensor);
  const std::string arch = net->config().Architecture();
  size_t found = 0;
  torch::NoGradGuard no_grad;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor()) {
      throw FormatError(path + ": weights are not a dict of tensors");
    }
    const std::string& name = entry.key().toStringRef();
    const torch::Tensor tensor = entry.value().toTensor();
    const auto it = expected.find(name);
    if (it == expected.end()) {
      throw FormatError(path + ": tensor '" + name + "' is not part of a " + arch + " net");
    }
    if (tensor.sizes() != it->second.sizes() || tensor.scalar_type() != torch::kFloat32) {
      throw FormatError(path + ": tensor '" + name + "' is " + ShapeText(tensor) + " " +
                        std::string(c10::toString(tensor.scalar_type())) + ", a " + arch +
                        " net needs " + ShapeText(it->second) + " Float");
    }
    // A NaN or infinity would only show up later as NaN outputs in every game.
    if (!torch::isfinite(tensor).all().item<bool>()) {
      throw FormatError(path + ": tensor '" + name + "' holds NaN or infinite values");
    }
    it->second.copy_(tensor);
    expected.erase(it);
    ++found;
  }
  // A model written before an auxiliary head existed: it starts at 0 (uniform policies, even
  // short-term values), and nothing that plays reads it.
  for (auto& [name, tensor] : expected) {
    if (!IsAuxiliaryTensor(name)) {
      throw FormatError(StrCat(path, ": holds ", found, " tensors, a ", arch, " net has ",
                               found + expected.size(), " (no '", name, "')"));
    }
    tensor.zero_();
  }
}

}  // namespace

torch::Device ParseDevice(const std::string& text) {
  std::unique_ptr<torch::Device> device;
  try {
    device = std::make_unique<torch::Device>(text);
  } catch (const c10::Error&) {
    throw ConfigError("bad device '" + text + "': expected cpu, cuda or cuda:N");
  }
  if (device->is_cpu()) return *device;
  if (!device->is_cuda()) throw ConfigError("unsupported device '" + text + "'");
  if (!torch::cuda::is_available()) {
    throw ConfigError("device '" + text + "': CUDA is not available in this build or machine");
  }
  if (device->has_index() && device->index() >= static_cast<int>(torch::cuda::device_count())) {
    throw ConfigError(
        StrCat("device '", text, "': only ", torch::cuda::device_count(), " CUDA devices"));
  }
  UseIeeeFp32OnCuda();  // every CUDA device tengen runs comes through here
  return *device;
}

TorchModel::TorchModel(const ModelConfig& config, std::shared_ptr<NetImpl> net)
    : config_(config), net_(std::move(net)) {}

TorchModel::~TorchModel() = default;

std::unique_ptr<TorchModel> TorchModel::Create(const ModelConfig& config, uint64_t seed) {
  auto net = std::make_shared<NetImpl>(config);
  net->Initialize(seed);
  return std::unique_ptr<TorchModel>(new TorchModel(config, std::move(net)));
}

std::unique_ptr<TorchModel> TorchModel::Grow(const TorchModel& from, const ModelConfig& config,
                                             uint64_t seed) {
  std::unique_ptr<TorchModel> grown = Create(config, seed);
  if (config.channels == from.config().channels) {
    GrowNetState(*from.net(), grown->net().get());
    return grown;
  }
  ModelConfig wide_config = from.config();
  wide_config.channels = config.channels;
  const std::unique_ptr<TorchModel> wide = Create(wide_config, seed);
  WidenNetState(*from.net(), wide->net().get(), seed);
  GrowNetState(*wide->net(), grown->net().get());
  return grown;
}

ModelConfig TorchModel::ReadConfig(const std::string& dir) {
  return ParseMetadata(ReadMetadata(dir), JoinPath(dir, kModelMetadataFile));
}

std::unique_ptr<TorchModel> TorchModel::Load(const std::string& dir, const std::string& device) {
  const torch::Device target = ParseDevice(device);
  const std::string meta_path = JoinPath(dir, kModelMetadataFile);
  const json meta = ReadMetadata(dir);
  const ModelConfig config = ParseMetadata(meta, meta_path);
  const std::string weights_name = Field<std::string>(meta, "weights_file", meta_path);
  if (weights_name.empty() || weights_name.find('/') != std::string::npos) {
    throw FormatError(meta_path + ": bad weights_file '" + weights_name + "'");
  }
  const std::string weights_path = JoinPath(dir, weights_name);
  const std::string weights = ReadFile(weights_path);
  const auto expected_bytes = Field<uint64_t>(meta, "weights_bytes", meta_path);
  if (weights.size() != expected_bytes) {
    throw FormatError(StrCat(weights_path, ": ", weights.size(), " bytes, ", meta_path, " says ",
                             expected_bytes, " (truncated or replaced)"));
  }
  const std::string crc = Crc32Hex(weights);
  const std::string expected_crc = Field<std::string>(meta, "weights_crc32", meta_path);
  if (crc != expected_crc) {
    throw FormatError(weights_path + ": CRC-32 " + crc + " differs from " + expected_crc + " in " +
                      meta_path + " (corrupt file)");
  }
  auto net = std::make_shared<NetImpl>(config);
  LoadWeights(weights, weights_path, net.get());
  net->to(target);
  return std::unique_ptr<TorchModel>(new TorchModel(config, std::move(net)));
}

void TorchModel::Save(const std::string& dir,
                      const std::map<std::string, std::string>& extra_files) const {
  TENGEN_CHECK(!net_->folded(), "a net with folded batch norms cannot be saved");
  c10::Dict<std::string, torch::Tensor> tensors;
  for (const auto& [name, tensor] : net_->NamedState()) {
    tensors.insert(name, tensor.detach().to(torch::kCPU, torch::kFloat32).contiguous().clone());
  }
  const std::vector<char> bytes = torch::pickle_save(tensors);
  const std::string weights(bytes.begin(), bytes.end());

  json meta;
  meta["format"] = kFormatName;
  meta["format_version"] = kFormatVersion;
  meta["name"] = config_.name;
  meta["architecture"] = config_.Architecture();
  meta["feature_version"] = config_.feature_version;
  meta["num_spatial_features"] = kNumSpatialFeatures;
  meta["num_global_features"] = kNumGlobalFeatures;
  meta["pos_len"] = config_.pos_len;
  meta["weights_file"] = kModelWeightsFile;
  meta["weights_bytes"] = weights.size();
  meta["weights_crc32"] = Crc32Hex(weights);
  meta["num_tensors"] = tensors.size();
  meta["created_utc"] = UtcTimestampSeconds();

  AtomicDirectory out(dir);
  PublishFile(JoinPath(out.path(), kModelWeightsFile), weights);
  PublishFile(JoinPath(out.path(), kModelMetadataFile), meta.dump(2) + "\n");
  for (const auto& [file, contents] : extra_files) {
    TENGEN_CHECK(file != kModelWeightsFile && file != kModelMetadataFile &&
                     file.find('/') == std::string::npos,
                 "bad extra model file name: " + file);
    PublishFile(JoinPath(out.path(), file), contents);
  }
  out.Commit();
}

// ---------------------------------------------------------------------------------------------
// TorchEvaluator

struct TorchEvaluator::Impl {
  ModelConfig config;
  TorchEvaluatorOptions options;
  torch::Device device{torch::kCPU};
  torch::ScalarType dtype = torch::kFloat32;
  std::shared_ptr<NetImpl> net;
  // options.cuda_async_copies on a CUDA device: the evaluator's stream, and pinned host
  // buffers (flat, grown to the largest chunk seen) for a chunk's inputs and packed outputs.
  std::optional<c10::Stream> stream;
  torch::Tensor pinned_in;
  torch::Tensor pinned_out;

  // Evaluates rows [start, start + n) of batch into output.
  void EvaluateChunk(const EvalBatch& batch, int start, int n, EvalOutput* output);
  // The same through the stream and pinned buffers.
  void EvaluateChunkAsync(const EvalBatch& batch, int start, int n, EvalOutput* output);
};

// A pinned float buffer of at least `count` elements in *buffer.
void ReservePinned(torch::Tensor* buffer, int64_t count) {
  if (buffer->defined() && buffer->numel() >= count) return;
  *buffer =
      torch::empty({count}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
}

TorchEvaluator::TorchEvaluator(const TorchModel& model, const TorchEvaluatorOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->config = model.config();
  impl_->options = options;
  impl_->device = ParseDevice(options.device);
  if (options.precision == "fp32") {
    impl_->dtype = torch::kFloat32;
  } else if (options.precision == "bf16") {
    impl_->dtype = torch::kBFloat16;
  } else if (options.precision == "fp16") {
    if (impl_->device.is_cpu()) {
      throw ConfigError("precision fp16 is not implemented for convolutions on CPU; use bf16");
    }
    impl_->dtype = torch::kFloat16;
  } else {
    throw ConfigError("bad precision '" + options.precision + "': expected fp32, bf16 or fp16");
  }
  if (options.max_batch_size < 1) throw ConfigError("max batch size must be at least 1");
  if (options.intra_op_threads > 0) torch::set_num_threads(options.intra_op_threads);

  // A private copy: folding and casting must not touch the model (a trainer may own it).
  auto net = std::make_shared<NetImpl>(model.config());
  CopyNetState(*model.net(), net.get());
  net->eval();
  if (options.fold_batchnorm) net->FoldBatchNorm();
  net->to(impl_->device, impl_->dtype);
  if (options.channels_last) {
    torch::NoGradGuard no_grad;
    for (auto& param : net->parameters()) {
      if (param.dim() == 4) param.set_data(param.contiguous(torch::MemoryFormat::ChannelsLast));
    }
  }
  impl_->net = std::move(net);
  if (impl_->device.is_cuda() && options.cuda_async_copies) {
    impl_->stream =
        c10::impl::VirtualGuardImpl(c10::DeviceType::CUDA).getStreamFromGlobalPool(impl_->device);
  }

  // A warm-up evaluation finds an unsupported device/precision pair now, not mid-game, and
  // lets oneDNN pick its kernels.
  EvalBatch probe;
  probe.Resize(1, impl_->config.pos_len);
  std::fill(probe.spatial.begin(), probe.spatial.end(), 0.0f);
  std::fill(probe.global.begin(), probe.global.end(), 0.0f);
  const int area = impl_->config.pos_len * impl_->config.pos_len;
  std::fill(probe.spatial.begin(), probe.spatial.begin() + area, 1.0f);  // all on board
  EvalOutput out;
  try {
    Evaluate(probe, &out);
  } catch (const c10::Error& e) {
    throw ConfigError("precision " + options.precision + " on device " + options.device +
                      " does not work: " + e.what_without_backtrace());
  }
  const auto finite = [](const std::vector<float>& v) {
    return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
  };
  if (!finite(out.policy_logits) || !finite(out.value_logits) || !finite(out.score) ||
      !finite(out.ownership)) {
    throw FormatError("model " + impl_->config.name + ": the warm-up evaluation (precision " +
                      options.precision + ", device " + options.device +
                      ") gives NaN or infinite outputs");
  }
}

TorchEvaluator::~TorchEvaluator() = default;

std::string TorchEvaluator::model_name() const { return impl_->config.name; }

int TorchEvaluator::pos_len() const { return impl_->config.pos_len; }

void TorchEvaluator::Evaluate(const EvalBatch& batch, EvalOutput* output) {
  const size_t area = static_cast<size_t>(batch.pos_len) * batch.pos_len;
  TENGEN_CHECK(batch.size >= 0 && batch.pos_len > 0, "bad batch shape");
  TENGEN_CHECK(batch.spatial.size() >= batch.size * kNumSpatialFeatures * area &&
                   batch.global.size() >= static_cast<size_t>(batch.size) * kNumGlobalFeatures,
               "batch buffers smaller than its size");
  output->Resize(batch.size, batch.pos_len);
  for (int start = 0; start < batch.size; start += impl_->options.max_batch_size) {
    const int n = std::min(impl_->options.max_batch_size, batch.size - start);
    if (impl_->stream) {
      impl_->EvaluateChunkAsync(batch, start, n, output);
    } else {
      impl_->EvaluateChunk(batch, start, n, output);
    }
  }
}

void TorchEvaluator::Impl::EvaluateChunk(const EvalBatch& batch, int start, int n,
                                         EvalOutput* output) {
  const int64_t pl = batch.pos_len;
  const int64_t area = pl * pl;
  torch::InferenceMode inference;
  // from_blob needs a non-const pointer; the tensors are only read.
  float* spatial_data = const_cast<float*>(batch.SpatialRow(start));
  float* global_data = const_cast<float*>(batch.GlobalRow(start));
  auto spatial = torch::from_blob(spatial_data, {n, kNumSpatialFeatures, pl, pl}).to(device, dtype);
  auto global = torch::from_blob(global_data, {n, kNumGlobalFeatures}).to(device, dtype);
  if (n < kMinCpuFp32Batch && device.is_cpu() && dtype == torch::kFloat32) {
    // Repeat the rows up to the batch size at which ATen picks oneDNN (see the constant).
    const int64_t repeat = (kMinCpuFp32Batch + n - 1) / n;
    spatial = spatial.repeat({repeat, 1, 1, 1});
    global = global.repeat({repeat, 1});
  }
  if (options.channels_last) spatial = spatial.contiguous(torch::MemoryFormat::ChannelsLast);
  const NetOutput out = net->forward(spatial, global);

  const auto copy_out = [&](const torch::Tensor& t, std::vector<float>* dest, int64_t row) {
    const auto cpu = t.narrow(0, 0, n).to(torch::kCPU, torch::kFloat32).contiguous();
    TENGEN_CHECK(cpu.numel() == n * row, "unexpected net output size");
    std::memcpy(dest->data() + static_cast<size_t>(start) * row, cpu.data_ptr<float>(),
                sizeof(float) * static_cast<size_t>(n * row));
  };
  copy_out(out.policy_logits, &output->policy_logits, area + 1);
  copy_out(out.value_logits, &output->value_logits, 3);
  copy_out(out.score, &output->score, 1);
  copy_out(out.ownership, &output->ownership, area);
}

void TorchEvaluator::Impl::EvaluateChunkAsync(const EvalBatch& batch, int start, int n,
                                              EvalOutput* output) {
  const int64_t pl = batch.pos_len;
  const int64_t area = pl * pl;
  const int64_t spatial_count = n * kNumSpatialFeatures * area;
  const int64_t global_count = n * kNumGlobalFeatures;
  // Packed output row: policy (area + 1), value (3), score (1), ownership (area).
  const int64_t out_row = 2 * area + 5;
  ReservePinned(&pinned_in, spatial_count + global_count);
  ReservePinned(&pinned_out, n * out_row);
  // The previous chunk's copies are done (it waited for its outputs), so the buffers are free.
  float* in = pinned_in.data_ptr<float>();
  std::memcpy(in, batch.SpatialRow(start), sizeof(float) * spatial_count);
  std::memcpy(in + spatial_count, batch.GlobalRow(start), sizeof(float) * global_count);

  const c10::StreamGuard on_stream(*stream);
  torch::InferenceMode inference;
  // A non-blocking copy from pinned memory converts to the precision on the GPU.
  const auto device_in =
      pinned_in.narrow(0, 0, spatial_count + global_count).to(device, dtype, true);
  auto spatial = device_in.narrow(0, 0, spatial_count).view({n, kNumSpatialFeatures, pl, pl});
  const auto global =
      device_in.narrow(0, spatial_count, global_count).view({n, kNumGlobalFeatures});
  if (options.channels_last) spatial = spatial.contiguous(torch::MemoryFormat::ChannelsLast);
  const NetOutput out = net->forward(spatial, global);
  const auto flat = [n](const torch::Tensor& t) { return t.reshape({n, -1}).to(torch::kFloat32); };
  const auto packed = torch::cat(
      {flat(out.policy_logits), flat(out.value_logits), flat(out.score), flat(out.ownership)}, 1);
  TENGEN_CHECK(packed.size(1) == out_row, "unexpected net output size");
  const auto host_out = pinned_out.narrow(0, 0, n * out_row).view({n, out_row});
  host_out.copy_(packed, true);
  // A spinning wait (CUDA's default here): polling with 50 us sleeps to free the core made
  // selfplay 15% slower on an H200 (docs/GPU.md).
  stream->synchronize();

  const float* row = pinned_out.data_ptr<float>();
  const auto take = [&row](std::vector<float>* dest, int64_t index, int64_t count) {
    std::memcpy(dest->data() + index * count, row, sizeof(float) * count);
    row += count;
  };
  for (int64_t i = start; i < start + n; ++i) {
    take(&output->policy_logits, i, area + 1);
    take(&output->value_logits, i, 3);
    take(&output->score, i, 1);
    take(&output->ownership, i, area);
  }
}

int CudaDeviceCount() {
  return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

void CheckDevice(const std::string& device) { ParseDevice(device); }

}  // namespace tengen::nn
