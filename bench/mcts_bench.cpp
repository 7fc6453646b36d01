// MCTS speed with search::UniformEvaluator: visits per second of whole searches from the empty
// board on 9x9 and 19x19, without noise (cheap) and with noise and forced playouts (full). The
// evaluator is trivial, so this measures the tree, the rules engine and legal-move generation:
// the ceiling search puts on selfplay before a net is in the loop. Prints the median of several
// runs.
//
//   build/release/bin/tengen-bench-mcts [--visits 1600] [--repeats 5]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <vector>

#include "bench_util.h"
#include "go/game.h"
#include "search/leaf_evaluator.h"
#include "search/mcts.h"
#include "util/config.h"
#include "util/program.h"
#include "util/rng.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace tengen;

// One search of `visits` visits from the empty board; returns visits/s.
double VisitsPerSecond(int size, int visits, bool full, Rng& rng) {
  search::UniformEvaluator evaluator;
  search::Search search(search::SearchParams(), evaluator, rng);
  search.SetPosition(go::GameState(size));
  const auto start = Clock::now();
  const search::SearchResult result = search.Run(visits, full);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result.root_visits / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  return RunProgram("tengen-bench-mcts", [&] {
    ConfigSpec spec("tengen-bench-mcts", "MCTS visits/s with a uniform evaluator.");
    spec.Int("visits", 1600, 10, 1000000, "visits per search");
    spec.Int("repeats", 5, 1, 100, "searches per case; the median is printed");
    spec.Int("seed", 1, 0, INT64_MAX, "random seed");
    Config config(spec);
    if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
    const int visits = static_cast<int>(config.GetInt("visits"));
    const int repeats = static_cast<int>(config.GetInt("repeats"));
    Rng rng(static_cast<uint64_t>(config.GetInt("seed")));
    std::printf("%-7s %-6s %8s %16s %20s\n", "board", "search", "visits", "median visits/s",
                "min..max");
    for (int size : {9, 19}) {
      for (bool full : {false, true}) {
        std::vector<double> runs;
        for (int r = 0; r < repeats; ++r) runs.push_back(VisitsPerSecond(size, visits, full, rng));
        std::printf("%2dx%-4d %-6s %8d %16.0f %10.0f..%.0f\n", size, size, full ? "full" : "cheap",
                    visits, tengen::bench::Median(runs),
                    *std::min_element(runs.begin(), runs.end()),
                    *std::max_element(runs.begin(), runs.end()));
      }
    }
    return 0;
  });
}
