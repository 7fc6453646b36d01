#include "nn/torch/distributed.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "nn/torch/distributed_impl.h"
#include "nn/torch/net.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::nn {

struct ProcessGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
#ifdef USE_C10D_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;
#endif
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
  bool use_nccl = false;
  torch::Device device = torch::kCPU;
};

namespace {

int EnvInt(const char* name, int fallback, int min, int max) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  if (*end != '\0' || parsed < min || parsed > max) {
    throw ConfigError(StrCat(std::string("environment variable "), name, "=", value,
                             ": expected an integer in [", min, ", ", max, "]"));
  }
  return static_cast<int>(parsed);
}

std::string EnvString(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

bool IsCudaDevice(const std::string& device) { return device.rfind("cuda", 0) == 0; }

}  // namespace

DistributedConfig DistributedConfigFromEnvironment(const std::string& file_store) {
  DistributedConfig config;
  config.world_size = EnvInt("WORLD_SIZE", 1, 1, 1 << 16);
  config.rank = EnvInt("RANK", 0, 0, config.world_size - 1);
  config.local_rank = EnvInt("LOCAL_RANK", 0, 0, 1 << 16);
  config.local_world_size = EnvInt("LOCAL_WORLD_SIZE", 1, 1, 1 << 16);
  config.master_addr = EnvString("MASTER_ADDR");
  config.master_port = EnvInt("MASTER_PORT", 0, 0, 65535);
  config.file_store = file_store;
  if (config.world_size > 1 && config.file_store.empty() &&
      (config.master_addr.empty() || config.master_port == 0)) {
    throw ConfigError(
        StrCat("WORLD_SIZE=", config.world_size,
               " but neither MASTER_ADDR and MASTER_PORT nor a rendezvous file is set"));
  }
  return config;
}

std::string RankDevice(const std::string& device, const DistributedConfig& config) {
  if (device == "cuda" && config.world_size > 1) {
    return StrCat("cuda:", config.local_rank);
  }
  return device;
}

ProcessGroup::ProcessGroup(const DistributedConfig& config, std::string backend,
                           std::unique_ptr<Impl> impl)
    : config_(config), backend_(std::move(backend)), impl_(std::move(impl)) {}

ProcessGroup::~ProcessGroup() = default;

std::unique_ptr<ProcessGroup> ProcessGroup::Create(const DistributedConfig& config,
                                                   const std::string& device) {
  auto impl = std::make_unique<Impl>();
  const auto timeout = std::chrono::milliseconds(1000LL * config.timeout_seconds);
  try {
    if (!config.file_store.empty()) {
      impl->store = c10::make_intrusive<c10d::FileStore>(config.file_store, config.world_size);
    } else {
      c10d::TCPStoreOptions options;
      options.port = static_cast<uint16_t>(config.master_port);
      options.isServer = config.rank == 0;
      options.numWorkers = config.world_size;
      options.waitWorkers = true;
      options.timeout = timeout;
      impl->store = c10::make_intrusive<c10d::TCPStore>(config.master_addr, options);
    }
    impl->store->setTimeout(timeout);
    std::string backend = "gloo";
    if (IsCudaDevice(device)) {
#ifdef USE_C10D_NCCL
      // A clear error naming the device when there is no GPU (or not that many), before NCCL.
      impl->device = ParseDevice(device);
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = timeout;
      impl->nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl->store, config.rank,
                                                               config.world_size, options);
      impl->use_nccl = true;
      backend = "nccl";
#else
      throw ConfigError("device " + device +
                        ": this libtorch has no NCCL, so CUDA ranks cannot all-reduce");
#endif
    }
    if (!impl->use_nccl) {
      auto options = c10d::ProcessGroupGloo::Options::create(timeout);
      const std::string ifname = EnvString("GLOO_SOCKET_IFNAME");
      options->devices.push_back(ifname.empty()
                                     ? c10d::ProcessGroupGloo::createDefaultDevice()
                                     : c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      impl->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(impl->store, config.rank,
                                                               config.world_size, options);
    }
    auto group = std::unique_ptr<ProcessGroup>(new ProcessGroup(config, backend, std::move(impl)));
    group->Barrier();
    return group;
  } catch (const c10::Error& e) {
    throw Error(StrCat(
        "joining the process group as rank ", config.rank, " of ", config.world_size, " (",
        (config.file_store.empty() ? StrCat("tcp ", config.master_addr, ":", config.master_port)
                                   : "file " + config.file_store),
        ") failed: ", e.what_without_backtrace()));
  }
}

void ProcessGroup::Barrier() {
  torch::Tensor token = torch::zeros({1}, torch::TensorOptions().device(impl_->device));
  AllReduceSum(*this, token);
}

bool ProcessGroup::AnyTrue(bool flag) {
  torch::Tensor value =
      torch::full({1}, flag ? 1.0f : 0.0f, torch::TensorOptions().device(impl_->device));
  AllReduceSum(*this, value);
  return value.to(torch::kCPU).item<float>() > 0.5f;
}

std::string ProcessGroup::BroadcastString(const std::string& text) {
  torch::Tensor size = torch::full({1}, static_cast<int64_t>(text.size()),
                                   torch::TensorOptions().dtype(torch::kInt64));
  size = size.to(impl_->device);
  Broadcast(*this, size);
  const int64_t n = size.to(torch::kCPU).item<int64_t>();
  torch::Tensor bytes = torch::zeros({std::max<int64_t>(n, 1)}, torch::kUInt8);
  if (rank() == 0 && n > 0) std::memcpy(bytes.data_ptr<uint8_t>(), text.data(), text.size());
  bytes = bytes.to(impl_->device);
  Broadcast(*this, bytes);
  const torch::Tensor back = bytes.to(torch::kCPU).contiguous();
  return std::string(reinterpret_cast<const char*>(back.data_ptr<uint8_t>()),
                     static_cast<size_t>(n));
}

void AllReduceSum(ProcessGroup& group, torch::Tensor& tensor) {
  ProcessGroup::Impl& impl = group.impl();
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::SUM;
#ifdef USE_C10D_NCCL
  if (impl.use_nccl) {
    // NCCL takes CUDA tensors only: a CPU tensor (loss sums, flags) goes through the device.
    std::vector<torch::Tensor> list = {tensor.to(impl.device)};
    impl.nccl->allreduce(list, options)->wait();
    if (!tensor.is_same(list[0])) tensor.copy_(list[0]);
    return;
  }
#endif
  std::vector<torch::Tensor> list = {tensor};
  impl.gloo->allreduce(list, options)->wait();
}

void Broadcast(ProcessGroup& group, torch::Tensor& tensor) {
  ProcessGroup::Impl& impl = group.impl();
  c10d::BroadcastOptions options;
  options.rootRank = 0;
#ifdef USE_C10D_NCCL
  if (impl.use_nccl) {
    std::vector<torch::Tensor> list = {tensor.to(impl.device)};
    impl.nccl->broadcast(list, options)->wait();
    if (!tensor.is_same(list[0])) tensor.copy_(list[0]);
    return;
  }
#endif
  std::vector<torch::Tensor> list = {tensor};
  impl.gloo->broadcast(list, options)->wait();
}

namespace {

torch::Tensor Flatten(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> flat;
  flat.reserve(tensors.size());
  for (const torch::Tensor& t : tensors) flat.push_back(t.detach().reshape({-1}));
  return torch::cat(flat).contiguous();
}

void Unflatten(const torch::Tensor& flat, const std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (const torch::Tensor& t : tensors) {
    const int64_t n = t.numel();
    t.copy_(flat.slice(0, offset, offset + n).view(t.sizes()));
    offset += n;
  }
}

}  // namespace

void AllReduceSumFlat(ProcessGroup& group, const std::vector<torch::Tensor>& tensors) {
  if (tensors.empty()) return;
  torch::Tensor flat = Flatten(tensors);
  AllReduceSum(group, flat);
  Unflatten(flat, tensors);
}

void BroadcastFlat(ProcessGroup& group, const std::vector<torch::Tensor>& tensors) {
  if (tensors.empty()) return;
  torch::Tensor flat = Flatten(tensors);
  Broadcast(group, flat);
  Unflatten(flat, tensors);
}

}  // namespace tengen::nn
