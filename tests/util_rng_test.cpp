// The random generator's helpers: DrawIndex's proportions and its empty case, MixBits.
#include <doctest/doctest.h>

#include <vector>

#include "util/rng.h"

using namespace tengen;

TEST_CASE("rng: DrawIndex draws in proportion to the weights, never a zero weight") {
  Rng rng(1);
  const std::vector<double> weights = {1, 0, 3, 0};
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < 40000; ++i) {
    const int index = DrawIndex(weights, rng);
    REQUIRE(index >= 0);
    REQUIRE(index < 4);
    ++counts[index];
  }
  CHECK(counts[1] == 0);
  CHECK(counts[3] == 0);
  // 1 : 3, within a few standard deviations (about 87 draws).
  CHECK(counts[0] > 9600);
  CHECK(counts[0] < 10400);
}

TEST_CASE("rng: DrawIndex of weights summing to 0 is -1 and draws nothing") {
  Rng rng(2), untouched(2);
  CHECK(DrawIndex({0, 0, 0}, rng) == -1);
  CHECK(DrawIndex({}, rng) == -1);
  CHECK(rng.Next() == untouched.Next());
}

TEST_CASE("rng: MixBits spreads every input bit") {
  // Flipping any one input bit flips about half the output bits.
  const uint64_t base = MixBits(0x0123456789abcdefULL);
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t flipped = MixBits(0x0123456789abcdefULL ^ (uint64_t{1} << bit));
    const int changed = __builtin_popcountll(base ^ flipped);
    CHECK(changed > 16);
    CHECK(changed < 48);
  }
}
