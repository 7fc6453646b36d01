// tengen-gtp: a GTP version 2 engine on stdin/stdout. Until a net exists it plays uniformly
// random legal moves that never fill its own single-point eyes, which is enough to check
// rules against other engines (tests/gtp_gnugo_test.cpp relays games with GNU Go).

#include <cstdint>
#include <iostream>
#include <memory>

#include "gtp/gtp_engine.h"
#include "pipeline/rules_config.h"
#include "util/config.h"
#include "util/program.h"
#include "util/rng.h"

namespace tengen {
namespace {

constexpr int64_t kMaxMoveCap = 10000;

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-gtp",
                  "A GTP version 2 engine (random play until nets exist) on stdin/stdout.");
  pipeline::DeclareRulesOptions(spec);
  spec.Int("board_size", 19, go::kMinSize, go::kMaxSize, "board size at start and clear_board");
  spec.Int("seed", 0, 0, kMaxSeed, "random seed for genmove (0: a fresh random seed)");
  spec.Int("max_moves", 0, 0, kMaxMoveCap, "move cap: genmove passes once reached (0: none)");
  return spec;
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;

  gtp::GtpOptions options;
  options.rules = pipeline::RulesFromConfig(config);
  options.board_size = static_cast<int>(config.GetInt("board_size"));
  options.max_moves = static_cast<int>(config.GetInt("max_moves"));
  const uint64_t seed = SeedOrFresh(config.GetInt("seed"));
  // GTP owns stdout; the seed goes to stderr so that a game can be replayed.
  std::cerr << "tengen-gtp: seed " << seed << "\n";

  gtp::GtpEngine engine(options, std::make_unique<gtp::RandomMoveGenerator>(seed));
  engine.Run(std::cin, std::cout);
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-gtp", [&] { return tengen::Main(argc, argv); });
}
