#include "nn/eval_cache.h"

#include <algorithm>
#include <cstring>

#include "util/error.h"
#include "util/rng.h"

namespace tengen::nn {
namespace {

// Two independent 64-bit chains over the floats' bit patterns, two floats a word.
void HashFloats(const float* values, size_t count, EvalCacheKey* key) {
  for (size_t i = 0; i < count; i += 2) {
    uint32_t bits[2] = {0, 0};
    std::memcpy(bits, values + i, (i + 1 < count ? 2 : 1) * sizeof(float));
    const uint64_t word = (static_cast<uint64_t>(bits[1]) << 32) | bits[0];
    key->a = MixBits(key->a ^ word);
    key->b = MixBits(key->b + word * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
  }
}

}  // namespace

EvalCacheKey InputKey(const float* spatial, size_t spatial_count, const float* global,
                      size_t global_count) {
  EvalCacheKey key{0x243f6a8885a308d3ULL ^ spatial_count, 0x13198a2e03707344ULL ^ global_count};
  HashFloats(spatial, spatial_count, &key);
  HashFloats(global, global_count, &key);
  return key;
}

int64_t EvalCache::BytesFor(int64_t entries, int pos_len) {
  const int64_t area = static_cast<int64_t>(pos_len) * pos_len;
  return entries * (static_cast<int64_t>(sizeof(float)) * (2 * area + 5) +
                    static_cast<int64_t>(sizeof(EvalCacheKey)) + 1);
}

EvalCache::EvalCache(int64_t entries, int pos_len)
    : entries_(entries),
      area_(pos_len * pos_len),
      payload_floats_(static_cast<size_t>(2 * area_ + 5)),
      locks_(new std::mutex[kLockStripes]) {
  TENGEN_CHECK(entries >= 1, "an evaluation cache needs at least one entry");
  TENGEN_CHECK(pos_len >= 1, "an evaluation cache needs a positive pos_len");
  keys_.resize(static_cast<size_t>(entries));
  used_.assign(static_cast<size_t>(entries), 0);
  payload_.resize(static_cast<size_t>(entries) * payload_floats_);
}

bool EvalCache::Lookup(const EvalCacheKey& key, RowOutput* out) {
  lookups_.fetch_add(1, std::memory_order_relaxed);
  const size_t slot = SlotOf(key);
  const size_t area = static_cast<size_t>(area_);
  out->policy_logits.resize(area + 1);
  out->ownership.resize(area);
  {
    std::lock_guard<std::mutex> lock(LockOf(slot));
    if (!used_[slot] || !(keys_[slot] == key)) return false;
    const float* p = Payload(slot);
    std::copy(p, p + area + 1, out->policy_logits.begin());
    std::copy(p + area + 1, p + area + 4, out->value_logits);
    out->score = p[area + 4];
    std::copy(p + area + 5, p + 2 * area + 5, out->ownership.begin());
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void EvalCache::Store(const EvalCacheKey& key, const RowOutput& outputs) {
  const size_t area = static_cast<size_t>(area_);
  TENGEN_CHECK(outputs.policy_logits.size() == area + 1 && outputs.ownership.size() == area,
               "cached outputs must match the cache's pos_len");
  const size_t slot = SlotOf(key);
  std::lock_guard<std::mutex> lock(LockOf(slot));
  float* p = Payload(slot);
  std::copy(outputs.policy_logits.begin(), outputs.policy_logits.end(), p);
  std::copy(outputs.value_logits, outputs.value_logits + 3, p + area + 1);
  p[area + 4] = outputs.score;
  std::copy(outputs.ownership.begin(), outputs.ownership.end(), p + area + 5);
  keys_[slot] = key;
  used_[slot] = 1;
}

void EvalCache::Clear() {
  for (size_t stripe = 0; stripe < kLockStripes; ++stripe) {
    std::lock_guard<std::mutex> lock(locks_[stripe]);
    for (size_t slot = stripe; slot < used_.size(); slot += kLockStripes) used_[slot] = 0;
  }
}

}  // namespace tengen::nn
