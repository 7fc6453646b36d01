#include "pipeline/torch_loader.h"

#include <fstream>
#include <memory>

namespace tengen::pipeline {
namespace {

bool CpuHasNativeBf16() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.compare(0, 5, "flags") != 0) continue;
    return line.find(" avx512_bf16") != std::string::npos ||
           line.find(" amx_bf16") != std::string::npos;
  }
  return false;
}

// Runs the net at the pos_len selfplay asks for instead of the one it was created with.
class PosLenEvaluator : public nn::Evaluator {
 public:
  PosLenEvaluator(std::unique_ptr<nn::TorchModel> model, const nn::TorchEvaluatorOptions& options,
                  int pos_len)
      : model_(std::move(model)), evaluator_(*model_, options), pos_len_(pos_len) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    evaluator_.Evaluate(batch, output);
  }
  std::string model_name() const override { return evaluator_.model_name(); }
  int pos_len() const override { return pos_len_; }

 private:
  std::unique_ptr<nn::TorchModel> model_;
  nn::TorchEvaluator evaluator_;
  int pos_len_;
};

}  // namespace

std::string ResolvePrecision(const std::string& precision, const std::string& device) {
  if (precision != "auto") return precision;
  return device == "cpu" && CpuHasNativeBf16() ? "bf16" : "fp32";
}

LoadModel TorchModelLoader(const nn::TorchEvaluatorOptions& options) {
  return [options](const ModelInfo& model, int pos_len,
                   const std::string& device) -> std::unique_ptr<nn::Evaluator> {
    nn::TorchEvaluatorOptions device_options = options;
    device_options.device = device;
    device_options.precision = ResolvePrecision(options.precision, device);
    std::unique_ptr<nn::TorchModel> net = nn::TorchModel::Load(model.path, device);
    // The directory name is the model's name (DESIGN: base-dir layout).
    net->set_name(model.name);
    return std::make_unique<PosLenEvaluator>(std::move(net), device_options, pos_len);
  };
}

}  // namespace tengen::pipeline
