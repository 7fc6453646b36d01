// The evaluation cache: a stored position comes back exactly, an absent one misses, a new
// position takes over its slot, the key tells apart inputs that differ in one value, and
// threads storing and reading at once never see one position's outputs mixed with another's.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "go/game.h"
#include "go/rules.h"
#include "nn/eval_cache.h"
#include "nn/features.h"
#include "util/error.h"

namespace tengen::nn {
namespace {

constexpr int kPosLen = 5;
constexpr int kArea = kPosLen * kPosLen;

// Outputs that are a function of `seed` in every value, so that a torn or wrong copy shows.
RowOutput OutputsOf(int seed) {
  RowOutput out;
  out.policy_logits.resize(kArea + 1);
  out.ownership.resize(kArea);
  for (int i = 0; i <= kArea; ++i) out.policy_logits[i] = static_cast<float>(seed * 1000 + i);
  for (int i = 0; i < kArea; ++i) out.ownership[i] = static_cast<float>(seed) - 0.5f * i;
  out.value_logits[0] = static_cast<float>(seed);
  out.value_logits[1] = static_cast<float>(-seed);
  out.value_logits[2] = 0.25f * seed;
  out.score = 3.0f * seed;
  return out;
}

bool SameOutputs(const RowOutput& a, const RowOutput& b) {
  return a.policy_logits == b.policy_logits && a.ownership == b.ownership &&
         a.value_logits[0] == b.value_logits[0] && a.value_logits[1] == b.value_logits[1] &&
         a.value_logits[2] == b.value_logits[2] && a.score == b.score;
}

EvalCacheKey KeyOf(int seed) { return {static_cast<uint64_t>(seed) * 7919, ~uint64_t(seed)}; }

// The key of a position's identity inputs, as NetLeafEvaluator computes it.
EvalCacheKey KeyOfState(const go::GameState& state) {
  std::vector<float> spatial(kNumSpatialFeatures * kArea), global(kNumGlobalFeatures);
  FillFeatures(state, kPosLen, 0, spatial.data(), global.data());
  return InputKey(spatial.data(), spatial.size(), global.data(), global.size());
}

TEST_CASE("eval cache: a stored position comes back exactly; others miss; hits are counted") {
  EvalCache cache(64, kPosLen);
  RowOutput out;
  CHECK_FALSE(cache.Lookup(KeyOf(1), &out));
  cache.Store(KeyOf(1), OutputsOf(1));
  cache.Store(KeyOf(2), OutputsOf(2));
  REQUIRE(cache.Lookup(KeyOf(1), &out));
  CHECK(SameOutputs(out, OutputsOf(1)));
  REQUIRE(cache.Lookup(KeyOf(2), &out));
  CHECK(SameOutputs(out, OutputsOf(2)));
  CHECK_FALSE(cache.Lookup(KeyOf(3), &out));
  CHECK(cache.lookups() == 4);
  CHECK(cache.hits() == 2);
}

TEST_CASE("eval cache: cleared, it forgets every position and keeps its counts") {
  EvalCache cache(200, kPosLen);
  RowOutput out;
  for (int seed = 0; seed < 100; ++seed) cache.Store(KeyOf(seed), OutputsOf(seed));
  REQUIRE(cache.Lookup(KeyOf(99), &out));
  cache.Clear();
  for (int seed = 0; seed < 100; ++seed) CHECK_FALSE(cache.Lookup(KeyOf(seed), &out));
  CHECK(cache.lookups() == 101);
  CHECK(cache.hits() == 1);
  cache.Store(KeyOf(5), OutputsOf(5));
  REQUIRE(cache.Lookup(KeyOf(5), &out));
  CHECK(SameOutputs(out, OutputsOf(5)));
}

TEST_CASE("eval cache: a position takes its slot over from the one that held it") {
  EvalCache cache(1, kPosLen);  // every key shares the one slot
  RowOutput out;
  cache.Store(KeyOf(1), OutputsOf(1));
  cache.Store(KeyOf(2), OutputsOf(2));
  CHECK_FALSE(cache.Lookup(KeyOf(1), &out));
  REQUIRE(cache.Lookup(KeyOf(2), &out));
  CHECK(SameOutputs(out, OutputsOf(2)));
  // Two keys that differ in their second half only are different positions.
  CHECK_FALSE(cache.Lookup({KeyOf(2).a, KeyOf(2).b + 1}, &out));
}

TEST_CASE("eval cache: outputs of another pos_len and an empty cache are refused") {
  EvalCache cache(4, kPosLen);
  RowOutput wrong;
  wrong.policy_logits.resize(10);
  wrong.ownership.resize(9);
  CHECK_THROWS_AS(cache.Store(KeyOf(1), wrong), CheckError);
  CHECK_THROWS_AS(EvalCache(0, kPosLen), CheckError);
  CHECK(EvalCache::BytesFor(1000, 9) == 1000 * (4 * (2 * 81 + 5) + 17));
}

// A game of komi `komi` after the moves at `points` (x, y), Black first.
go::GameState Played(double komi, const std::vector<std::pair<int, int>>& points) {
  go::Rules rules;
  rules.komi = komi;
  go::GameState state(kPosLen, rules);
  for (const auto& [x, y] : points) state.Play({go::MakeLoc(x, y, kPosLen), state.to_move()});
  return state;
}

TEST_CASE("eval cache: the key tells apart positions the net sees differently, not others") {
  const go::GameState a = Played(7.5, {{1, 1}, {3, 3}, {1, 3}, {3, 1}});
  CHECK(KeyOfState(a) == KeyOfState(Played(7.5, {{1, 1}, {3, 3}, {1, 3}, {3, 1}})));
  // The same stones by another move order: the planes of the last moves differ.
  CHECK_FALSE(KeyOfState(a) == KeyOfState(Played(7.5, {{1, 3}, {3, 1}, {1, 1}, {3, 3}})));
  CHECK_FALSE(KeyOfState(a) == KeyOfState(Played(6.5, {{1, 1}, {3, 3}, {1, 3}, {3, 1}})));
  // One input value changed anywhere changes the key.
  std::vector<float> spatial(kNumSpatialFeatures * kArea, 0.0f), global(kNumGlobalFeatures, 0.0f);
  const EvalCacheKey base = InputKey(spatial.data(), spatial.size(), global.data(), global.size());
  for (size_t i = 0; i < spatial.size(); i += 37) {
    spatial[i] = 1;
    CHECK_FALSE(InputKey(spatial.data(), spatial.size(), global.data(), global.size()) == base);
    spatial[i] = 0;
  }
  global.back() = 1;
  CHECK_FALSE(InputKey(spatial.data(), spatial.size(), global.data(), global.size()) == base);
}

TEST_CASE("eval cache: threads storing and reading at once never see mixed outputs") {
  // 40 positions that every thread uses, in 32 slots: threads read and write the same slots at
  // once, and eight pairs of positions keep taking a slot from each other.
  EvalCache cache(32, kPosLen);
  std::atomic<int> torn{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, &torn, &hits, t] {
      RowOutput out;
      for (int i = 0; i < 20000; ++i) {
        const int seed = (i * 7 + t * 13) % 40;
        if (cache.Lookup(KeyOf(seed), &out)) {
          ++hits;
          if (!SameOutputs(out, OutputsOf(seed))) ++torn;
        } else {
          cache.Store(KeyOf(seed), OutputsOf(seed));
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(torn == 0);
  CHECK(hits > 0);
  CHECK(cache.lookups() == 80000);
  CHECK(cache.hits() == hits);
}

}  // namespace
}  // namespace tengen::nn
