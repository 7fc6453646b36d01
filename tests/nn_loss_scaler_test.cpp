// fp16 dynamic loss scaling (nn/loss_scaler.h): the arithmetic the trainer applies on CUDA,
// checked without a GPU.
#include "nn/loss_scaler.h"

#include <doctest/doctest.h>

namespace tengen::nn {
namespace {

TEST_CASE("loss scaler: an overflow halves the scale and skips the step; good steps double it") {
  LossScaler scaler(true, 1024.0, 3);
  CHECK(scaler.scale() == 1024.0);
  CHECK_FALSE(scaler.Update(false));
  CHECK(scaler.scale() == 512.0);
  CHECK(scaler.skipped_steps() == 1);
  CHECK(scaler.Update(true));
  CHECK(scaler.Update(true));
  CHECK(scaler.scale() == 512.0);
  // The third good step in a row doubles it; an overflow in between starts the count again.
  CHECK(scaler.Update(true));
  CHECK(scaler.scale() == 1024.0);
  CHECK(scaler.Update(true));
  CHECK_FALSE(scaler.Update(false));
  CHECK(scaler.Update(true));
  CHECK(scaler.Update(true));
  CHECK(scaler.scale() == 512.0);
  CHECK(scaler.good_steps_since_growth() == 2);
}

TEST_CASE("loss scaler: never below 1, torch's defaults, and disabled for fp32 and bf16") {
  LossScaler scaler(true, 2.0, 2000);
  for (int i = 0; i < 5; ++i) CHECK_FALSE(scaler.Update(false));
  CHECK(scaler.scale() == 1.0);
  CHECK(scaler.skipped_steps() == 5);
  LossScaler fp16(true);
  CHECK(fp16.scale() == 65536.0);
  for (int i = 0; i < 1999; ++i) fp16.Update(true);
  CHECK(fp16.scale() == 65536.0);
  fp16.Update(true);
  CHECK(fp16.scale() == 131072.0);
  LossScaler off(false);
  CHECK(off.scale() == 1.0);
  CHECK(off.Update(false));
  CHECK(off.skipped_steps() == 0);
  off.Restore(65536.0, 7, 3);
  CHECK(off.scale() == 1.0);
}

TEST_CASE("loss scaler: a checkpoint's state carries on where it stopped") {
  LossScaler scaler(true, 1024.0, 4);
  scaler.Restore(256.0, 3, 9);
  CHECK(scaler.scale() == 256.0);
  CHECK(scaler.skipped_steps() == 9);
  CHECK(scaler.Update(true));
  CHECK(scaler.scale() == 512.0);
}

}  // namespace
}  // namespace tengen::nn
