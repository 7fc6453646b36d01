#pragma once
// A small, fast, seedable random generator (xoshiro256**) with a splitmix64 seeder. It is a
// value type so that each thread or game owns its own; Seed() records what it was seeded with
// so that games can write their seed into SGF files and be replayed.

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tengen {

// Seeds given as options stay at or below 2^53 so that ConfigSpec's double bounds hold them
// exactly.
constexpr int64_t kMaxSeed = int64_t{1} << 53;

// splitmix64's finaliser: every input bit reaches every output bit (hashes, derived seeds).
inline uint64_t MixBits(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Rng {
 public:
  using result_type = uint64_t;

  // Seeds from the OS entropy source, the clock and the pid.
  Rng();
  explicit Rng(uint64_t seed) { Reseed(seed); }

  void Reseed(uint64_t seed);
  uint64_t seed() const { return seed_; }

  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
  uint64_t operator()() { return Next(); }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n); n > 0. Lemire's multiply-shift, bias below 2^-32 for n < 2^32.
  uint32_t Uniform(uint32_t n) {
    return static_cast<uint32_t>(((Next() >> 32) * static_cast<uint64_t>(n)) >> 32);
  }
  // Uniform in [0, 1).
  double UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Standard normal (Box-Muller; one of the pair is used).
  double Normal() {
    const double u = 1.0 - UniformDouble();  // in (0, 1]: log(u) is finite
    const double v = UniformDouble();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t seed_ = 0;
  uint64_t s_[4] = {0, 0, 0, 0};
};

// `seed` when it is not 0; otherwise a fresh seed in [1, kMaxSeed], which a program logs so that
// the run can be replayed by passing it back as its seed option.
uint64_t SeedOrFresh(int64_t seed);

// An index of `weights` (none negative) drawn with probability proportional to its weight; -1,
// and nothing drawn from `rng`, when they sum to 0.
int DrawIndex(const std::vector<double>& weights, Rng& rng);

}  // namespace tengen
