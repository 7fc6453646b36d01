#include "pipeline/torch/torch_export.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "go/game.h"
#include "nn/features.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

using nlohmann::json;

constexpr char kTrainingFile[] = "training.json";
constexpr char kSnapshotFormat[] = "tengen-snapshot";
// The test positions are on a board of this size, or pos_len when that is smaller.
constexpr int kTestBoardSize = 9;

template <typename T>
T Field(const json& object, const char* key, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) throw FormatError(path + ": missing field '" + key + "'");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw FormatError(path + ": field '" + key + "' has the wrong type");
  }
}

SnapshotTraining ParseTraining(const std::string& text, const std::string& path) {
  json training;
  try {
    training = json::parse(text);
  } catch (const json::exception& e) {
    throw FormatError(path + ": bad JSON: " + e.what());
  }
  if (!training.is_object()) throw FormatError(path + ": not a JSON object");
  if (Field<std::string>(training, "format", path) != kSnapshotFormat)
    throw FormatError(path + ": format is not '" + std::string(kSnapshotFormat) + "'");
  SnapshotTraining t;
  t.run = Field<std::string>(training, "run", path);
  t.training_name = Field<std::string>(training, "training_name", path);
  t.samples = Field<int64_t>(training, "samples", path);
  t.rows = Field<int64_t>(training, "rows", path);
  if (t.samples < 0 || t.rows < 0) throw FormatError(path + ": negative samples or rows");
  t.checkpoint = Field<std::string>(training, "checkpoint", path);
  t.created_utc = Field<std::string>(training, "created_utc", path);
  return t;
}

// Two positions for pos_len: an empty board (black to move) and one with four stones.
nn::EvalBatch TestPositions(int pos_len) {
  const int size = std::min(kTestBoardSize, pos_len);
  if (size < go::kMinSize)
    throw FormatError(StrCat("pos_len ", pos_len, " is too small for a board"));
  nn::EvalBatch batch;
  batch.Resize(2, pos_len);
  go::GameState empty(size);
  nn::FillFeatures(empty, pos_len, 0, batch.SpatialRow(0), batch.GlobalRow(0));
  go::GameState stones(size);
  const int far = size - 3 >= 0 ? size - 3 : 0;
  const int near = std::min(2, size - 1);
  stones.TryPlay({go::MakeLoc(near, near, size), go::Color::kBlack});
  stones.TryPlay({go::MakeLoc(far, far, size), go::Color::kWhite});
  stones.TryPlay({go::MakeLoc(near, far, size), go::Color::kBlack});
  stones.TryPlay({go::MakeLoc(far, near, size), go::Color::kWhite});
  nn::FillFeatures(stones, pos_len, 0, batch.SpatialRow(1), batch.GlobalRow(1));
  return batch;
}

nn::EvalOutput Evaluate(const nn::TorchModel& model, const std::string& device, bool fold,
                        const nn::EvalBatch& batch) {
  nn::TorchEvaluatorOptions options;
  options.device = device;
  options.precision = "fp32";
  options.fold_batchnorm = fold;
  options.channels_last = false;
  nn::TorchEvaluator evaluator(model, options);
  nn::EvalOutput output;
  evaluator.Evaluate(batch, &output);
  return output;
}

}  // namespace

double CheckFoldedOutputs(const nn::TorchModel& model, const std::string& device,
                          double tolerance) {
  const nn::EvalBatch batch = TestPositions(model.config().pos_len);
  const nn::EvalOutput plain = Evaluate(model, device, false, batch);
  const nn::EvalOutput folded = Evaluate(model, device, true, batch);
  double max_difference = 0;
  const auto compare = [&](const std::vector<float>& a, const std::vector<float>& b,
                           const char* head) {
    TENGEN_CHECK(a.size() == b.size(), "folded and unfolded outputs differ in size");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
        throw FormatError("model " + model.config().name + ": the " + head +
                          " output on the test positions is NaN or infinite");
      const double difference = std::fabs(static_cast<double>(a[i]) - b[i]);
      max_difference = std::max(max_difference, difference);
      if (difference > tolerance * std::max(1.0, std::fabs(static_cast<double>(a[i]))))
        throw FormatError(StrCat("model ", model.config().name,
                                 ": folding batch norms changes the ", head, " output by ",
                                 std::to_string(difference), " (unfolded ", std::to_string(a[i]),
                                 ", tolerance ", std::to_string(tolerance), ")"));
    }
  };
  compare(plain.policy_logits, folded.policy_logits, "policy");
  compare(plain.value_logits, folded.value_logits, "value");
  compare(plain.score, folded.score, "score");
  compare(plain.ownership, folded.ownership, "ownership");
  return max_difference;
}

CheckSnapshot TorchSnapshotChecker() {
  return [](const std::string& dir, const std::string& name,
            const SnapshotCheckOptions& options) -> CheckedSnapshot {
    CheckedSnapshot checked;
    const std::string training_path = dir + "/" + kTrainingFile;
    checked.training_json = ReadFile(training_path);
    checked.training = ParseTraining(checked.training_json, training_path);

    // The metadata the load is checked against: the architecture, and the size and CRC of
    // the weights that Load verifies.
    const std::string meta_path = dir + "/" + nn::kModelMetadataFile;
    const nn::ModelConfig meta = nn::TorchModel::ReadConfig(dir);
    const json meta_json = json::parse(ReadFile(meta_path));  // ReadConfig parsed it already
    checked.weights_crc32 = Field<std::string>(meta_json, "weights_crc32", meta_path);
    checked.weights_bytes = Field<int64_t>(meta_json, "weights_bytes", meta_path);

    std::shared_ptr<nn::TorchModel> model = nn::TorchModel::Load(dir, options.device);
    if (model->config().Architecture() != meta.Architecture())
      throw FormatError(meta_path + ": architecture " + meta.Architecture() +
                        " but the loaded net is " + model->config().Architecture());
    checked.model_name = model->config().name;
    checked.architecture = model->config().Architecture();
    checked.feature_version = model->config().feature_version;
    checked.pos_len = model->config().pos_len;
    model->set_name(name);
    checked.fold_max_difference =
        CheckFoldedOutputs(*model, options.device, options.fold_tolerance);
    checked.save = [model](const std::string& dest,
                           const std::map<std::string, std::string>& extra) {
      model->Save(dest, extra);
    };
    return checked;
  };
}

}  // namespace tengen::pipeline
