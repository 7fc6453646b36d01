#pragma once
// Which net selfplay (and later the gatekeeper) plays with: the newest model directory in
// models/. Model directories are named <run>-<trainingname>-s<samples>-d<rows> (docs/TRAINING.md);
// "newest" is the largest samples number s<N>, ties broken by the directory's modification
// time. A directory whose name does not follow the pattern (a freshly initialised net written
// by tengen-new-model under any name) counts as s0, so a trained model always wins over it.
// Temporaries (names containing ".tmp") and plain files are skipped.
//
// Loading is behind a hook: pipeline does not link libtorch, so the program passes a LoadModel
// function (wired to nn/torch by programs that link it). Without a model the evaluator is the
// uniform random one, named "random".

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nn/evaluator.h"

namespace tengen::play {

struct ModelInfo {
  std::string name;  // the directory name, which is the model's name
  std::string path;  // models_dir/name
  int64_t samples = 0;
  int64_t rows = 0;
  std::time_t mtime = 0;
};

// Parses "<run>-<training>-s<samples>-d<rows>" (the last two dash-separated fields); false
// when the name does not end that way.
bool ParseModelName(const std::string& name, int64_t* samples, int64_t* rows);

// Every model in models_dir, newest first (the order above; temporaries and plain files
// skipped); empty when there is none or the directory is missing. Throws IoError when the
// directory exists but cannot be listed. Selfplay walks it to fall back to an older model when
// the newest fails to load.
std::vector<ModelInfo> ListModelsNewestFirst(const std::string& models_dir);

// The first of ListModelsNewestFirst, or nullopt when there is none (or the directory is
// missing). Throws IoError when the directory exists but cannot be listed.
std::optional<ModelInfo> FindNewestModel(const std::string& models_dir);

// Builds an evaluator for a model on one device ("cpu", "cuda", "cuda:N"); pos_len is the
// selfplay pos_len (the net must accept it). Selfplay calls it once per entry of `devices`,
// so a list naming one device twice gets two independent evaluators.
// HOOK: programs that link nn/torch pass a function that loads the model with TorchModel::Load
// and wraps it in a TorchEvaluator on that device; an empty LoadModel means "no libtorch in
// this binary".
using LoadModel = std::function<std::unique_ptr<nn::Evaluator>(const ModelInfo& model, int pos_len,
                                                               const std::string& device)>;

// nn::RandomNetEvaluator (named "random") when model is nullopt; load(*model, pos_len, device)
// otherwise. Throws Error when there is a model but no loader ("built without libtorch"), and
// rethrows the loader's errors with the model's path and the device added.
std::unique_ptr<nn::Evaluator> MakeEvaluator(const std::optional<ModelInfo>& model, int pos_len,
                                             const std::string& device, const LoadModel& load);

}  // namespace tengen::play
