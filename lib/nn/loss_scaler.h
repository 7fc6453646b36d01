#pragma once
// Dynamic loss scaling for fp16 training, as torch's GradScaler does it: the loss is multiplied
// by scale() before backward so that small fp16 gradients do not underflow; the gradients are
// divided by it again before the step. A step whose gradients overflowed (not finite) is
// skipped and the scale halved (never below 1); after `growth_interval` good steps in a row it
// doubles. Plain arithmetic, no libtorch: nn/torch/trainer.cpp applies it to the tensors.

#include <cstdint>

namespace tengen::nn {

class LossScaler {
 public:
  static constexpr double kInitialScale = 65536.0;
  static constexpr int64_t kGrowthInterval = 2000;

  // enabled = false (fp32, bf16): scale 1 for ever and every step applies.
  explicit LossScaler(bool enabled, double initial_scale = kInitialScale,
                      int64_t growth_interval = kGrowthInterval);

  bool enabled() const { return enabled_; }
  double scale() const { return scale_; }
  // After a step's gradients were unscaled: whether they were all finite. True: take the step.
  bool Update(bool gradients_finite);

  int64_t skipped_steps() const { return skipped_steps_; }
  int64_t good_steps_since_growth() const { return good_steps_; }
  // A checkpoint's state (NetTrainer::SaveState / LoadState); a disabled scaler keeps scale 1.
  void Restore(double scale, int64_t good_steps_since_growth, int64_t skipped_steps);

 private:
  bool enabled_;
  double scale_;
  int64_t growth_interval_;
  int64_t good_steps_ = 0;
  int64_t skipped_steps_ = 0;
};

}  // namespace tengen::nn
