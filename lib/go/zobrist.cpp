#include "go/zobrist.h"

#include <array>

#include "util/rng.h"

namespace tengen::go {
namespace {

// Keys from a fixed seed: hashes must agree across processes and runs.
constexpr uint64_t kZobristSeed = 0x7465'6e67'656e'2d31ULL;  // "tengen-1"

struct ZobristTable {
  std::array<std::array<uint64_t, kMaxArraySize>, 2> keys;
  ZobristTable() {
    Rng rng(kZobristSeed);
    for (auto& row : keys)
      for (uint64_t& key : row) key = rng.Next();
  }
};

}  // namespace

uint64_t ZobristStone(Loc loc, Color color) {
  static const ZobristTable table;
  return table.keys[color == Color::kBlack ? 0 : 1][loc];
}

}  // namespace tengen::go
