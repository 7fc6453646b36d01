// tengen-gtp: a GTP version 2 engine on stdin/stdout that plays with MCTS over a net: a model
// directory (--model DIR), the newest model in a models directory (--models-dir DIR), or,
// with neither, the uniform "random net" (search still reads the board, which is enough to
// check rules and referee code against other engines). The protocol lives in
// gtp/gtp_engine.h, the search player in gtp/search_player.h; this file wires the net (a
// batching server shared by the search threads) and the options.

#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "gtp/gtp_engine.h"
#include "gtp/search_player.h"
#include "play/game_options.h"
#include "play/play_net.h"
#include "play/rules_config.h"
#include "util/config.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/program.h"
#include "util/rng.h"
#include "util/version.h"
#ifdef TENGEN_WITH_TORCH
#include "play/torch/torch_loader.h"
#endif

namespace tengen {
namespace {

constexpr int64_t kMaxMoveCap = 10000;
constexpr int64_t kMaxThreads = 256;
constexpr int64_t kMaxVisits = 100000000;
// Batches from a few search threads arrive together; a straggler is not worth a longer wait.
constexpr std::chrono::microseconds kBatchWait{200};

// The keys of the search player, in --help order; threads is the program's own (a Custom row
// without a reader: it sizes the evaluators and the batch).
OptionTable<gtp::SearchPlayerParams> SearchPlayerOptionTable() {
  using P = gtp::SearchPlayerParams;
  return OptionTable<P>()
      .Int("visits", &P::visits, 0, kMaxVisits,
           "root visits per move over all threads (0: no limit; then seconds_per_move > 0)")
      .Double("seconds_per_move", &P::seconds_per_move, 0, 1e6,
              "time limit per move in seconds (0: none); the GUI's clock also limits it")
      .Custom(
          [](ConfigSpec& spec, const P&) {
            spec.Int("threads", 1, 1, kMaxThreads,
                     "search threads: independent trees whose visits are summed (root "
                     "parallelism), evaluated in shared batches");
          },
          {})
      .Bool("reuse_tree", &P::reuse_tree, "keep the searched subtree between moves")
      .Bool("resign", &P::resign, "resign lost games (off by default)")
      .Double("resign_threshold", &P::resign_threshold, -1, 1,
              "resign below this root value (own view)")
      .Int("resign_turns", &P::resign_turns, 1, 1000, "... for this many own moves in a row")
      .Double("lcb_stdevs", &P::lcb_stdevs, 0, 100,
              "LCB move selection: play the move whose utility is highest this many standard "
              "errors below its mean (0: off, the most visited move)")
      .Double("lcb_min_visit_share", &P::lcb_min_visit_share, 0, 1,
              "... among the moves with at least this share of the most visited move's visits")
      .Int("analysis_visits", &P::analysis_visits, 1, kMaxVisits,
           "root visits at which lz-analyze / kata-analyze stop searching (the tree's memory "
           "grows with them: about 30 KB a visit on 19x19)")
      .Nested(&P::search, play::PlayerSearchOptionTable())
      .Nested(&P::cleanup, OptionTable<gtp::CleanupParams>().Int(
                               "cleanup_playouts", &gtp::CleanupParams::playouts, 1, 100000,
                               "random playouts that find dead stones for kgs-genmove_cleanup"));
}

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-gtp",
                  "A GTP version 2 engine on stdin/stdout: MCTS with a model (--model DIR), the "
                  "newest model in --models-dir DIR, or the uniform random net.");
  play::DeclareRulesOptions(spec);
  play::DeclarePlayNetOptions(spec);
  spec.Int("pos_len", 0, 0, go::kMaxSize,
           "planes the net runs on, and so the largest board boardsize accepts (0: the "
           "model's pos_len, 19 without a model)");
  spec.Int("board_size", 0, 0, go::kMaxSize, "board size at start and clear_board (0: pos_len)");
  SearchPlayerOptionTable().Declare(spec);
  spec.Int("seed", 0, 0, kMaxSeed, "random seed (0: a fresh random seed)");
  spec.Int("max_moves", 0, 0, kMaxMoveCap, "move cap: genmove passes once reached (0: none)");
  spec.Bool("verbose", true, "one line per generated move on stderr");
  spec.String("gtp_version", "",
              "what the version command answers (empty: tengen's code version and the model); "
              "Lizzie reads it as Leela Zero's and needs 0.N with N >= 15, e.g. 0.17");
  return spec;
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  // GTP owns stdout: everything else goes to stderr.
  Logger logger(LogLevel::kInfo);
  const std::optional<play::ModelInfo> model = play::ChooseModel(config);

  int pos_len = static_cast<int>(config.GetInt("pos_len"));
  play::LoadModel load;
#ifdef TENGEN_WITH_TORCH
  load = play::PlayNetLoader(config, static_cast<int>(config.GetInt("threads")));
  if (pos_len == 0 && model) pos_len = nn::TorchModel::ReadConfig(model->path).pos_len;
#endif
  if (pos_len == 0) pos_len = go::kMaxSize;
  int board_size = static_cast<int>(config.GetInt("board_size"));
  if (board_size == 0) board_size = pos_len;
  if (board_size < go::kMinSize || board_size > pos_len) {
    throw ConfigError("board_size: " + std::to_string(board_size) + " is not in " +
                      std::to_string(go::kMinSize) + ".." + std::to_string(pos_len) + " (pos_len " +
                      std::to_string(pos_len) + ")");
  }

  gtp::SearchPlayerParams params;
  SearchPlayerOptionTable().Read(config, &params);
  if (params.visits == 0 && params.seconds_per_move <= 0) {
    throw ConfigError("visits = 0 (no visit limit) needs seconds_per_move > 0");
  }
  const int threads = static_cast<int>(config.GetInt("threads"));
  const uint64_t seed = SeedOrFresh(config.GetInt("seed"));
  Rng seeder(seed);

  // One evaluator per search thread: NetLeafEvaluators sharing one batching server, or the
  // uniform evaluator. Declared before the engine, so they outlive it.
  const play::PlayEvaluators evaluators(model, pos_len, play::PlayNetSettingsFromConfig(config),
                                        load, threads, kBatchWait, seeder,
                                        /*register_clients=*/true);
  const std::string model_name = evaluators.model_name();

  gtp::GtpOptions options;
  options.rules = play::RulesFromConfig(config);
  options.board_size = board_size;
  options.max_board_size = pos_len;
  options.max_moves = static_cast<int>(config.GetInt("max_moves"));
  options.version = config.GetString("gtp_version");
  if (options.version.empty())
    options.version = std::string(CodeVersion()) + " (" + model_name + ")";
  logger.Info("tengen-gtp " + std::string(CodeVersion()) + ": model " +
              (model ? model->path : std::string("none (random net)")) + ", pos_len " +
              std::to_string(pos_len) + ", " + std::to_string(threads) + " thread(s), seed " +
              std::to_string(seed));
  gtp::GtpEngine engine(
      options, std::make_unique<gtp::SearchPlayer>(params, evaluators.evaluators(), seeder.Next(),
                                                   config.GetBool("verbose") ? &logger : nullptr));
  engine.Run(std::cin, std::cout);
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-gtp", [&] { return tengen::Main(argc, argv); });
}
