#pragma once
// The net behind a narrow, batch-first interface in plain C++ types (lc0's idea): fill a batch
// of inputs, evaluate once, read the outputs. libtorch lives behind it in nn/torch only;
// search never sees it (pipeline adapts an Evaluator to search::LeafEvaluator).

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace tengen::nn {

// Inputs for n positions, laid out as nn/features.h describes, all for one pos_len.
struct EvalBatch {
  int pos_len = 19;
  int size = 0;                // number of positions
  std::vector<float> spatial;  // [size][kNumSpatialFeatures][pos_len][pos_len]
  std::vector<float> global;   // [size][kNumGlobalFeatures]

  // Resizes for n positions (contents unspecified).
  void Resize(int n, int pos_len);
  // Row i's inputs (checked against size).
  float* SpatialRow(int i);
  float* GlobalRow(int i);
  const float* SpatialRow(int i) const;
  const float* GlobalRow(int i) const;
};

// Raw net outputs for n positions, from the side to move's view.
struct EvalOutput {
  int pos_len = 19;
  int size = 0;
  std::vector<float> policy_logits;  // [size][pos_len * pos_len + 1], pass last
  std::vector<float> value_logits;   // [size][3]: win, loss, draw
  std::vector<float> score;          // [size]: expected score lead
  std::vector<float> ownership;      // [size][pos_len * pos_len], in [-1, 1], + = own

  void Resize(int n, int pos_len);
};

// A net (or a stand-in). Evaluate may be called from one thread at a time per object.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual void Evaluate(const EvalBatch& batch, EvalOutput* output) = 0;
  // Name of the model, written into every training row ("random" for the random evaluator).
  virtual std::string model_name() const = 0;
  virtual int pos_len() const = 0;
};

// Used before any net exists (KataGo does the same): all policy logits 0 (uniform over the
// legal moves once masked), value logits 0 (an even game), score 0, ownership 0.
class RandomNetEvaluator : public Evaluator {
 public:
  explicit RandomNetEvaluator(int pos_len) : pos_len_(pos_len) {}
  void Evaluate(const EvalBatch& batch, EvalOutput* output) override;
  std::string model_name() const override { return "random"; }
  int pos_len() const override { return pos_len_; }

 private:
  int pos_len_;
};

// A stand-in for a GPU, for measuring on a machine without one what the games' side of
// selfplay costs (devices = sim): it answers every batch as RandomNetEvaluator does (the random
// net), but only once batch_micros + rows * row_micros have passed since the batch came in,
// and it sleeps meanwhile, using no CPU. The defaults are one NVIDIA H100 running the b4c64
// 9x9 net in fp16 (tengen-bench-nn: 151k evals/s at batch 256, 485k at batch 1,024, i.e.
// about 1.56 ms per batch plus 0.54 microseconds per row). Zero for both answers at once.
struct SimulatedDeviceTiming {
  double batch_micros = 1560;
  double row_micros = 0.54;
};

class SimulatedDeviceEvaluator : public Evaluator {
 public:
  SimulatedDeviceEvaluator(int pos_len, SimulatedDeviceTiming timing)
      : random_net_(pos_len), timing_(timing) {}
  void Evaluate(const EvalBatch& batch, EvalOutput* output) override;
  std::string model_name() const override { return "random"; }
  int pos_len() const override { return random_net_.pos_len(); }

 private:
  RandomNetEvaluator random_net_;
  SimulatedDeviceTiming timing_;
};

}  // namespace tengen::nn
