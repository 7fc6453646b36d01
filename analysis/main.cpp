// tengen-analysis: KataGo's JSON analysis engine on stdin/stdout (one query per line in, one
// response per line out), for KaTrain and for scripts that analyse whole game records. The
// protocol lives in analysis/analysis_engine.h; this file wires the net (one batching server
// shared by the analysis workers) and the options, its own or KataGo's command line
// (analysis/katago_args.h). docs/ANALYSIS.md says what it supports.

#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_engine.h"
#include "analysis/katago_args.h"
#include "gtp/search_player.h"
#include "nn/eval_cache.h"
#include "play/play_net.h"
#include "util/config.h"
#include "util/error.h"
#include "util/log.h"
#include "util/program.h"
#include "util/rng.h"
#include "util/version.h"
#ifdef TENGEN_WITH_TORCH
#include "play/torch/torch_loader.h"
#endif

namespace tengen {
namespace {

constexpr int64_t kMaxVisits = 100000000;
constexpr int64_t kMaxWorkers = 1024;
// The workers' rows arrive close together; one that lags is not worth a longer wait.
constexpr std::chrono::microseconds kBatchWait{1000};

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-analysis",
                  "KataGo's JSON analysis engine on stdin/stdout: one query per line in, one "
                  "response per line out (docs/ANALYSIS.md), with a model (--model DIR), the "
                  "newest model in --models-dir DIR, or the uniform random net.");
  play::DeclarePlayNetOptions(spec);
  spec.Int("pos_len", 0, 0, go::kMaxSize,
           "planes the net runs on, and so the largest board a query may have (0: the model's "
           "pos_len, 19 without a model)");
  spec.Int("analysis_threads", 16, 1, kMaxWorkers,
           "positions searched at once, their leaves evaluated in one batch on the net");
  spec.Int("max_visits", 500, 1, kMaxVisits,
           "root visits per position unless a query's maxVisits says otherwise");
  spec.Double("max_time", 0, 0, 1e9,
              "seconds per position unless a query's overrideSettings.maxTime says otherwise "
              "(0: no limit)");
  spec.Choice("report_analysis_winrates_as", "BLACK", {"BLACK", "WHITE", "SIDETOMOVE"},
              "whose view winrates, scores and ownership are reported from (queries may "
              "override it)");
  spec.Int("analysis_pv_len", 15, 1, 1000, "moves per principal variation");
  spec.Int("root_symmetries", 1, 1, 8,
           "orientations of the board the root's net evaluation averages");
  spec.Int("seed", 0, 0, kMaxSeed, "random seed (0: a fresh random seed)");
  return spec;
}

// Each setting taken from KataGo's config or -override-config, parsed on its own first, so that
// a bad value is named as the user wrote it (KataGo's key, the file) and not as its translation.
void CheckTranslatedSettings(const ConfigSpec& spec, const analysis::TranslatedArgs& translated,
                             const char* program) {
  for (const analysis::TranslatedSetting& setting : translated.settings) {
    Config scratch(spec);
    const char* const one[] = {program, "--set", setting.assignment.c_str()};
    try {
      ParseCommandLine(spec, 3, one, scratch);
    } catch (const ConfigError& e) {
      throw ConfigError(setting.origin + ": " + e.what());
    }
  }
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  // The protocol owns stdout: everything else goes to stderr.
  Logger logger(LogLevel::kInfo);
  const std::vector<std::string> given(argv + 1, argv + argc);
  if (analysis::IsKataGoCommandLine(given)) {
    // Started as KataGo would be (KaTrain's local engine): its options, translated.
    const analysis::TranslatedArgs translated = analysis::TranslateKataGoArgs(given);
    for (const std::string& ignored : translated.ignored) {
      logger.Info("KataGo setting not used: " + ignored);
    }
    CheckTranslatedSettings(spec, translated, argv[0]);
    std::vector<const char*> args = {argv[0]};
    for (const std::string& arg : translated.args) args.push_back(arg.c_str());
    ParseCommandLine(spec, static_cast<int>(args.size()), args.data(), config);
  } else if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) {
    return 0;
  }
  const std::optional<play::ModelInfo> model = play::ChooseModel(config);
  const int workers = static_cast<int>(config.GetInt("analysis_threads"));

  int pos_len = static_cast<int>(config.GetInt("pos_len"));
  play::LoadModel load;
#ifdef TENGEN_WITH_TORCH
  load = play::PlayNetLoader(config, workers);
  if (pos_len == 0 && model) pos_len = nn::TorchModel::ReadConfig(model->path).pos_len;
#endif
  if (pos_len == 0) pos_len = go::kMaxSize;
  const uint64_t seed = SeedOrFresh(config.GetInt("seed"));
  Rng seeder(seed);
  const play::PlayEvaluators evaluators(model, pos_len, play::PlayNetSettingsFromConfig(config),
                                        load, workers, kBatchWait, seeder,
                                        /*register_clients=*/false);

  analysis::AnalysisEngineOptions options;
  options.defaults.max_visits = static_cast<int>(config.GetInt("max_visits"));
  options.defaults.max_time = config.GetDouble("max_time");
  options.defaults.perspective =
      analysis::ParsePerspective(config.GetString("report_analysis_winrates_as"));
  options.defaults.search = gtp::PlaySearchParams();
  options.defaults.search.root_symmetries = static_cast<int>(config.GetInt("root_symmetries"));
  options.defaults.max_board_size = pos_len;
  options.defaults.max_pv_length = static_cast<int>(config.GetInt("analysis_pv_len"));
  options.version = CodeVersion();
  options.seed = seeder.Next();
  if (nn::EvalCache* cache = evaluators.cache()) options.clear_cache = [cache] { cache->Clear(); };
  analysis::WorkerHooks hooks;
  if (nn::BatchingServer* server = evaluators.server()) {
    hooks.begin = [server] { server->AddClient(); };
    hooks.end = [server] { server->RemoveClient(); };
  }
  logger.Info("tengen-analysis " + std::string(CodeVersion()) + ": model " +
              (model ? model->path : std::string("none (random net)")) + ", pos_len " +
              std::to_string(pos_len) + ", " + std::to_string(workers) +
              " positions at once, seed " + std::to_string(seed));
  analysis::AnalysisEngine engine(
      options, evaluators.evaluators(),
      [](const std::string& line) { std::cout << line << '\n'
                                              << std::flush; }, hooks);
  std::string line;
  while (std::getline(std::cin, line)) engine.Submit(line);
  engine.Finish();
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-analysis", [&] { return tengen::Main(argc, argv); });
}
