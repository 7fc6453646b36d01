#pragma once
// The c10d side of nn/torch/distributed.h, for code inside nn/torch only.

#include <torch/torch.h>

#include <vector>

#include "nn/torch/distributed.h"

namespace tengen::nn {

// Sums a contiguous tensor over all ranks, in place. (c10d's tensor lists mean one tensor per
// local device, all of one shape, so callers flatten many tensors into one first:
// AllReduceSumFlat.)
void AllReduceSum(ProcessGroup& group, torch::Tensor& tensor);
// Rank 0's values into every rank's contiguous tensor, in place.
void Broadcast(ProcessGroup& group, torch::Tensor& tensor);
// The same for a list of tensors of any shapes (and one dtype), through one flat buffer.
void AllReduceSumFlat(ProcessGroup& group, const std::vector<torch::Tensor>& tensors);
void BroadcastFlat(ProcessGroup& group, const std::vector<torch::Tensor>& tensors);

}  // namespace tengen::nn
