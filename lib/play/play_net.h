#pragma once
// The net of the programs that play or analyse with one model (tengen-gtp, tengen-analysis):
// their shared options (model, models_dir, device, precision, channels_last, torch_threads,
// nn_cache_entries, net_ko_input, net_suicide_input) and N search evaluators sharing one batching
// server and one evaluation cache (nn/eval_cache.h), so that N search threads (or analysis workers)
// meet in one batch on the net and never evaluate a position twice while it stays in the cache.
// Without a model, N uniform evaluators (the random net). Torch-free: the program passes the
// LoadModel hook (play/model_registry.h).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nn/batching.h"
#include "nn/eval_cache.h"
#include "nn/features.h"
#include "play/model_registry.h"
#include "search/leaf_evaluator.h"
#include "util/config.h"
#include "util/rng.h"

namespace tengen::play {

void DeclarePlayNetOptions(ConfigSpec& spec);

// The model the options name (model, or the newest in models_dir), or nullopt for neither;
// ConfigError naming the key for a missing directory, an empty models_dir, or both keys given.
std::optional<ModelInfo> ChooseModel(const Config& config);

// Where the net runs, its cache, and the rules it is told, as the options give them.
struct PlayNetSettings {
  std::string device = "cpu";
  int64_t cache_entries = 0;
  nn::RulesInputs rules_inputs;
};
PlayNetSettings PlayNetSettingsFromConfig(const Config& config);

class PlayEvaluators {
 public:
  // `count` evaluators on `model` (uniform ones without a model), batches of up to `count`
  // positions that wait at most max_wait for stragglers, on settings.device with a cache of
  // settings.cache_entries positions (0: none). register_clients: each evaluator is a client
  // of the server for the object's lifetime (search threads that always search); otherwise the
  // caller calls AddClient and RemoveClient around each search.
  PlayEvaluators(const std::optional<ModelInfo>& model, int pos_len,
                 const PlayNetSettings& settings, const LoadModel& load, int count,
                 std::chrono::microseconds max_wait, Rng& seeder, bool register_clients);
  ~PlayEvaluators();
  PlayEvaluators(const PlayEvaluators&) = delete;
  PlayEvaluators& operator=(const PlayEvaluators&) = delete;

  std::vector<search::LeafEvaluator*> evaluators() const;
  nn::BatchingServer* server() const { return server_.get(); }  // null without a model
  nn::EvalCache* cache() const { return cache_.get(); }         // null without one
  std::string model_name() const;                               // "random" without a model

 private:
  std::unique_ptr<nn::BatchingServer> server_;
  std::unique_ptr<nn::EvalCache> cache_;
  std::vector<std::unique_ptr<Rng>> rngs_;
  std::vector<std::unique_ptr<search::LeafEvaluator>> evaluators_;
  bool registered_ = false;
};

}  // namespace tengen::play
