#pragma once
// The exporter's snapshot check with libtorch (the CheckSnapshot hook of
// pipeline/exporter.h), in tengen_pipeline_torch so that pipeline itself never links libtorch;
// this header includes no libtorch either.
//
// The check: training.json parses (format "tengen-snapshot" and every field of the right
// type); nn::TorchModel::Load passes (model.json well formed, weights.pt of the recorded size
// and CRC-32, exactly the tensors of the architecture in model.json with their shapes, all
// finite); the net evaluated on fixed positions (an empty board and one with a few stones, of
// size min(9, pos_len)) gives finite outputs, both as stored and with its batch norms folded
// into the convolutions, and the two agree within the tolerance. The last check guards the
// folding that every TorchEvaluator does at load: our model files keep the unfolded weights
// (so the trainer can resume from them and Python can read them as they are), where KataGo's
// exporter writes a separate, already folded inference format.

#include <string>
#include <vector>

#include "nn/torch/model.h"
#include "pipeline/exporter.h"

namespace tengen::pipeline {

CheckSnapshot TorchSnapshotChecker();

// The largest absolute difference between the outputs (policy, value, score, ownership) of
// `model` with batch norms folded and unfolded on the fixed test positions, in fp32 on
// `device`. Throws FormatError when an output is not finite or a difference exceeds
// tolerance * max(1, |unfolded output|).
double CheckFoldedOutputs(const nn::TorchModel& model, const std::string& device, double tolerance);

}  // namespace tengen::pipeline
