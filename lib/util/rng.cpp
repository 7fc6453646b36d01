#include "util/rng.h"

#include <unistd.h>

#include <chrono>
#include <random>

namespace tengen {
namespace {

uint64_t SplitMix64(uint64_t* state) { return MixBits(*state += 0x9E3779B97F4A7C15ULL); }

}  // namespace

Rng::Rng() {
  std::random_device device;
  uint64_t seed = (static_cast<uint64_t>(device()) << 32) ^ device();
  seed ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  seed ^= static_cast<uint64_t>(getpid()) << 17;
  Reseed(seed);
}

uint64_t SeedOrFresh(int64_t seed) {
  if (seed != 0) return static_cast<uint64_t>(seed);
  return Rng().Next() % static_cast<uint64_t>(kMaxSeed) + 1;
}

int DrawIndex(const std::vector<double>& weights, Rng& rng) {
  double total = 0;
  for (double w : weights) total += w;
  if (total <= 0) return -1;
  double draw = rng.UniformDouble() * total;
  int last = -1;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    last = static_cast<int>(i);
    draw -= weights[i];
    if (draw < 0) break;
  }
  return last;  // the last positive weight also takes what rounding leaves at the very end
}

void Rng::Reseed(uint64_t seed) {
  seed_ = seed;
  uint64_t state = seed;
  for (uint64_t& word : s_) word = SplitMix64(&state);
}

}  // namespace tengen
