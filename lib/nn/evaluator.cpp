#include "nn/evaluator.h"

#include <algorithm>
#include <thread>

#include "nn/features.h"
#include "util/error.h"

namespace tengen::nn {

void EvalBatch::Resize(int n, int new_pos_len) {
  TENGEN_CHECK(n >= 0 && new_pos_len > 0, "bad batch shape");
  size = n;
  pos_len = new_pos_len;
  spatial.resize(static_cast<size_t>(n) * kNumSpatialFeatures * pos_len * pos_len);
  global.resize(static_cast<size_t>(n) * kNumGlobalFeatures);
}

const float* EvalBatch::SpatialRow(int i) const {
  TENGEN_CHECK(i >= 0 && i < size, "batch row out of range");
  return spatial.data() + static_cast<size_t>(i) * kNumSpatialFeatures * pos_len * pos_len;
}

const float* EvalBatch::GlobalRow(int i) const {
  TENGEN_CHECK(i >= 0 && i < size, "batch row out of range");
  return global.data() + static_cast<size_t>(i) * kNumGlobalFeatures;
}

float* EvalBatch::SpatialRow(int i) {
  return const_cast<float*>(static_cast<const EvalBatch&>(*this).SpatialRow(i));
}

float* EvalBatch::GlobalRow(int i) {
  return const_cast<float*>(static_cast<const EvalBatch&>(*this).GlobalRow(i));
}

void EvalOutput::Resize(int n, int new_pos_len) {
  TENGEN_CHECK(n >= 0 && new_pos_len > 0, "bad output shape");
  size = n;
  pos_len = new_pos_len;
  const size_t area = static_cast<size_t>(pos_len) * pos_len;
  policy_logits.resize(n * (area + 1));
  value_logits.resize(static_cast<size_t>(n) * 3);
  score.resize(n);
  ownership.resize(n * area);
}

void RandomNetEvaluator::Evaluate(const EvalBatch& batch, EvalOutput* output) {
  TENGEN_CHECK(batch.pos_len == pos_len_, "batch pos_len differs from the evaluator's");
  output->Resize(batch.size, pos_len_);
  std::fill(output->policy_logits.begin(), output->policy_logits.end(), 0.0f);
  std::fill(output->value_logits.begin(), output->value_logits.end(), 0.0f);
  std::fill(output->score.begin(), output->score.end(), 0.0f);
  std::fill(output->ownership.begin(), output->ownership.end(), 0.0f);
}

void SimulatedDeviceEvaluator::Evaluate(const EvalBatch& batch, EvalOutput* output) {
  const auto start = std::chrono::steady_clock::now();
  random_net_.Evaluate(batch, output);
  const double micros = timing_.batch_micros + timing_.row_micros * batch.size;
  if (micros > 0)
    std::this_thread::sleep_until(start +
                                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double, std::micro>(micros)));
}

}  // namespace tengen::nn
