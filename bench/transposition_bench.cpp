// tengen-bench-transpositions: how much of a search tree graph search would merge. Plays games
// with a model (or the random net) as selfplay does (a full search of full_visits with noise
// and forced playouts on a share of the turns, a cheap search of cheap_visits on the others,
// the move drawn at `temperature`), each search on a fresh tree, and after each counts the
// tree's positions held by more than one node (search/transpositions.h). Prints, for full and
// cheap searches, the share of the expanded nodes (net evaluations) that repeated a position
// the tree held already: what graph search would have shared. Search keys are
// search::SearchParams' defaults, selfplay's.
//
//   build/release/bin/tengen-bench-transpositions --model nets/NAME [--games 4]

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "go/game.h"
#include "play/play_net.h"
#include "play/rules_config.h"
#include "search/mcts.h"
#include "util/config.h"
#include "util/program.h"
#include "util/rng.h"
#ifdef TENGEN_WITH_TORCH
#include "play/torch/torch_loader.h"
#endif

namespace tengen {
namespace {

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-bench-transpositions",
                  "Share of a search tree's nodes and visits that repeat a position by another "
                  "move order, in selfplay-like games.");
  play::DeclareRulesOptions(spec);
  play::DeclarePlayNetOptions(spec);
  spec.Int("board_size", 9, go::kMinSize, go::kMaxSize, "board size");
  spec.Int("games", 4, 1, 10000, "games to play");
  spec.Int("full_visits", 200, 1, 1000000, "visits of a full search");
  spec.Int("cheap_visits", 50, 1, 1000000, "visits of a cheap search");
  spec.Double("full_share", 0.25, 0, 1, "share of the turns with a full search");
  spec.Double("temperature", 0.5, 0, 10, "temperature of the move drawn from a search");
  spec.Double("max_moves_per_area", 4.0, 0.1, 100, "move cap as a multiple of the board area");
  spec.Int("seed", 1, 0, kMaxSeed, "random seed (0: a fresh random seed)");
  return spec;
}

// The counts of one kind of search, summed.
struct Tally {
  int64_t searches = 0;
  int64_t expanded = 0;
  int64_t repeated = 0;

  void Add(const search::TreeTranspositions& counts) {
    ++searches;
    expanded += counts.expanded;
    repeated += counts.expanded - counts.distinct;
  }
  void Print(const char* kind, int visits_per_search) const {
    if (searches == 0) return;
    std::printf("%-6s %7d %9lld %13.1f %16.2f%%\n", kind, visits_per_search,
                static_cast<long long>(searches), static_cast<double>(expanded) / searches,
                100.0 * static_cast<double>(repeated) / static_cast<double>(expanded));
  }
};

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  const std::optional<play::ModelInfo> model = play::ChooseModel(config);
  const int size = static_cast<int>(config.GetInt("board_size"));
  play::LoadModel load;
#ifdef TENGEN_WITH_TORCH
  load = play::PlayNetLoader(config, 1);
#endif
  Rng rng(SeedOrFresh(config.GetInt("seed")));
  play::PlayNetSettings settings = play::PlayNetSettingsFromConfig(config);
  settings.cache_entries = 0;
  const play::PlayEvaluators evaluators(model, size, settings, load, 1,
                                        std::chrono::microseconds(0), rng,
                                        /*register_clients=*/true);
  const int full_visits = static_cast<int>(config.GetInt("full_visits"));
  const int cheap_visits = static_cast<int>(config.GetInt("cheap_visits"));
  const double full_share = config.GetDouble("full_share");
  const double temperature = config.GetDouble("temperature");
  const int max_moves =
      static_cast<int>(config.GetDouble("max_moves_per_area") * static_cast<double>(size * size));
  Tally full, cheap;
  for (int64_t game = 0; game < config.GetInt("games"); ++game) {
    search::Search search(search::SearchParams(), *evaluators.evaluators()[0], rng);
    search.SetPosition(go::GameState(size, play::RulesFromConfig(config), max_moves));
    while (!search.root_state().IsOver()) {
      const bool is_full = rng.UniformDouble() < full_share;
      search.ClearTree();
      const search::SearchResult result = search.Run(is_full ? full_visits : cheap_visits, is_full);
      (is_full ? full : cheap).Add(search.CountTranspositions());
      search.Advance({result.ChooseMove(temperature, rng), search.root_state().to_move()});
    }
    std::fprintf(stderr, "game %lld of %lld: %d moves\n", static_cast<long long>(game + 1),
                 static_cast<long long>(config.GetInt("games")),
                 static_cast<int>(search.root_state().moves().size()));
  }
  std::printf("model %s, %dx%d\n", evaluators.model_name().c_str(), size, size);
  std::printf("%-6s %7s %9s %13s %17s\n", "search", "visits", "searches", "nodes/search",
              "repeated nodes");
  full.Print("full", full_visits);
  cheap.Print("cheap", cheap_visits);
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-bench-transpositions",
                            [&] { return tengen::Main(argc, argv); });
}
