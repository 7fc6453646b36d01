#pragma once
// Data parallelism across processes and machines with torch's c10d, behind a header with no
// torch types: Gloo on CPU, NCCL on CUDA (when libtorch was built with it). Every rank trains on
// its share of the global batch; gradients are summed with an all-reduce (nn/torch/trainer.h),
// so after each step every rank holds the same weights and no parameter server is needed
// (docs/TRAINING.md explains the choice).
//
// Rendezvous, in this order:
//   - file store: DistributedConfig::file_store names a file on a filesystem every rank sees
//     (the shared base directory); it must not exist before the launch (a fresh name per
//     launch: scripts/train.sh makes one);
//   - TCP store: MASTER_ADDR and MASTER_PORT, rank 0 serving it (what torchrun sets).
// RANK, WORLD_SIZE and LOCAL_RANK come from the environment, as torchrun sets them, so
// `torchrun --no-python tengen-trainer ...` works.

#include <memory>
#include <string>

namespace tengen::nn {

struct DistributedConfig {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;  // ranks on this machine (LOCAL_WORLD_SIZE)
  std::string master_addr;   // TCP store host (MASTER_ADDR)
  int master_port = 0;       // MASTER_PORT
  std::string file_store;    // file store path; wins over the TCP store when set
  int timeout_seconds = 600;
};

// Reads RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT; missing ones keep
// the defaults above (one process). Throws ConfigError naming the variable for a value that is not
// a number or out of range, and when WORLD_SIZE > 1 gives no way to meet (no
// MASTER_ADDR/MASTER_PORT and no file store).
DistributedConfig DistributedConfigFromEnvironment(const std::string& file_store);

// The device a rank trains on: "cuda:<LOCAL_RANK>" when `device` is "cuda" and there are several
// ranks, otherwise `device` itself.
std::string RankDevice(const std::string& device, const DistributedConfig& config);

class ProcessGroup {
 public:
  // Joins the group (blocks until every rank has joined or the timeout passes; throws Error
  // then). backend: "gloo" for "cpu" devices, "nccl" for CUDA ones.
  static std::unique_ptr<ProcessGroup> Create(const DistributedConfig& config,
                                              const std::string& device);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return config_.rank; }
  int world_size() const { return config_.world_size; }
  const std::string& backend() const { return backend_; }
  void Barrier();
  // True on every rank when `flag` is true on any rank (a stop request, an exhausted plan).
  bool AnyTrue(bool flag);
  // Rank 0's `text` on every rank.
  std::string BroadcastString(const std::string& text);

  struct Impl;  // nn/torch code reaches the c10d group through it (distributed.cpp)
  Impl& impl() { return *impl_; }

 private:
  ProcessGroup(const DistributedConfig& config, std::string backend, std::unique_ptr<Impl> impl);
  DistributedConfig config_;
  std::string backend_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tengen::nn
