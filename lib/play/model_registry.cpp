#include "play/model_registry.h"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cctype>
#include <tuple>
#include <utility>

#include "util/error.h"
#include "util/publish.h"

namespace tengen::play {
namespace {

namespace fs = boost::filesystem;

// Parses `text` (digits only) into *value; false for anything else or on overflow.
bool ParseCount(const std::string& text, int64_t* value) {
  if (text.empty() || text.size() > 18) return false;
  int64_t v = 0;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

}  // namespace

bool ParseModelName(const std::string& name, int64_t* samples, int64_t* rows) {
  const size_t d_dash = name.rfind('-');
  if (d_dash == std::string::npos || d_dash == 0) return false;
  const size_t s_dash = name.rfind('-', d_dash - 1);
  if (s_dash == std::string::npos) return false;
  const std::string s_field = name.substr(s_dash + 1, d_dash - s_dash - 1);
  const std::string d_field = name.substr(d_dash + 1);
  if (s_field.size() < 2 || s_field[0] != 's' || d_field.size() < 2 || d_field[0] != 'd')
    return false;
  int64_t s = 0, d = 0;
  if (!ParseCount(s_field.substr(1), &s) || !ParseCount(d_field.substr(1), &d)) return false;
  *samples = s;
  *rows = d;
  return true;
}

std::vector<ModelInfo> ListModelsNewestFirst(const std::string& models_dir) {
  std::vector<ModelInfo> models;
  for (const std::string& name : ListPublished(models_dir)) {
    const fs::path path = fs::path(models_dir) / name;
    boost::system::error_code error;
    // A model can vanish between listing and stat (moved away by the gatekeeper): skip it.
    if (!fs::is_directory(path, error) || error) continue;
    ModelInfo info;
    info.name = name;
    info.path = path.string();
    if (!ParseModelName(name, &info.samples, &info.rows)) info.samples = info.rows = 0;
    info.mtime = fs::last_write_time(path, error);
    if (error) continue;
    models.push_back(info);
  }
  std::sort(models.begin(), models.end(), [](const ModelInfo& a, const ModelInfo& b) {
    return std::tie(a.samples, a.mtime, a.name) > std::tie(b.samples, b.mtime, b.name);
  });
  return models;
}

std::optional<ModelInfo> FindNewestModel(const std::string& models_dir) {
  std::vector<ModelInfo> models = ListModelsNewestFirst(models_dir);
  if (models.empty()) return std::nullopt;
  return std::move(models.front());
}

std::unique_ptr<nn::Evaluator> MakeEvaluator(const std::optional<ModelInfo>& model, int pos_len,
                                             const std::string& device, const LoadModel& load) {
  if (!model) return std::make_unique<nn::RandomNetEvaluator>(pos_len);
  if (!load)
    throw Error("model '" + model->path +
                "' found, but this binary was built without libtorch and cannot run a net "
                "(rebuild with libtorch, or remove the model directory to play with the random "
                "net)");
  try {
    std::unique_ptr<nn::Evaluator> evaluator = load(*model, pos_len, device);
    if (!evaluator) throw Error("the loader returned no evaluator");
    return evaluator;
  } catch (const ConfigError&) {
    throw;  // a bad device or precision is the user's, and names itself
  } catch (const Error& e) {
    throw Error("cannot load model '" + model->path + "' on " + device + ": " + e.what());
  }
}

}  // namespace tengen::play
