#pragma once
// The libtorch APIs that differ between the versions tengen builds with (Debian's 1.13 and
// upstream 2.x), in one place: code elsewhere in nn/torch uses these and no version checks of
// its own. Part of nn/torch (it includes libtorch); see README.md, "Building and testing".
//
// - Autocast: 2.4 replaced set_enabled / set_cpu_enabled and the per-device dtype functions
//   with ones that take a device type (AutocastScope).
// - c10d: ProcessGroupGloo, FileStore and TCPStore have the same constructors in both; the
//   NCCL process group exists only in CUDA builds of libtorch, which define USE_C10D_NCCL
//   (distributed.cpp, the only user, includes it under that define).
// - InferenceMode and NoGradGuard are the same in both.
// - TF32: both let cuDNN run fp32 convolutions in TF32 (a 10-bit mantissa) unless told not to;
//   the switches below exist in both (newer versions also take a per-op precision).

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

namespace tengen::nn {

// fp32 on CUDA means IEEE fp32, as on the CPU: TF32 off for cuDNN convolutions (libtorch's
// default is on) and cuBLAS matmuls. Process-wide; called for every CUDA device tengen uses.
// bf16 and fp16 are unaffected (they are not fp32 maths).
inline void UseIeeeFp32OnCuda() {
  at::globalContext().setAllowTF32CuDNN(false);
  at::globalContext().setAllowTF32CuBLAS(false);
}

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define TENGEN_AUTOCAST_BY_DEVICE_TYPE 1
#endif

// Autocast on for one forward pass of one device type, restored (and the cast cache cleared)
// on scope exit. libtorch 2.4 replaced the per-device functions with device-type arguments.
class AutocastScope {
 public:
  AutocastScope(torch::ScalarType dtype, bool cuda)
      : active_(dtype != torch::kFloat32), cuda_(cuda) {
    if (!active_) return;
#ifdef TENGEN_AUTOCAST_BY_DEVICE_TYPE
    const auto type = cuda ? at::kCUDA : at::kCPU;
    was_enabled_ = at::autocast::is_autocast_enabled(type);
    old_dtype_ = at::autocast::get_autocast_dtype(type);
    at::autocast::set_autocast_dtype(type, dtype);
    at::autocast::set_autocast_enabled(type, true);
#else
    if (cuda) {
      was_enabled_ = at::autocast::is_enabled();
      old_dtype_ = at::autocast::get_autocast_gpu_dtype();
      at::autocast::set_autocast_gpu_dtype(dtype);
      at::autocast::set_enabled(true);
    } else {
      was_enabled_ = at::autocast::is_cpu_enabled();
      old_dtype_ = at::autocast::get_autocast_cpu_dtype();
      at::autocast::set_autocast_cpu_dtype(dtype);
      at::autocast::set_cpu_enabled(true);
    }
#endif
  }
  ~AutocastScope() {
    if (!active_) return;
#ifdef TENGEN_AUTOCAST_BY_DEVICE_TYPE
    const auto type = cuda_ ? at::kCUDA : at::kCPU;
    at::autocast::set_autocast_enabled(type, was_enabled_);
    at::autocast::set_autocast_dtype(type, old_dtype_);
#else
    if (cuda_) {
      at::autocast::set_enabled(was_enabled_);
      at::autocast::set_autocast_gpu_dtype(old_dtype_);
    } else {
      at::autocast::set_cpu_enabled(was_enabled_);
      at::autocast::set_autocast_cpu_dtype(old_dtype_);
    }
#endif
    at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_;
  bool cuda_;
  bool was_enabled_ = false;
  torch::ScalarType old_dtype_ = torch::kFloat32;
};

}  // namespace tengen::nn
