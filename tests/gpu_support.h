#pragma once
// Tests that need CUDA GPUs call SkipWithoutGpus(n) first: with fewer than n GPUs it prints
// a "SKIPPED: needs ..." line, which ctest reports as a skipped test (tests/CMakeLists.txt,
// SKIP_REGULAR_EXPRESSION), and returns true so that the test returns at once.

#include <iostream>

#include "nn/torch/model.h"

namespace tengen::testing {

inline int CudaGpus() { return nn::CudaDeviceCount(); }

inline bool SkipWithoutGpus(int n) {
  if (CudaGpus() >= n) return false;
  std::cout << "SKIPPED: needs " << n << " CUDA GPU" << (n > 1 ? "s" : "") << ", this machine has "
            << CudaGpus() << std::endl;
  return true;
}

}  // namespace tengen::testing
