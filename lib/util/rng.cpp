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

void Rng::Reseed(uint64_t seed) {
  seed_ = seed;
  uint64_t state = seed;
  for (uint64_t& word : s_) word = SplitMix64(&state);
}

}  // namespace tengen
