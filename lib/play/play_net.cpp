#include "play/play_net.h"

#include <boost/filesystem.hpp>

#include "go/rules.h"
#include "play/game_options.h"
#include "play/net_leaf_evaluator.h"
#include "util/error.h"

namespace tengen::play {
namespace {

// 2^16 positions: 43 MiB for a net of pos_len 9, 183 MiB for 19.
constexpr int64_t kDefaultCacheEntries = int64_t{1} << 16;

}  // namespace

void DeclarePlayNetOptions(ConfigSpec& spec) {
  spec.String("model", "", "model directory to play with (models/<name>/)");
  spec.String("models_dir", "", "play the newest model in this directory (not with model)");
  spec.String("device", "cpu", "where the net runs: cpu, cuda or cuda:N");
  DeclarePlayPrecisionOption(spec);
  spec.Int("torch_threads", 1, 0, 256,
           "torch intra-op threads for a net on a CPU (0: torch's default, every core)");
  spec.Int("nn_cache_entries", kDefaultCacheEntries, 0, int64_t{1} << 30,
           "positions kept in the cache of net evaluations (0: no cache)");
  spec.Choice("net_ko_input", "positional", {"positional", "simple", "game"},
              "the ko rule the net is told, whatever the game's (game: the game's); a net reads "
              "only the rules its selfplay played, and tengen's plays positional superko");
  spec.Choice("net_suicide_input", "false", {"false", "true", "game"},
              "whether the net is told that multi-stone suicide is legal, whatever the game's "
              "rules (game: as they say); tengen's selfplay plays without it");
}

PlayNetSettings PlayNetSettingsFromConfig(const Config& config) {
  PlayNetSettings settings;
  settings.device = config.GetString("device");
  settings.cache_entries = config.GetInt("nn_cache_entries");
  const std::string ko = config.GetString("net_ko_input");
  if (ko != "game") {
    go::KoRule rule;
    if (!go::ParseKoRule(ko, &rule)) throw ConfigError("net_ko_input: '" + ko + "'");
    settings.rules_inputs.ko = rule;
  }
  const std::string suicide = config.GetString("net_suicide_input");
  if (suicide != "game") settings.rules_inputs.suicide = suicide == "true";
  return settings;
}

std::optional<ModelInfo> ChooseModel(const Config& config) {
  const std::string model = config.GetString("model");
  const std::string models_dir = config.GetString("models_dir");
  if (!model.empty() && !models_dir.empty()) {
    throw ConfigError("model and models_dir: give one of them, not both");
  }
  if (!model.empty()) {
    if (!boost::filesystem::is_directory(model)) {
      throw ConfigError("model: '" + model + "' is not a directory");
    }
    ModelInfo info;
    info.path = model;
    info.name = boost::filesystem::path(model).filename().string();
    if (info.name.empty() || info.name == ".") {
      info.name = boost::filesystem::path(model).parent_path().filename().string();
    }
    return info;
  }
  if (!models_dir.empty()) {
    if (!boost::filesystem::is_directory(models_dir)) {
      throw ConfigError("models_dir: '" + models_dir + "' is not a directory");
    }
    std::optional<ModelInfo> newest = FindNewestModel(models_dir);
    if (!newest) throw ConfigError("models_dir: no model in '" + models_dir + "'");
    return newest;
  }
  return std::nullopt;
}

PlayEvaluators::PlayEvaluators(const std::optional<ModelInfo>& model, int pos_len,
                               const PlayNetSettings& settings, const LoadModel& load, int count,
                               std::chrono::microseconds max_wait, Rng& seeder,
                               bool register_clients) {
  if (!model) {
    for (int i = 0; i < count; ++i) {
      evaluators_.push_back(std::make_unique<search::UniformEvaluator>());
    }
    return;
  }
  nn::BatchingOptions batching;
  batching.max_batch_size = count;
  batching.max_wait = max_wait;
  server_ = std::make_unique<nn::BatchingServer>(
      MakeEvaluator(model, pos_len, settings.device, load), batching);
  if (settings.cache_entries > 0)
    cache_ = std::make_unique<nn::EvalCache>(settings.cache_entries, server_->pos_len());
  for (int i = 0; i < count; ++i) {
    rngs_.push_back(std::make_unique<Rng>(seeder.Next()));
    evaluators_.push_back(
        std::make_unique<NetLeafEvaluator>(*server_, *rngs_.back(), /*random_symmetry=*/true,
                                           /*fiber=*/nullptr, cache_.get(), settings.rules_inputs));
    if (register_clients) server_->AddClient();
  }
  registered_ = register_clients;
}

PlayEvaluators::~PlayEvaluators() {
  if (!registered_) return;
  for (size_t i = 0; i < evaluators_.size(); ++i) server_->RemoveClient();
}

std::vector<search::LeafEvaluator*> PlayEvaluators::evaluators() const {
  std::vector<search::LeafEvaluator*> out;
  for (const auto& evaluator : evaluators_) out.push_back(evaluator.get());
  return out;
}

std::string PlayEvaluators::model_name() const {
  return server_ ? server_->model_name() : std::string("random");
}

}  // namespace tengen::play
