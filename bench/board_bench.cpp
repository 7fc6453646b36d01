// Random-playout speed of the rules engine: moves per second on 9x9 and 19x19, for whole
// games played with GameState (positional superko, as selfplay and GTP play) and with the
// bare Board (simple ko, as a playout inside search would). Prints the median of several runs.
//
//   build/release/bin/tengen-bench-board [--seconds 1] [--repeats 5]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <vector>

#include "bench_util.h"
#include "go/board.h"
#include "go/game.h"
#include "go/playout.h"
#include "util/config.h"
#include "util/program.h"
#include "util/rng.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace tengen;

// Plays whole random games with GameState until `seconds` pass; returns moves/s.
double GameStateMovesPerSecond(int size, double seconds, Rng& rng) {
  long moves = 0;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    go::GameState game(size, go::Rules(), 3 * size * size);
    while (!game.IsOver()) {
      game.Play({go::RandomNonEyeMove(game, rng), game.to_move()});
      ++moves;
    }
  }
  return moves / std::chrono::duration<double>(Clock::now() - start).count();
}

// The same on a bare Board with simple ko: candidates drawn uniformly, eyes skipped.
double BoardMovesPerSecond(int size, double seconds, Rng& rng) {
  long moves = 0;
  std::vector<go::Loc> candidates;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    go::Board board(size);
    go::Color to_move = go::Color::kBlack;
    int passes = 0;
    for (int turn = 0; turn < 3 * size * size && passes < 2; ++turn) {
      candidates.clear();
      for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
          const go::Loc loc = board.LocOf(x, y);
          if (board.At(loc) == go::Color::kEmpty && !board.IsSimpleEye(loc, to_move))
            candidates.push_back(loc);
        }
      go::Loc chosen = go::kPassLoc;
      while (!candidates.empty()) {
        const uint32_t i = rng.Uniform(static_cast<uint32_t>(candidates.size()));
        if (board.IsLegal(candidates[i], to_move, false)) {
          chosen = candidates[i];
          break;
        }
        candidates[i] = candidates.back();
        candidates.pop_back();
      }
      if (chosen == go::kPassLoc) {
        board.PlayPass();
        ++passes;
      } else {
        board.Play(chosen, to_move);
        passes = 0;
      }
      to_move = go::Opponent(to_move);
      ++moves;
    }
  }
  return moves / std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  return RunProgram("tengen-bench-board", [&] {
    ConfigSpec spec("tengen-bench-board", "Random-playout moves/s of the rules engine.");
    spec.Double("seconds", 1.0, 0.05, 60, "seconds per measurement");
    spec.Int("repeats", 5, 1, 100, "measurements per case; the median is printed");
    spec.Int("seed", 1, 0, INT64_MAX, "random seed");
    Config config(spec);
    if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
    const double seconds = config.GetDouble("seconds");
    const int repeats = static_cast<int>(config.GetInt("repeats"));
    Rng rng(static_cast<uint64_t>(config.GetInt("seed")));
    std::printf("%-7s %-28s %14s %14s\n", "board", "engine", "median mv/s", "min..max");
    for (int size : {9, 19}) {
      for (int engine = 0; engine < 2; ++engine) {
        std::vector<double> runs;
        for (int r = 0; r < repeats; ++r)
          runs.push_back(engine == 0 ? GameStateMovesPerSecond(size, seconds, rng)
                                     : BoardMovesPerSecond(size, seconds, rng));
        std::printf("%2dx%-4d %-28s %14.0f %8.0f..%.0f\n", size, size,
                    engine == 0 ? "GameState (positional sk)" : "Board (simple ko)",
                    tengen::bench::Median(runs), *std::min_element(runs.begin(), runs.end()),
                    *std::max_element(runs.begin(), runs.end()));
      }
    }
    return 0;
  });
}
