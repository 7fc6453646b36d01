#include "nn/loss_scaler.h"

#include <algorithm>

namespace tengen::nn {

LossScaler::LossScaler(bool enabled, double initial_scale, int64_t growth_interval)
    : enabled_(enabled), scale_(enabled ? initial_scale : 1.0), growth_interval_(growth_interval) {}

bool LossScaler::Update(bool gradients_finite) {
  if (!enabled_) return true;
  if (!gradients_finite) {
    scale_ = std::max(1.0, scale_ / 2);
    good_steps_ = 0;
    ++skipped_steps_;
    return false;
  }
  if (++good_steps_ >= growth_interval_) {
    scale_ *= 2;
    good_steps_ = 0;
  }
  return true;
}

void LossScaler::Restore(double scale, int64_t good_steps_since_growth, int64_t skipped_steps) {
  if (enabled_) scale_ = scale;
  good_steps_ = good_steps_since_growth;
  skipped_steps_ = skipped_steps;
}

}  // namespace tengen::nn
