#include "play/torch/torch_loader.h"

#include <fstream>
#include <memory>

namespace tengen::play {
namespace {

// The "flags" line of /proc/cpuinfo ("" when there is none).
std::string CpuFlags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.compare(0, 5, "flags") == 0) return line;
  }
  return "";
}

bool HasCpuFlag(const std::string& flags, const std::string& flag) {
  return (flags + " ").find(" " + flag + " ") != std::string::npos;
}

// Runs the net at the pos_len selfplay asks for instead of the one it was created with.
// TorchEvaluator copies the weights into its own (folded) net, so the model need not outlive
// the constructor: keeping it would hold the weights twice per server.
class PosLenEvaluator : public nn::Evaluator {
 public:
  PosLenEvaluator(const nn::TorchModel& model, const nn::TorchEvaluatorOptions& options,
                  int pos_len)
      : evaluator_(model, options), pos_len_(pos_len) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    evaluator_.Evaluate(batch, output);
  }
  std::string model_name() const override { return evaluator_.model_name(); }
  int pos_len() const override { return pos_len_; }

 private:
  nn::TorchEvaluator evaluator_;
  int pos_len_;
};

}  // namespace

std::string ResolvePrecision(const std::string& precision, const std::string& device,
                             bool training) {
  if (precision != "auto") return precision;
  if (device != "cpu") return training ? "fp32" : "fp16";
  const std::string flags = device == "cpu" ? CpuFlags() : "";
  return HasCpuFlag(flags, "avx512_bf16") || HasCpuFlag(flags, "amx_bf16") ? "bf16" : "fp32";
}

bool InferenceChannelsLast(const std::string& precision, const std::string& device,
                           const std::string& cpu_flags) {
  return device != "cpu" || precision != "fp32" || HasCpuFlag(cpu_flags, "avx512f");
}

LoadModel TorchModelLoader(const nn::TorchEvaluatorOptions& options,
                           const std::string& channels_last) {
  return [options, channels_last](const play::ModelInfo& model, int pos_len,
                                  const std::string& device) -> std::unique_ptr<nn::Evaluator> {
    nn::TorchEvaluatorOptions device_options = options;
    device_options.device = device;
    device_options.precision = ResolvePrecision(options.precision, device);
    device_options.channels_last =
        channels_last == "auto"
            ? InferenceChannelsLast(device_options.precision, device, CpuFlags())
            : channels_last == "true";
    std::unique_ptr<nn::TorchModel> net = nn::TorchModel::Load(model.path, device);
    // The directory name is the model's name (pipeline/base_dir.h).
    net->set_name(model.name);
    // The loaded model is released on return; the evaluator keeps its own copy.
    return std::make_unique<PosLenEvaluator>(*net, device_options, pos_len);
  };
}

LoadModel PlayNetLoader(const Config& config, int max_batch_size) {
  nn::TorchEvaluatorOptions options;
  options.precision = config.GetString("precision");
  options.max_batch_size = max_batch_size;
  options.intra_op_threads = static_cast<int>(config.GetInt("torch_threads"));
  return TorchModelLoader(options, config.GetString("channels_last"));
}

}  // namespace tengen::play
